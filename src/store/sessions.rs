//! Conversations kept as sessions under `MARVIN_HOME/sessions/<id>/`: `meta.json` (the name,
//! where it ran, the profile, when, its token and cost totals, a parked question) and
//! `messages.json` (the conversation as the model sees it, without the system prompt). Both
//! are replaced whole (a temporary file, then a rename) when a turn ends, messages first, so
//! a crash leaves the last whole turn.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Warnings, json};
use crate::clock::iso8601;
use crate::message::Message;

const DIR: &str = "sessions";
const META: &str = "meta.json";
const MESSAGES: &str = "messages.json";
/// Sessions kept: past this many, the ones untouched longest go (never a parked one).
const KEEP: usize = 300;
/// Names are shown in lists and typed after `--resume`: at most this many characters.
pub(crate) const NAME_CHARS: usize = 48;

/// What is known of a session besides its messages.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub(crate) struct Meta {
    pub id: String,
    pub name: String,
    /// The name was given (`/rename`), not taken from the first message.
    #[serde(default)]
    pub named: bool,
    pub working_dir: PathBuf,
    pub profile: String,
    /// ISO 8601, UTC.
    pub created: String,
    pub updated: String,
    /// `updated` in milliseconds since 1970, to order sessions saved within one second.
    #[serde(default)]
    pub updated_ms: u64,
    #[serde(default)]
    pub messages: usize,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cost: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// A run that stopped on a question nobody could answer then (`--on-ask park`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<Parked>,
    /// The tool families its requests offered beyond the core, in the order they came: taken
    /// up, the session offers them again in that order, so its requests start as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<String>,
    /// The compact history of earlier conversations its system prompt carried from its first
    /// request: taken up, it carries the same, so its prompt starts as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent: Option<String>,
}

/// A question a run stopped on, to be answered later: the calls that asked are made again
/// with the answer, and the turn goes on from there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Parked {
    /// The tool calls (ids, in the last assistant message) to make again.
    pub calls: Vec<String>,
    /// What was asked, as the `--json` stream's `question`/`approval` events have it.
    pub questions: Vec<Value>,
    pub parked_at: String,
    pub expires_at: String,
    /// The run's permission mode, which its answer does not widen.
    #[serde(default)]
    pub permission_mode: String,
    /// The run was in coding mode (a --non-interactive run is): it goes on in coding mode.
    #[serde(default)]
    pub coding_mode: bool,
    /// The question went to the phone (`--ntfy`): where its answer is published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<ParkedPhone>,
}

/// Where the phone publishes the answer to a parked run's question, and the secret it carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ParkedPhone {
    pub ntfy_url: String,
    pub reply_topic: String,
    pub secret: String,
}

impl Meta {
    /// A new session's meta, named later from its first message.
    pub(crate) fn new(id: String, working_dir: &Path, profile: &str) -> Self {
        let mut meta = Self {
            id,
            working_dir: working_dir.to_path_buf(),
            profile: profile.to_string(),
            ..Self::default()
        };
        meta.touch();
        meta.created = meta.updated.clone();
        meta
    }

    /// Marks the session as updated now.
    pub(crate) fn touch(&mut self) {
        let now = SystemTime::now();
        self.updated = iso8601(now);
        self.updated_ms = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
    }
}

fn root(home: &Path) -> PathBuf {
    home.join(DIR)
}

fn dir(home: &Path, id: &str) -> PathBuf {
    root(home).join(id)
}

/// A new session id: 8 hex digits from the OS's randomness (a clock-based one if that fails).
pub(crate) fn new_id() -> String {
    crate::secret::random_hex(4).unwrap_or_else(|_| {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos() ^ d.as_secs() as u32);
        format!("{:08x}", nanos ^ std::process::id())
    })
}

/// Saves the session: its messages (the system prompt left out), then its meta.
pub(crate) fn save(home: &Path, meta: &Meta, messages: &[Message]) -> io::Result<()> {
    let dir = dir(home, &meta.id);
    fs::create_dir_all(&dir)?;
    private(&root(home));
    private(&dir);
    let kept: Vec<&Message> = messages
        .iter()
        .filter(|m| m.role != crate::message::Role::System)
        .collect();
    let text = serde_json::to_string(&kept).map_err(io::Error::other)?;
    json::replace(&dir.join(MESSAGES), text.as_bytes())?;
    json::save(&dir.join(META), meta)
}

