//! Punycode (RFC 3492): a label of any characters as the ASCII after `xn--`, and back.

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 0x80;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

fn threshold(k: u32, bias: u32) -> u32 {
    k.saturating_sub(bias).clamp(T_MIN, T_MAX)
}

fn digit_char(digit: u32) -> char {
    // Invariant: digits are below BASE, so the byte is ASCII.
    let byte = if digit < 26 {
        b'a' + digit as u8
    } else {
        b'0' + (digit - 26) as u8
    };
    char::from(byte)
}

fn digit_of(c: char) -> Option<u32> {
    match c {
        'a'..='z' => Some(c as u32 - 'a' as u32),
        'A'..='Z' => Some(c as u32 - 'A' as u32),
        '0'..='9' => Some(c as u32 - '0' as u32 + 26),
        _ => None,
    }
}

/// `label` in Punycode (without `xn--`); `None` when it is too long to encode.
pub(super) fn encode(label: &str) -> Option<String> {
    let input: Vec<u32> = label.chars().map(u32::from).collect();
    let mut output: String = label.chars().filter(char::is_ascii).collect();
    let basic = output.len() as u32;
    if basic > 0 {
        output.push('-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (INITIAL_N, 0u32, INITIAL_BIAS, basic);
    while (handled as usize) < input.len() {
        let m = input.iter().copied().filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in &input {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    output.push(digit_char(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                output.push(digit_char(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(output)
}

/// The label `encoded` (without `xn--`) stands for; `None` when it is not valid Punycode.
pub(super) fn decode(encoded: &str) -> Option<String> {
    let (basic, digits) = match encoded.rfind('-') {
        Some(at) => (&encoded[..at], &encoded[at + 1..]),
        None => ("", encoded),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = digits.chars().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut weight = 1u32;
        let mut k = BASE;
        loop {
            let digit = digit_of(digits.next()?)?;
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            k += BASE;
        }
        let length = output.len() as u32 + 1;
        bias = adapt(i - old_i, length, old_i == 0);
        n = n.checked_add(i / length)?;
        i %= length;
        output.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(output.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_go_to_punycode_and_back_as_rfc_3492_says() {
        // RFC 3492 §7.1 (A) and (L), and the URL standard's tests' labels.
        let cases = [
            ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"),
            ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
            ("bücher", "bcher-kva"),
            ("你好你好", "6qqa088eba"),
            ("faß", "fa-hia"),
            ("💩", "ls8h"),
        ];
        for (label, encoded) in cases {
            assert_eq!(encode(label).as_deref(), Some(encoded), "{label}");
            assert_eq!(decode(encoded).as_deref(), Some(label), "{encoded}");
        }
        assert_eq!(decode("pokxncvks").as_deref(), Some("㉓㋎㋍㋓㋕㋘"));
        for bad in ["9999999999", "a-b-ü", "-!"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
