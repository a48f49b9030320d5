//! The secrets of one OAuth sign-in (RFC 7636, S256): a code verifier of 64 URL-safe characters and
//! a `state`, both from the OS's secure randomness, and the challenge sent in the verifier's
//! place, base64url(SHA-256(verifier)) without padding.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::digest::{SHA256, digest};

/// What one sign-in keeps to itself until the service's answer comes back.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
    /// Sent with the authorisation request and checked on the callback.
    pub(crate) state: String,
}

impl Pkce {
    pub(crate) fn new() -> Result<Pkce, String> {
        let random = |bytes| {
            crate::secret::random_hex(bytes)
                .map_err(|e| format!("No secure randomness for a sign-in: {e}."))
        };
        // 32 random bytes as 64 hex digits: URL-safe, within RFC 7636's 43-128 characters.
        let verifier = random(32)?;
        Ok(Pkce {
            challenge: challenge(&verifier),
            verifier,
            state: random(16)?,
        })
    }
}

/// The S256 challenge of `verifier`.
pub(crate) fn challenge(verifier: &str) -> String {
    base64url(digest(&SHA256, verifier.as_bytes()).as_ref())
}

/// Base64 with the URL-safe alphabet (`-`, `_`) and no `=` padding (RFC 4648 §5).
fn base64url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_of_rfc_7636_appendix_b() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn base64url_has_no_padding_and_the_url_safe_alphabet() {
        let cases: &[(&[u8], &str)] = &[
            (b"", ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"foob", "Zm9vYg"),
            (b"fooba", "Zm9vYmE"),
            (b"foobar", "Zm9vYmFy"),
            (&[0xfb, 0xff], "-_8"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(base64url(bytes), *expected, "{bytes:?}");
        }
    }

    #[test]
    fn each_sign_in_has_its_own_verifier_and_state() {
        let (a, b) = (Pkce::new().unwrap(), Pkce::new().unwrap());
        assert_eq!(a.verifier.len(), 64);
        assert!(a.verifier.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(a.challenge, challenge(&a.verifier));
        assert_eq!(a.state.len(), 32);
        assert_ne!(a.verifier, b.verifier);
        assert_ne!(a.state, b.state);
    }
}
