//! Waiting out rate limits and passing trouble (a 502/503/504, a connection lost before any
//! answer, a stream cut before any text was shown): the Retry-After headers, backoff with
//! jitter, and the retry loop.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;
use crate::clock::days_from_civil;

/// At most this many retries after the first 429.
pub(crate) const MAX_RETRIES: u32 = 3;
/// At most this many retries after a transient failure (a local server loading its model
/// answers 503 for its first seconds).
pub(crate) const MAX_TRANSIENT_RETRIES: u32 = 2;
/// A service that asks for a longer wait than this is not retried: the user is told instead.
pub(crate) const MAX_HONOURED_WAIT: Duration = Duration::from_secs(120);
/// How long a server still loading its model is waited for, unless MARVIN_LOAD_WAIT says.
pub(crate) const LOAD_WAIT: Duration = Duration::from_secs(60);
/// How often a loading server is asked again.
const LOAD_POLL: Duration = Duration::from_secs(2);

/// What a call may wait for: Ctrl+C ends every wait; a server loading its model is waited
/// for `load` at most.
pub(crate) struct Waits<'a> {
    pub cancel: &'a CancelToken,
    pub load: Duration,
}

/// Whether `error` is a server saying it is still loading its model: llama.cpp's and its
/// kin's 503 "Loading model", vLLM's and LM Studio's words for it.
pub(crate) fn still_loading(error: &LlmError) -> bool {
    let lower = error.message.to_lowercase();
    error.transient
        && (lower.contains("loading model")
            || lower.contains("model is loading")
            || lower.contains("model is still loading")
            || lower.contains("loading the model"))
}

/// The wait the headers ask for: `retry-after-ms` wins, then `retry-after` as seconds or as an
/// HTTP date relative to `now`. Zero, negative, non-finite and malformed values count as absent.
pub(crate) fn parse_retry_after(
    ms: Option<&str>,
    header: Option<&str>,
    now: SystemTime,
) -> Option<Duration> {
    if let Some(millis) = ms.and_then(|v| v.trim().parse::<f64>().ok()) {
        if let Some(wait) = positive_seconds(millis / 1000.0) {
            return Some(wait);
        }
    }
    let header = header?.trim();
    if let Ok(seconds) = header.parse::<f64>() {
        return positive_seconds(seconds);
    }
    let at = parse_http_date(header)?;
    at.duration_since(now).ok().filter(|wait| !wait.is_zero())
}

fn positive_seconds(seconds: f64) -> Option<Duration> {
    if seconds > 0.0 {
        Duration::try_from_secs_f64(seconds).ok()
    } else {
        None
    }
}

/// IMF-fixdate, the only form services send: `Fri, 29 Sep 2023 16:26:57 GMT`.
fn parse_http_date(text: &str) -> Option<SystemTime> {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = text.split_whitespace().collect();
    let [weekday, day, month, year, time, "GMT"] = parts[..] else {
        return None;
    };
    if !DAYS.contains(&weekday.strip_suffix(',')?) {
        return None;
    }
    let day: u32 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let month = MONTHS.iter().position(|m| *m == month)? as u32 + 1;
    let year: i64 = year.parse().ok().filter(|y| (1970..=9999).contains(y))?;
    let mut clock = time.split(':').map(|part| part.parse::<u64>().ok());
    let (h, m, s) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let seconds = u64::try_from(days).ok()? * 86_400 + h * 3600 + m * 60 + s;
    Some(UNIX_EPOCH + Duration::from_secs(seconds))
}

/// Our own wait before retry `attempt` (0-based): 1 s, 2 s, 4 s, each ±25 % so that several
/// clients do not retry in step.
pub(crate) fn backoff(attempt: u32) -> Duration {
    let base = 2f64.powi(attempt.min(6) as i32);
    Duration::from_secs_f64(base * (0.75 + fastrand::f64() * 0.5))
}

/// How many times `error` is worth retrying: a 429 three times, a transient failure twice.
fn retries_for(error: &LlmError) -> u32 {
    if error.kind == ErrorKind::RateLimited {
        MAX_RETRIES
    } else if error.transient && error.kind != ErrorKind::Cancelled {
        MAX_TRANSIENT_RETRIES
    } else {
        0
    }
}

