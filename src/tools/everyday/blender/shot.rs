//! `blender_screenshot`: the add-on's get_viewport_screenshot writes the 3D viewport as a PNG
//! to a file we name, in a private (0700) directory of our own under TMPDIR, or at a new path
//! inside the working directory (approved first, as create_file's new files are); the file is
//! then checked to be an image by its first bytes. A screenshot that fails leaves nothing:
//! the file and the directories made for it are taken away again.

use std::fs::{self, DirBuilder, File};
use std::io::Read;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;

use crate::interact::approvals::Action;
use crate::tools::kit::paths;
use crate::tools::kit::target::{Planned, Target};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Offered, ToolContext, ToolDef};

const DEFAULT_SIZE: i64 = 800;
const MAX_SIZE: i64 = 4096;

const PARAMS: &[Param] = &[
    Param::optional(
        "path",
        Kind::String,
        "Where to save the PNG, relative to the working directory (default: a private temporary file)",
    ),
    Param::optional(
        "max_size",
        Kind::Integer,
        "The longest side in pixels (default 800, at most 4096)",
    ),
];

pub(super) fn tool() -> ToolDef {
    ToolDef::build("blender_screenshot")
        .describe("Save a picture of Blender's 3D viewport as a PNG file and answer its path and size, to look at what the scene looks like now.")
        .offered(Offered::Everywhere)
        .writes()
        .params(PARAMS)
        .example(r#"{"max_size": 1024}"#)
        .handler(screenshot)
}

#[derive(Deserialize)]
struct Args {
    path: Option<String>,
    max_size: Option<i64>,
}

fn screenshot(args: Args, ctx: &ToolContext) -> Result<String, String> {
    let max_size = args.max_size.unwrap_or(DEFAULT_SIZE);
    if !(16..=MAX_SIZE).contains(&max_size) {
        return Err(format!(
            "max_size must be between 16 and {MAX_SIZE} pixels (got {max_size})."
        ));
    }
    let place = match &args.path {
        Some(input) => Place::in_working_dir(ctx, input, max_size)?,
        None => Place::private(&ctx.settings.temp_dir())?,
    };
    let taken = take(ctx, place.path(), max_size);
    if taken.is_err() {
        place.undo();
    }
    taken
}

/// Asks Blender for the screenshot at `path` and checks what it wrote.
fn take(ctx: &ToolContext, path: &Path, max_size: i64) -> Result<String, String> {
    let filepath = path.to_str().ok_or_else(|| {
        format!(
            "{} is not a path Blender can take (not UTF-8).",
            path.display()
        )
    })?;
    let params = json!({"max_size": max_size, "filepath": filepath, "format": "png"});
    let result = super::send(ctx, "get_viewport_screenshot", params)?;
    let (kind, bytes) = image(path)?;
    Ok(format!(
        "Saved the viewport{} as {kind} to {} ({bytes} bytes).",
        match (result["width"].as_u64(), result["height"].as_u64()) {
            (Some(w), Some(h)) => format!(" ({w}×{h} pixels)"),
            _ => String::new(),
        },
        path.display()
    ))
}

/// Where the screenshot goes, and what to take away again when it fails.
enum Place {
    /// `viewport.png` in a new private directory of ours, removed whole.
    Private { dir: PathBuf, path: PathBuf },
    /// A new file in the working directory, approved as create_file's are, with the
    /// directories made for it (`made`: the first of `planned`'s missing ones made here).
    Project {
        path: PathBuf,
        planned: Planned,
        target: Target,
        made: Option<usize>,
    },
}

impl Place {
    fn private(temp: &Path) -> Result<Place, String> {
        let dir = private_dir(temp)?;
        Ok(Place::Private {
            path: dir.join("viewport.png"),
            dir,
        })
    }

    /// `input` inside the working directory, `.png` added when it has no extension: never an
    /// existing file, and nothing made before the person allowed the new file.
    fn in_working_dir(ctx: &ToolContext, input: &str, max_size: i64) -> Result<Place, String> {
        let mut input = input.trim().to_string();
        match Path::new(&input).extension().and_then(|e| e.to_str()) {
            None => input.push_str(".png"),
            Some(ext) if ext.eq_ignore_ascii_case("png") => {}
            Some(ext) => {
                return Err(format!(
                    "The screenshot is a PNG: name it .png, not .{ext}."
                ));
            }
        }
        let root = ctx.working_dir();
        let path = paths::resolve(&root, &input)?;
        let planned = Planned::new(&root, &input)?;
        if planned.exists()? {
            return Err(format!(
                "{input} already exists; choose another name (the screenshot never replaces a file)."
            ));
        }
        ctx.approve(Action::edit(
            "blender_screenshot",
            &planned.approval_name(),
            format!("A new PNG file: Blender's 3D viewport, at most {max_size} pixels on its longest side."),
        ))?;
        let (target, made) = planned.make_dirs()?;
        Ok(Place::Project {
            path,
            planned,
            target,
            made,
        })
    }

    fn path(&self) -> &Path {
        match self {
            Place::Private { path, .. } | Place::Project { path, .. } => path,
        }
    }

    /// Takes away what this screenshot left: its private directory, or the file Blender may
    /// have written and the directories made for it.
    fn undo(self) {
        match self {
            Place::Private { dir, .. } => {
                let _ = fs::remove_dir_all(dir);
            }
            Place::Project {
                planned,
                target,
                made,
                ..
            } => {
                let _ = target.dir.remove(&target.name);
                if let Some(first) = made {
                    planned.remove_made_dirs(first);
                }
            }
        }
    }
}

/// A new directory only we can enter, under `temp`.
fn private_dir(temp: &Path) -> Result<PathBuf, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for attempt in 0..100u32 {
        let dir = temp.join(format!(
            "marvin-blender-{}-{stamp}-{attempt}",
            std::process::id()
        ));
        match DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(format!(
                    "Cannot make a temporary directory in {}: {e}.",
                    temp.display()
                ));
            }
        }
    }
    Err(format!(
        "Cannot make a temporary directory in {}.",
        temp.display()
    ))
}

