//! Each failure of `!v`/`!voice` is one line, sends nothing and gives the prompt back: no
//! key, no recorder, silence, a refused upload, a failing recorder, a bad N, and Ctrl+C.

use super::{KEY, Whisper, gone, joined, pid_written, recorder, recording_repl, repl, script, wav};
use crate::common::{ReplayServer, TempDir};

/// Runs `line` in a REPL with `env` and returns the screen once `expected` was shown and the
/// prompt came back; nothing reaches the model.
fn fails(
    home: &TempDir,
    whisper: &Whisper,
    env: &[(&str, &str)],
    line: &str,
    expected: &str,
) -> String {
    let model = ReplayServer::unused();
    let mut pty = repl(home, &model.url(), &whisper.url(), env);
    pty.wait_for("› ");
    pty.send(&format!("{line}\r"));
    pty.wait_for_words(expected);
    pty.wait_for_nth("› ", 2);
    let screen = pty.screen();
    assert!(pty.leave().success());
    screen
}

#[test]
fn without_a_key_nothing_is_recorded() {
    let home = TempDir::new("voice-nokey");
    let rec = recorder(&home, &wav(&joined(&[(1.0, true)])), "exit 0");
    let whisper = Whisper::start(Vec::new());
    fails(
        &home,
        &whisper,
        &[("MARVIN_RECORDER", rec.to_str().unwrap())],
        "!v",
        "Cannot transcribe: there is no GROQ_API_KEY. Set it in the environment (export GROQ_API_KEY=gsk_...) or put the key in ~/.ssh/GROQ_API_KEY.",
    );
    assert!(!home.path().join("args").exists(), "the recorder never ran");
    assert!(whisper.uploads().is_empty());
}

#[test]
fn without_a_recorder_the_line_says_what_to_install_or_set() {
    let home = TempDir::new("voice-norec");
    let empty = home.path().join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    let whisper = Whisper::start(Vec::new());
    let screen = fails(
        &home,
        &whisper,
        &[("PATH", empty.to_str().unwrap()), ("GROQ_API_KEY", KEY)],
        "!voice",
        "Cannot record: neither arecord (alsa-utils) nor sox is on PATH. Install one, or set MARVIN_RECORDER to a program that records (see the README's Voice section).",
    );
    assert!(!screen.contains("Voice mode:"), "{screen}");

    let missing = "MARVIN_RECORDER names /nowhere/rec, which is not a program Marvin can find.";
    fails(
        &home,
        &whisper,
        &[("MARVIN_RECORDER", "/nowhere/rec"), ("GROQ_API_KEY", KEY)],
        "!v 3",
        missing,
    );
    assert!(whisper.uploads().is_empty());
}

#[test]
fn silence_is_not_sent() {
    let home = TempDir::new("voice-silence");
    let rec = recorder(&home, &wav(&joined(&[(2.0, false)])), "exit 0");
    let whisper = Whisper::start(Vec::new());
    let env = [
        ("MARVIN_RECORDER", rec.to_str().unwrap()),
        ("GROQ_API_KEY", KEY),
    ];
    fails(
        &home,
        &whisper,
        &env,
        "!v 2",
        "Heard nothing (only silence); nothing was sent.",
    );
    // In voice mode silence is never a segment: the recording ends with nothing uploaded.
    fails(
        &home,
        &whisper,
        &env,
        "!voice",
        "The recorder stopped; voice mode ended.",
    );
    assert!(whisper.uploads().is_empty());
}

#[test]
fn a_refused_upload_says_the_status_and_groqs_message_never_the_key() {
    let home = TempDir::new("voice-401");
    let rec = recorder(&home, &wav(&joined(&[(1.0, true)])), "exit 0");
    // Groq answers a bad key with OpenAI's error shape (as in openai_401_invalid_api_key.json,
    // Groq's own message): https://console.groq.com/docs/errors
    let refusal = br#"{"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    let whisper = Whisper::start(vec![(401, refusal.to_vec())]);
    let screen = fails(
        &home,
        &whisper,
        &[
            ("MARVIN_RECORDER", rec.to_str().unwrap()),
            ("GROQ_API_KEY", KEY),
        ],
        "!v 1",
        "Groq refused the recording (HTTP 401): Invalid API Key; nothing was sent.",
    );
    assert!(!screen.contains(KEY), "{screen}");
    assert_eq!(whisper.uploads().len(), 1);
}

