//! Links as absolute URLs: a relative `href` resolved against the page's address (RFC 3986
//! §5.2, the common cases: scheme-relative, root-relative, query, path with `.` and `..`).

/// `href` as an absolute URL, read against `base`.
pub(crate) fn resolve(base: &str, href: &str) -> String {
    let href = href.trim();
    if has_scheme(href) {
        return href.to_string();
    }
    let Some((scheme, rest)) = base.split_once("://") else {
        return href.to_string();
    };
    if let Some(authority_on) = href.strip_prefix("//") {
        return format!("{scheme}://{authority_on}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    let path_and_more = &rest[authority_end..];
    let path = path_and_more.split(['?', '#']).next().unwrap_or_default();
    if href.is_empty() {
        return format!(
            "{origin}{}",
            path_and_more.split('#').next().unwrap_or_default()
        );
    }
    if href.starts_with('#') {
        return format!(
            "{origin}{}{href}",
            path_and_more.split('#').next().unwrap_or_default()
        );
    }
    if href.starts_with('?') {
        return format!("{origin}{path}{href}");
    }
    let (href_path, tail) = match href.find(['?', '#']) {
        Some(at) => href.split_at(at),
        None => (href, ""),
    };
    let joined = if href_path.starts_with('/') {
        href_path.to_string()
    } else {
        let directory = path.rfind('/').map_or("/", |at| &path[..=at]);
        format!("{directory}{href_path}")
    };
    format!("{origin}{}{tail}", remove_dots(&joined))
}

/// Whether `href` starts with a scheme (`https:`, `mailto:`).
fn has_scheme(href: &str) -> bool {
    let Some((scheme, _)) = href.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A path without its `.` and `..` segments.
fn remove_dots(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').collect();
    for (i, segment) in parts.iter().enumerate() {
        let last = i == parts.len() - 1;
        match *segment {
            "." => {
                if last {
                    segments.push("");
                }
            }
            ".." => {
                if segments.len() > 1 {
                    segments.pop();
                }
                if last {
                    segments.push("");
                }
            }
            other => segments.push(other),
        }
    }
    let joined = segments.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_against_the_page() {
        let base = "https://example.org/docs/guide/page.html?x=1#top";
        let cases: &[(&str, &str)] = &[
            ("https://other.net/a", "https://other.net/a"),
            ("mailto:a@b.c", "mailto:a@b.c"),
            ("//cdn.example.org/x.js", "https://cdn.example.org/x.js"),
            ("/about", "https://example.org/about"),
            ("next.html", "https://example.org/docs/guide/next.html"),
            (
                "./next.html#s",
                "https://example.org/docs/guide/next.html#s",
            ),
            ("../api/?q=1", "https://example.org/docs/api/?q=1"),
            ("../../../../up", "https://example.org/up"),
            ("?page=2", "https://example.org/docs/guide/page.html?page=2"),
            ("#part", "https://example.org/docs/guide/page.html?x=1#part"),
            ("", "https://example.org/docs/guide/page.html?x=1"),
            ("sub/", "https://example.org/docs/guide/sub/"),
            ("..", "https://example.org/docs/"),
        ];
        for (href, expected) in cases {
            assert_eq!(resolve(base, href), *expected, "{href}");
        }
        assert_eq!(
            resolve("https://example.org", "a/b"),
            "https://example.org/a/b"
        );
        assert_eq!(resolve("not a url", "a/b"), "a/b");
    }
}
