//! `!v [N]` and `!voice` at the terminal: the seconds counter or level meter on a line
//! rewritten in place, keys not echoed while listening, Ctrl+C (and Enter, in `!voice`) to
//! stop, each failure on one line, and what was said shown (`🎤 "…"`) then sent as the user's
//! message (never as a command). The recording itself is `voice`'s.

use std::time::Duration;

use super::keys::RawMode;
use super::repl::Repl;
use super::sanitize::sanitize;
use super::signal::{self, Watch};
use crate::voice::{EMPTY_TRANSCRIPT, Heard, Listening, Voice};

/// How often the counter, the meter, Ctrl+C and Enter are looked at.
const TICK: Duration = Duration::from_millis(100);

/// `!v N`: records `seconds`, then sends what was said. False when the answer ended the
/// session.
pub(crate) fn record(repl: &mut Repl<'_>, seconds: u32) -> bool {
    let Some(voice) = prepare(repl) else {
        return true;
    };
    // SIGTERM and SIGHUP stop the recording (and the recorder) rather than leave it running.
    let _armed = signal::arm_turn();
    // Keys typed while recording do not echo over the counter (Ctrl+C still signals).
    let quiet = RawMode::quiet();
    let mut watch = Watch::new();
    let mut take = match voice.record(seconds) {
        Ok(take) => take,
        Err(why) => return fail(repl, &why),
    };
    let recorded = loop {
        if watch.fired() {
            drop(take);
            repl.view.clear_transient();
            return fail(repl, "Recording stopped; nothing was sent.");
        }
        if let Some(recorded) = take.poll() {
            break recorded;
        }
        let done = take.elapsed().as_secs().min(seconds.into());
        let style = repl.view.style();
        let (mic, dash) = (style.glyph("🎙", "*"), style.glyph("—", "-"));
        repl.view.transient(&format!(
            "{mic} recording {done}/{seconds} s {dash} Ctrl+C stops"
        ));
        std::thread::sleep(TICK);
    };
    repl.view.clear_transient();
    drop(quiet);
    match recorded {
        Ok(wav) => match transcribe(repl, &voice, &wav, &mut watch) {
            Ok(text) => send(repl, &text),
            Err(why) => fail(repl, &why),
        },
        Err(why) => fail(repl, &why),
    }
}

/// `!voice`: listens until Enter, Ctrl+C or the recorder's end, sending each stretch of
/// speech when a pause ends it. False when an answer ended the session.
pub(crate) fn listen(repl: &mut Repl<'_>) -> bool {
    let Some(voice) = prepare(repl) else {
        return true;
    };
    let _armed = signal::arm_turn();
    // Keys typed while listening do not echo over the meter, and Enter is seen as it is
    // pressed; Ctrl+C still signals.
    let _quiet = RawMode::quiet();
    let mut listening = match voice.listen() {
        Ok(listening) => listening,
        Err(why) => return fail(repl, &why),
    };
    let style = repl.view.style();
    repl.view
        .side_line(&style.dim("Voice mode: speak, and pause to send; Enter or Ctrl+C ends it."));
    let mut watch = Watch::new();
    loop {
        if let Some(more) = step(repl, &voice, &mut listening, &mut watch) {
            return more;
        }
    }
}

/// One look at voice mode: None to go on listening, Some(more) when it ends (false when an
/// answer ended the session).
fn step(
    repl: &mut Repl<'_>,
    voice: &Voice,
    listening: &mut Listening,
    watch: &mut Watch,
) -> Option<bool> {
    if watch.fired() {
        repl.view.clear_transient();
        return Some(fail(repl, "Voice mode stopped; nothing more was sent."));
    }
    if enter_within(TICK) {
        repl.view.clear_transient();
        return Some(last_words(repl, voice, listening, watch));
    }
    let segment = match listening.poll() {
        Ok(Heard::Nothing) => {
            let style = repl.view.style();
            let (mic, dash) = (style.glyph("🎙", "*"), style.glyph("—", "-"));
            repl.view.transient(&format!(
                "{mic} {} {dash} pause to send, Enter or Ctrl+C ends voice mode",
                meter(listening.level(), style.unicode)
            ));
            return None;
        }
        Ok(Heard::Segment(wav)) => wav,
        Ok(Heard::Ended(Ok(()))) => {
            repl.view.clear_transient();
            ended(repl, "The recorder stopped; voice mode ended.");
            return Some(true);
        }
        Ok(Heard::Ended(Err(why))) | Err(why) => {
            repl.view.clear_transient();
            return Some(fail(
                repl,
                &format!("{} Voice mode ended.", with_stop(&why)),
            ));
        }
    };
    repl.view.clear_transient();
    match heard(repl, voice, &segment, watch) {
        Some(true) => None,
        Some(false) => Some(false),
        None => Some(true),
    }
}

/// Enter: the recorder stops and the speech not sent yet, the one under way last, is sent.
fn last_words(
    repl: &mut Repl<'_>,
    voice: &Voice,
    listening: &mut Listening,
    watch: &mut Watch,
) -> bool {
    let segments = match listening.finish() {
        Ok(segments) => segments,
        Err(why) => return fail(repl, &why),
    };
    for wav in segments {
        match heard(repl, voice, &wav, watch) {
            Some(true) => {}
            Some(false) => return false,
            None => return true,
        }
    }
    ended(repl, "Voice mode ended.");
    true
}

