//! WAV as the recorders write it: a RIFF header, a `fmt ` chunk saying 16-bit PCM, and a
//! `data` chunk of little-endian samples, read whole or as the file grows; and the plain
//! 44-byte header Marvin writes for a cut segment.

/// The sound in a WAV file: mono samples (channels averaged) at `rate` per second.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sound {
    pub rate: u32,
    pub samples: Vec<i16>,
}

/// Where the samples of a WAV file start and how they are laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Layout {
    pub rate: u32,
    pub channels: u16,
    /// Offset of the first sample byte.
    pub data_start: usize,
    /// The data chunk's length when the header states a real one; `None` while a recorder
    /// is still writing (0 or the "unknown" sizes near 2^31 and 2^32).
    pub data_len: Option<usize>,
}

/// A 16-bit PCM WAV whole: its sound, mono.
pub(crate) fn parse(bytes: &[u8]) -> Result<Sound, String> {
    let layout =
        layout(bytes)?.ok_or("the recording is cut short: its WAV header is incomplete")?;
    let end = layout.data_len.map_or(bytes.len(), |len| {
        (layout.data_start + len).min(bytes.len())
    });
    Ok(Sound {
        rate: layout.rate,
        samples: mono(&bytes[layout.data_start..end], layout.channels),
    })
}

/// The layout of the samples, once the header (up to the start of `data`) is all there;
/// `Ok(None)` while it is not yet.
pub(crate) fn layout(bytes: &[u8]) -> Result<Option<Layout>, String> {
    if bytes.len() < 12 {
        return Ok(None);
    }
    if &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err("the recording is not a WAV file (no RIFF/WAVE header)".into());
    }
    let mut at = 12;
    let mut format = None;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]]);
        let body = at + 8;
        if id == b"data" {
            let (rate, channels) = format.ok_or("the WAV file has no fmt chunk before its data")?;
            let data_len = (len != 0 && len < 0x7fff_0000).then_some(len as usize);
            return Ok(Some(Layout {
                rate,
                channels,
                data_start: body,
                data_len,
            }));
        }
        if id == b"fmt " {
            if body + 16 > bytes.len() {
                return Ok(None);
            }
            format = Some(pcm16(&bytes[body..body + 16])?);
        }
        at = body + len as usize + (len as usize & 1);
    }
    Ok(None)
}

/// Rate and channels from a `fmt ` chunk, which must say 16-bit PCM.
fn pcm16(chunk: &[u8]) -> Result<(u32, u16), String> {
    let word = |i: usize| u16::from_le_bytes([chunk[i], chunk[i + 1]]);
    let (format, channels, bits) = (word(0), word(2), word(14));
    let rate = u32::from_le_bytes([chunk[4], chunk[5], chunk[6], chunk[7]]);
    // 0xFFFE is WAVE_FORMAT_EXTENSIBLE, which sox writes for some layouts; its samples are
    // PCM when bits say 16.
    if !matches!(format, 1 | 0xfffe) || bits != 16 || channels == 0 || rate == 0 {
        return Err(format!(
            "the recording is not 16-bit PCM (format {format}, {bits} bits, {channels} channels); \
             record with -f S16_LE (arecord) or -b 16 (sox)"
        ));
    }
    Ok((rate, channels))
}

/// Little-endian 16-bit frames of `channels` samples each, averaged to one; a trailing
/// partial frame is left out.
pub(crate) fn mono(bytes: &[u8], channels: u16) -> Vec<i16> {
    let frame = 2 * channels as usize;
    bytes
        .chunks_exact(frame)
        .map(|frame| {
            let sum: i32 = frame
                .chunks_exact(2)
                .map(|s| i16::from_le_bytes([s[0], s[1]]) as i32)
                .sum();
            (sum / channels as i32) as i16
        })
        .collect()
}

