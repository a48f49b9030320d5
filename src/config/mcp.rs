//! The MCP servers of a run, declared as other clients declare them:
//! `{"mcpServers": {"NAME": {"command": "…", "args": […], "env": {…}}}}` for a server Marvin
//! starts (stdio), `{"url": "…", "headers": {…}}` for one it reaches (Streamable HTTP). Read
//! from `$MARVIN_HOME/mcp.json` (the user's), `.mcp.json` in the working directory (the
//! project's: started only once the person approved its command) and `--mcp-config FILE`.
//! `${VAR}` and `${VAR:-default}` in the strings are filled from the environment, as Claude
//! Code does, so a file can name a key without holding it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::Env;
use crate::net::ProxyRules;

/// Where a server was declared, which decides whether it needs an approval to start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpOrigin {
    /// `$MARVIN_HOME/mcp.json`.
    User,
    /// `.mcp.json` of the working directory: a cloned repository's, so asked about first.
    Project,
    /// `--mcp-config FILE`, named by the person for this run.
    Flag,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    /// A child process speaking newline-delimited JSON-RPC on stdin and stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to the child's environment (which has Marvin's own keys removed).
        env: BTreeMap<String, String>,
        /// Where it runs; the working directory when not given.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
        /// The proxy it is reached through (HTTPS_PROXY, NO_PROXY; never for loopback).
        proxy: Option<String>,
    },
}

/// One declared server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServer {
    /// Its name in the file, made safe for tool names (letters, digits, `_` and `-`).
    pub name: String,
    pub transport: McpTransport,
    pub origin: McpOrigin,
    /// The file it came from, for messages.
    pub source: PathBuf,
}

impl McpServer {
    /// The command line (or address) as the person should see it before approving it.
    pub fn shown(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command, args, .. } => std::iter::once(command)
                .chain(args)
                .map(|word| shell_word(word))
                .collect::<Vec<_>>()
                .join(" "),
            McpTransport::Http { url, .. } => url.clone(),
        }
    }
}

/// `word` as a shell would need it: as it is when plain, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    match plain {
        true => word.to_string(),
        false => format!("'{}'", word.replace('\'', r"'\''")),
    }
}

/// The MCP settings of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpSettings {
    pub servers: Vec<McpServer>,
    /// What could not be read, one line each (shown once at start).
    pub warnings: Vec<String>,
    /// How long one request may take (MARVIN_MCP_TIMEOUT, default 60 s).
    pub timeout: Duration,
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The file format, as Claude Code, Cursor and the reference clients write it.
#[derive(Deserialize)]
struct File {
    #[serde(rename = "mcpServers", default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `stdio`, `http` or `streamable-http`; `sse` (the old transport) is not spoken.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    disabled: bool,
}

impl McpSettings {
    /// The servers of `files`, in order; a name declared twice keeps its first declaration
    /// (the user's over the project's). `disabled` turns them all off (--no-mcp).
    pub fn build(
        env: &Env,
        files: &[(PathBuf, McpOrigin)],
        disabled: bool,
        proxy: &ProxyRules,
    ) -> Result<Self, String> {
        let timeout = match env.get("MARVIN_MCP_TIMEOUT") {
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|secs| (1..=3600).contains(secs))
                .map(Duration::from_secs)
                .ok_or_else(|| {
                    format!("MARVIN_MCP_TIMEOUT must be a number of seconds from 1 to 3600, not {text:?}")
                })?,
            None => DEFAULT_TIMEOUT,
        };
        let mut settings = Self {
            timeout,
            ..Self::default()
        };
        if disabled {
            return Ok(settings);
        }
        for (path, origin) in files {
            let text = match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    if *origin == McpOrigin::Flag {
                        return Err(format!("--mcp-config {}: no such file", path.display()));
                    }
                    continue;
                }
                Err(error) => {
                    settings
                        .warnings
                        .push(format!("cannot read {}: {error}", path.display()));
                    continue;
                }
            };
            match parse(&text, path, *origin, env, proxy) {
                Ok((servers, warnings)) => {
                    settings.warnings.extend(warnings);
                    for server in servers {
                        if settings.servers.iter().any(|s| s.name == server.name) {
                            settings.warnings.push(format!(
                                "the MCP server {} in {} is skipped: a server of that name is already declared",
                                server.name,
                                path.display()
                            ));
                        } else {
                            settings.servers.push(server);
                        }
                    }
                }
                Err(problem) if *origin == McpOrigin::Flag => {
                    return Err(format!("--mcp-config {}: {problem}", path.display()));
                }
                Err(problem) => settings
                    .warnings
                    .push(format!("{} is skipped: {problem}", path.display())),
            }
        }
        Ok(settings)
    }
}

