//! A profile's saved Wikipedia articles (wiki/<Title>.txt), as wiki_full writes them and
//! wiki_grep reads them: plain text, one file per article, named after its title.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::json::{self, SaveError};

/// The folder, in the profile directory.
const DIR: &str = "wiki";
/// The longest file name kept, in bytes, before `.txt`.
const MAX_NAME: usize = 120;

/// Where the articles are.
pub(crate) fn dir(profile_dir: &Path) -> PathBuf {
    profile_dir.join(DIR)
}

/// The file of the article `title`: spaces as `_`, no path separators or characters a shell
/// or another system would trip on, never hidden, at most [`MAX_NAME`] bytes.
pub(crate) fn file_name(title: &str) -> String {
    let mut name = String::new();
    for c in title.trim().chars() {
        let c = match c {
            ' ' | '_' => '_',
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '-',
            c if c.is_control() => continue,
            c => c,
        };
        if name.len() + c.len_utf8() > MAX_NAME {
            break;
        }
        name.push(c);
    }
    let name = name.trim_start_matches('.');
    let name = if name.is_empty() { "article" } else { name };
    format!("{name}.txt")
}

/// Saves `text` as the article `title` in one step; its path.
pub(crate) fn save(profile_dir: &Path, title: &str, text: &str) -> Result<PathBuf, SaveError> {
    let path = dir(profile_dir).join(file_name(title));
    json::replace(&path, text.as_bytes()).map_err(SaveError::at(&path))?;
    Ok(path)
}

/// The saved article named `name` (a title, a file name or a path wiki_full gave), if any: only
/// files of the folder are read, whatever path the name claims.
pub(crate) fn read(profile_dir: &Path, name: &str) -> io::Result<(PathBuf, String)> {
    let name = name.trim();
    let file = match Path::new(name).file_name().and_then(|f| f.to_str()) {
        Some(file) if name.ends_with(".txt") => file.to_string(),
        _ => file_name(name),
    };
    let path = dir(profile_dir).join(file);
    let text = fs::read_to_string(&path)?;
    Ok((path, text))
}

/// The titles saved (file names without `.txt`, `_` as spaces), sorted.
pub(crate) fn list(profile_dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir(profile_dir)) else {
        return Vec::new();
    };
    let mut titles: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".txt")
                .map(str::to_string)
        })
        .map(|name| name.replace('_', " "))
        .collect();
    titles.sort();
    titles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_safe_file_names() {
        let long = "x".repeat(300);
        let cases: &[(&str, &str)] = &[
            ("Douglas Adams", "Douglas_Adams.txt"),
            ("AC/DC", "AC-DC.txt"),
            ("../../etc/passwd", "-..-etc-passwd.txt"),
            (".hidden", "hidden.txt"),
            ("Zürich", "Zürich.txt"),
            ("  ", "article.txt"),
            ("What? \"Yes\"", "What-_-Yes-.txt"),
        ];
        for (title, name) in cases {
            assert_eq!(file_name(title), *name, "{title}");
        }
        assert_eq!(file_name(&long).len(), MAX_NAME + 4);
    }

    #[test]
    fn articles_are_saved_read_by_title_or_path_and_listed() {
        let profile = crate::test_support::TempDir::new("store-wiki");
        let path = save(profile.path(), "Douglas Adams", "Douglas Adams\n\nText\n").unwrap();
        assert_eq!(path, profile.path().join("wiki/Douglas_Adams.txt"));
        for name in [
            "Douglas Adams",
            "Douglas_Adams.txt",
            path.to_str().unwrap(),
            "/elsewhere/Douglas_Adams.txt",
        ] {
            let (found, text) = read(profile.path(), name).unwrap();
            assert_eq!(found, path, "{name}");
            assert_eq!(text, "Douglas Adams\n\nText\n");
        }
        assert!(read(profile.path(), "Arthur Dent").is_err());
        assert!(read(profile.path(), "../bookmarks.json").is_err());
        assert_eq!(list(profile.path()), ["Douglas Adams"]);
    }
}
