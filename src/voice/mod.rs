//! Talking to Marvin (`!v [N]` and `!voice`): a recorder program writes WAV, the samples tell
//! speech from silence, and Groq's Whisper turns speech into the text the REPL sends. A leaf
//! the front-end drives: it prints nothing and knows no signal; the front-end polls it, shows
//! the counter or meter, and stops it on Ctrl+C or Enter.

mod listen;
mod recorder;
mod silence;
mod transcribe;
mod wav;

pub(crate) use listen::{Heard, Listening};

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::cancel::CancelToken;
use crate::config::Config;
use recorder::{Recorder, Recording};
use transcribe::Transcriber;

/// `!v` records this long unless told otherwise.
pub(crate) const DEFAULT_SECONDS: u32 = 5;
/// What `!v N` accepts.
pub(crate) const SECONDS: std::ops::RangeInclusive<u32> = 1..=120;
/// A recorder still running this long after the seconds it was asked for is stuck.
const OVERRUN: Duration = Duration::from_secs(10);
/// What is said when Whisper heard no words.
pub(crate) const EMPTY_TRANSCRIPT: &str =
    "The transcript is empty: Whisper heard no words; nothing was sent";
/// What is said when a recording held no speech.
const HEARD_NOTHING: &str = "Heard nothing (only silence); nothing was sent.";

/// What voice needs, found before anything is recorded: the recorder, the transcriber, and a
/// private directory for the recordings (removed when this is dropped).
pub(crate) struct Voice {
    recorder: Recorder,
    transcriber: Transcriber,
    scratch: Scratch,
}

impl Voice {
    /// The recorder and Groq's key, or one sentence saying which is missing.
    pub(crate) fn prepare(config: &Config) -> Result<Self, String> {
        let recorder = recorder::find(
            config.voice.recorder.as_deref(),
            config.search_path.as_deref().map(std::ffi::OsStr::new),
        )?;
        let transcriber = Transcriber::new(config)?;
        let scratch = Scratch::new(config.temp_dir.as_deref().unwrap_or(Path::new("/tmp")))?;
        Ok(Self {
            recorder,
            transcriber,
            scratch,
        })
    }

    /// Starts recording `seconds` (`!v N`).
    pub(crate) fn record(&self, seconds: u32) -> Result<Take, String> {
        let path = self.scratch.path.join("take.wav");
        let _ = std::fs::remove_file(&path);
        Ok(Take {
            recording: self.recorder.start(&path, seconds)?,
            name: self.recorder.name(),
            path,
            seconds,
            started: Instant::now(),
        })
    }

    /// Starts listening until stopped (`!voice`).
    pub(crate) fn listen(&self) -> Result<Listening, String> {
        let path = self.scratch.path.join("listen.wav");
        let _ = std::fs::remove_file(&path);
        let recording = self.recorder.start(&path, recorder::LISTEN_SECONDS)?;
        Ok(Listening::new(recording, path))
    }

    /// The words in `wav`, or why there are none.
    pub(crate) fn transcribe(&self, wav: &[u8], cancel: &CancelToken) -> Result<String, String> {
        self.transcriber.transcribe(wav, cancel)
    }
}

/// One `!v` recording under way.
pub(crate) struct Take {
    recording: Recording,
    name: String,
    path: PathBuf,
    seconds: u32,
    started: Instant,
}

impl Take {
    /// How long it has recorded.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// `None` while recording; then the WAV to transcribe, or why there is none (the recorder
    /// failed or got stuck, the file is not 16-bit PCM WAV, only silence was heard).
    pub(crate) fn poll(&mut self) -> Option<Result<Vec<u8>, String>> {
        match self.recording.ended() {
            Some(Ok(())) => Some(self.speech()),
            Some(Err(why)) => Some(Err(format!("{why}; nothing was sent."))),
            None if self.elapsed() > Duration::from_secs(self.seconds.into()) + OVERRUN => {
                self.recording.stop();
                Some(Err(format!(
                    "The recorder {} did not finish within {} s; nothing was sent.",
                    self.name,
                    self.seconds + OVERRUN.as_secs() as u32
                )))
            }
            None => None,
        }
    }

    fn speech(&self) -> Result<Vec<u8>, String> {
        let bytes = std::fs::read(&self.path).map_err(|error| {
            format!(
                "The recorder {} wrote no recording ({error}); nothing was sent.",
                self.name
            )
        })?;
        let sound =
            wav::parse(&bytes).map_err(|why| format!("Cannot use the recording: {why}."))?;
        if !silence::has_speech(&sound.samples, sound.rate) {
            return Err(HEARD_NOTHING.to_string());
        }
        Ok(bytes)
    }
}

/// A private directory for recordings, removed with what is in it when dropped.
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new(temp: &Path) -> Result<Self, String> {
        let hex = crate::secret::random_hex(8).map_err(|e| format!("Cannot record: {e}"))?;
        let path = temp.join(format!("marvin-voice-{hex}"));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .map_err(|error| format!("Cannot record: cannot create {}: {error}", path.display()))?;
        Ok(Self { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // A leftover recording in a private temporary directory is harmless.
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
