//! Telling speech from silence in 16-bit samples: the loudness (RMS) of 100 ms windows, and a
//! segmenter that cuts a stream where about a second of quiet follows speech.

use std::time::Duration;

/// A window whose RMS stays under this is quiet: about -38 dBFS, above a microphone's hiss
/// and below speech at a normal distance.
pub(crate) const THRESHOLD: f64 = 400.0;
/// The length of one loudness window.
const WINDOW: Duration = Duration::from_millis(100);
/// Quiet this long after speech ends a segment.
const PAUSE: Duration = Duration::from_secs(1);
/// A segment needs this much loud sound to be speech (a click or a cough is not).
const ENOUGH_SPEECH: Duration = Duration::from_millis(300);
/// Quiet kept before speech, so the first syllable is not clipped.
const LEAD_IN: Duration = Duration::from_millis(300);
/// A segment is cut here even without a pause (uploads stay small).
const LONGEST: Duration = Duration::from_secs(120);

/// The root mean square of `samples` about their mean (0 for none): a constant offset (a
/// microphone's DC bias) is not sound.
pub(crate) fn rms(samples: &[i16]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let count = samples.len() as f64;
    let mean = samples.iter().map(|&s| f64::from(s)).sum::<f64>() / count;
    let sum: f64 = samples
        .iter()
        .map(|&s| (f64::from(s) - mean) * (f64::from(s) - mean))
        .sum();
    (sum / count).sqrt()
}

/// Samples in `span` at `rate`.
fn samples_in(span: Duration, rate: u32) -> usize {
    (span.as_millis() as usize * rate as usize / 1000).max(1)
}

/// Whether `samples` at `rate` hold speech: enough windows louder than [`THRESHOLD`].
pub(crate) fn has_speech(samples: &[i16], rate: u32) -> bool {
    let window = samples_in(WINDOW, rate);
    let loud = samples
        .chunks(window)
        .filter(|chunk| rms(chunk) >= THRESHOLD)
        .count();
    loud * window >= samples_in(ENOUGH_SPEECH, rate)
}

/// Cuts a stream of samples into segments of speech, each ended by a pause.
pub(crate) struct Segmenter {
    rate: u32,
    window: usize,
    /// Samples not yet a whole window.
    partial: Vec<i16>,
    /// The segment being heard: lead-in quiet, then everything since speech began.
    current: Vec<i16>,
    /// Loud windows in `current`.
    loud: usize,
    /// Quiet windows at the end of `current`.
    quiet_run: usize,
    /// The last window's RMS, for a level meter.
    level: f64,
}

impl Segmenter {
    pub(crate) fn new(rate: u32) -> Self {
        Self {
            rate,
            window: samples_in(WINDOW, rate),
            partial: Vec::new(),
            current: Vec::new(),
            loud: 0,
            quiet_run: 0,
            level: 0.0,
        }
    }

    /// The loudness of the latest window.
    pub(crate) fn level(&self) -> f64 {
        self.level
    }

    /// Takes more samples; returns the segments of speech they ended.
    pub(crate) fn push(&mut self, samples: &[i16]) -> Vec<Vec<i16>> {
        self.partial.extend_from_slice(samples);
        let whole = self.partial.len() / self.window * self.window;
        let windows: Vec<i16> = self.partial.drain(..whole).collect();
        windows
            .chunks(self.window)
            .filter_map(|window| self.window_heard(window))
            .collect()
    }

    /// The stream ended: the segment under way, if it holds speech.
    pub(crate) fn finish(&mut self) -> Option<Vec<i16>> {
        let rest = std::mem::take(&mut self.partial);
        self.current.extend_from_slice(&rest);
        self.cut()
    }

    fn window_heard(&mut self, window: &[i16]) -> Option<Vec<i16>> {
        self.level = rms(window);
        self.current.extend_from_slice(window);
        if self.level >= THRESHOLD {
            self.loud += 1;
            self.quiet_run = 0;
        } else {
            self.quiet_run += 1;
        }
        if self.loud == 0 {
            // Nothing said yet: keep only the lead-in.
            let keep = samples_in(LEAD_IN, self.rate);
            let excess = self.current.len().saturating_sub(keep);
            self.current.drain(..excess);
            return None;
        }
        let paused = self.quiet_run * self.window >= samples_in(PAUSE, self.rate);
        if paused || self.current.len() >= samples_in(LONGEST, self.rate) {
            return self.cut();
        }
        None
    }

