//! How voice input behaves on the terminal: the counter rewritten in place and erased, typed
//! keys not echoed over the meter, a Ctrl+C that stops an answer leaving voice mode on, and a
//! recorder that does not outlive a Marvin killed outright.

use super::{KEY, Whisper, gone, joined, pid_written, recorder, recording_repl, repl, wav};
use crate::common::{StallServer, TempDir};

#[test]
fn the_counter_is_rewritten_in_place_and_erased_after() {
    let home = TempDir::new("voice-inplace");
    let rec = recorder(&home, &wav(&joined(&[(1.0, true)])), "exec sleep 60");
    let whisper = Whisper::start(Vec::new());
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!v 30\r");
    pty.wait_for_nth("🎙 recording", 3);
    pty.send("\x03");
    pty.wait_for("Recording stopped; nothing was sent.");
    pty.wait_for_nth("› ", 2);
    let screen = pty.screen();
    assert!(pty.leave().success());
    let first = screen.find("🎙 recording").unwrap();
    let stopped = screen.find("Recording stopped").unwrap();
    let frames = &screen[first..stopped];
    // Each frame erases the one before it; the last is erased, not left above the message.
    assert!(!frames.contains('\n'), "a frame scrolled: {frames:?}");
    assert!(
        frames.matches("\r\x1b[2K🎙 recording").count() >= 2,
        "{frames:?}"
    );
    let after_last = &frames[frames.rfind("🎙 recording").unwrap()..];
    assert!(
        after_last.contains("\r\x1b[2K"),
        "not erased: {after_last:?}"
    );
}

#[test]
fn keys_typed_while_listening_are_not_echoed() {
    let home = TempDir::new("voice-noecho");
    let rec = recorder(&home, &wav(&joined(&[(0.5, false)])), "exec sleep 60");
    let whisper = Whisper::start(Vec::new());
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!voice\r");
    pty.wait_for("🎙 ▯▯▯▯▯▯▯▯▯▯ — pause to send");
    pty.send("typed words");
    let shown = pty.screen().matches("— pause to send").count();
    pty.wait_for_nth("— pause to send", shown + 2);
    pty.send("\r");
    pty.wait_for("Voice mode ended.");
    pty.wait_for_nth("› ", 2);
    let screen = pty.screen();
    assert!(pty.leave().success());
    assert!(!screen.contains("typed"), "echoed: {screen}");
    assert!(whisper.uploads().is_empty());
}

#[test]
fn ctrl_c_stops_the_answer_and_voice_mode_goes_on() {
    let home = TempDir::new("voice-answer-stop");
    let said = wav(&joined(&[(0.3, false), (1.0, true), (1.5, false)]));
    let rec = recorder(&home, &said, "exec sleep 60");
    let whisper = Whisper::start(vec![(200, br#"{"text":"Tell me a long story."}"#.to_vec())]);
    let model = StallServer::start(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"}}]}\n\n",
    );
    let env = [
        ("MARVIN_RECORDER", rec.to_str().unwrap()),
        ("GROQ_API_KEY", KEY),
    ];
    let mut pty = repl(&home, &model.url(), &whisper.url(), &env);
    pty.wait_for("› ");
    pty.send("!voice\r");
    pty.wait_for("🎤 \"Tell me a long story.\"");
    pty.wait_for("Once upon");
    pty.send("\x03");
    pty.wait_for("[Cancelled]");
    // Listening goes on: the meter comes back, and Enter ends voice mode as usual.
    let tail = pty
        .screen()
        .split("[Cancelled]")
        .nth(1)
        .unwrap()
        .to_string();
    let shown = pty.screen().matches("— pause to send").count();
    pty.wait_for_nth("— pause to send", shown + 1);
    pty.send("\r");
    pty.wait_for("Voice mode ended.");
    pty.wait_for_nth("› ", 2);
    let screen = pty.screen();
    assert!(pty.leave().success());
    assert!(!tail.contains("Voice mode stopped"), "{tail}");
    assert!(!screen.contains("Voice mode stopped"), "{screen}");
    assert_eq!(whisper.uploads().len(), 1);
}

#[test]
fn the_recorder_ends_when_marvin_is_killed_outright() {
    let home = TempDir::new("voice-sigkill");
    let pid_file = home.path().join("recorder.pid");
    let rec = recorder(
        &home,
        &wav(&joined(&[(0.5, false)])),
        &format!("echo $$ > '{}'\nexec sleep 600", pid_file.display()),
    );
    let whisper = Whisper::start(Vec::new());
    let (mut pty, _model) = recording_repl(&home, &rec, &whisper.url());
    pty.send("!voice\r");
    pty.wait_for("— pause to send");
    let pid = pid_written(&pid_file, 1);
    pty.kill_hard();
    gone(pid);
    assert!(whisper.uploads().is_empty());
}
