//! The built-in families' retrieval entries in `route/built.rs` are the ones the families'
//! words, asks and tools make now; `MARVIN_WRITE_INDEX=1` writes them again.

use super::*;

#[test]
fn built_index_is_up_to_date() {
    let registry = Registry::builtin();
    let source = crate::tools::route::built_source(&registry.built_entries());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tools/route/built.rs");
    if std::env::var_os("MARVIN_WRITE_INDEX").is_some() {
        std::fs::write(path, &source).unwrap();
        return;
    }
    let written = std::fs::read_to_string(path).unwrap();
    assert!(
        written == source,
        "src/tools/route/built.rs is out of date: a family's words, asks or tools changed; run MARVIN_WRITE_INDEX=1 cargo test --lib built_index, then cargo fmt"
    );
}