/// One segment of `!voice` transcribed and sent: Some(more) to go on listening (an empty
/// transcript is skipped), None when a failure ends voice mode.
fn heard(repl: &mut Repl<'_>, voice: &Voice, wav: &[u8], watch: &mut Watch) -> Option<bool> {
    match transcribe(repl, voice, wav, watch) {
        Ok(text) => {
            let more = send(repl, &text);
            // A Ctrl+C that stopped the answer was the answer's: voice mode goes on.
            *watch = Watch::new();
            Some(more)
        }
        Err(why) if why == EMPTY_TRANSCRIPT => {
            fail(repl, &with_stop(&why));
            Some(true)
        }
        Err(why) => {
            fail(repl, &format!("{} Voice mode ended.", with_stop(&why)));
            None
        }
    }
}

/// The recorder and the key, or the line saying which is missing.
fn prepare(repl: &mut Repl<'_>) -> Option<Voice> {
    Voice::prepare(repl.config)
        .inspect_err(|why| {
            fail(repl, why);
        })
        .ok()
}

/// The transcript of `wav`, uploaded on another thread so that Ctrl+C stops the wait.
fn transcribe(
    repl: &mut Repl<'_>,
    voice: &Voice,
    wav: &[u8],
    watch: &mut Watch,
) -> Result<String, String> {
    let style = repl.view.style();
    repl.view.transient(&format!(
        "{} transcribing{}",
        style.glyph("🎤", "*"),
        style.glyph("…", "...")
    ));
    let result = super::signal::cancellable(watch, |cancel| voice.transcribe(wav, cancel));
    repl.view.clear_transient();
    result.unwrap_or_else(|_| Err("Transcription failed unexpectedly; nothing was sent.".into()))
}

/// Shows what was heard and sends it to the model as the user's message.
fn send(repl: &mut Repl<'_>, text: &str) -> bool {
    let text = crate::commands::normalise(text);
    let mic = repl.view.style().glyph("🎤", "*");
    repl.view
        .side_line(&format!("{mic} \"{}\"", sanitize(&text)));
    repl.remember(&text);
    repl.prompt(&text)
}

/// One line saying what went wrong; the prompt comes back as it was.
fn fail(repl: &mut Repl<'_>, why: &str) -> bool {
    let style = repl.view.style();
    repl.view.side_line(&style.red(&sanitize(&with_stop(why))));
    true
}

fn ended(repl: &mut Repl<'_>, what: &str) {
    let style = repl.view.style();
    repl.view.side_line(&style.dim(what));
}

/// A sentence ends with a full stop.
fn with_stop(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// Ten bars for a loudness (RMS of 16-bit samples), on a decibel scale from -60 dBFS, a bar
/// each 6 dB (rounded), `#` and `.` in ASCII. Thresholds by multiplication rather than
/// `log10`, which would link the binary with libm (one more shared library at every start).
fn meter(level: f64, unicode: bool) -> String {
    // 6 dB as a factor of amplitude: 10^(6/20).
    const STEP: f64 = 1.995_262_314_968_879_5;
    // Where the first bar lights: -57 dBFS, half a step above -60 (10^(-57/20) of full scale).
    let mut threshold = 32768.0 * 0.001_412_537_544_622_754_4;
    let mut lit = 0;
    while lit < 10 && level >= threshold {
        lit += 1;
        threshold *= STEP;
    }
    let (on, off) = if unicode { ("▮", "▯") } else { ("#", ".") };
    format!("{}{}", on.repeat(lit), off.repeat(10 - lit))
}

/// Whether Enter was pressed (or input ended) within `wait`. Keys typed before it are
/// consumed one byte at a time, up to the Enter; what follows stays for the prompt.
fn enter_within(wait: Duration) -> bool {
    let mut wait = wait;
    while super::stdin::ready_within(wait) {
        wait = Duration::ZERO;
        let mut byte = 0u8;
        // SAFETY: reading one byte into a local; poll said fd 0 has input.
        let n = unsafe { libc::read(0, (&mut byte as *mut u8).cast(), 1) };
        if n <= 0 || matches!(byte, b'\n' | b'\r') {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_lights_a_bar_per_6_db() {
        let cases = [
            (0.0, "▯▯▯▯▯▯▯▯▯▯"),
            (30.0, "▯▯▯▯▯▯▯▯▯▯"),
            (400.0, "▮▮▮▮▯▯▯▯▯▯"),
            (4000.0, "▮▮▮▮▮▮▮▯▯▯"),
            (32767.0, "▮▮▮▮▮▮▮▮▮▮"),
        ];
        for (level, expected) in cases {
            assert_eq!(meter(level, true), expected, "{level}");
        }
        assert_eq!(meter(400.0, false), "####......");
    }

    #[test]
    fn sentences_end_with_one_stop() {
        assert_eq!(with_stop("Heard nothing."), "Heard nothing.");
        assert_eq!(with_stop("no key "), "no key.");
    }
}
