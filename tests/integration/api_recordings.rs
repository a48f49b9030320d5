//! The web services' answers in tests/fixtures/apis/ stay honest: each has a note saying where
//! it came from, each is replayed by some test, and the README's table of what each tool is
//! tested against names every real recording and nothing that is not there.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const APIS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/apis");

/// The data files (every file but the notes).
fn answers() -> BTreeSet<String> {
    fs::read_dir(APIS)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.ends_with(".md"))
        .collect()
}

fn stem(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// A recording made by others (or published by the service's maintainers) has a note of its
/// own beside it; the bodies built here from a service's documentation share one note per
/// service that says so.
fn has_own_note(name: &str) -> bool {
    Path::new(APIS).join(format!("{}.md", stem(name))).exists()
}

fn notes() -> String {
    let mut all = String::new();
    for entry in fs::read_dir(APIS).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "md") {
            all.push_str(&fs::read_to_string(path).unwrap());
        }
    }
    all
}

/// Every `.rs` file's text under these directories.
fn sources(dirs: &[&str]) -> String {
    fn walk(dir: &Path, into: &mut String) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, into);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                into.push_str(&fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut all = String::new();
    for dir in dirs {
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut all);
    }
    all
}

#[test]
fn every_answer_has_a_note_and_a_test() {
    let notes = notes();
    let code = sources(&["tests", "src"]);
    for name in answers() {
        assert!(
            has_own_note(&name) || notes.contains(&name),
            "tests/fixtures/apis/{name} has no note: add {}.md (where it came from, how exactly \
             it was kept, what a client must read in it) or name it in its service's note",
            stem(&name)
        );
        assert!(
            code.contains(&name),
            "tests/fixtures/apis/{name} is replayed by no test"
        );
    }
}

/// The `service_*` patterns of the README's table "What each tool is tested against".
fn readme_patterns() -> Vec<String> {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("#### What each tool is tested against")
        .expect("the README has its table of what each tool is tested against");
    let table = &readme[start..];
    let table = &table[..table[4..].find("\n#").map_or(table.len(), |end| end + 4)];
    // The second column of each row: the first names tools (`blender_*` among them).
    table
        .lines()
        .filter(|line| line.starts_with("| "))
        .filter_map(|row| row.trim_end_matches(" |").rsplit_once(" | "))
        .flat_map(|(_, tested)| tested.split('`').skip(1).step_by(2))
        .filter(|code| code.ends_with('*'))
        .map(|code| code.trim_end_matches('*').to_string())
        .collect()
}

#[test]
fn the_readme_names_every_real_recording_and_only_those() {
    let patterns = readme_patterns();
    assert!(patterns.len() > 20, "{patterns:?}");
    let recordings: Vec<String> = answers().into_iter().filter(|n| has_own_note(n)).collect();
    for prefix in &patterns {
        assert!(
            recordings
                .iter()
                .any(|name| name.starts_with(prefix.as_str())),
            "the README says tools are tested against `{prefix}*`, but no recording in \
             tests/fixtures/apis/ has that name"
        );
    }
    for name in &recordings {
        assert!(
            patterns
                .iter()
                .any(|prefix| name.starts_with(prefix.as_str())),
            "the README's table of what each tool is tested against does not name \
             tests/fixtures/apis/{name}"
        );
    }
}
