//! A server as its file declares it, before any `${VAR}` is filled: what the person is shown
//! before approving a project's server, what `/mcp` lists, and what an approval is kept under.
//! Built only from the file's own text, so no surface ever shows a key the environment filled
//! in.

use std::collections::BTreeMap;

/// The entry's strings exactly as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Declared {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

impl Declared {
    /// The command line (or address) on one line.
    pub fn shown(&self) -> String {
        match self {
            Declared::Stdio { command, args, .. } => std::iter::once(command)
                .chain(args)
                .map(|word| shell_word(word))
                .collect::<Vec<_>>()
                .join(" "),
            Declared::Http { url, .. } => url.clone(),
        }
    }

    /// Everything that decides what runs and what it is given, a line each: the command line
    /// or address, then the directory, each variable and each header with its value as
    /// written.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.shown()];
        match self {
            Declared::Stdio { env, cwd, .. } => {
                if let Some(cwd) = cwd {
                    lines.push(format!("in directory {}", shell_word(cwd)));
                }
                for (name, value) in env {
                    lines.push(format!("with {name}={}", shell_word(value)));
                }
            }
            Declared::Http { headers, .. } => {
                for (name, value) in headers {
                    lines.push(format!("with header {name}: {value}"));
                }
            }
        }
        lines
    }

    /// One line naming all of [`Declared::lines`]: an approval kept under it covers this exact
    /// declaration, and a change to any part of it is asked about again.
    pub fn identity(&self) -> String {
        self.lines().join("; ")
    }
}

/// `word` as a shell would need it: as it is when plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,${}".contains(c));
    match plain {
        true => word.to_string(),
        false => format!("'{}'", word.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn every_part_that_decides_what_runs_is_shown_and_named_by_the_identity() {
        let plain = Declared::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-everything".into(),
            ],
            env: BTreeMap::new(),
            cwd: None,
        };
        assert_eq!(
            plain.lines(),
            ["npx -y @modelcontextprotocol/server-everything"]
        );
        let with_env = Declared::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-everything".into(),
            ],
            env: map(&[("MODE", "read only"), ("TOKEN", "${GH_TOKEN}")]),
            cwd: Some("tools".into()),
        };
        assert_eq!(
            with_env.lines(),
            [
                "npx -y @modelcontextprotocol/server-everything",
                "in directory tools",
                "with MODE='read only'",
                "with TOKEN=${GH_TOKEN}",
            ]
        );
        assert_ne!(plain.identity(), with_env.identity());
        let remote = Declared::Http {
            url: "https://mcp.example/mcp?key=${KEY}".into(),
            headers: map(&[("Authorization", "Bearer ${REMOTE_KEY}")]),
        };
        assert_eq!(
            remote.identity(),
            "https://mcp.example/mcp?key=${KEY}; with header Authorization: Bearer ${REMOTE_KEY}"
        );
        assert_eq!(
            Declared::Stdio {
                command: "sh".into(),
                args: vec!["-c".into(), "echo 'hi'; rm x".into()],
                env: BTreeMap::new(),
                cwd: None,
            }
            .shown(),
            r"sh -c 'echo '\''hi'\''; rm x'"
        );
    }
}
