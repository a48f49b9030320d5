//! Images sent with the form: base64 in the JSON body, at most 5 MB each, PNG, JPEG, GIF or
//! WebP as their first bytes say (whatever the browser claimed), saved readable by the user
//! alone in a private directory under a sanitised name. Paths typed instead of an upload (in
//! the page or the terminal) are checked the same way before the answers are taken.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::alphabet;
use base64::engine::DecodePaddingMode;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};

pub const MAX_IMAGES: usize = 12;
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// The picture formats the form takes, told apart by their magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageKind {
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Gif => "gif",
            Self::Webp => "webp",
        }
    }
}

/// Decodes standard base64 (padding optional, whitespace ignored); `None` when it is not
/// base64. A `data:...;base64,` prefix is accepted, as browsers produce it.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text = match text.split_once(";base64,") {
        Some((head, data)) if head.starts_with("data:") => data,
        _ => text,
    };
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    LENIENT_BASE64.decode(compact).ok()
}

/// The standard alphabet, taking text with or without its `=` padding (browsers and MCP
/// servers differ); stray bits after the last whole byte are tolerated, as they always were.
const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Standard base64 with padding: what the page sends, for tools and tests that make uploads.
pub fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Checks a path typed for an image (in the page or the terminal): relative to `base`, with
/// surrounding quotes and shell escapes (`\ `) as a terminal's drag and drop writes them; it
/// must name a readable PNG, JPEG, GIF or WebP file. Returns the absolute path, or why not in
/// a sentence that names the path.
pub fn check_image_path(typed: &str, base: &Path) -> Result<PathBuf, String> {
    let trimmed = typed.trim();
    let unquoted = match trimmed.as_bytes() {
        [b'\'', .., b'\''] | [b'"', .., b'"'] if trimmed.len() >= 2 => {
            &trimmed[1..trimmed.len() - 1]
        }
        _ => trimmed,
    };
    let clean = unescape_shell(unquoted);
    if clean.is_empty() {
        return Err("The image path is empty.".into());
    }
    if clean.starts_with('~') {
        return Err(format!(
            "{clean}: write the whole path (from /) instead of ~."
        ));
    }
    let path = base.join(&clean);
    let meta = fs::metadata(&path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => format!("{clean}: no such file."),
        _ => format!("{clean} cannot be read: {e}."),
    })?;
    if !meta.is_file() {
        return Err(format!("{clean} is not a file."));
    }
    let mut head = [0u8; 16];
    let read = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(&path)
        .and_then(|mut file| read_head(&mut file, &mut head))
        .map_err(|e| format!("{clean} cannot be read: {e}."))?;
    if ImageKind::sniff(&head[..read]).is_none() {
        return Err(format!("{clean} is not a PNG, JPEG, GIF or WebP image."));
    }
    Ok(fs::canonicalize(&path).unwrap_or(path))
}