    /// Ends the segment under way: it if it holds speech, nothing if it was a click.
    fn cut(&mut self) -> Option<Vec<i16>> {
        let segment = std::mem::take(&mut self.current);
        let loud = std::mem::take(&mut self.loud);
        self.quiet_run = 0;
        (loud * self.window >= samples_in(ENOUGH_SPEECH, self.rate)).then_some(segment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 1000;

    /// A stream as (milliseconds, loud) parts.
    type Parts = &'static [(usize, bool)];

    /// `ms` milliseconds of a loud square wave, or of silence.
    fn sound(ms: usize, loud: bool) -> Vec<i16> {
        (0..ms)
            .map(|i| match (loud, i % 2) {
                (false, _) => 3,
                (true, 0) => 2000,
                (true, _) => -2000,
            })
            .collect()
    }

    fn joined(parts: &[(usize, bool)]) -> Vec<i16> {
        parts
            .iter()
            .flat_map(|&(ms, loud)| sound(ms, loud))
            .collect()
    }

    #[test]
    fn loudness_is_the_root_mean_square() {
        assert_eq!(rms(&[]), 0.0);
        assert_eq!(rms(&[3, -4, 3, -4]), 3.5, "about the mean, -0.5");
        assert_eq!(rms(&sound(100, true)), 2000.0);
        // A constant offset (DC bias) is silence, and does not add to the sound on top of it.
        assert_eq!(rms(&[500; 100]), 0.0);
        let biased: Vec<i16> = sound(100, true).iter().map(|s| s + 500).collect();
        assert_eq!(rms(&biased), 2000.0);
        assert!(!has_speech(&[500; 2000], RATE));
    }

    #[test]
    fn speech_is_enough_loud_windows() {
        let cases: &[(Parts, bool)] = &[
            (&[(2000, false)], false),
            (&[(900, false), (100, true), (900, false)], false),
            (&[(500, false), (300, true), (500, false)], true),
            (&[(1000, true)], true),
        ];
        for (parts, expected) in cases {
            assert_eq!(has_speech(&joined(parts), RATE), *expected, "{parts:?}");
        }
    }

    #[test]
    fn pauses_cut_segments_and_silence_is_never_one() {
        // (stream, segment lengths in ms); pushed in odd-sized pieces to cross windows.
        let cases: &[(Parts, &[usize])] = &[
            (&[(3000, false)], &[]),
            // A click is not speech.
            (&[(1000, false), (100, true), (1500, false)], &[]),
            // lead-in 300 + speech 500 + pause 1000.
            (&[(2000, false), (500, true), (1500, false)], &[1800]),
            (
                &[
                    (500, false),
                    (600, true),
                    (1200, false),
                    (400, true),
                    (1100, false),
                ],
                &[1900, 1600],
            ),
            // A short breath inside speech does not cut it.
            (
                &[(700, true), (500, false), (700, true), (1000, false)],
                &[2900],
            ),
        ];
        for (parts, expected) in cases {
            let stream = joined(parts);
            let mut segmenter = Segmenter::new(RATE);
            let mut lengths = Vec::new();
            for piece in stream.chunks(37) {
                lengths.extend(segmenter.push(piece).iter().map(Vec::len));
            }
            lengths.extend(segmenter.finish().map(|s| s.len()));
            assert_eq!(&lengths, expected, "{parts:?}");
        }
    }

    #[test]
    fn speech_at_the_end_of_the_stream_is_the_last_segment() {
        let mut segmenter = Segmenter::new(RATE);
        assert!(
            segmenter
                .push(&joined(&[(400, false), (550, true)]))
                .is_empty()
        );
        assert_eq!(segmenter.level(), 2000.0);
        assert_eq!(segmenter.finish().map(|s| s.len()), Some(850));
        assert_eq!(segmenter.finish(), None);
    }

    #[test]
    fn endless_speech_is_cut_at_the_longest_segment() {
        let mut segmenter = Segmenter::new(RATE);
        let cut = segmenter.push(&sound(130_000, true));
        assert_eq!(cut.iter().map(Vec::len).collect::<Vec<_>>(), vec![120_000]);
    }
}
