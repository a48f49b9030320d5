//! MCP through the real binary against the reference servers from npm (installed once by
//! scripts/mcp-test-servers.sh under the target directory): tools listed and called, their
//! pictures saved, Marvin's keys kept out of the server, a project's server that needs
//! approval, servers that fail to start or never answer, elicitation with nobody to ask, and
//! a server that asks without end.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::needs::Needed;
use crate::common::{ReplayServer, Reply, TempDir, marvin, non_interactive, stderr, stdout};

/// The directory of the servers' programs (`mcp-server-everything`, `mcp-server-filesystem`).
pub(crate) fn servers() -> &'static Path {
    static SERVERS: Needed =
        Needed::new("npm and its registry (to install the MCP reference servers once)");
    SERVERS.get(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-servers");
        let output = Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp-test-servers.sh"))
            .arg(&dir)
            .output()
            .map_err(|e| format!("cannot run bash: {e}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        Ok(PathBuf::from(
            String::from_utf8_lossy(&output.stdout).trim(),
        ))
    })
}

pub(crate) fn everything() -> String {
    servers()
        .join("mcp-server-everything")
        .display()
        .to_string()
}

/// `marvin` with `mcp` as the user's mcp.json, against `model`.
fn with_servers(home: &TempDir, model: &ReplayServer, mcp: Value) -> Command {
    let marvin_home = home.path().join("marvin-home");
    std::fs::create_dir_all(&marvin_home).unwrap();
    std::fs::write(marvin_home.join("mcp.json"), mcp.to_string()).unwrap();
    let mut command = marvin(home.path());
    // Every tool is offered, the servers' too: these tests are of the protocol, not of which
    // tools a request offers (`tools_on_demand` tests a server's family coming when asked).
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("OPENAI_COMPAT_API_KEY", "sk-marvins-own")
        .env("MARVIN_MODEL", "gpt-4o")
        .env("MARVIN_TOOLS", "all");
    command
}

/// Asks `/mcp` at the prompt until it shows `state` (a server starts in the background there).
fn ready(pty: &mut crate::common::pty::Pty, state: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut asked = 0;
    while !pty.screen().contains(state) {
        assert!(std::time::Instant::now() < deadline, "{}", pty.screen());
        asked += 1;
        pty.send("/mcp\r");
        pty.wait_for_nth("/mcp restart NAME", asked);
    }
}

pub(crate) fn tool_names(request: &crate::common::Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_real_servers_tools_are_offered_and_called() {
    let home = TempDir::new("mcp-everything");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[
            (
                "c1",
                "everything__echo",
                r#"{"message": "hello from marvin"}"#,
            ),
            ("c2", "everything__get-sum", r#"{"a": 2, "b": 40}"#),
            ("c3", "everything__get-tiny-image", "{}"),
            ("c4", "everything__get-env", "{}"),
        ]),
        Reply::text(&["Done."]),
    ]);
    let mcp = json!({"mcpServers": {"everything": {
        "command": everything(), "args": ["stdio"], "env": {"GIVEN_TO_IT": "${HOME}"}}}});
    // The server's name brings its tools into the first request.
    let output = non_interactive(
        &mut with_servers(&home, &model, mcp),
        "use the everything server's tools",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with("\nDone.\n"),
        "{}",
        stdout(&output)
    );
    let requests = model.requests();
    // A run nobody watches waited for the server: its tools are in the first request.
    let names = tool_names(&requests[0]);
    for name in [
        "everything__echo",
        "everything__get-sum",
        "everything__trigger-elicitation-request",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    // Tasks-only tools are left out.
    assert!(
        !names
            .iter()
            .any(|n| n == "everything__simulate-research-query")
    );
    let results = requests[1].tool_results();
    assert_eq!(results[0], "Echo: hello from marvin");
    assert!(results[1].contains("42"), "{}", results[1]);
    assert!(
        results[2].contains("[image: image/png, ") && results[2].contains(" bytes, saved to /"),
        "{}",
        results[2]
    );
    // The server has the variables its entry names, not Marvin's keys.
    let env = &results[3];
    assert!(env.contains("GIVEN_TO_IT"), "{env}");
    assert!(!env.contains("sk-marvins-own"), "{env}");
    assert!(!env.contains("OPENAI_COMPAT_API_KEY"), "{env}");
}