/// What image the file at `path` is, by its first bytes, and its size.
fn image(path: &Path) -> Result<(&'static str, u64), String> {
    let missing = || {
        format!(
            "Blender answered, but no screenshot is at {}: is Blender on this machine (BLENDER_MCP_HOST), and can it write there?",
            path.display()
        )
    };
    let meta = fs::symlink_metadata(path).map_err(|_| missing())?;
    if !meta.is_file() {
        return Err(missing());
    }
    let mut head = [0u8; 12];
    let n = File::open(path)
        .and_then(|mut file| file.read(&mut head))
        .map_err(|e| format!("Cannot read the screenshot at {}: {e}.", path.display()))?;
    let kind = image_kind(&head[..n]).ok_or_else(|| {
        format!(
            "The file Blender wrote at {} is not an image.",
            path.display()
        )
    })?;
    Ok((kind, meta.len()))
}

fn image_kind(head: &[u8]) -> Option<&'static str> {
    const KINDS: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "PNG"),
        (b"\xff\xd8\xff", "JPEG"),
        (b"BM", "BMP"),
        (b"II*\0", "TIFF"),
        (b"MM\0*", "TIFF"),
        (b"\x76\x2f\x31\x01", "OpenEXR"),
    ];
    KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|(_, kind)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_first_bytes() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("PNG")),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", Some("JPEG")),
            (b"BM6\0\0\0", Some("BMP")),
            (b"II*\0\x08\0", Some("TIFF")),
            (b"\x89PNG\r\n", None),
            (b"{\"error\": 1}", None),
            (b"", None),
        ];
        for (head, expected) in cases {
            assert_eq!(image_kind(head), *expected, "{head:?}");
        }
    }

    #[test]
    fn private_dirs_are_new_and_closed() {
        let temp = crate::test_support::TempDir::new("blender-private");
        let one = private_dir(temp.path()).unwrap();
        let two = private_dir(temp.path()).unwrap();
        assert_ne!(one, two);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&one).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