/// Saves the meta alone (a rename, a question dropped).
pub(crate) fn save_meta(home: &Path, meta: &Meta) -> io::Result<()> {
    json::save(&dir(home, &meta.id).join(META), meta)
}

fn private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
}

/// The session's messages (without a system prompt), or why they cannot be read.
pub(crate) fn messages(home: &Path, id: &str) -> Result<Vec<Message>, String> {
    let path = dir(home, id).join(MESSAGES);
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
    };
    serde_json::from_slice(&bytes).map_err(|error| {
        format!(
            "{} is damaged ({error}); the session cannot be resumed",
            path.display()
        )
    })
}

/// Every session, the last updated first. One whose meta cannot be read is skipped (another
/// marvin may be writing it); a damaged one is moved aside with a warning.
pub(crate) fn list(home: &Path, warnings: &Warnings) -> Vec<Meta> {
    let Ok(entries) = fs::read_dir(root(home)) else {
        return Vec::new();
    };
    let mut all: Vec<Meta> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().join(META).is_file())
        .map(|e| {
            (
                e.file_name(),
                json::read::<Meta>(&e.path().join(META), warnings),
            )
        })
        // The id names the directory: one that does not (an edited file) is not trusted as a
        // path to write or delete.
        .filter(|(name, meta)| super::is_plain_name(&meta.id, 32) && *name == *meta.id)
        .map(|(_, meta)| meta)
        .collect();
    all.sort_by(|a, b| {
        (b.updated_ms, &b.updated)
            .cmp(&(a.updated_ms, &a.updated))
            .then_with(|| a.id.cmp(&b.id))
    });
    all
}

/// The session `key` names: its id, the start of exactly one id (4 characters at least), or
/// its name (any case; the last updated of several with that name).
pub(crate) fn find(home: &Path, key: &str, warnings: &Warnings) -> Result<Meta, String> {
    let key = key.trim();
    let all = list(home, warnings);
    if let Some(meta) = all.iter().find(|m| m.id == key) {
        return Ok(meta.clone());
    }
    let named: Vec<&Meta> = all
        .iter()
        .filter(|m| m.name.eq_ignore_ascii_case(key))
        .collect();
    match named.as_slice() {
        [one] => return Ok((*one).clone()),
        [] => {}
        many => {
            let ids: Vec<&str> = many.iter().map(|m| m.id.as_str()).collect();
            return Err(format!(
                "several sessions are called {key:?} ({}): give the id of the one you mean",
                ids.join(", ")
            ));
        }
    }
    let starting: Vec<&Meta> = all
        .iter()
        .filter(|m| key.len() >= 4 && m.id.starts_with(key))
        .collect();
    match starting.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!(
            "no session is called or numbered {key:?}: `marvin --resume` lists them"
        )),
        many => {
            let ids: Vec<&str> = many.iter().map(|m| m.id.as_str()).collect();
            Err(format!(
                "{key:?} starts several session ids ({}): give more of it",
                ids.join(", ")
            ))
        }
    }
}

/// Of `sessions` (as `list` gives them), the one last updated in `working_dir` with `profile`,
/// if any; one parked on a question is not taken up unasked (`/pending` does that).
pub(crate) fn latest_here<'a>(
    sessions: &'a [Meta],
    profile: &str,
    working_dir: &Path,
) -> Option<&'a Meta> {
    sessions
        .iter()
        .find(|m| m.profile == profile && m.working_dir == working_dir && m.parked.is_none())
}

/// Claims session `id` for this process while the returned guard lives: `None` when another
/// marvin has it open (two writers would each overwrite the other's turns).
pub(crate) fn claim(home: &Path, id: &str) -> io::Result<Option<super::lock::Held>> {
    super::lock::try_hold(&dir(home, id).join("in-use"))
}

/// The meta of session `id` as it is on disk now.
pub(crate) fn meta(home: &Path, id: &str, warnings: &Warnings) -> Option<Meta> {
    let path = dir(home, id).join(META);
    path.is_file()
        .then(|| json::read::<Meta>(&path, warnings))
        .filter(|meta| meta.id == id)
}

/// Deletes a session, unless a marvin has it open (its own turns would bring it back).
pub(crate) fn remove(home: &Path, id: &str) -> io::Result<()> {
    let Some(_claim) = claim(home, id)? else {
        return Err(io::Error::other(
            "a marvin has it open right now; close that one first",
        ));
    };
    fs::remove_dir_all(dir(home, id))
}