/// The path in a result's `saved to PATH]`.
fn saved_path(result: &str) -> PathBuf {
    let path = result
        .split("saved to ")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("{result}"));
    PathBuf::from(path)
}

#[test]
fn a_servers_pictures_are_kept_privately_for_the_session_and_removed_after_it() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempDir::new("mcp-pictures");
    let temp = home.path().join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    // While the run goes on, the model's next request finds the picture in place: a new file
    // (0600) in a directory only the person can enter (0700), under a name nobody could guess.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let looked = seen.clone();
    let model = ReplayServer::answering(move |request| {
        if request.tool_results().is_empty() {
            return Reply::tool_calls(&[("c1", "everything__get-tiny-image", "{}")]);
        }
        let path = saved_path(&request.tool_results()[0]);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        *looked.lock().unwrap() = Some((
            path.clone(),
            std::fs::read(&path).unwrap().starts_with(b"\x89PNG"),
            mode(&path),
            mode(path.parent().unwrap()),
            mode(path.parent().unwrap().parent().unwrap()),
        ));
        Reply::text(&["Seen."])
    });
    let mcp = json!({"mcpServers": {"everything": {"command": everything(), "args": ["stdio"]}}});
    let output = non_interactive(
        with_servers(&home, &model, mcp).env("TMPDIR", &temp),
        "show me",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let (path, png, file, call, session) = seen.lock().unwrap().clone().unwrap();
    assert!(png);
    assert_eq!((file, call, session), (0o600, 0o700, 0o700));
    let session_dir = path.parent().unwrap().parent().unwrap();
    assert_eq!(session_dir.parent().unwrap(), temp);
    let name = session_dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert!(
        name.starts_with("marvin-") && name.len() == "marvin-".len() + 24,
        "{name}"
    );
    // The session is over: nothing of it is left in TMPDIR.
    let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn elicitation_with_nobody_to_ask_is_declined_at_once_and_the_model_told() {
    let home = TempDir::new("mcp-elicit-headless");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("e1", "everything__trigger-elicitation-request", "{}")]),
        Reply::text(&["Declined."]),
    ]);
    let mcp = json!({"mcpServers": {"everything": {"command": everything()}}});
    let output = non_interactive(&mut with_servers(&home, &model, mcp), "ask me");
    assert!(output.status.success(), "{}", stderr(&output));
    let result = model.requests()[1].last_tool_result();
    assert!(result.contains("declined"), "{result}");
    assert!(
        result.contains("The MCP server everything asked the person for input"),
        "{result}"
    );
    assert!(result.contains("nobody can answer here"), "{result}");
}

#[test]
fn a_projects_server_is_not_started_without_approval() {
    let home = TempDir::new("mcp-project");
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let marker = home.path().join("started");
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {"cloned": {"command": "sh", "args": ["-c", format!("touch {}", marker.display())]}}})
            .to_string(),
    )
    .unwrap();
    let model = ReplayServer::start(vec![Reply::text(&["Hi."])]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .arg("--working-dir")
        .arg(&project);
    let output = non_interactive(&mut command, "hello");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the project's MCP server cloned (sh -c 'touch "),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output)
            .contains("is not started: run marvin here in a terminal once to approve it"),
        "{}",
        stderr(&output)
    );
    assert!(!marker.exists(), "a cloned repository's server ran unasked");
    // --no-mcp reads no mcp.json at all.
    let quiet = non_interactive(
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", model.url())
            .arg("--no-mcp")
            .arg("--working-dir")
            .arg(&project),
        "hello",
    );
    assert!(!stderr(&quiet).contains("MCP server"), "{}", stderr(&quiet));
}

