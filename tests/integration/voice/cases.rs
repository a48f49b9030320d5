//! What was said arrives as the user's message: `!v N` uploads the recording whole, `!voice`
//! uploads each stretch of speech a pause ended, and Enter sends the one under way.

use super::{
    KEY, RATE, Whisper, doc_text, joined, recorder, repl, samples_of, verbose_answer, wav,
};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

#[test]
fn v_records_the_seconds_asked_and_sends_the_transcript() {
    let home = TempDir::new("voice-v");
    let recording = wav(&joined(&[(0.3, false), (1.0, true), (0.7, false)]));
    let rec = recorder(&home, &recording, "exit 0");
    let whisper = Whisper::start(vec![(
        200,
        fixture("apis/openai_transcription_json_docexample.json"),
    )]);
    let model = ReplayServer::start(vec![Reply::text(&["Scale it up."])]);
    let rec = rec.to_str().unwrap();
    let mut pty = repl(
        &home,
        &model.url(),
        &whisper.url(),
        &[("MARVIN_RECORDER", rec), ("GROQ_API_KEY", KEY)],
    );
    pty.wait_for("› ");
    pty.send("!v 2\r");
    pty.wait_for("Scale it up.");
    let args = std::fs::read_to_string(home.path().join("args")).unwrap();
    assert!(args.ends_with(".wav 2\n"), "OUTPUT SECONDS: {args}");

    let uploads = whisper.uploads();
    assert_eq!(uploads.len(), 1);
    let upload = &uploads[0];
    assert_eq!(upload.path, "/openai/v1/audio/transcriptions");
    assert_eq!(
        upload.authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(upload.field("model").as_deref(), Some("whisper-large-v3"));
    assert_eq!(upload.field("response_format").as_deref(), Some("json"));
    let (name, filename, content_type, bytes) = upload.file();
    assert_eq!(name, "file");
    assert!(
        filename.as_deref().unwrap().ends_with(".wav"),
        "{filename:?}"
    );
    assert_eq!(content_type.as_deref(), Some("audio/wav"));
    assert!(
        bytes == &recording,
        "the recording is uploaded as it was written"
    );

    // Only `text` is read; `usage` (the fixture's token counts) is ignored.
    let said = doc_text();
    assert!(said.starts_with("Imagine the wildest idea that you've ever had"));
    pty.wait_for_words(&format!("🎤 \"{said}\""));
    assert_eq!(model.requests()[0].last_message()["content"], said.as_str());
    assert!(pty.leave().success());
    // The transcript is in the history, as a typed line would be.
    let history =
        std::fs::read_to_string(home.path().join("marvin-home/profiles/default/history")).unwrap();
    assert!(history.contains("Imagine the wildest idea"), "{history}");
}

#[test]
fn voice_sends_each_stretch_of_speech_a_pause_ends() {
    let home = TempDir::new("voice-listen");
    let samples = joined(&[
        (0.5, false),
        (1.0, true),
        (1.5, false),
        (0.8, true),
        (1.5, false),
    ]);
    let rec = recorder(&home, &wav(&samples), "exit 0");
    let whisper = Whisper::start(vec![
        (
            200,
            fixture("apis/openai_transcription_json_docexample.json"),
        ),
        (200, verbose_answer()),
    ]);
    let model = ReplayServer::start(vec![
        Reply::text(&["First answer."]),
        Reply::text(&["Second answer."]),
    ]);
    let rec = rec.to_str().unwrap();
    let mut pty = repl(
        &home,
        &model.url(),
        &whisper.url(),
        &[
            ("MARVIN_RECORDER", rec),
            ("GROQ_API_KEY", KEY),
            ("WHISPER_MODEL", "whisper-large-v3-turbo"),
        ],
    );
    pty.wait_for("› ");
    pty.send("!voice\r");
    pty.wait_for("Voice mode: speak, and pause to send");
    pty.wait_for("Second answer.");
    // The script wrote everything and exited: the end of the recording ends the mode.
    pty.wait_for("The recorder stopped; voice mode ended.");
    let args = std::fs::read_to_string(home.path().join("args")).unwrap();
    assert!(args.ends_with(".wav 3600\n"), "{args}");

    let uploads = whisper.uploads();
    assert_eq!(
        uploads.len(),
        2,
        "two stretches of speech, the silences not sent"
    );
    for upload in &uploads {
        assert_eq!(
            upload.field("model").as_deref(),
            Some("whisper-large-v3-turbo")
        );
        assert_eq!(upload.file().0, "file");
    }
    // Each segment: 0.3 s before the speech, the speech, and the 1 s pause that ended it.
    let first = samples_of(&uploads[0].file().3);
    let start = RATE / 2 - RATE * 3 / 10;
    assert_eq!(first.len(), RATE * 23 / 10);
    assert!(
        first == samples[start..start + first.len()],
        "the first segment's samples"
    );
    let second = samples_of(&uploads[1].file().3);
    assert_eq!(second.len(), RATE * 21 / 10);
    let start = RATE * 3 - RATE * 3 / 10;
    assert!(
        second == samples[start..start + second.len()],
        "the second segment's samples"
    );

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let messages = &requests[1].body["messages"];
    assert_eq!(messages[1]["content"], doc_text().as_str());
    assert_eq!(messages[2]["content"], "First answer.");
    // verbose_json's top-level `text`, not a segment's.
    assert_eq!(
        messages[3]["content"],
        "The beach was a popular spot on a hot summer day. People were swimming in the ocean, building sandcastles, and playing beach volleyball."
    );
    assert!(pty.leave().success());
}

#[test]
fn enter_ends_voice_mode_and_sends_the_speech_under_way() {
    let home = TempDir::new("voice-enter");
    let speech = wav(&joined(&[(0.2, false), (0.6, true)]));
    // The recorder keeps running after writing, as a real one would, until it is stopped.
    let rec = recorder(&home, &speech, "sleep 60 & wait");
    let whisper = Whisper::start(vec![(200, br#"{"text":" Call mum. "}"#.to_vec())]);
    let model = ReplayServer::start(vec![Reply::text(&["Calling."])]);
    let rec = rec.to_str().unwrap();
    let mut pty = repl(
        &home,
        &model.url(),
        &whisper.url(),
        &[("MARVIN_RECORDER", rec), ("GROQ_API_KEY", KEY)],
    );
    pty.wait_for("› ");
    pty.send("!voice\r");
    // The meter shows the last 100 ms were loud.
    pty.wait_for("🎙 ▮▮▮▮▮▮▮▮");
    pty.send("\r");
    pty.wait_for("🎤 \"Call mum.\"");
    pty.wait_for("Calling.");
    pty.wait_for("Voice mode ended.");
    assert_eq!(model.requests()[0].last_message()["content"], "Call mum.");
    assert_eq!(
        samples_of(&whisper.uploads()[0].file().3).len(),
        RATE * 8 / 10
    );
    assert!(pty.leave().success());
}
