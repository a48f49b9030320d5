//! Downloads into the downloads directory (MARVIN_DOWNLOADS_DIR, else `~/Downloads`):
//! `download_file` streams a URL through the web client (an address of the person's own
//! machine or network only with their yes, `kit::reach`) into a hidden part file, names it from
//! Content-Disposition or the address (sanitised), never overwrites (`name (1).ext`), and
//! removes the part file on any failure, and says how far it is while a large file comes in;
//! `yt_dlp_download` runs `yt-dlp`, through Marvin's filtering proxy.

use std::fs::File;
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::tools::kit::process;
use crate::tools::kit::reach::{Reach, kept_note};
use crate::tools::kit::web::percent_decode;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// The largest file download_file takes unless told otherwise (max_mb).
const DEFAULT_MAX_MB: i64 = 2048;
const MAX_MAX_MB: i64 = 64 * 1024;
/// How long yt-dlp may take.
const YT_DLP_TIMEOUT: Duration = Duration::from_secs(3600);
/// What the seed tells the model when yt-dlp is missing (seed 002 §7.5).
const YT_DLP_HINT: &str = "yt-dlp is not installed. Install with: pip install yt-dlp";

const DOWNLOAD_PARAMS: &[Param] = &[
    Param::required(
        "url",
        Kind::String,
        "The file's address (http:// or https://)",
    ),
    Param::optional(
        "filename",
        Kind::String,
        "Name to save it under (default: the name the server gives, else the address's)",
    ),
    Param::optional(
        "max_mb",
        Kind::Integer,
        "Refuse files larger than this many megabytes (default 2048)",
    ),
];
const YT_DLP_PARAMS: &[Param] = &[
    Param::required("url", Kind::String, "The video's page (YouTube, Vimeo, …)"),
    Param::optional(
        "audio_only",
        Kind::Boolean,
        "Keep only the sound, as an mp3 (default false)",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "downloads",
    about: "downloading files and videos",
    words: &[
        "wget",
        "download",
        "youtube",
        "video",
        "save this file",
        "yt-dlp",
        "mp3",
        "mp4",
    ],
    asks: &[
        "download this file",
        "save the video from this link",
        "grab the mp3 of this youtube video",
        "fetch that pdf to my computer",
        "download the audio only",
        "get this iso",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("download_file")
            .describe("Download a file from the web into the user's Downloads directory (never overwriting a file there). Use when the user wants a file saved, not read.")
            .offered(Offered::Everywhere)
            .writes()
            .params(DOWNLOAD_PARAMS)
            .example(r#"{"url": "https://www.rfc-editor.org/rfc/rfc9110.pdf"}"#)
            .handler(download_file),
        ToolDef::build("yt_dlp_download")
            .describe("Download a video (or only its audio) from YouTube or another video site into the user's Downloads directory, with yt-dlp.")
            .offered(Offered::Everywhere)
            .writes()
            .params(YT_DLP_PARAMS)
            .example(r#"{"url": "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "audio_only": true}"#)
            .handler(yt_dlp_download),
    ]
}

fn downloads_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    let dir = ctx
        .settings
        .web
        .settings()
        .downloads_dir
        .clone()
        .ok_or_else(|| {
            "There is no downloads directory: set MARVIN_DOWNLOADS_DIR (or HOME).".to_string()
        })?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("Cannot create {}: {e}.", dir.display()))?;
    Ok(dir)
}

/// An address a download may start from: http or https, a host, no spaces, not an option.
fn check_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !url.chars().any(char::is_whitespace) => Ok(()),
        _ => Err(format!(
            "'{url}' is not a web address: give the full address, starting with https:// or http://."
        )),
    }
}

#[derive(Deserialize)]
struct DownloadArgs {
    url: String,
    filename: Option<String>,
    max_mb: Option<i64>,
}