/// Calls the provider, retrying 429s up to [`MAX_RETRIES`] times and transient failures up
/// to [`MAX_TRANSIENT_RETRIES`] times. `notice` tells the user about each wait. Other errors,
/// and waits longer than [`MAX_HONOURED_WAIT`], end the loop at once.
pub(crate) fn chat_with_retry(
    provider: &dyn Provider,
    request: &ChatRequest<'_>,
    on_text: &mut dyn FnMut(&str),
    waits: &Waits<'_>,
    notice: &mut dyn FnMut(String),
) -> Result<ChatResult, LlmError> {
    let cancel = waits.cancel;
    // Each kind keeps its own count: two 503s while a model loads leave a later 429 all of its
    // retries.
    let (mut rate_limited, mut transient) = (0, 0);
    let mut loading_since: Option<std::time::Instant> = None;
    loop {
        let error = match provider.chat(request, on_text, cancel, notice) {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
        if still_loading(&error) {
            let first = loading_since.is_none();
            let since = *loading_since.get_or_insert_with(std::time::Instant::now);
            if since.elapsed() < waits.load {
                if first {
                    notice(format!(
                        "{} is still loading its model; waiting up to {}s for it (MARVIN_LOAD_WAIT)",
                        provider.name(),
                        waits.load.as_secs()
                    ));
                }
                let left = waits.load.saturating_sub(since.elapsed());
                let wait = error.retry_after.unwrap_or(LOAD_POLL).min(left);
                if cancel.sleep(wait) {
                    return Err(LlmError::cancelled());
                }
                continue;
            }
            let mut error = error;
            error.message = format!(
                "{}; the server was still loading its model after {}s (MARVIN_LOAD_WAIT sets how long to wait)",
                error.message,
                waits.load.as_secs()
            );
            return Err(error);
        }
        let retries = retries_for(&error);
        let attempt = if error.kind == ErrorKind::RateLimited {
            &mut rate_limited
        } else {
            &mut transient
        };
        if *attempt >= retries {
            return Err(error);
        }
        let wait = error.retry_after.unwrap_or_else(|| backoff(*attempt));
        if wait > MAX_HONOURED_WAIT {
            let mut error = error;
            error.message = format!(
                "{}; the service asks to wait {}s, try again later",
                error.message,
                wait.as_secs()
            );
            return Err(error);
        }
        let why = if error.kind == ErrorKind::RateLimited {
            format!("{} is rate limiting", provider.name())
        } else {
            error.message
        };
        *attempt += 1;
        notice(format!(
            "{why}; retrying in {:.1}s ({}/{retries})",
            wait.as_secs_f64(),
            *attempt
        ));
        if cancel.sleep(wait) {
            return Err(LlmError::cancelled());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "now" in the OpenAI SDK test table the fixture was taken from.
    const NOW: u64 = 1_696_004_797;

    #[test]
    fn follows_the_recorded_retry_after_table() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/retry_after_header_cases.tsv"
        );
        let table = std::fs::read_to_string(path).unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(NOW);
        let mut rows = 0;
        for line in table.lines().skip(1) {
            let (header, expected) = line.split_once('\t').unwrap();
            let expected: f64 = expected.parse().unwrap();
            let parsed = parse_retry_after(None, Some(header), now);
            let honoured = parsed.filter(|wait| *wait <= MAX_HONOURED_WAIT);
            if expected == 0.5 {
                // The SDK ignores the header: we fall back to our own backoff or decline to wait.
                assert_eq!(honoured, None, "header {header:?}");
            } else {
                let got = honoured.unwrap_or_else(|| panic!("header {header:?} not honoured"));
                assert!(
                    (got.as_secs_f64() - expected).abs() < 0.001,
                    "header {header:?}: {got:?}"
                );
            }
            rows += 1;
        }
        assert_eq!(rows, 20);
    }

    #[test]
    fn retry_after_ms_takes_precedence() {
        let now = UNIX_EPOCH + Duration::from_secs(NOW);
        assert_eq!(
            parse_retry_after(Some("1500"), Some("20"), now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after(Some("junk"), Some("20"), now),
            Some(Duration::from_secs(20))
        );
        let too_long = parse_retry_after(Some("120001"), None, now).unwrap();
        assert!(too_long > MAX_HONOURED_WAIT);
        assert_eq!(
            parse_retry_after(Some("120000"), None, now),
            Some(MAX_HONOURED_WAIT)
        );
    }

    #[test]
    fn rate_limits_and_transient_failures_are_retried_others_not() {
        let error = |kind| LlmError::new(kind, "x");
        let cases = [
            (error(ErrorKind::RateLimited), MAX_RETRIES),
            (error(ErrorKind::Server).transient(), MAX_TRANSIENT_RETRIES),
            (error(ErrorKind::Timeout).transient(), MAX_TRANSIENT_RETRIES),
            (error(ErrorKind::Network).transient(), MAX_TRANSIENT_RETRIES),
            (error(ErrorKind::Server), 0),
            (error(ErrorKind::Timeout), 0),
            (error(ErrorKind::Network), 0),
            (error(ErrorKind::Auth), 0),
            (error(ErrorKind::Protocol), 0),
            (error(ErrorKind::Cancelled).transient(), 0),
        ];
        for (error, retries) in cases {
            assert_eq!(retries_for(&error), retries, "{error:?}");
        }
    }

    #[test]
    fn backoff_doubles_with_jitter() {
        for attempt in 0..3 {
            let base = 2f64.powi(attempt as i32);
            let wait = backoff(attempt).as_secs_f64();
            assert!(
                wait >= base * 0.75 && wait <= base * 1.25,
                "attempt {attempt}: {wait}"
            );
        }
    }
}
