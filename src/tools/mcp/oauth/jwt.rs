//! A client's signed assertion for `private_key_jwt` (RFC 7523 §2.2, MCP's SEP-1046): a JWT
//! with the client as issuer and subject, the authorization server as audience, a few
//! minutes' life and a random id, signed ES256 with the declared P-256 key (PKCS#8 PEM) by
//! ring, which Marvin already carries.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use serde_json::json;

/// How long an assertion is good for.
const LIFE: i64 = 300;

/// The assertion of client `id` for `audience`, signed with `pem`.
pub(crate) fn assertion(id: &str, audience: &str, pem: &str) -> Result<String, String> {
    let unreadable = |why: &str| {
        format!(
            "the private key declared for the client {id} cannot be used ({why}): it must be a P-256 key in PKCS#8 PEM (BEGIN PRIVATE KEY)"
        )
    };
    let body: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = STANDARD
        .decode(body.trim())
        .map_err(|_| unreadable("not base64"))?;
    let random = SystemRandom::new();
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &random)
        .map_err(|e| unreadable(&e.to_string()))?;
    let now = crate::clock::unix_now();
    let jti = crate::secret::random_hex(16).map_err(|e| e.to_string())?;
    let claims = json!({
        "iss": id, "sub": id, "aud": audience, "iat": now, "exp": now + LIFE, "jti": jti,
    });
    let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256","typ":"JWT"}"#);
    let signed = format!("{header}.{}", URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signature = key
        .sign(&random, signed.as_bytes())
        .map_err(|_| unreadable("signing failed"))?;
    Ok(format!(
        "{signed}.{}",
        URL_SAFE_NO_PAD.encode(signature.as_ref())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, KeyPair, UnparsedPublicKey};
    use serde_json::Value;

    #[test]
    fn the_assertion_is_signed_by_the_key_and_names_client_and_audience() {
        let random = SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random).unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der.as_ref())
        );
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.as_ref(), &random);
        let public = key.unwrap().public_key().as_ref().to_vec();
        let jwt = assertion("c-1", "https://auth.example", &pem).unwrap();
        let (signed, signature) = jwt.rsplit_once('.').unwrap();
        let signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(signed.as_bytes(), &signature)
            .unwrap();
        let claims = signed.split('.').nth(1).unwrap();
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).unwrap()).unwrap();
        assert_eq!(
            (claims["iss"].as_str(), claims["sub"].as_str()),
            (Some("c-1"), Some("c-1"))
        );
        assert_eq!(claims["aud"], "https://auth.example");
        assert_eq!(
            claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(),
            LIFE
        );
        let refused =
            assertion("c-1", "a", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END").unwrap_err();
        assert!(refused.contains("P-256 key in PKCS#8 PEM"), "{refused}");
    }
}