fn download_file(args: DownloadArgs, ctx: &ToolContext) -> Result<String, String> {
    let url = args.url.trim();
    check_url(url)?;
    let max_mb = args.max_mb.unwrap_or(DEFAULT_MAX_MB);
    if !(1..=MAX_MAX_MB).contains(&max_mb) {
        return Err(format!(
            "max_mb must be between 1 and {MAX_MAX_MB}, not {max_mb}."
        ));
    }
    let dir = downloads_dir(ctx)?;
    let (part, file) = part_file(&dir)?;
    let mut out = BufWriter::new(file);
    let cap = max_mb as u64 * 1024 * 1024;
    let mut progress = ProgressLine::new(ctx);
    let fetched = ctx
        .settings
        .web
        .download(
            url,
            &mut out,
            cap,
            &mut |n, length| progress.update(n, length),
            &Reach::new(ctx, "download_file"),
            &ctx.cancel,
        )
        .and_then(|got| {
            out.flush()
                .map_err(|e| format!("Writing the download failed: {e}."))?;
            Ok(got)
        });
    drop(out);
    let got = match fetched {
        Ok(got) => got,
        Err(error) => {
            let _ = std::fs::remove_file(&part);
            if error.contains("is larger than") {
                return Err(format!(
                    "The file at {url} is larger than {max_mb} MB; nothing was saved. Raise max_mb if the user wants it anyway."
                ));
            }
            return Err(error);
        }
    };
    let wanted = args
        .filename
        .as_deref()
        .map(sanitise)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| {
            name_for(
                got.disposition.as_deref(),
                &got.final_url,
                got.content_type.as_deref(),
            )
        });
    let saved = settle(&part, &dir, &wanted).inspect_err(|_| {
        let _ = std::fs::remove_file(&part);
    })?;
    Ok(format!(
        "Saved {} ({}{}) from {}.",
        saved.display(),
        size(got.bytes),
        got.content_type
            .as_deref()
            .map(|t| format!(", {}", t.split(';').next().unwrap_or(t).trim()))
            .unwrap_or_default(),
        crate::net::without_userinfo(&got.final_url)
    ))
}

/// How far a download is, told to the front-end a few times a second once it is large
/// enough to take a while.
struct ProgressLine<'a> {
    ctx: &'a ToolContext,
    last: Option<Instant>,
}

impl<'a> ProgressLine<'a> {
    /// Below this nothing is said: a small file is there before a line could be read.
    const FROM_BYTES: u64 = 1024 * 1024;
    const EVERY: Duration = Duration::from_millis(200);

    fn new(ctx: &'a ToolContext) -> Self {
        Self { ctx, last: None }
    }

    fn update(&mut self, bytes: u64, length: Option<u64>) {
        let due = self.last.is_none_or(|last| last.elapsed() >= Self::EVERY);
        if bytes < Self::FROM_BYTES || !due {
            return;
        }
        self.last = Some(Instant::now());
        self.ctx.report_progress(progress_text(bytes, length));
    }
}

/// "12.3 MB of 80.0 MB (15%)", or "12.3 MB" when the server did not say the length.
fn progress_text(bytes: u64, length: Option<u64>) -> String {
    match length.filter(|&l| l >= bytes && l > 0) {
        Some(length) => format!(
            "{} of {} ({}%)",
            size(bytes),
            size(length),
            bytes * 100 / length
        ),
        None => size(bytes),
    }
}

/// A new hidden file in `dir` to download into.
fn part_file(dir: &Path) -> Result<(PathBuf, File), String> {
    for _ in 0..16 {
        let path = dir.join(format!(".marvin-download-{:016x}.part", fastrand::u64(..)));
        match File::options().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("Cannot write in {}: {e}.", dir.display())),
        }
    }
    Err(format!(
        "Cannot make a temporary file in {}.",
        dir.display()
    ))
}