#[test]
fn a_refusal_repeating_the_key_is_redacted_and_a_web_page_is_one_line() {
    let home = TempDir::new("voice-refusals");
    let rec = recorder(&home, &wav(&joined(&[(1.0, true)])), "exit 0");
    let echoed = format!(r#"{{"error":{{"message":"Bad header Authorization: Bearer {KEY}"}}}}"#);
    let page = "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n\
                <center><h1>502 Bad Gateway</h1></center>\n<hr><center>cloudflare</center>\n\
                </body>\n</html>\n";
    let whisper = Whisper::start(vec![
        (401, echoed.into_bytes()),
        (502, page.as_bytes().to_vec()),
    ]);
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!v 1\r");
    pty.wait_for_words(
        "Groq refused the recording (HTTP 401): Bad header Authorization: Bearer [redacted]; nothing was sent.",
    );
    pty.wait_for_nth("› ", 2);
    pty.send("!v 1\r");
    pty.wait_for_words(
        "Groq answered HTTP 502 with a web page (an outage or a proxy); try again later; nothing was sent.",
    );
    pty.wait_for_nth("› ", 3);
    let screen = pty.screen();
    assert!(pty.leave().success());
    assert!(!screen.contains(KEY), "{screen}");
    assert!(!screen.contains("<"), "no markup: {screen}");
    assert_eq!(whisper.uploads().len(), 2);
}

#[test]
fn a_failing_recorder_says_its_last_line_and_a_bad_n_is_refused() {
    let home = TempDir::new("voice-recfail");
    let rec = script(
        home.path(),
        "rec.sh",
        "echo 'ALSA lib pcm.c: starting' >&2\necho 'arecord: main:831: audio open error: No such file or directory' >&2\nexit 1",
    );
    let whisper = Whisper::start(Vec::new());
    let env = [
        ("MARVIN_RECORDER", rec.to_str().unwrap()),
        ("GROQ_API_KEY", KEY),
    ];
    fails(
        &home,
        &whisper,
        &env,
        "!v",
        "The recorder rec.sh exited with 1: arecord: main:831: audio open error: No such file or directory; nothing was sent.",
    );
    fails(
        &home,
        &whisper,
        &env,
        "!v 600",
        "!v takes a number of seconds from 1 to 120, e.g. `!v 10`; not \"600\".",
    );
    assert!(whisper.uploads().is_empty());
}

#[test]
fn ctrl_c_stops_the_recorder_and_everything_it_started() {
    let home = TempDir::new("voice-ctrlc");
    let sleeper = home.path().join("sleeper");
    let rec = recorder(
        &home,
        &wav(&joined(&[(1.0, true)])),
        &format!("sleep 60 & echo $! > '{}'\nwait", sleeper.display()),
    );
    let whisper = Whisper::start(Vec::new());
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!v 30\r");
    pty.wait_for("🎙 recording 0/30 s — Ctrl+C stops");
    let pid = pid_written(&sleeper, 1);
    pty.send("\x03");
    pty.wait_for("Recording stopped; nothing was sent.");
    pty.wait_for_nth("› ", 2);
    gone(pid);
    assert!(pty.leave().success());
    assert!(whisper.uploads().is_empty());
}

#[test]
fn an_empty_transcript_and_a_silent_service_send_nothing() {
    let home = TempDir::new("voice-empty");
    let rec = recorder(&home, &wav(&joined(&[(1.0, true)])), "exit 0");
    let whisper = Whisper::start(vec![(200, br#"{"text":"  "}"#.to_vec())]);
    let env = [
        ("MARVIN_RECORDER", rec.to_str().unwrap()),
        ("GROQ_API_KEY", KEY),
    ];
    fails(
        &home,
        &whisper,
        &env,
        "!v 1",
        "The transcript is empty: Whisper heard no words; nothing was sent.",
    );

    // A service that takes the upload and never answers: the tools' timeout ends the wait.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = format!("http://{}/openai/v1", listener.local_addr().unwrap());
    let (release, held) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let connection = listener.accept();
        let _ = held.recv();
        drop(connection);
    });
    let model = ReplayServer::unused();
    let mut command_env = env.to_vec();
    command_env.push(("MARVIN_TOOL_TIMEOUT", "1"));
    let mut pty = repl(&home, &model.url(), &silent, &command_env);
    pty.wait_for("› ");
    pty.send("!v 1\r");
    pty.wait_for("Groq did not answer within 1s; nothing was sent. Try again later.");
    pty.wait_for_nth("› ", 2);
    assert!(pty.leave().success());
    drop(release);
    holder.join().unwrap();
}

#[test]
fn ctrl_c_ends_voice_mode_and_sigterm_stops_the_recorder_before_leaving() {
    let home = TempDir::new("voice-stop");
    let pids = home.path().join("pids");
    let rec = recorder(
        &home,
        &wav(&joined(&[(0.5, false)])),
        &format!("sleep 60 & echo $! >> '{}'\nwait", pids.display()),
    );
    let whisper = Whisper::start(Vec::new());
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!voice\r");
    pty.wait_for("🎙 ▯▯▯▯▯▯▯▯▯▯ — pause to send");
    let first = pid_written(&pids, 1);
    pty.send("\x03");
    pty.wait_for("Voice mode stopped; nothing more was sent.");
    pty.wait_for_nth("› ", 2);
    gone(first);
    assert!(pty.leave().success());

    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!v 30\r");
    pty.wait_for("🎙 recording 0/30 s");
    let second = pid_written(&pids, 2);
    pty.signal(libc::SIGTERM);
    assert_eq!(pty.wait_exit().code(), Some(143));
    gone(second);
    assert!(whisper.uploads().is_empty());
}