#[test]
fn servers_that_fail_to_start_or_never_answer_are_told_in_one_line_each() {
    let home = TempDir::new("mcp-broken");
    let model = ReplayServer::start(vec![Reply::text(&["Still here."])]);
    let mcp = json!({"mcpServers": {
        "missing": {"command": "no-such-mcp-server-xyz"},
        "crashes": {"command": "sh", "args": ["-c", "echo 'cannot open the database' >&2; exit 3"]},
        "silent": {"command": "sleep", "args": ["30"]},
        "chatty": {"command": "sh", "args": ["-c", "echo hello there; sleep 30"]}
    }});
    let mut command = with_servers(&home, &model, mcp);
    command.env("MARVIN_MCP_TIMEOUT", "2");
    let output = non_interactive(&mut command, "hello");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with("Still here.\n"),
        "{}",
        stdout(&output)
    );
    let said = stderr(&output);
    let line = |name: &str| {
        said.lines()
            .find(|l| l.contains(&format!("the MCP server {name} failed")))
            .unwrap_or_else(|| panic!("no line for {name}: {said}"))
            .to_string()
    };
    assert!(
        line("missing")
            .ends_with("cannot start no-such-mcp-server-xyz: it is not installed, or not on PATH"),
        "{said}"
    );
    let crashes = line("crashes");
    assert!(
        crashes.contains("the server exited with status 3"),
        "{crashes}"
    );
    assert!(
        crashes.contains("its last words: cannot open the database"),
        "{crashes}"
    );
    assert!(
        line("silent").contains("no answer within 2 s (MARVIN_MCP_TIMEOUT sets the limit)"),
        "{said}"
    );
    let chatty = line("chatty");
    assert!(chatty.contains("no answer within 2 s"), "{chatty}");
    assert!(
        chatty.contains(r#"it wrote something that is not JSON-RPC ("hello there") on stdout"#),
        "{chatty}"
    );
}

#[test]
fn a_bad_mcp_config_flag_stops_the_run_and_a_bad_file_is_a_warning() {
    let home = TempDir::new("mcp-config-errors");
    let model = ReplayServer::start(vec![Reply::text(&["Fine."])]);
    let output = non_interactive(
        marvin(home.path())
            .env("OPENAI_COMPAT_URL", model.url())
            .arg("--mcp-config")
            .arg(home.path().join("nope.json")),
        "hello",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("--mcp-config "),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("nope.json: no such file"),
        "{}",
        stderr(&output)
    );
    let marvin_home = home.path().join("marvin-home");
    std::fs::create_dir_all(&marvin_home).unwrap();
    std::fs::write(marvin_home.join("mcp.json"), "{\"servers\": {}}").unwrap();
    let warned = non_interactive(
        marvin(home.path()).env("OPENAI_COMPAT_URL", model.url()),
        "hello",
    );
    assert!(warned.status.success(), "{}", stderr(&warned));
    assert!(
        stderr(&warned).contains("mcp.json is skipped: it has no \"mcpServers\" object"),
        "{}",
        stderr(&warned)
    );
}

/// The fields server-everything 2026.8.31 asks for, in the order it writes them.
const EVERYTHING_FIELDS: [&str; 13] = [
    "name",
    "check",
    "firstLine",
    "email",
    "homepage",
    "birthdate",
    "integer",
    "number",
    "untitledSingleSelectEnum",
    "untitledMultipleSelectEnum",
    "titledSingleSelectEnum",
    "titledMultipleSelectEnum",
    "legacyTitledEnum",
];

/// A REPL with server-everything ready and its `trigger-elicitation-request` called; the form
/// is on screen: in the interview's page with `browser` (a desktop whose browser is a script
/// that only records it was opened), else in the terminal.
fn elicitation_asked(
    home: &TempDir,
    model: &ReplayServer,
    browser: bool,
) -> crate::common::pty::Pty {
    let mcp = json!({"mcpServers": {"everything": {"command": everything()}}});
    let mut command = with_servers(home, model, mcp);
    command.env("TERM", "xterm");
    if browser {
        let opener = home.path().join("browser");
        std::fs::write(&opener, "#!/bin/sh\nexit 0\n").unwrap();
        let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(&opener, executable).unwrap();
        command.env("DISPLAY", ":0").env("BROWSER", &opener);
    } else {
        command.env("MARVIN_NO_BROWSER", "1");
    }
    let mut pty = crate::common::pty::Pty::spawn(command);
    pty.wait_for("› ");
    // At the prompt a server starts in the background; /mcp says when it is ready.
    ready(&mut pty, "everything  ready (mcp-servers/everything");
    pty.send("ask me things\r");
    if browser {
        pty.wait_for("The MCP server everything asks");
        return pty;
    }
    pty.wait_for("[everything__trigger-elicitation-request]");
    // No list of words can tell every question for a secret: the form says who gets the answers
    // (the page says it too, in its first block).
    pty.wait_for("Your answers go to the MCP server everything");
    pty.wait_for("Give a password or key only to a server you trust");
    pty
}