/// Gives the finished part file the name `wanted`, or `name (1).ext`, `name (2).ext`… when
/// that is taken: a hard link never replaces a file, so a name is claimed atomically.
fn settle(part: &Path, dir: &Path, wanted: &str) -> Result<PathBuf, String> {
    for n in 0..1000 {
        let path = dir.join(numbered(wanted, n));
        match std::fs::hard_link(part, &path) {
            Ok(()) => {
                let _ = std::fs::remove_file(part);
                return Ok(path);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            // No hard links here (FAT, some network file systems): claim the name, then move
            // the part file onto the empty file just made.
            Err(_) => match File::options().write(true).create_new(true).open(&path) {
                Ok(_) => {
                    return std::fs::rename(part, &path)
                        .map(|()| path.clone())
                        .map_err(|e| format!("Cannot save {}: {e}.", path.display()));
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("Cannot save {}: {e}.", path.display())),
            },
        }
    }
    Err(format!(
        "{wanted} and 999 numbered copies already exist in {}; give another filename.",
        dir.display()
    ))
}

/// `name.ext` as the `n`th copy: `name (n).ext` (`archive (n).tar.gz`); itself for 0.
fn numbered(name: &str, n: usize) -> String {
    if n == 0 {
        return name.to_string();
    }
    let lower = name.to_lowercase();
    let split = [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"]
        .iter()
        .find(|ext| lower.ends_with(*ext) && lower.len() > ext.len())
        .map(|ext| name.len() - ext.len())
        .or_else(|| name.rfind('.').filter(|i| *i > 0));
    match split {
        Some(i) => format!("{} ({n}){}", &name[..i], &name[i..]),
        None => format!("{name} ({n})"),
    }
}

/// The file's name: Content-Disposition's (`filename*` first), else the address's last
/// segment, else `download`, with an extension from the content type when it has none.
fn name_for(disposition: Option<&str>, url: &str, content_type: Option<&str>) -> String {
    let from_server = disposition.and_then(disposition_name).map(|n| sanitise(&n));
    let from_url = || {
        let path = url.split(['?', '#']).next().unwrap_or_default();
        let path = path.split_once("://").map_or(path, |(_, rest)| rest);
        let segment = path
            .split_once('/')
            .map_or("", |(_, p)| p)
            .rsplit('/')
            .next();
        sanitise(&percent_decode(segment.unwrap_or_default()))
    };
    if let Some(name) = from_server.filter(|n| !n.is_empty()) {
        return name;
    }
    let mut name = from_url();
    if name.is_empty() {
        name = "download".into();
    }
    if !name.contains('.') {
        if let Some(ext) = content_type.and_then(extension_for) {
            name = format!("{name}.{ext}");
        }
    }
    name
}

/// The name a Content-Disposition header gives: `filename*=UTF-8''…` (RFC 6266/5987), else
/// `filename="…"` or `filename=…`.
fn disposition_name(header: &str) -> Option<String> {
    let params: Vec<(String, String)> = header
        .split(';')
        .skip(1)
        .filter_map(|p| {
            let (key, value) = p.split_once('=')?;
            Some((key.trim().to_lowercase(), value.trim().to_string()))
        })
        .collect();
    let extended = params
        .iter()
        .find(|(k, _)| k == "filename*")
        .and_then(|(_, v)| {
            let (_, encoded) = v.split_once("''")?;
            Some(percent_decode(encoded))
        });
    extended.or_else(|| {
        params.iter().find(|(k, _)| k == "filename").map(|(_, v)| {
            v.strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v)
                .replace("\\\"", "\"")
        })
    })
}

/// A name safe to create in the downloads directory: its last path component only, no
/// control or reserved characters, no leading dots (no hidden files, no `..`), at most 200
/// bytes with the extension kept.
fn sanitise(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .map(|c| match c {
            c if c.is_control() => '_',
            '<' | '>' | ':' | '"' | '|' | '?' | '*' => '_',
            c => c,
        })
        .collect();
    let trimmed = cleaned
        .trim_matches(|c: char| c.is_whitespace() || c == '.')
        .to_string();
    if trimmed.len() <= 200 {
        return trimmed;
    }
    let ext = trimmed
        .rfind('.')
        .map(|i| &trimmed[i..])
        .filter(|e| e.len() <= 16)
        .unwrap_or("");
    let mut stem_end = 200 - ext.len();
    while !trimmed.is_char_boundary(stem_end) {
        stem_end -= 1;
    }
    format!("{}{ext}", &trimmed[..stem_end])
}

fn extension_for(content_type: &str) -> Option<&'static str> {
    let kind = content_type.split(';').next()?.trim().to_lowercase();
    Some(match kind.as_str() {
        "text/html" => "html",
        "text/plain" => "txt",
        "text/csv" => "csv",
        "application/json" => "json",
        "application/pdf" => "pdf",
        "application/zip" => "zip",
        "application/gzip" => "gz",
        "application/xml" | "text/xml" => "xml",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/mpeg" => "mp3",
        "video/mp4" => "mp4",
        _ => return None,
    })
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} bytes"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

#[derive(Deserialize)]
struct YtDlpArgs {
    url: String,
    audio_only: Option<bool>,
}

fn yt_dlp_download(args: YtDlpArgs, ctx: &ToolContext) -> Result<String, String> {
    let url = args.url.trim();
    check_url(url)?;
    let program = ctx.find_program("yt-dlp").ok_or(YT_DLP_HINT)?;
    let dir = downloads_dir(ctx)?;
    // yt-dlp fetches the address itself: through Marvin's filtering proxy, like Chromium.
    let proxy = Reach::new(ctx, "yt_dlp_download").program_proxy(url)?;
    // It writes in the downloads directory only (its cache is off: the sandbox keeps it out of
    // the person's home).
    let command = ctx.program_apart(&program, crate::sandbox::Paths::writing(&dir))?;
    let command = yt_dlp_command(
        command,
        &dir,
        args.audio_only == Some(true),
        &proxy.url(),
        url,
    );
    let exit = process::run_program(command, "yt-dlp", YT_DLP_TIMEOUT, &ctx.cancel);
    let kept = kept_note("yt-dlp", &proxy.stop());
    let output = exit
        .and_then(|exit| exit.success("yt-dlp"))
        .map_err(|e| e + &kept)?;
    // The path printed after the move is the last line naming a file in the directory.
    let saved = output
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| Path::new(line).starts_with(&dir) && Path::new(line).is_file());
    match saved {
        Some(path) => Ok(format!("Saved {path} with yt-dlp.{kept}")),
        None => Err(format!(
            "yt-dlp finished but did not say where it saved the file:\n{output}{kept}"
        )),
    }
}