/// The servers of one file, with a line for each entry that cannot be used.
fn parse(
    text: &str,
    path: &Path,
    origin: McpOrigin,
    env: &Env,
    proxy: &ProxyRules,
) -> Result<(Vec<McpServer>, Vec<String>), String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
    if value.get("mcpServers").is_none() {
        return Err(r#"it has no "mcpServers" object (see the README's MCP section)"#.into());
    }
    let file: File = serde_json::from_value(value).map_err(|e| format!("{e}"))?;
    let (mut servers, mut warnings) = (Vec::new(), Vec::new());
    for (declared, entry) in file.servers {
        if entry.disabled {
            continue;
        }
        let name = safe_name(&declared);
        match transport(entry, env, path, proxy) {
            Ok(transport) => servers.push(McpServer {
                name,
                transport,
                origin,
                source: path.to_path_buf(),
            }),
            Err(problem) => warnings.push(format!(
                "the MCP server {declared} in {} is skipped: {problem}",
                path.display()
            )),
        }
    }
    Ok((servers, warnings))
}

fn transport(
    entry: Entry,
    env: &Env,
    path: &Path,
    proxy: &ProxyRules,
) -> Result<McpTransport, String> {
    let fill = |text: &str| expand(text, env);
    let fill_map = |map: BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
        map.into_iter()
            .map(|(key, value)| Ok((key, fill(&value)?)))
            .collect()
    };
    match (entry.kind.as_deref(), entry.command, entry.url) {
        (Some("sse"), _, _) => Err(
            "it uses the old SSE transport, which Marvin does not speak; the server's Streamable HTTP address (often ending in /mcp) works with \"url\"".into(),
        ),
        (Some(other), _, _) if !matches!(other, "stdio" | "http" | "streamable-http") => Err(
            format!("its type {other:?} is not stdio or http"),
        ),
        (_, Some(_), Some(_)) => Err("it has both a command and a url; give one".into()),
        (_, Some(command), None) if !command.trim().is_empty() => Ok(McpTransport::Stdio {
            command: fill(&command)?,
            args: entry
                .args
                .iter()
                .map(|arg| fill(arg))
                .collect::<Result<_, _>>()?,
            env: fill_map(entry.env)?,
            cwd: match entry.cwd {
                Some(cwd) => {
                    let cwd = PathBuf::from(fill(&cwd)?);
                    // Relative to the file that declares it.
                    Some(match cwd.is_absolute() {
                        true => cwd,
                        false => path.parent().unwrap_or(Path::new("/")).join(cwd),
                    })
                }
                None => None,
            },
        }),
        (_, None, Some(url)) => {
            let url = fill(&url)?;
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("its url {url:?} is not an http:// or https:// address"));
            }
            Ok(McpTransport::Http {
                proxy: proxy.for_url(&url),
                url,
                headers: fill_map(entry.headers)?,
            })
        }
        _ => Err("it has neither a command nor a url".into()),
    }
}