fn elicitation_model() -> ReplayServer {
    ReplayServer::start(vec![
        Reply::tool_calls(&[("e1", "everything__trigger-elicitation-request", "{}")]),
        Reply::text(&["Thanks, Marvin."]),
    ])
}

#[test]
fn a_servers_question_is_asked_in_the_form_checked_and_answered() {
    use crate::interview::{address, get_page, post_answer};
    let home = TempDir::new("mcp-elicit-form");
    let model = elicitation_model();
    let mut pty = elicitation_asked(&home, &model, true);
    let (port, token) = address(&pty, 1);
    // The page gets the server's order, its defaults filled in, only the options where only
    // they fit, and "optional" as the form's own mark (never in the question's text).
    let page = get_page(port, &token);
    let start = page.find("id=\"interview-data\">").unwrap() + 20;
    let data: Value =
        serde_json::from_str(&page[start..][..page[start..].find("</script>").unwrap()]).unwrap();
    let questions = data["questions"].as_array().unwrap();
    assert!(
        questions[0]["question"]
            .as_str()
            .unwrap()
            .contains("Your answers go to the MCP server everything"),
        "{}",
        questions[0]
    );
    let ids: Vec<&str> = questions.iter().filter_map(|q| q["id"].as_str()).collect();
    assert_eq!(ids[1..], EVERYTHING_FIELDS);
    for q in questions {
        assert!(!q["question"].as_str().unwrap().contains("optional"), "{q}");
        let choices = q["type"] == "single" || q["type"] == "multi";
        assert_eq!(q["closed"] == true, choices, "{q}");
    }
    let draft = &data["draft"]["answers"];
    assert_eq!(
        draft["firstLine"]["text"],
        "It was a dark and stormy night."
    );
    assert_eq!(draft["integer"]["text"], "42");
    assert_eq!(draft["number"]["text"], "3.14");
    let answers = |integer: &str, email: &str| {
        json!([
            {"id": "name", "value": "Marvin Paranoid"},
            {"id": "check", "value": "Yes"},
            {"id": "email", "value": email},
            {"id": "integer", "value": integer},
            {"id": "untitledMultipleSelectEnum", "value": ["Piano", "Drums"]},
            {"id": "titledSingleSelectEnum", "value": "Wonder Woman"},
            {"id": "titledMultipleSelectEnum", "value": ["Tuna"]},
            {"id": "legacyTitledEnum", "value": "Dogs"},
            {"id": "untitledSingleSelectEnum", "value": "Joey"}
        ])
    };
    // Answers that do not fit are refused before the page can say they were sent, each at
    // its field; the form stays open with the others.
    let refused = post_answer(
        port,
        "/submit",
        json!({"token": token, "responses": answers("1000", "nobody")}),
    );
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    let body: Value =
        serde_json::from_str(&refused[refused.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    assert_eq!(
        body["errors"],
        json!([
            {"field": "email", "message": "\"nobody\" is not an email address."},
            {"field": "integer", "message": "\"1000\" is not a whole number from 1 to 100."}
        ])
    );
    // A choice that is not an option is refused too: a yes-or-no takes no "Other".
    let mut other = answers("42", "marvin@example.com");
    other[1]["value"] = json!("Maybe");
    let refused = post_answer(port, "/submit", json!({"token": token, "responses": other}));
    assert!(refused.contains("Choose from Yes, No."), "{refused}");
    let sent = post_answer(
        port,
        "/submit",
        json!({"token": token, "responses": answers("42", "marvin@example.com")}),
    );
    assert!(sent.starts_with("HTTP/1.1 200"), "{sent}");
    pty.wait_for("Thanks, Marvin.");
    // One form, at one address: nothing was asked twice.
    assert_eq!(
        pty.screen().matches("/?session=").count(),
        1,
        "{}",
        pty.screen()
    );
    assert!(pty.leave().success());
    let result = model.requests()[1].last_tool_result();
    assert!(
        result.contains("User provided the requested information"),
        "{result}"
    );
    for sent in [
        r#""integer": 42"#,
        r#""check": true"#,
        r#""titledSingleSelectEnum": "hero-3""#,
        r#""legacyTitledEnum": "pet-2""#,
        r#""titledMultipleSelectEnum": ["#,
    ] {
        assert!(result.contains(sent), "{sent} in {result}");
    }
}

#[test]
fn in_the_terminal_a_servers_fields_are_checked_one_by_one_in_its_order() {
    let home = TempDir::new("mcp-elicit-terminal");
    let model = elicitation_model();
    let mut pty = elicitation_asked(&home, &model, false);
    pty.wait_for("Your full, legal name");
    pty.send("Marvin Paranoid\r");
    // A yes-or-no: its two options and Skip, no Other.
    pty.wait_for("Agree to the terms and conditions");
    pty.wait_for("leave this one empty");
    pty.send("1\r");
    // The server's default is there already: Enter keeps it.
    pty.wait_for("Favorite first line of a story");
    pty.wait_for("It was a dark and stormy night.");
    pty.send("\r");
    // A wrong answer is told at once and only that field asked again, with what was typed.
    pty.wait_for("Your email address");
    pty.send("nobody\r");
    pty.wait_for("\"nobody\" is not an email address.");
    pty.send("\x15marvin@example.com\r");
    for skipped in ["Portfolio / personal website", "Your date of birth"] {
        pty.wait_for(skipped);
        pty.send("\r");
    }
    pty.wait_for("Your favorite integer");
    pty.send("\x151000\r");
    pty.wait_for("\"1000\" is not a whole number from 1 to 100.");
    pty.send("\x157\r");
    pty.wait_for("Favorite number");
    pty.send("\r");
    // The server's defaults start chosen.
    for about in [
        "Choose your favorite friend",
        "Choose your favorite instruments",
        "Choose your favorite hero",
        "Choose your favorite types of fish",
        "Choose your favorite type of pet",
    ] {
        pty.wait_for(about);
        pty.send("\r");
    }
    pty.wait_for("Thanks, Marvin.");
    assert!(pty.leave().success());
    let lines = pty.visible().lines();
    let row = |text: &str| lines.iter().position(|line| line.trim() == text);
    // In the server's order, each asked once (by its title); only the required one without
    // "(optional)"; no Other.
    let labels = [
        "String",
        "Boolean (optional)",
        "String with default (optional)",
        "String with email format (optional)",
        "String with uri format (optional)",
        "String with date format (optional)",
        "Integer (optional)",
        "Number in range 1-1000 (optional)",
        "Untitled Single Select Enum (optional)",
        "Untitled Multiple Select Enum (optional)",
        "Titled Single Select Enum (optional)",
        "Titled Multiple Select Enum (optional)",
        "Legacy Titled Single Select Enum (optional)",
    ];
    let at: Vec<usize> = labels
        .iter()
        .map(|label| row(label).unwrap_or_else(|| panic!("{label}: {}", lines.join("\n"))))
        .collect();
    assert!(
        at.windows(2).all(|pair| pair[0] < pair[1]),
        "{}",
        lines.join("\n")
    );
    let screen = pty.screen();
    for never in ["[_prompt]", "type your own answer"] {
        assert!(!screen.contains(never), "{never}: {screen}");
    }
    let result = model.requests()[1].last_tool_result();
    for sent in [
        r#""name": "Marvin Paranoid""#,
        r#""email": "marvin@example.com""#,
        r#""integer": 7"#,
        r#""number": 3.14"#,
        r#""check": true"#,
        r#""firstLine": "It was a dark and stormy night.""#,
        r#""legacyTitledEnum": "pet-1""#,
        r#""titledSingleSelectEnum": "hero-1""#,
    ] {
        assert!(result.contains(sent), "{sent} in {result}");
    }
}

/// server-everything in its Streamable HTTP mode on a port of its own (bound to loopback by
/// tests/fixtures/mcp/loopback.mjs), stopped when the test ends.
struct HttpEverything {
    child: std::process::Child,
    url: String,
}

impl HttpEverything {
    fn start() -> Self {
        let port = crate::common::closed_port();
        let package = servers().join("../@modelcontextprotocol/server-everything/dist/index.js");
        let loopback =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/loopback.mjs");
        let child = Command::new("node")
            .arg("--import")
            .arg(&loopback)
            .arg(&package)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("node (installed with npm) runs the HTTP server");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "server-everything never listened on {port}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_over_streamable_http_is_reached_by_its_url() {
    let server = HttpEverything::start();
    let home = TempDir::new("mcp-http");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[
            ("h1", "remote__echo", r#"{"message": "over http"}"#),
            ("h2", "remote__get-sum", r#"{"a": 20, "b": 22}"#),
            ("h3", "remote__trigger-elicitation-request", "{}"),
        ]),
        Reply::text(&["Done over HTTP."]),
    ]);
    let mcp = json!({"mcpServers": {"remote": {
        "type": "http", "url": server.url, "headers": {"X-Marvin-Test": "${HOME}"}}}});
    let output = non_interactive(
        &mut with_servers(&home, &model, mcp),
        "use the remote tools",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with("Done over HTTP.\n"),
        "{}",
        stdout(&output)
    );
    let requests = model.requests();
    assert!(tool_names(&requests[0]).iter().any(|n| n == "remote__echo"));
    let results = requests[1].tool_results();
    assert_eq!(results[0], "Echo: over http");
    assert!(results[1].contains("42"), "{}", results[1]);
    // The elicitation came on the call's own stream; nobody can answer here, so declined.
    assert!(
        results[2].contains("nobody can answer here"),
        "{}",
        results[2]
    );

    // Gone, the server is said in one line, not waited for until a timeout.
    drop(server);
    let model = ReplayServer::start(vec![Reply::text(&["Alone."])]);
    let gone = json!({"mcpServers": {"remote": {"url": format!("http://127.0.0.1:{}/mcp", crate::common::closed_port())}}});
    let output = non_interactive(&mut with_servers(&home, &model, gone), "hello");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "the MCP server remote failed: it did not start: nothing answers at http://127.0.0.1:"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_projects_server_starts_once_approved_and_the_approval_is_remembered() {
    use crate::common::pty::Pty;
    let home = TempDir::new("mcp-approve");
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {"everything": {"command": everything()}}}).to_string(),
    )
    .unwrap();
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("p1", "everything__echo", r#"{"message": "approved"}"#)]),
        Reply::text(&["First."]),
        Reply::text(&["Second."]),
    ]);
    let start = || {
        let mut command = marvin(home.path());
        command
            .env("OPENAI_COMPAT_URL", model.url())
            .env("TERM", "xterm")
            .arg("--working-dir")
            .arg(&project);
        Pty::spawn(command)
    };
    let mut pty = start();
    pty.wait_for("› ");
    pty.send("echo hello\r");
    pty.wait_for("Start the MCP server everything declared in");
    pty.wait_for("Enter chooses");
    pty.send("3\r");
    pty.wait_for("First.");
    assert!(pty.leave().success());
    let requests = model.requests();
    // The turn waited for the server it had just approved: its tools were in that request.
    assert!(
        tool_names(&requests[0])
            .iter()
            .any(|n| n == "everything__echo")
    );
    assert_eq!(requests[1].last_tool_result(), "Echo: approved");

    // "Always in this project": the next run starts it without asking, and /approvals has it.
    let mut pty = start();
    pty.wait_for("› ");
    pty.send("/approvals\r");
    pty.wait_for("mcp-server:everything:");
    pty.send("again\r");
    pty.wait_for("Second.");
    let screen = pty.screen();
    assert!(pty.leave().success());
    assert_eq!(
        screen.matches("Start the MCP server everything").count(),
        0,
        "{screen}"
    );
}

