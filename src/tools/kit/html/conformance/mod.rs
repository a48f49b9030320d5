//! html5lib-tests run through Marvin's HTML kit (tests/fixtures/html5lib/, see its NOTE.md):
//! the tokenizer's tokens, the text a page renders to, the encoding the prescan finds.

mod encoding;
mod tokenizer;
mod tree;

use std::path::PathBuf;

/// The fixture files in `dir` (under tests/fixtures/html5lib/) whose names end in `ext`, sorted.
fn fixtures(dir: &str, ext: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/html5lib")
        .join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.to_string_lossy().ends_with(ext))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&path).expect("a fixture"))
        })
        .collect()
}

/// The section headers of `.dat` files.
const HEADERS: &[&[u8]] = &[
    b"#data",
    b"#errors",
    b"#new-errors",
    b"#document",
    b"#document-fragment",
    b"#script-on",
    b"#script-off",
    b"#encoding",
    b"#iframe-srcdoc",
];

/// The `#name` sections of one case of a `.dat` file (tree construction, encoding), each with
/// the lines after its header.
fn dat_cases(text: &[u8]) -> Vec<Vec<(String, Vec<u8>)>> {
    let mut cases = Vec::new();
    let mut sections: Vec<(String, Vec<u8>)> = Vec::new();
    for line in text.split(|b| *b == b'\n') {
        if line == b"#data" && !sections.is_empty() {
            cases.push(finish_case(std::mem::take(&mut sections)));
        }
        if HEADERS.contains(&line) {
            sections.push((String::from_utf8_lossy(&line[1..]).into_owned(), Vec::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.extend_from_slice(line);
            body.push(b'\n');
        }
    }
    if !sections.is_empty() {
        cases.push(finish_case(sections));
    }
    cases
}

/// A case's sections without the newline that ends each (and the empty line between cases).
fn finish_case(mut sections: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    for (_, body) in &mut sections {
        body.pop();
    }
    if let Some((_, body)) = sections.last_mut() {
        while body.last() == Some(&b'\n') {
            body.pop();
        }
    }
    sections
}

/// A count as the project's tests print it: `1,234`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// Prints a corpus's count (and a few failures to start from) and asserts its pass rate.
fn report(
    corpus: &str,
    passed: usize,
    total: usize,
    skipped: &str,
    failures: &[String],
    target: f64,
) {
    for failure in failures
        .iter()
        .take(if std::env::var_os("HTML5LIB_ALL").is_some() {
            usize::MAX
        } else {
            12
        })
    {
        eprintln!("FAIL {failure}");
    }
    eprintln!(
        "html5lib {corpus}: {}/{} passed{skipped}",
        thousands(passed),
        thousands(total)
    );
    assert!(
        passed as f64 >= target * total as f64,
        "{corpus}: {passed}/{total} is below {}%",
        target * 100.0
    );
}