/// Keeps the newest `KEEP` sessions, and every parked or named one. The folders are counted
/// first: a run reads every session's meta only when there may be some to drop.
pub(crate) fn prune(home: &Path, warnings: &Warnings) {
    let count = fs::read_dir(root(home)).map_or(0, Iterator::count);
    if count <= KEEP {
        return;
    }
    for old in list(home, warnings)
        .into_iter()
        .filter(|m| m.parked.is_none() && !m.named)
        .skip(KEEP)
    {
        let _ = remove(home, &old.id);
    }
}

/// A parked run whose time ran out: its question is dropped, the conversation kept. Says what
/// happened; none when it was not parked or not expired.
pub(crate) fn expire(home: &Path, meta: &Meta, now: i64) -> Option<String> {
    let parked = meta.parked.as_ref()?;
    let at = crate::when::parse(&parked.expires_at, now).ok()?;
    if at > now {
        return None;
    }
    let mut kept = meta.clone();
    kept.parked = None;
    let said = format!(
        "the parked run {} waited until {} with nobody answering: its question is dropped (the conversation is kept)",
        meta.id, parked.expires_at
    );
    match save_meta(home, &kept) {
        Ok(()) => Some(said),
        Err(error) => Some(format!("{said}, but {error}")),
    }
}

/// A session's name taken from its first message: the first line, cut at a word within
/// `NAME_CHARS` characters.
pub(crate) fn derive_name(first_message: &str) -> String {
    let line = first_message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= NAME_CHARS {
        return line;
    }
    let cut: String = line.chars().take(NAME_CHARS - 1).collect();
    let at_word = match cut.rfind(' ') {
        Some(space) if space > NAME_CHARS / 2 => &cut[..space],
        _ => cut.as_str(),
    };
    format!("{}…", at_word.trim_end())
}