/// As many of the first bytes of `file` as `buffer` holds (fewer when it is shorter).
fn read_head(file: &mut fs::File, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// `a\ b` as a shell would read it: a backslash keeps the character after it.
fn unescape_shell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The private directory of one interview's uploads (0700), created on first use.
pub struct UploadDir {
    path: PathBuf,
}

impl UploadDir {
    pub fn new(path: PathBuf) -> Self {
        Self { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks and saves one image; returns where it is. Errors are sentences for the page.
    pub fn save(&self, filename: &str, data: &str) -> Result<PathBuf, String> {
        let bytes = decode_base64(data).ok_or("The image data is not valid base64.")?;
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(format!(
                "{filename} is {:.1} MB; images may be at most 5 MB.",
                bytes.len() as f64 / 1_048_576.0
            ));
        }
        let kind = ImageKind::sniff(&bytes)
            .ok_or_else(|| format!("{filename} is not a PNG, JPEG, GIF or WebP image."))?;
        self.write(&safe_name(filename, kind), &bytes)
            .map_err(|e| format!("Could not save {filename}: {e}."))
    }

    fn write(&self, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.path)?;
        let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
        for attempt in 1..1000 {
            let candidate = match attempt {
                1 => name.to_string(),
                n => format!("{stem}-{n}.{extension}"),
            };
            let path = self.path.join(&candidate);
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(mut file) => {
                    file.write_all(bytes)?;
                    return Ok(path);
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(error),
            }
        }
        Err(io::Error::other("too many images with the same name"))
    }

    /// Removes the directory if nothing was saved in it.
    pub fn remove_if_empty(&self) {
        let _ = fs::remove_dir(&self.path);
    }
}

/// The base name with anything but letters, digits, `.`, `_` and `-` replaced, no leading
/// dot, at most 100 characters, and the extension of the format it really is.
fn safe_name(filename: &str, kind: ImageKind) -> String {
    let base = filename.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_start_matches('.');
    let stem = clean.rsplit_once('.').map_or(clean, |(stem, _)| stem);
    let stem: String = stem.chars().take(100).collect();
    let stem = if stem.is_empty() { "image" } else { &stem };
    format!("{stem}.{}", kind.extension())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn base64_round_trips_and_rejects_junk() {
        for sample in [&b""[..], b"a", b"ab", b"abc", b"abcd", PNG] {
            assert_eq!(decode_base64(&encode_base64(sample)).unwrap(), sample);
        }
        assert_eq!(decode_base64("data:image/png;base64,aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("aG\nk=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGk").unwrap(), b"hi");
        assert!(decode_base64("aGk*").is_none());
        assert!(decode_base64("aG=k").is_none());
    }

    #[test]
    fn formats_are_told_by_their_first_bytes() {
        assert_eq!(ImageKind::sniff(PNG), Some(ImageKind::Png));
        assert_eq!(
            ImageKind::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageKind::Jpeg)
        );
        assert_eq!(ImageKind::sniff(b"GIF89a..."), Some(ImageKind::Gif));
        assert_eq!(
            ImageKind::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageKind::Webp)
        );
        assert_eq!(ImageKind::sniff(b"<svg xmlns=..."), None);
        assert_eq!(ImageKind::sniff(b"RIFF\0\0\0\0WAVE"), None);
    }

    #[test]
    fn names_are_sanitised_and_get_their_real_extension() {
        assert_eq!(safe_name("../../etc/passwd", ImageKind::Png), "passwd.png");
        assert_eq!(
            safe_name("C:\\Users\\me\\my photo.jpeg", ImageKind::Jpeg),
            "my_photo.jpg"
        );
        assert_eq!(safe_name(".hidden.gif", ImageKind::Png), "hidden.png");
        assert_eq!(safe_name("", ImageKind::Webp), "image.webp");
        assert_eq!(safe_name("résumé.png", ImageKind::Png), "r_sum_.png");
    }

    #[test]
    fn typed_paths_must_name_a_readable_image() {
        let temp = crate::test_support::TempDir::new("typed-paths");
        let base = temp.path();
        fs::write(base.join("my logo.png"), PNG).unwrap();
        fs::write(base.join("notes.txt"), "not a picture").unwrap();
        fs::create_dir(base.join("dir")).unwrap();
        let real = fs::canonicalize(base.join("my logo.png")).unwrap();
        for typed in [
            "my logo.png",
            "  'my logo.png' ",
            "\"my logo.png\"",
            "my\\ logo.png",
        ] {
            assert_eq!(check_image_path(typed, base).unwrap(), real, "{typed}");
        }
        let absolute = real.display().to_string();
        assert_eq!(check_image_path(&absolute, Path::new("/")).unwrap(), real);
        let cases = [
            ("missing.png", "missing.png: no such file."),
            (
                "notes.txt",
                "notes.txt is not a PNG, JPEG, GIF or WebP image.",
            ),
            ("dir", "dir is not a file."),
            (
                "~/logo.png",
                "~/logo.png: write the whole path (from /) instead of ~.",
            ),
            ("  ", "The image path is empty."),
        ];
        for (typed, expected) in cases {
            assert_eq!(
                check_image_path(typed, base).unwrap_err(),
                expected,
                "{typed}"
            );
        }
    }

    #[test]
    fn images_are_saved_private_checked_and_never_overwritten() {
        let temp = crate::test_support::TempDir::new("uploads");
        let dir = UploadDir::new(temp.path().join("session"));
        let first = dir.save("logo.png", &encode_base64(PNG)).unwrap();
        let second = dir.save("logo.png", &encode_base64(PNG)).unwrap();
        assert_eq!(first.file_name().unwrap(), "logo.png");
        assert_eq!(second.file_name().unwrap(), "logo-2.png");
        assert_eq!(fs::read(&first).unwrap(), PNG);
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&first), 0o600);
        assert_eq!(mode(dir.path()), 0o700);
        let error = dir
            .save("x.png", &encode_base64(b"<svg onload=alert(1)>"))
            .unwrap_err();
        assert!(error.contains("not a PNG, JPEG, GIF or WebP"), "{error}");
        let mut big = PNG.to_vec();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        let error = dir.save("big.png", &encode_base64(&big)).unwrap_err();
        assert!(error.contains("at most 5 MB"), "{error}");
        assert!(
            dir.save("x.png", "not base64!")
                .unwrap_err()
                .contains("base64")
        );
    }
}