#[test]
fn a_call_past_the_timeout_or_stopped_with_ctrl_c_ends_with_a_sentence() {
    use crate::common::pty::Pty;
    let home = TempDir::new("mcp-slow-call");
    let long = r#"{"duration": 60, "steps": 3}"#;
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("s1", "everything__trigger-long-running-operation", long)]),
        Reply::text(&["Too slow."]),
    ]);
    let mcp = json!({"mcpServers": {"everything": {"command": everything()}}});
    let mut command = with_servers(&home, &model, mcp.clone());
    // The limit bounds the server's start (its answer to `initialize`) as well: 10 s leaves a
    // node server room to start on a busy machine and is still far below the call's 60 s.
    command.env("MARVIN_MCP_TIMEOUT", "10");
    let started = std::time::Instant::now();
    let output = non_interactive(&mut command, "run the long one");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(45),
        "the 60 s call was waited for"
    );
    let result = model.requests()[1].last_tool_result();
    assert_eq!(
        result,
        "Error: The MCP server everything failed during the call: no answer within 10 s (MARVIN_MCP_TIMEOUT sets the limit)."
    );

    // Ctrl+C at the prompt stops the call under way.
    let model = ReplayServer::start(vec![Reply::tool_calls(&[(
        "s2",
        "everything__trigger-long-running-operation",
        long,
    )])]);
    let mut command = with_servers(&home, &model, mcp);
    command.env("TERM", "xterm");
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    ready(&mut pty, "everything  ready");
    pty.send("go\r");
    pty.wait_for("everything__trigger-long-running-operation");
    std::thread::sleep(std::time::Duration::from_millis(500));
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    assert!(pty.leave().success());
}