/// yt-dlp (`command`, confined and without the person's keys) saving `url` into `dir`,
/// reaching the web through `proxy`, reading no configuration file.
fn yt_dlp_command(
    mut command: Command,
    dir: &Path,
    audio_only: bool,
    proxy: &str,
    url: &str,
) -> Command {
    command
        .args([
            // No configuration file is read: with --paths, yt-dlp would read a yt-dlp.conf
            // from the downloads directory, where download_file may have put one (--exec).
            "--ignore-config",
            "--no-cache-dir",
            "--no-playlist",
            "--no-overwrites",
            "--no-progress",
            "--newline",
        ])
        .arg("--paths")
        .arg(dir)
        .args(["--output", "%(title)s [%(id)s].%(ext)s"])
        .args(["--print", "after_move:filepath"])
        .args(["--proxy", proxy]);
    if audio_only {
        command.args(["--extract-audio", "--audio-format", "mp3"]);
    }
    command.arg("--").arg(url);
    command
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_bytes_so_far_and_of_the_whole_when_known() {
        let mb = 1024 * 1024;
        for (bytes, length, shown) in [
            (mb, None, "1.0 MB"),
            (mb, Some(4 * mb), "1.0 MB of 4.0 MB (25%)"),
            (3 * mb, Some(3 * mb), "3.0 MB of 3.0 MB (100%)"),
            // A length the server got wrong is not believed.
            (2 * mb, Some(mb), "2.0 MB"),
            (mb, Some(0), "1.0 MB"),
        ] {
            assert_eq!(progress_text(bytes, length), shown);
        }
    }

    #[test]
    fn names_come_from_the_server_then_the_address_and_are_made_safe() {
        let cases: &[(Option<&str>, &str, Option<&str>, &str)] = &[
            (
                Some("attachment; filename=\"report 2024.pdf\""),
                "https://x.org/get?id=1",
                None,
                "report 2024.pdf",
            ),
            (
                Some("attachment; filename*=UTF-8''na%C3%AFve%20plan.txt; filename=\"naive.txt\""),
                "https://x.org/a",
                None,
                "naïve plan.txt",
            ),
            (
                Some("attachment; filename=../../etc/passwd"),
                "https://x.org/a",
                None,
                "passwd",
            ),
            (
                Some("attachment; filename=\".bashrc\""),
                "https://x.org/a",
                None,
                "bashrc",
            ),
            (
                Some("inline"),
                "https://x.org/img/cat%20photo.png?size=2",
                None,
                "cat photo.png",
            ),
            (
                None,
                "https://x.org/",
                Some("text/html; charset=utf-8"),
                "download.html",
            ),
            (
                None,
                "https://x.org/data",
                Some("application/json"),
                "data.json",
            ),
            (None, "https://x.org/a%2F..%2Fb", None, "b"),
            (None, "https://x.org/con|fig?.yml", None, "con_fig"),
        ];
        for (disposition, url, content_type, expected) in cases {
            assert_eq!(
                name_for(*disposition, url, *content_type),
                *expected,
                "{url} {disposition:?}"
            );
        }
        let long = format!("{}.pdf", "é".repeat(150));
        let cut = sanitise(&long);
        assert!(cut.len() <= 200 && cut.ends_with(".pdf"), "{cut}");
    }

    #[test]
    fn copies_are_numbered_before_the_extension() {
        for (name, n, expected) in [
            ("report.pdf", 0, "report.pdf"),
            ("report.pdf", 1, "report (1).pdf"),
            ("archive.tar.gz", 2, "archive (2).tar.gz"),
            ("README", 1, "README (1)"),
        ] {
            assert_eq!(numbered(name, n), expected);
        }
    }

    #[test]
    fn a_taken_name_is_never_overwritten() {
        let dir = crate::test_support::TempDir::new("settle");
        std::fs::write(dir.path().join("a.txt"), "old").unwrap();
        for expected in ["a (1).txt", "a (2).txt"] {
            let (part, mut file) = part_file(dir.path()).unwrap();
            file.write_all(b"new").unwrap();
            let saved = settle(&part, dir.path(), "a.txt").unwrap();
            assert_eq!(saved, dir.path().join(expected));
            assert!(!part.exists());
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "old"
        );
    }
}