/// A name given with `/rename`: one line, 1 to `NAME_CHARS` characters.
pub(crate) fn valid_session_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err("give the session a name, e.g. /rename parser-fix".into());
    }
    if name.chars().count() > NAME_CHARS || name.chars().any(char::is_control) {
        return Err(format!(
            "a session name is one line of at most {NAME_CHARS} characters"
        ));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn meta(id: &str, name: &str, updated: &str, dir: &str) -> Meta {
        Meta {
            id: id.into(),
            name: name.into(),
            working_dir: dir.into(),
            profile: "default".into(),
            created: updated.into(),
            updated: updated.into(),
            ..Meta::default()
        }
    }

    #[test]
    fn sessions_are_saved_listed_found_and_removed() {
        let home = TempDir::new("sessions");
        let warnings = Warnings::default();
        let messages = vec![
            Message::system("the prompt is not kept"),
            Message::user("hello"),
            Message::assistant("hi"),
        ];
        let older = meta("a1b2c3d4", "parser fix", "2026-11-20T10:00:00Z", "/src/a");
        let newer = meta("a1b29999", "weather", "2026-11-21T10:00:00Z", "/src/b");
        save(home.path(), &older, &messages).unwrap();
        save(home.path(), &newer, &messages[..2]).unwrap();
        let listed: Vec<String> = list(home.path(), &warnings)
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(listed, ["a1b29999", "a1b2c3d4"]);
        let kept = messages_of(&home, "a1b2c3d4");
        assert_eq!(kept, ["hello", "hi"]);

        assert_eq!(
            find(home.path(), "a1b2c3d4", &warnings).unwrap().name,
            "parser fix"
        );
        assert_eq!(
            find(home.path(), "PARSER FIX", &warnings).unwrap().id,
            "a1b2c3d4"
        );
        assert_eq!(
            find(home.path(), "a1b2c", &warnings).unwrap().id,
            "a1b2c3d4"
        );
        let many = find(home.path(), "a1b2", &warnings).unwrap_err();
        assert!(many.contains("several session ids"), "{many}");
        let none = find(home.path(), "nothing", &warnings).unwrap_err();
        assert!(none.contains("`marvin --resume` lists them"), "{none}");

        let all = list(home.path(), &warnings);
        let here = latest_here(&all, "default", Path::new("/src/a"));
        assert_eq!(here.unwrap().id, "a1b2c3d4");
        assert!(latest_here(&all, "work", Path::new("/src/a")).is_none());

        let held = claim(home.path(), "a1b2c3d4").unwrap().unwrap();
        let busy = remove(home.path(), "a1b2c3d4").unwrap_err();
        assert!(busy.to_string().contains("has it open"), "{busy}");
        drop(held);
        remove(home.path(), "a1b2c3d4").unwrap();
        assert_eq!(list(home.path(), &warnings).len(), 1);
        let twin = meta("0000beef", "WEATHER", "2026-11-22T10:00:00Z", "/src/b");
        save(home.path(), &twin, &messages).unwrap();
        let ambiguous = find(home.path(), "weather", &warnings).unwrap_err();
        assert!(
            ambiguous.contains("several sessions are called"),
            "{ambiguous}"
        );
        assert!(warnings.take().is_empty());
    }

    fn messages_of(home: &TempDir, id: &str) -> Vec<String> {
        messages(home.path(), id)
            .unwrap()
            .iter()
            .map(|m| m.text().to_string())
            .collect()
    }

    #[test]
    fn a_damaged_session_says_so_and_others_still_list() {
        let home = TempDir::new("sessions-damaged");
        let warnings = Warnings::default();
        let good = meta("00000001", "good", "2026-11-20T10:00:00Z", "/x");
        save(home.path(), &good, &[Message::user("hi")]).unwrap();
        let bad = dir(home.path(), "00000002");
        fs::create_dir_all(&bad).unwrap();
        fs::write(bad.join(META), "{ not json").unwrap();
        fs::write(dir(home.path(), "00000001").join(MESSAGES), "[{").unwrap();
        let listed = list(home.path(), &warnings);
        assert_eq!(listed.len(), 1);
        assert!(warnings.take()[0].contains("moved it to"));
        let error = messages(home.path(), "00000001").unwrap_err();
        assert!(error.contains("is damaged"), "{error}");
    }

    #[test]
    fn a_meta_whose_id_is_not_its_directory_is_not_listed() {
        let home = TempDir::new("sessions-forged");
        let warnings = Warnings::default();
        let forged = meta("../../elsewhere", "forged", "2026-11-20T10:00:00Z", "/x");
        let path = dir(home.path(), "0000000f").join(META);
        json::save(&path, &forged).unwrap();
        let other = meta("00000010", "good", "2026-11-20T10:00:00Z", "/x");
        json::save(&dir(home.path(), "00000011").join(META), &other).unwrap();
        assert!(list(home.path(), &warnings).is_empty());
        assert!(find(home.path(), "forged", &warnings).is_err());
    }

    #[test]
    fn names_come_from_the_first_line_and_given_names_are_checked() {
        assert_eq!(
            derive_name("\n  what is   a monad?\nmore"),
            "what is a monad?"
        );
        let long = derive_name(&"word ".repeat(30));
        assert!(long.ends_with("word…"), "{long}");
        assert!(long.chars().count() <= NAME_CHARS);
        assert_eq!(valid_session_name("  parser-fix "), Ok("parser-fix".into()));
        assert!(valid_session_name("").is_err());
        assert!(valid_session_name("a\nb").is_err());
        assert!(valid_session_name(&"x".repeat(NAME_CHARS + 1)).is_err());
    }

    #[test]
    fn pruning_keeps_the_newest_and_every_parked_one() {
        let home = TempDir::new("sessions-prune");
        let warnings = Warnings::default();
        for i in 0..KEEP + 3 {
            let mut m = meta(
                &format!("{i:08x}"),
                "s",
                &format!("2026-01-01T00:{:02}:{:02}Z", i / 60, i % 60),
                "/x",
            );
            if i == 0 {
                m.parked = Some(Parked {
                    calls: vec!["call_1".into()],
                    questions: Vec::new(),
                    parked_at: m.updated.clone(),
                    expires_at: "2026-02-01T00:00:00Z".into(),
                    permission_mode: "default".into(),
                    coding_mode: true,
                    phone: None,
                });
            }
            m.named = i == 1;
            save_meta(home.path(), &m).unwrap();
        }
        prune(home.path(), &warnings);
        let left = list(home.path(), &warnings);
        assert_eq!(left.len(), KEEP + 2);
        assert!(left.iter().any(|m| m.id == "00000000"));
        assert!(left.iter().any(|m| m.id == "00000001"));
        assert!(!left.iter().any(|m| m.id == "00000002"));

        // An expired question is dropped; the conversation stays.
        let parked = left.iter().find(|m| m.id == "00000000").unwrap();
        assert!(expire(home.path(), parked, 1_700_000_000).is_none());
        let said = expire(home.path(), parked, 1_900_000_000).unwrap();
        assert!(said.contains("its question is dropped"), "{said}");
        let kept = super::meta(home.path(), "00000000", &warnings).unwrap();
        assert!(kept.parked.is_none());
    }
}