#[test]
fn a_server_of_the_2026_revision_is_opened_without_initialize() {
    let home = TempDir::new("mcp-modern");
    let shared = home.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(shared.join("plan.txt"), "step one\n").unwrap();
    let modern = servers().join("../../modern/node_modules/.bin/mcp-server-filesystem");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[(
            "m1",
            "files__read_text_file",
            &json!({"path": shared.join("plan.txt")}).to_string(),
        )]),
        Reply::text(&["Read."]),
    ]);
    let mcp = json!({"mcpServers": {"files": {"command": modern, "args": [shared]}}});
    let output = non_interactive(&mut with_servers(&home, &model, mcp), "read the plan file");
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = model.requests();
    assert!(
        tool_names(&requests[0])
            .iter()
            .any(|n| n == "files__list_allowed_directories")
    );
    assert_eq!(requests[1].last_tool_result(), "step one\n");
}

#[test]
fn a_call_that_needs_input_is_asked_and_sent_again_with_the_answer() {
    use crate::common::pty::Pty;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/mrtr_server.py");
    let mcp = json!({"mcpServers": {"greeter": {"command": "python3", "args": [script]}}});
    // Nobody to ask: declined at once, and the server says so.
    let home = TempDir::new("mcp-mrtr-headless");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("g1", "greeter__greet", "{}")]),
        Reply::text(&["Fine."]),
    ]);
    let output = non_interactive(&mut with_servers(&home, &model, mcp.clone()), "greet");
    assert!(output.status.success(), "{}", stderr(&output));
    let result = model.requests()[1].last_tool_result();
    assert!(
        result.starts_with("No greeting: the person chose decline."),
        "{result}"
    );

    // At the prompt the question is the form; the answer goes back with the server's state.
    let home = TempDir::new("mcp-mrtr");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("g2", "greeter__greet", "{}")]),
        Reply::text(&["Greeted."]),
    ]);
    // A desktop, but one question is asked in the terminal: the browser is not opened.
    let opened = home.path().join("browser-opened");
    let browser = home.path().join("browser");
    std::fs::write(
        &browser,
        format!("#!/bin/sh\ntouch '{}'\n", opened.display()),
    )
    .unwrap();
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&browser, executable).unwrap();
    let mut command = with_servers(&home, &model, mcp);
    command
        .env("TERM", "xterm")
        .env("DISPLAY", ":0")
        .env("BROWSER", &browser);
    let mut pty = Pty::spawn(command);
    pty.wait_for("› ");
    ready(&mut pty, "greeter  ready (mrtr-test 1)");
    pty.send("greet someone\r");
    pty.wait_for("[greeter__greet]");
    pty.wait_for("Whom should I greet?");
    pty.wait_for("Your answers go to the MCP server greeter");
    pty.wait_for("Esc closes the form");
    pty.send("Ada\r");
    pty.wait_for("Greeted.");
    assert!(pty.leave().success());
    assert_eq!(model.requests()[1].last_tool_result(), "Hello, Ada!");
    assert!(!opened.exists(), "a browser was opened for one question");
}

