//! `!voice`: the recorder writes one long WAV file, read as it grows; the samples go through
//! the segmenter, and each segment of speech ended by a pause comes out as a WAV of its own.
//! (One long recording rather than short ones one after another: no gaps between them.)

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use super::recorder::Recording;
use super::silence::Segmenter;
use super::wav;

/// What listening brought.
#[derive(Debug, PartialEq)]
pub(crate) enum Heard {
    /// Nothing new has ended yet.
    Nothing,
    /// A segment of speech, as a WAV file's bytes.
    Segment(Vec<u8>),
    /// The recorder stopped on its own (its time was up, or it failed: why) and every segment
    /// has been given.
    Ended(Result<(), String>),
}

/// A `!voice` recording under way.
pub(crate) struct Listening {
    recording: Recording,
    path: PathBuf,
    file: Option<File>,
    /// Bytes read and not yet used: the header until it is whole, then a partial frame.
    pending: Vec<u8>,
    layout: Option<wav::Layout>,
    /// Sample bytes used so far (the data chunk's stated length bounds them).
    used: usize,
    segmenter: Option<Segmenter>,
    ready: VecDeque<Vec<i16>>,
    ended: Option<Result<(), String>>,
}

impl Listening {
    pub(super) fn new(recording: Recording, path: PathBuf) -> Self {
        Self {
            recording,
            path,
            file: None,
            pending: Vec::new(),
            layout: None,
            used: 0,
            segmenter: None,
            ready: VecDeque::new(),
            ended: None,
        }
    }

    /// The loudness of the latest 100 ms, for a meter (0 before any sound).
    pub(crate) fn level(&self) -> f64 {
        self.segmenter.as_ref().map_or(0.0, Segmenter::level)
    }

    /// Reads what the recorder wrote since the last call; the next segment that ended, or
    /// the end of the recording once every segment was given.
    pub(crate) fn poll(&mut self) -> Result<Heard, String> {
        if self.ended.is_none() {
            // Look at the exit first: a file read after it is complete.
            let ended = self.recording.ended();
            self.read_new()?;
            if let Some(ended) = ended {
                self.flush();
                self.ended = Some(ended);
            }
        }
        if let Some(segment) = self.ready.pop_front() {
            return Ok(Heard::Segment(self.wav(&segment)));
        }
        Ok(match &self.ended {
            Some(ended) => Heard::Ended(ended.clone()),
            None => Heard::Nothing,
        })
    }

    /// Stops the recorder (Enter): the segments not given yet, the speech under way last.
    pub(crate) fn finish(&mut self) -> Result<Vec<Vec<u8>>, String> {
        self.recording.stop();
        self.read_new()?;
        self.flush();
        let ready = std::mem::take(&mut self.ready);
        Ok(ready.iter().map(|segment| self.wav(segment)).collect())
    }

    fn wav(&self, samples: &[i16]) -> Vec<u8> {
        wav::encode(samples, self.layout.map_or(16_000, |l| l.rate))
    }

    fn flush(&mut self) {
        if let Some(last) = self.segmenter.as_mut().and_then(Segmenter::finish) {
            self.ready.push_back(last);
        }
    }

    /// Appends the file's new bytes; once the header is whole, feeds whole frames onwards.
    fn read_new(&mut self) -> Result<(), String> {
        if self.file.is_none() {
            // The recorder may not have created it yet.
            self.file = File::open(&self.path).ok();
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        file.read_to_end(&mut self.pending)
            .map_err(|error| format!("Cannot read the recording: {error}"))?;
        if self.layout.is_none() {
            let Some(layout) = wav::layout(&self.pending)
                .map_err(|why| format!("Cannot use the recording: {why}."))?
            else {
                return Ok(());
            };
            self.pending.drain(..layout.data_start);
            self.segmenter = Some(Segmenter::new(layout.rate));
            self.layout = Some(layout);
        }
        let (Some(layout), Some(segmenter)) = (self.layout, self.segmenter.as_mut()) else {
            return Ok(());
        };
        let room = layout
            .data_len
            .map_or(usize::MAX, |len| len - self.used.min(len));
        let frame = 2 * layout.channels as usize;
        let whole = self.pending.len().min(room) / frame * frame;
        let bytes: Vec<u8> = self.pending.drain(..whole).collect();
        self.used += whole;
        if room == whole {
            self.pending.clear(); // what follows the data chunk is not sound
        }
        let samples = wav::mono(&bytes, layout.channels);
        self.ready.extend(segmenter.push(&samples));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::voice::recorder::Recorder;
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;

    fn tone(samples: usize, loud: bool) -> Vec<i16> {
        (0..samples)
            .map(|i| {
                if loud && i % 2 == 0 {
                    3000
                } else if loud {
                    -3000
                } else {
                    0
                }
            })
            .collect()
    }

    #[test]
    fn a_growing_file_is_read_as_it_comes_and_cut_at_pauses() {
        let dir = crate::test_support::TempDir::new("listen-grow");
        // A recorder that writes nothing itself: the test writes its file piece by piece.
        let script = dir.path().join("rec");
        std::fs::write(&script, "#!/bin/sh\nsleep 60 & wait\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = dir.path().join("grow.wav");
        let recording = Recorder::Custom(script).start(&path, 60).unwrap();
        let mut listening = Listening::new(recording, path.clone());
        assert_eq!(listening.poll(), Ok(Heard::Nothing), "no file yet");

        // 1000 samples a second: windows of 100, a pause of 1000, a lead-in of 300.
        let mut samples = tone(500, false);
        samples.extend(tone(600, true));
        samples.extend(tone(1200, false));
        let mut bytes = wav::encode(&samples, 1000);
        bytes[40..44].copy_from_slice(&0u32.to_le_bytes()); // length unknown while recording
        let mut file = std::fs::File::create(&path).unwrap();
        // Half a header, then up to the middle of a sample, then the rest.
        for piece in [&bytes[..30], &bytes[30..1001], &bytes[1001..]] {
            assert_eq!(listening.poll(), Ok(Heard::Nothing));
            file.write_all(piece).unwrap();
        }
        let Ok(Heard::Segment(segment)) = listening.poll() else {
            panic!("no segment");
        };
        let heard = wav::parse(&segment).unwrap();
        assert_eq!(heard.rate, 1000);
        assert_eq!(heard.samples, samples[200..2100], "lead-in, speech, pause");
        assert!(listening.level() < 1.0, "the last window was quiet");
        // Enter: the recorder is stopped; nothing was being said.
        assert_eq!(listening.finish(), Ok(Vec::new()));
    }
}
