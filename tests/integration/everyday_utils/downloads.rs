//! download_file against a local server (names from Content-Disposition or the address, made
//! safe, never overwriting; failures leaving nothing behind) and yt_dlp_download through a fake
//! `yt-dlp` on PATH.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{Silent, run};
use crate::common::tools::allow_loopback;
use crate::common::{ReplayServer, Reply, TempDir};

fn downloads(home: &TempDir) -> PathBuf {
    home.path().join("Downloads")
}

fn listing(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|list| {
            list.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn file(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
    Reply {
        status,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: body.into(),
        calls: Default::default(),
    }
}

fn files() -> ReplayServer {
    ReplayServer::answering(|request| match request.url.as_str() {
        "/get?id=1" => file(200, "application/pdf", "%PDF-1.4 test").header(
            "Content-Disposition",
            "attachment; filename=\"report 2024.pdf\"",
        ),
        "/img/cat%20photo.png" => file(200, "image/png", b"\x89PNG\r\n".to_vec()),
        "/evil" => file(200, "text/plain", "gotcha").header(
            "Content-Disposition",
            "attachment; filename=\"../../.bashrc\"",
        ),
        "/big" => file(200, "application/octet-stream", vec![0u8; 2 * 1024 * 1024]),
        "/" => file(
            200,
            "text/html; charset=utf-8",
            "<html><body>hi</body></html>",
        ),
        _ => file(404, "text/plain", "no such file"),
    })
}

#[test]
fn files_are_named_safely_and_nothing_is_overwritten_or_left_half_done() {
    let home = TempDir::new("download");
    let dir = downloads(&home);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cat photo.png"), "old").unwrap();
    let server = files();
    let base = server.root();
    let get = |path: &str| format!(r#"{{"url": "{base}{path}"}}"#);
    let calls = [
        get("/get?id=1"),
        get("/get?id=1"),
        get("/img/cat%20photo.png"),
        get("/evil"),
        get("/missing"),
        format!(r#"{{"url": "{base}/big", "max_mb": 1}}"#),
        get("/"),
        r#"{"url": "file:///etc/passwd"}"#.to_string(),
    ];
    let calls: Vec<(String, &str, &str)> = calls
        .iter()
        .enumerate()
        .map(|(i, args)| ((i + 1).to_string(), "download_file", args.as_str()))
        .collect();
    let calls: Vec<(&str, &str, &str)> =
        calls.iter().map(|(i, t, a)| (i.as_str(), *t, *a)).collect();
    let run = run(
        &home,
        &calls,
        &[
            ("MARVIN_DOWNLOADS_DIR", dir.display().to_string()),
            allow_loopback(),
        ],
    );
    let r = &run.results;
    let pdf = format!(" (13 bytes, application/pdf) from {base}/get?id=1.");
    let reports: BTreeSet<&str> = r[..2].iter().map(String::as_str).collect();
    assert_eq!(
        reports,
        BTreeSet::from([
            format!("Saved {}{pdf}", dir.join("report 2024.pdf").display()).as_str(),
            format!("Saved {}{pdf}", dir.join("report 2024 (1).pdf").display()).as_str(),
        ]),
        "{}",
        run.stderr()
    );
    assert_eq!(
        r[2],
        format!(
            "Saved {} (6 bytes, image/png) from {base}/img/cat%20photo.png.",
            dir.join("cat photo (1).png").display()
        )
    );
    assert!(
        r[3].starts_with(&format!("Saved {} ", dir.join("bashrc").display())),
        "{}",
        r[3]
    );
    assert!(
        r[4].starts_with("Error: ") && r[4].contains("answered HTTP 404; nothing was saved."),
        "{}",
        r[4]
    );
    assert_eq!(
        r[5],
        format!(
            "Error: The file at {base}/big is larger than 1 MB; nothing was saved. Raise max_mb if the user wants it anyway."
        )
    );
    assert!(
        r[6].starts_with(&format!("Saved {} ", dir.join("download.html").display())),
        "{}",
        r[6]
    );
    assert!(
        r[7].starts_with("Error: 'file:///etc/passwd' is not a web address"),
        "{}",
        r[7]
    );
    assert_eq!(
        listing(&dir),
        BTreeSet::from(
            [
                "report 2024.pdf",
                "report 2024 (1).pdf",
                "cat photo.png",
                "cat photo (1).png",
                "bashrc",
                "download.html"
            ]
            .map(String::from)
        ),
        "no part file is left"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("cat photo.png")).unwrap(),
        "old"
    );
    assert_eq!(
        std::fs::read(dir.join("report 2024.pdf")).unwrap(),
        b"%PDF-1.4 test"
    );
    assert!(!home.path().join(".bashrc").exists());
}

#[test]
fn a_silent_server_times_out_and_leaves_nothing() {
    let home = TempDir::new("download-timeout");
    let silent = Silent::start();
    let args = format!(r#"{{"url": "{}/slow.zip"}}"#, silent.url());
    let run = run(
        &home,
        &[("1", "download_file", &args)],
        &[("MARVIN_TOOL_TIMEOUT", "1".into()), allow_loopback()],
    );
    assert_eq!(
        run.results,
        ["Error: 127.0.0.1 request timed out after 1s. Try again or rephrase query."],
        "{}",
        run.stderr()
    );
    assert_eq!(
        listing(&downloads(&home)),
        BTreeSet::new(),
        "the default directory is ~/Downloads, left empty"
    );
}

fn fake_yt_dlp(home: &TempDir) -> String {
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let logs = crate::common::logs(home.path());
    let logs = logs.display();
    let script = format!(
        r#"#!/bin/sh
printf '%s\n' "$*" >> "{logs}/yt.log"
env >> "{logs}/yt.env"
dir=""; prev=""; url=""
for a in "$@"; do
  if [ "$prev" = "--paths" ]; then dir="$a"; fi
  prev="$a"; url="$a"
done
case "$url" in
  *private*) echo "ERROR: [youtube] xyz: Private video. Sign in if you've been granted access" >&2; exit 1 ;;
esac
echo "[youtube] abc123: Downloading webpage"
echo video > "$dir/Demo video [abc123].mp4"
echo "$dir/Demo video [abc123].mp4"
"#
    );
    let path = bin.join("yt-dlp");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn yt_dlp_saves_into_the_downloads_directory_and_its_errors_come_back() {
    let home = TempDir::new("yt-dlp");
    let path = fake_yt_dlp(&home);
    let dir = downloads(&home);
    let run = run(
        &home,
        &[
            (
                "1",
                "yt_dlp_download",
                r#"{"url": "https://www.youtube.com/watch?v=abc123", "audio_only": true}"#,
            ),
            (
                "2",
                "yt_dlp_download",
                r#"{"url": "https://www.youtube.com/watch?v=private"}"#,
            ),
            ("3", "yt_dlp_download", r#"{"url": "--exec=rm"}"#),
        ],
        &[("PATH", path), ("NEWSAPI_KEY", "news-secret-3".into())],
    );
    let saved = dir.join("Demo video [abc123].mp4");
    assert_eq!(
        run.results[0],
        format!("Saved {} with yt-dlp.", saved.display()),
        "{}",
        run.stderr()
    );
    assert!(saved.is_file());
    assert!(
        run.results[1].starts_with("Error: yt-dlp failed (exit code 1):")
            && run.results[1].contains("Private video"),
        "{}",
        run.results[1]
    );
    assert!(
        run.results[2].starts_with("Error: '--exec=rm' is not a web address"),
        "{}",
        run.results[2]
    );
    let calls = std::fs::read_to_string(home.path().join("logs/yt.log")).unwrap();
    assert!(
        calls.contains(&format!("--ignore-config --no-cache-dir --no-playlist --no-overwrites --no-progress --newline --paths {} --output %(title)s [%(id)s].%(ext)s --print after_move:filepath --proxy http://127.0.0.1:", dir.display())),
        "yt-dlp goes through Marvin's filtering proxy: {calls}"
    );
    assert!(
        calls.contains(
            " --extract-audio --audio-format mp3 -- https://www.youtube.com/watch?v=abc123\n"
        ),
        "{calls}"
    );
    assert_eq!(calls.lines().count(), 2, "{calls}");
    let environment = std::fs::read_to_string(home.path().join("logs/yt.env")).unwrap();
    assert!(!environment.contains("news-secret-3"), "{environment}");
}

#[test]
fn without_yt_dlp_the_tool_says_how_to_install_it() {
    let home = TempDir::new("yt-dlp-missing");
    let empty = home.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let run = run(
        &home,
        &[(
            "1",
            "yt_dlp_download",
            r#"{"url": "https://www.youtube.com/watch?v=abc123"}"#,
        )],
        &[("PATH", empty.display().to_string())],
    );
    assert_eq!(
        run.results,
        ["Error: yt-dlp is not installed. Install with: pip install yt-dlp"],
        "{}",
        run.stderr()
    );
}

#[test]
fn a_download_stopped_mid_way_leaves_no_part_file() {
    let home = TempDir::new("download-stop");
    let dir = downloads(&home);
    let stall = crate::common::StallServer::start("the first bytes of a big file");
    let args = format!(r#"{{"url": "http://127.0.0.1:{}/big.iso"}}"#, stall.port);
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("1", "download_file", &args)]),
        Reply::text(&["done"]),
    ]);
    let child = crate::common::marvin(home.path())
        .env("OPENAI_COMPAT_URL", model.url())
        .envs([allow_loopback()])
        .arg("--non-interactive")
        .arg("--prompt")
        .arg(format!("download http://127.0.0.1:{}/big.iso", stall.port))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !listing(&dir).iter().any(|name| name.ends_with(".part")) {
        assert!(
            std::time::Instant::now() < deadline,
            "the download never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: signalling our own child process; SIGTERM stops a run as Ctrl+C does.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(143),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(listing(&dir), BTreeSet::new(), "the part file is removed");
}

#[test]
fn a_large_download_says_how_far_it_is_on_the_tool_line_of_a_terminal() {
    let home = TempDir::new("download-progress");
    let server = files();
    let args = format!(r#"{{"url": "{}/big"}}"#, server.root());
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("1", "download_file", &args)]),
        Reply::text(&["fetched"]),
    ]);
    let mut command = crate::common::marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .env("TERM", "xterm")
        .envs([allow_loopback()]);
    let mut pty = crate::common::pty::Pty::spawn(command);
    pty.wait_for("› ");
    pty.send("get the big file\r");
    pty.wait_for("fetched");
    let screen = pty.screen();
    pty.leave();
    // The spinner's line is rewritten in place with the bytes so far, then erased for the
    // call's line with its time.
    let progress = screen
        .find("\r\x1b[2K")
        .expect("the spinner's line is rewritten");
    let shown = &screen[progress..];
    // The server streams the 2 MB without a length: the bytes so far, from 1 MB on.
    let bytes_shown = shown
        .split("download_file  ")
        .nth(1)
        .and_then(|after| after.split(" MB").next())
        .and_then(|before| before.rsplit(" · ").next())
        .and_then(|number| number.parse::<f64>().ok());
    assert!(
        bytes_shown.is_some_and(|mb| (1.0..=2.0).contains(&mb)),
        "{shown:?}"
    );
    let last = shown.rfind("\r\x1b[2K").unwrap();
    let finished = shown[last..].lines().next().unwrap();
    let finished = strip_colours(finished);
    assert!(
        finished.starts_with("  ✓ download_file  http://"),
        "{finished:?}"
    );
    assert!(finished.ends_with("s)"), "{finished:?}");
    assert!(!finished.contains(" MB"), "{finished:?}");
    assert_eq!(
        listing(&downloads(&home)),
        BTreeSet::from(["big".to_string()])
    );
}

/// Text without its control sequences and carriage returns.
fn strip_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("\x1b[") {
        out.push_str(&rest[..start]);
        rest = &rest[start + 2..];
        match rest.find(|c: char| c.is_ascii_alphabetic()) {
            Some(end) => rest = &rest[end + 1..],
            None => break,
        }
    }
    out.push_str(rest);
    out.replace('\r', "")
}
