//! What a server's `WWW-Authenticate` answer asks for (RFC 6750 §3, RFC 9728 §5.1): the
//! parameters of its `Bearer` challenge (`resource_metadata`, `scope`, `error`), quoted or not,
//! other schemes' parameters left aside.

/// The parameters of a `Bearer` challenge that the sign-in acts on.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Challenge {
    /// Where the protected-resource metadata is (RFC 9728).
    pub(crate) resource_metadata: Option<String>,
    /// The scope the request needs.
    pub(crate) scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`…
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// Whether the server wants a token with more scope (a 403 for a step-up).
    pub(crate) fn wants_more_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The `Bearer` challenge of a `WWW-Authenticate` value (several challenges may share it).
pub(crate) fn parse(header: &str) -> Challenge {
    let mut challenge = Challenge::default();
    let mut bearer = false;
    let mut rest = header.trim_start();
    while !rest.is_empty() {
        let end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let token = &rest[..end];
        rest = rest[end..].trim_start();
        match rest.strip_prefix('=') {
            Some(after) if !token.is_empty() => {
                let (value, after) = value(after.trim_start());
                rest = after;
                if bearer {
                    let slot = match token.to_ascii_lowercase().as_str() {
                        "resource_metadata" => Some(&mut challenge.resource_metadata),
                        "scope" => Some(&mut challenge.scope),
                        "error" => Some(&mut challenge.error),
                        _ => None,
                    };
                    if let Some(slot) = slot {
                        *slot = Some(value);
                    }
                }
            }
            // A token68 (`Basic dXNlcg==`) or stray `=`: skipped.
            Some(after) => rest = after.trim_start_matches('='),
            // A scheme starts a new challenge.
            None if !token.is_empty() => bearer = token.eq_ignore_ascii_case("bearer"),
            None => {}
        }
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
    }
    challenge
}

/// A parameter's value (a quoted string with `\` escapes, or a token) and what follows it.
fn value(text: &str) -> (String, &str) {
    let Some(quoted) = text.strip_prefix('"') else {
        let end = text
            .find(|c: char| c == ',' || c.is_whitespace())
            .unwrap_or(text.len());
        return (text[..end].to_string(), &text[end..]);
    };
    let mut out = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &quoted[i + 1..]),
            '\\' => out.extend(chars.next().map(|(_, c)| c)),
            c => out.push(c),
        }
    }
    (out, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_are_read_whatever_their_form() {
        // The header, then its resource_metadata, scope and error.
        type Case<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);
        let cases: &[Case] = &[
            // The conformance suite's step-up answer.
            (
                r#"Bearer scope="mcp:basic mcp:write", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", error="insufficient_scope""#,
                Some("http://localhost:1/.well-known/oauth-protected-resource/mcp"),
                Some("mcp:basic mcp:write"),
                Some("insufficient_scope"),
            ),
            // The TypeScript SDK's bearerAuth middleware.
            (
                r#"Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp""#,
                Some("https://a.example/.well-known/oauth-protected-resource/mcp"),
                None,
                Some("invalid_token"),
            ),
            ("Bearer", None, None, None),
            (
                "bearer scope=read,error=invalid_token",
                None,
                Some("read"),
                Some("invalid_token"),
            ),
            (r#"Bearer scope="a \"b\"""#, None, Some(r#"a "b""#), None),
            // Another scheme's parameters are not the Bearer challenge's.
            (
                r#"Basic realm="x", scope="no", Bearer scope="yes""#,
                None,
                Some("yes"),
                None,
            ),
            (
                r#"Basic dXNlcjpwYXNz==, Bearer scope=s"#,
                None,
                Some("s"),
                None,
            ),
            (r#"DPoP scope="no""#, None, None, None),
            (
                r#"Bearer scope="unterminated"#,
                None,
                Some("unterminated"),
                None,
            ),
        ];
        for (header, metadata, scope, error) in cases {
            let parsed = parse(header);
            assert_eq!(parsed.resource_metadata.as_deref(), *metadata, "{header}");
            assert_eq!(parsed.scope.as_deref(), *scope, "{header}");
            assert_eq!(parsed.error.as_deref(), *error, "{header}");
        }
        assert!(parse(r#"Bearer error="insufficient_scope""#).wants_more_scope());
        assert!(!parse(r#"Bearer error="invalid_token""#).wants_more_scope());
    }
}