/// `text` with `${VAR}` and `${VAR:-default}` replaced from `env`; an unset variable without
/// a default is an error naming it.
fn expand(text: &str, env: &Env) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("{text:?} has a ${{ without its }}"))?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (env.get_any(name), default) {
            (Some(value), _) => out.push_str(value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(format!(
                    "it uses ${{{name}}}, which is not set (set it, or write ${{{name}:-default}})"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A server name as part of a tool name: letters, digits, `_` and `-`; anything else is `_`.
fn safe_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect();
    match safe.is_empty() {
        true => "server".into(),
        false => safe,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TempDir;

    fn env(pairs: &[(&str, &str)]) -> Env {
        Env::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn the_format_other_clients_write_is_read_with_variables_filled() {
        let dir = TempDir::new("mcp-config");
        let user = dir.path().join("mcp.json");
        std::fs::write(
            &user,
            r#"{"mcpServers": {
                "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
                "git hub": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${GH_PAT}", "MODE": "${MODE:-read}"}, "cwd": "tools"},
                "remote": {"type": "http", "url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer ${REMOTE_KEY}"}},
                "old": {"type": "sse", "url": "https://old.example/sse"},
                "off": {"command": "x", "disabled": true},
                "empty": {}
            }}"#,
        )
        .unwrap();
        let settings = McpSettings::build(
            &env(&[("GH_PAT", "ghp_1"), ("REMOTE_KEY", "k2")]),
            &[(user.clone(), McpOrigin::User)],
            false,
            &ProxyRules::default(),
        )
        .unwrap();
        let names: Vec<&str> = settings.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["everything", "git_hub", "remote"]);
        assert_eq!(
            settings.servers[1].transport,
            McpTransport::Stdio {
                command: "gh-mcp".into(),
                args: vec![],
                env: [("GITHUB_TOKEN", "ghp_1"), ("MODE", "read")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                cwd: Some(dir.path().join("tools")),
            }
        );
        assert_eq!(
            settings.servers[2].transport,
            McpTransport::Http {
                url: "https://mcp.example/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer k2".to_string())].into(),
                proxy: None,
            }
        );
        assert_eq!(settings.warnings.len(), 2, "{:?}", settings.warnings);
        assert!(
            settings.warnings[0].contains("empty"),
            "{:?}",
            settings.warnings
        );
        assert!(settings.warnings[0].ends_with("it has neither a command nor a url"));
        assert!(settings.warnings[1].contains("old SSE transport"));
        assert_eq!(settings.timeout, DEFAULT_TIMEOUT);
        assert_eq!(
            settings.servers[0].shown(),
            "npx -y @modelcontextprotocol/server-everything"
        );
    }

    #[test]
    fn unset_variables_bad_files_and_duplicates_are_reported() {
        let dir = TempDir::new("mcp-config-bad");
        let user = dir.path().join("mcp.json");
        let project = dir.path().join(".mcp.json");
        std::fs::write(
            &user,
            r#"{"mcpServers": {"a": {"command": "a"}, "k": {"command": "k", "env": {"T": "${NOPE}"}}}}"#,
        )
        .unwrap();
        std::fs::write(&project, r#"{"mcpServers": {"a": {"command": "other"}}}"#).unwrap();
        let files = [
            (user.clone(), McpOrigin::User),
            (project.clone(), McpOrigin::Project),
            (dir.path().join("missing.json"), McpOrigin::Project),
        ];
        let settings =
            McpSettings::build(&env(&[]), &files, false, &ProxyRules::default()).unwrap();
        assert_eq!(settings.servers.len(), 1);
        assert_eq!(settings.servers[0].origin, McpOrigin::User);
        assert!(
            settings.warnings[0]
                .ends_with("it uses ${NOPE}, which is not set (set it, or write ${NOPE:-default})"),
            "{:?}",
            settings.warnings
        );
        assert!(settings.warnings[1].contains("already declared"));

        std::fs::write(&project, "{not json").unwrap();
        let broken =
            McpSettings::build(&env(&[]), &files[1..2], false, &ProxyRules::default()).unwrap();
        assert!(broken.warnings[0].contains("is skipped: it is not valid JSON"));
        let flagged = McpSettings::build(
            &env(&[]),
            &[(project, McpOrigin::Flag)],
            false,
            &ProxyRules::default(),
        );
        assert!(flagged.unwrap_err().starts_with("--mcp-config "));
        let missing = McpSettings::build(
            &env(&[]),
            &[(dir.path().join("no"), McpOrigin::Flag)],
            false,
            &ProxyRules::default(),
        );
        assert!(missing.unwrap_err().ends_with(": no such file"));

        assert!(
            McpSettings::build(&env(&[]), &files, true, &ProxyRules::default())
                .unwrap()
                .servers
                .is_empty()
        );
        let slow = McpSettings::build(
            &env(&[("MARVIN_MCP_TIMEOUT", "5")]),
            &[],
            false,
            &ProxyRules::default(),
        );
        assert_eq!(slow.unwrap().timeout, Duration::from_secs(5));
        assert!(
            McpSettings::build(
                &env(&[("MARVIN_MCP_TIMEOUT", "soon")]),
                &[],
                false,
                &ProxyRules::default()
            )
            .is_err()
        );
    }

    #[test]
    fn a_remote_server_goes_through_the_proxy_and_a_local_one_does_not() {
        let dir = TempDir::new("mcp-config-proxy");
        let file = dir.path().join("mcp.json");
        std::fs::write(
            &file,
            r#"{"mcpServers": {"remote": {"url": "https://mcp.example/mcp"}, "local": {"url": "http://127.0.0.1:3001/mcp"}}}"#,
        )
        .unwrap();
        let rules = ProxyRules::new(Some("http://proxy:3128"), None);
        let settings =
            McpSettings::build(&env(&[]), &[(file, McpOrigin::User)], false, &rules).unwrap();
        let proxies: Vec<(&str, Option<&str>)> = settings
            .servers
            .iter()
            .map(|server| match &server.transport {
                McpTransport::Http { proxy, .. } => (server.name.as_str(), proxy.as_deref()),
                McpTransport::Stdio { .. } => (server.name.as_str(), None),
            })
            .collect();
        assert_eq!(
            proxies,
            [("local", None), ("remote", Some("http://proxy:3128"))]
        );
    }
}
