//! The browser pages' files (`form/`), in the binary deflated by build.rs (35 KB instead of
//! 112 KB) and inflated once, the first time one is served; what is served is the file's text,
//! byte for byte. Never on an ask's path: only the interview's and the gateway's pages use them.

/// The text of one file of `form/` (its path under `form/`, a literal), inflated on the first
/// call and kept for the rest of the run.
macro_rules! page_file {
    ($path:literal) => {{
        static TEXT: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
        *TEXT.get_or_init(|| {
            $crate::web::packed::inflate(include_bytes!(concat!(
                env!("OUT_DIR"),
                "/form/",
                $path,
                ".deflate"
            )))
        })
    }};
}
pub(crate) use page_file;

/// A file build.rs deflated, inflated; kept until the program ends (a few files, once each).
pub(crate) fn inflate(packed: &[u8]) -> &'static str {
    let bytes = miniz_oxide::inflate::decompress_to_vec(packed)
        .expect("build.rs deflated the file with miniz_oxide");
    String::from_utf8(bytes)
        .expect("form/'s files are UTF-8 (include_str! had them)")
        .leak()
}

#[cfg(test)]
mod tests {
    /// Every packed file inflates to the repository's file, byte for byte.
    #[test]
    fn page_files_inflate_to_the_files() {
        let root = env!("CARGO_MANIFEST_DIR");
        let file = |path: &str| std::fs::read_to_string(format!("{root}/form/{path}")).unwrap();
        assert_eq!(page_file!("index.html"), file("index.html"));
        assert_eq!(page_file!("styles.css"), file("styles.css"));
        assert_eq!(page_file!("script.js"), file("script.js"));
        assert_eq!(page_file!("blocks.js"), file("blocks.js"));
        assert_eq!(page_file!("gateway/index.html"), file("gateway/index.html"));
        assert_eq!(
            page_file!("gateway/gateway.css"),
            file("gateway/gateway.css")
        );
        assert_eq!(page_file!("gateway/gateway.js"), file("gateway/gateway.js"));
        assert_eq!(page_file!("gateway/cards.js"), file("gateway/cards.js"));
        assert_eq!(
            page_file!("gateway/markdown.js"),
            file("gateway/markdown.js")
        );
    }
}
