//! bookmark_save, bookmark_list and bookmark_search keep the profile's bookmarks.json.

use super::run;
use crate::common::TempDir;

fn profile(home: &TempDir) -> std::path::PathBuf {
    home.path().join("marvin-home/profiles/default")
}

#[test]
fn bookmarks_are_saved_updated_listed_and_searched() {
    let home = TempDir::new("bookmarks");
    let saved = run(
        &home,
        &[(
            "1",
            "bookmark_save",
            r#"{"url": "https://doc.rust-lang.org/book/", "title": "The Rust Book", "tags": ["Rust", "docs", "rust"]}"#,
        )],
        &[],
    );
    assert_eq!(
        saved.results,
        ["Saved the bookmark 'The Rust Book' (https://doc.rust-lang.org/book/); 1 saved in all."],
        "{}",
        saved.stderr()
    );
    let again = run(
        &home,
        &[(
            "1",
            "bookmark_save",
            r#"{"url": "https://doc.rust-lang.org/book/", "title": "Rust Book", "tags": ["rust"], "notes": "ch. 8"}"#,
        )],
        &[],
    );
    assert_eq!(
        again.results,
        ["Updated the bookmark 'Rust Book' (https://doc.rust-lang.org/book/); 1 saved in all."]
    );
    let more = run(
        &home,
        &[(
            "1",
            "bookmark_save",
            r#"{"url": "https://pasta.example/carbonara", "tags": ["recipes"]}"#,
        )],
        &[],
    );
    assert!(more.results[0].starts_with("Saved the bookmark 'https://pasta.example/carbonara'"));
    let read = run(
        &home,
        &[
            ("1", "bookmark_list", "{}"),
            ("2", "bookmark_list", r#"{"tag": "RUST"}"#),
            ("3", "bookmark_list", r#"{"tag": "golf"}"#),
            ("4", "bookmark_search", r#"{"query": "rust CH. 8"}"#),
            ("5", "bookmark_search", r#"{"query": "python"}"#),
            ("6", "bookmark_save", r#"{"url": "doc.rust-lang.org"}"#),
        ],
        &[],
    );
    let lines: Vec<&str> = read.results[0].lines().collect();
    assert_eq!(lines.len(), 2, "{}", read.results[0]);
    assert!(lines[0].starts_with("- https://pasta.example/carbonara — https://pasta.example/carbonara [recipes] (saved 20"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("- Rust Book — https://doc.rust-lang.org/book/ [rust] (saved "),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(") — ch. 8"), "{}", lines[1]);
    assert_eq!(read.results[1], lines[1]);
    assert_eq!(
        read.results[2],
        "No bookmark is tagged 'golf'. Tags in use: recipes, rust."
    );
    assert_eq!(read.results[3], lines[1]);
    assert_eq!(read.results[4], "No bookmark matches 'python' (2 saved).");
    assert!(
        read.results[5].contains("is not a web address"),
        "{}",
        read.results[5]
    );
    let file = std::fs::read_to_string(profile(&home).join("bookmarks.json")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&file).unwrap();
    assert_eq!(value.as_array().unwrap().len(), 2, "{file}");
    assert_eq!(value[0]["title"], "Rust Book");
    assert_eq!(value[0]["tags"], serde_json::json!(["rust"]));
}

#[test]
fn a_corrupt_bookmarks_file_is_moved_aside_with_a_warning() {
    let home = TempDir::new("bookmarks-corrupt");
    let dir = profile(&home);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bookmarks.json"), "[{\"url\": \"https://cut").unwrap();
    let run = run(
        &home,
        &[("1", "bookmark_save", r#"{"url": "https://example.org/"}"#)],
        &[],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", run.stderr());
    assert!(
        run.results[0].starts_with("Saved the bookmark"),
        "{:?}",
        run.results
    );
    assert!(
        run.stderr().contains("bookmarks.json was not valid JSON"),
        "{}",
        run.stderr()
    );
    let aside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("bookmarks.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join(&aside[0])).unwrap(),
        "[{\"url\": \"https://cut"
    );
}

#[test]
fn eight_bookmarks_saved_in_one_round_are_all_kept() {
    let home = TempDir::new("bookmarks-parallel");
    let calls: Vec<(String, String)> = (1..=8)
        .map(|i| {
            let args = format!(r#"{{"url": "https://example.org/t{i}", "title": "t{i}"}}"#);
            (i.to_string(), args)
        })
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "bookmark_save", args.as_str()))
        .collect();
    let saved = run(&home, &calls, &[]);
    assert_eq!(saved.results.len(), 8, "{}", saved.stderr());
    let text = std::fs::read_to_string(profile(&home).join("bookmarks.json")).unwrap();
    for i in 1..=8 {
        assert!(
            text.contains(&format!("https://example.org/t{i}\"")),
            "t{i} lost: {text}"
        );
    }
}