/// A mono 16-bit PCM WAV file of `samples` at `rate`.
pub(crate) fn encode(samples: &[i16], rate: u32) -> Vec<u8> {
    let data_len = (samples.len() * 2) as u32;
    let mut bytes = Vec::with_capacity(44 + samples.len() * 2);
    bytes.extend_from_slice(b"RIFF");
    bytes.extend_from_slice(&(36 + data_len).to_le_bytes());
    bytes.extend_from_slice(b"WAVEfmt ");
    bytes.extend_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&1u16.to_le_bytes()); // PCM
    bytes.extend_from_slice(&1u16.to_le_bytes()); // mono
    bytes.extend_from_slice(&rate.to_le_bytes());
    bytes.extend_from_slice(&(rate * 2).to_le_bytes()); // bytes per second
    bytes.extend_from_slice(&2u16.to_le_bytes()); // bytes per frame
    bytes.extend_from_slice(&16u16.to_le_bytes());
    bytes.extend_from_slice(b"data");
    bytes.extend_from_slice(&data_len.to_le_bytes());
    for sample in samples {
        bytes.extend_from_slice(&sample.to_le_bytes());
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_encoded_parses_back() {
        let samples = vec![0, 1, -1, i16::MAX, i16::MIN, 1234];
        let bytes = encode(&samples, 16_000);
        assert_eq!(bytes.len(), 44 + 12);
        assert_eq!(
            parse(&bytes).unwrap(),
            Sound {
                rate: 16_000,
                samples
            }
        );
    }

    /// A header as a recorder may write it: extra chunks, a stereo format, an unknown length.
    fn header(format: u16, channels: u16, bits: u16, data_len: u32) -> Vec<u8> {
        let mut bytes = b"RIFF\xff\xff\xff\xffWAVE".to_vec();
        bytes.extend_from_slice(b"LIST\x03\x00\x00\x00abc\x00"); // odd length, padded
        bytes.extend_from_slice(b"fmt \x10\x00\x00\x00");
        bytes.extend_from_slice(&format.to_le_bytes());
        bytes.extend_from_slice(&channels.to_le_bytes());
        bytes.extend_from_slice(&8000u32.to_le_bytes());
        bytes.extend_from_slice(&(8000u32 * 2 * channels as u32).to_le_bytes());
        bytes.extend_from_slice(&(2 * channels).to_le_bytes());
        bytes.extend_from_slice(&bits.to_le_bytes());
        bytes.extend_from_slice(b"data");
        bytes.extend_from_slice(&data_len.to_le_bytes());
        bytes
    }

    #[test]
    fn headers_are_read_as_recorders_write_them() {
        let mut stereo = header(1, 2, 16, 0x7fff_ffff);
        let start = stereo.len();
        for sample in [100i16, 300, -50, -150, 7] {
            stereo.extend_from_slice(&sample.to_le_bytes());
        }
        let layout = layout(&stereo).unwrap().unwrap();
        assert_eq!((layout.rate, layout.channels), (8000, 2));
        assert_eq!((layout.data_start, layout.data_len), (start, None));
        // Two whole frames averaged; the half frame at the end waits for its other half.
        assert_eq!(parse(&stereo).unwrap().samples, vec![200, -100]);

        let mut stated = header(1, 1, 16, 4);
        stated.extend_from_slice(&[1, 0, 2, 0, b'L', b'I']);
        assert_eq!(
            parse(&stated).unwrap().samples,
            vec![1, 2],
            "trailing bytes ignored"
        );
    }

    #[test]
    fn what_is_not_16_bit_pcm_or_not_whole_says_so() {
        let cases: &[(Vec<u8>, &str)] = &[
            (header(3, 1, 32, 0), "not 16-bit PCM (format 3, 32 bits"),
            (header(1, 1, 8, 0), "8 bits"),
            (b"ID3\x04 an mp3 file".to_vec(), "not a WAV file"),
            (b"RIFF\x00\x00".to_vec(), "incomplete"),
            (header(1, 1, 16, 0)[..30].to_vec(), "incomplete"),
        ];
        for (bytes, expected) in cases {
            let error = parse(bytes).unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
        assert_eq!(
            layout(b"RIFF").unwrap(),
            None,
            "a header still being written"
        );
    }
}