#[test]
fn a_server_that_asks_without_end_is_declined_after_twenty_questions() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/insistent_server.py");
    let mcp = json!({"mcpServers": {"insistent": {"command": "python3", "args": [script]}}});
    let home = TempDir::new("mcp-insistent");
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("i1", "insistent__insist", "{}")]),
        Reply::text(&["It stopped asking."]),
    ]);
    let mut command = with_servers(&home, &model, mcp);
    command.env("TERM", "xterm").env("MARVIN_NO_BROWSER", "1");
    let mut pty = crate::common::pty::Pty::spawn(command);
    pty.wait_for("› ");
    ready(&mut pty, "insistent  ready (insistent-test 1)");
    pty.send("go\r");
    // Each question is closed unanswered (declined); the server asks again.
    for asked in 1..=20 {
        pty.wait_for(&format!("Name file {asked} to delete"));
        pty.send("\x1b");
    }
    pty.wait_for("It stopped asking.");
    assert!(pty.leave().success());
    assert!(
        !pty.screen().contains("Name file 21 to delete"),
        "the person is asked twenty times, not a hundred"
    );
    // The server asks on (it is declined at once, nobody asked) until its own end.
    assert_eq!(
        model.requests()[1].last_tool_result(),
        "asked 100 times; last answer: {\"action\": \"decline\"}\nThe MCP server insistent asked the person more than 20 questions in one call: Marvin declined the rest, so its result may lack answers it wanted. If you need more from the person, ask them in plain text."
    );
}

#[test]
fn a_servers_pictures_are_removed_however_the_repl_ends() {
    use crate::common::pty::Pty;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/picture_server.py");
    let mcp = json!({"mcpServers": {"pics": {"command": "python3", "args": [script]}}});
    // quit, Ctrl+D, and SIGHUP at the prompt (a closed terminal or SSH session).
    for leave in ["quit\r", "\x04", "SIGHUP"] {
        let home = TempDir::new("mcp-pictures-repl");
        let temp = home.path().join("tmp");
        std::fs::create_dir_all(&temp).unwrap();
        let model = ReplayServer::start(vec![
            Reply::tool_calls(&[("p1", "pics__picture", "{}")]),
            Reply::text(&["A tiny picture."]),
        ]);
        let mut command = with_servers(&home, &model, mcp.clone());
        command.env("TERM", "xterm").env("TMPDIR", &temp);
        let mut pty = Pty::spawn(command);
        pty.wait_for("› ");
        ready(&mut pty, "pics  ready");
        pty.send("show me a picture\r");
        pty.wait_for("A tiny picture.");
        let kept = saved_path(&model.requests()[1].tool_results()[0]);
        assert!(kept.starts_with(&temp), "{}", kept.display());
        match leave {
            "SIGHUP" => {
                pty.signal(libc::SIGHUP);
                let status = pty.wait_exit();
                assert_eq!(
                    std::os::unix::process::ExitStatusExt::signal(&status),
                    Some(libc::SIGHUP),
                    "{status:?}"
                );
            }
            keys => {
                pty.send(keys);
                assert!(pty.wait_exit().success());
            }
        }
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
        assert!(left.is_empty(), "{leave:?}: {left:?}");
    }
}

#[test]
fn a_call_reaches_the_server_with_what_its_schema_allows() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/echo_server.py");
    let mcp = json!({"mcpServers": {"echo": {"command": "python3", "args": [script]}}});
    let home = TempDir::new("mcp-echo");
    let calls = [
        (
            "e1",
            "echo__open",
            r#"{"text": "hi", "nothing": null, "maybe": null, "extra": {"deep": [1]}}"#,
        ),
        ("e2", "echo__pattern", r#"{"text": "hi", "x_count": 3}"#),
        ("e3", "echo__bare", r#"{"id": 7, "anything": null}"#),
        ("e4", "echo__strict", r#"{"text": "hi", "extra": 1}"#),
    ];
    let model = ReplayServer::start(vec![Reply::tool_calls(&calls), Reply::text(&["Echoed."])]);
    let output = non_interactive(&mut with_servers(&home, &model, mcp), "echo");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        model.requests()[1].tool_results(),
        [
            // Fields the schema allows beyond its properties, and nulls it allows, arrive.
            r#"{"extra": {"deep": [1]}, "maybe": null, "nothing": null, "text": "hi"}"#,
            r#"{"text": "hi", "x_count": 3}"#,
            r#"{"anything": null, "id": 7}"#,
            // A schema that allows no other field gets none.
            r#"{"text": "hi"}"#,
        ]
    );
}
