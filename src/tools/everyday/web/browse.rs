//! Pages as text: `browse_web` fetches through the web client and renders with `lynx -dump`
//! when it is installed, else with the built-in HTML-to-text; `scrape_page` lets headless
//! Chromium run the page's JavaScript (`--dump-dom`), through Marvin's filtering proxy, and
//! renders the DOM it prints.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::tools::ToolContext;
use crate::tools::kit::html;
use crate::tools::kit::process::{self, Ending, RunLimits};
use crate::tools::kit::reach::{Reach, kept_note};

/// The most text a page gives the model.
const MAX_TEXT: usize = 40_000;
/// The most a program's output is read.
const OUTPUT_CAP: usize = 8 * 1024 * 1024;
/// The names headless Chromium goes by.
const CHROMIUMS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
];

/// An address a tool may open: http or https.
pub(crate) fn check_url(url: &str) -> Result<String, String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !url.contains(char::is_whitespace) => Ok(url.to_string()),
        _ => Err(format!(
            "'{url}' is not a web address: give the full address, starting with https:// or http://."
        )),
    }
}

/// browse_web: the page as text, its links listed after it.
pub(crate) fn browse(url: &str, ctx: &ToolContext) -> Result<String, String> {
    let url = check_url(url)?;
    let reach = Reach::new(ctx, "browse_web");
    let fetched = ctx.settings.web.open(&url, &reach, &ctx.cancel)?;
    let host = crate::net::host_of(&url);
    if !fetched.is_success() {
        return Err(format!(
            "{host} answered HTTP {} for {url}; check the address, or try again later.",
            fetched.status
        ));
    }
    let content_type = fetched.content_type.as_deref();
    if !looks_like_html(content_type, &fetched.body) {
        return plain(&url, content_type, &fetched.body);
    }
    let built_in = || html::with_links(&html::page(&fetched.body, content_type, &url));
    let text = match ctx.find_program("lynx") {
        // A lynx that fails leaves the page to the built-in renderer; Ctrl+C stops both.
        Some(lynx) => match lynx_dump(&lynx, &url, &fetched.body, content_type, ctx) {
            Ok(text) => text,
            Err(error) if ctx.cancel.is_cancelled() => return Err(error),
            Err(_) => built_in(),
        },
        None => built_in(),
    };
    Ok(finish(
        &url,
        &text,
        "it may need JavaScript: try scrape_page",
    ))
}

/// Whether a body is a page to render rather than text to show as it is.
fn looks_like_html(content_type: Option<&str>, body: &[u8]) -> bool {
    match content_type.map(str::to_ascii_lowercase) {
        Some(t) if t.contains("html") || t.contains("xml") => true,
        Some(t) if t.starts_with("text/") || t.contains("json") => false,
        _ => crate::net::is_html(None, body),
    }
}

/// A text answer as it is; anything else is not for reading.
fn plain(url: &str, content_type: Option<&str>, body: &[u8]) -> Result<String, String> {
    let kind = content_type.unwrap_or("unknown").to_ascii_lowercase();
    if kind.starts_with("text/") || kind.contains("json") || std::str::from_utf8(body).is_ok() {
        return Ok(finish(
            url,
            &html::decode(body, content_type),
            "it is empty",
        ));
    }
    Err(format!(
        "{url} is not a web page ({kind}, {} bytes): use download_file to save it.",
        body.len()
    ))
}

/// The page rendered by lynx from the bytes already fetched (lynx never goes on the network
/// itself): a `<base>` in front so relative links resolve, the charset the page declares.
fn lynx_dump(
    lynx: &Path,
    url: &str,
    body: &[u8],
    content_type: Option<&str>,
    ctx: &ToolContext,
) -> Result<String, String> {
    let encoding = html::detect_charset(body, content_type);
    let mut input = format!("<base href=\"{}\">", url.replace('"', "%22")).into_bytes();
    // lynx is given the page's bytes under the WHATWG name of their encoding; UTF-16 (from a
    // BOM or the header) and the other encodings a page cannot be written back in are handed
    // over decoded, as UTF-8.
    let label = if encoding.output_encoding() == encoding {
        input.extend_from_slice(body);
        encoding.name()
    } else {
        input.extend_from_slice(html::decode(body, content_type).as_bytes());
        "utf-8"
    };
    let mut command = ctx.program_apart(lynx, crate::sandbox::Paths::default())?;
    command.args([
        "-dump",
        "-stdin",
        "-force_html",
        "-nomargins",
        "-width=100",
        "-display_charset=utf-8",
        &format!("-assume_charset={label}"),
        &format!("-assume_local_charset={label}"),
    ]);
    let output = run(command, "lynx", Some(input), ctx)?;
    Ok(output.trim().to_string())
}

/// scrape_page: the page after its JavaScript ran, as text. Chromium reaches the web only
/// through Marvin's filtering proxy, which keeps the page, its scripts and its redirects from
/// the person's own machine and network unless they allowed it.
pub(crate) fn scrape(url: &str, ctx: &ToolContext) -> Result<String, String> {
    let url = check_url(url)?;
    let Some(chromium) = CHROMIUMS.iter().find_map(|name| ctx.find_program(name)) else {
        return Err("scrape_page requires headless Chromium (chromium or google-chrome), which is not installed. Install it (sudo apt install chromium), or use browse_web for pages that do not need JavaScript.".into());
    };
    let proxy = Reach::new(ctx, "scrape_page").program_proxy(&url)?;
    let profile = tempfile_dir(ctx)?;
    // Confined too: a page that broke out of Chromium's own sandbox still writes nowhere but
    // its profile and the temp dir.
    let command = ctx.program_apart(&chromium, crate::sandbox::Paths::writing(&profile))?;
    let mut command = chromium_command(command, &profile, &proxy.url());
    command.arg("--dump-dom").arg(&url);
    let result = run(command, "Chromium", None, ctx);
    let _ = std::fs::remove_dir_all(&profile);
    let kept = kept_note("the page", &proxy.stop());
    let output = result.map_err(|error| error + &kept)?;
    let dom = dom_of(&output).ok_or_else(|| {
        format!(
            "Chromium printed no page for {url}: {}. Try browse_web instead.{kept}",
            short(&output)
        )
    })?;
    Ok(finish(&url, &dom_text(dom, &url), "even after its JavaScript ran") + &kept)
}

/// The DOM Chromium printed, as text. Chromium decoded the page already (its DOM is UTF-8
/// text), so the charset a `<meta>` in it declares is not applied a second time.
fn dom_text(dom: &str, url: &str) -> String {
    html::with_links(&html::page_text(dom, url))
}

/// Headless Chromium with a profile of its own, every request of it through `proxy`:
/// loopback too (Chromium would otherwise go there directly), QUIC and WebRTC's UDP off, as
/// they would not go through it.
fn chromium_command(mut command: Command, profile: &Path, proxy: &str) -> Command {
    command
        .args([
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-dev-shm-usage",
            "--virtual-time-budget=5000",
            "--proxy-bypass-list=<-loopback>",
            "--disable-quic",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        ])
        .arg(format!("--proxy-server={proxy}"))
        .arg(format!("--user-data-dir={}", profile.display()));
    // The sandbox lets Chromium write to its profile only: its home, its configuration and
    // cache (where its crash handler keeps its database) and its temporary files go there too.
    let scratch = profile.join("tmp");
    let _ = std::fs::create_dir(&scratch);
    command
        .env("HOME", profile)
        .env("XDG_CONFIG_HOME", profile.join("config"))
        .env("XDG_CACHE_HOME", profile.join("cache"))
        .env("TMPDIR", scratch);
    // SAFETY of the sandbox: Chromium refuses to start as root with it.
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        command.arg("--no-sandbox");
    }
    command
}

/// The DOM among Chromium's output (its log lines go to the same stream).
fn dom_of(output: &str) -> Option<&str> {
    let lower = output.to_ascii_lowercase();
    let start = lower.find("<html").or_else(|| lower.find("<body"))?;
    let end = lower.rfind("</html>").map_or(output.len(), |at| at + 7);
    (end > start).then(|| &output[start..end])
}

fn tempfile_dir(ctx: &ToolContext) -> Result<std::path::PathBuf, String> {
    let dir = ctx.settings.temp_dir().join(format!(
        "marvin-chromium-{}-{}",
        std::process::id(),
        crate::clock::iso8601(std::time::SystemTime::now()).replace(':', "")
    ));
    let dir = (0..100)
        .map(|i| dir.with_extension(i.to_string()))
        .find(|d| std::fs::create_dir(d).is_ok())
        .ok_or_else(|| "Could not make a temporary profile for Chromium.".to_string())?;
    Ok(dir)
}

/// Runs a renderer (confined, without the person's keys) within the tool timeout (Ctrl+C
/// stops it).
fn run(
    mut command: Command,
    what: &str,
    input: Option<Vec<u8>>,
    ctx: &ToolContext,
) -> Result<String, String> {
    if let Some(path) = &ctx.settings.search_path {
        command.env("PATH", path);
    }
    let timeout = ctx.settings.web.settings().timeout;
    let limits = RunLimits {
        timeout,
        output_cap: OUTPUT_CAP,
        cancel: &ctx.cancel,
        input,
        watch: None,
    };
    let run = process::run(command, limits).map_err(|e| format!("Could not run {what}: {e}."))?;
    match run.ending {
        Ending::Exited(0) => Ok(run.output),
        Ending::Exited(code) => Err(format!(
            "{what} failed (exit code {code}): {}",
            short(&run.output)
        )),
        Ending::Signalled(signal) => Err(format!("{what} was killed by signal {signal}.")),
        Ending::TimedOut => Err(timed_out(what, timeout)),
        Ending::Cancelled => Err(format!(
            "{what} was cancelled by the user ({}).",
            ctx.cancel.how()
        )),
    }
}

fn timed_out(what: &str, timeout: Duration) -> String {
    format!(
        "{what} did not finish within {}s. Try again, or browse_web for a page that does not need JavaScript.",
        timeout.as_secs()
    )
}

fn short(text: &str) -> String {
    let text = text.trim();
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// The text with its address on top, cut to what the model reads; `why` says what an empty
/// page may mean.
fn finish(url: &str, text: &str, why: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        return format!("{url} has no text to read ({why}).");
    }
    if text.len() <= MAX_TEXT {
        return format!("{url}\n\n{text}");
    }
    let mut cut = MAX_TEXT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{url}\n\n{}\n\n[Cut at {} of {} bytes.]",
        &text[..cut],
        cut,
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dom_is_found_among_chromiums_log_lines() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "<html><body>x</body></html>\n",
                Some("<html><body>x</body></html>"),
            ),
            (
                "[1123/101010.1:ERROR:gpu] oops\n<html lang=en><p>y</p></html>\n[1:WARNING] z",
                Some("<html lang=en><p>y</p></html>"),
            ),
            ("[1:ERROR] no page", None),
        ];
        for (output, expected) in cases {
            assert_eq!(dom_of(output), *expected, "{output}");
        }
    }

    #[test]
    fn the_dom_is_not_decoded_again_by_the_charset_it_declares() {
        let dom = "<html><head><meta charset=\"windows-1252\"></head><body><p>Café … 5€</p></body></html>";
        assert_eq!(dom_text(dom, "http://a.org/"), "Café … 5€");
    }

    #[test]
    fn long_pages_are_cut_and_empty_ones_explained() {
        assert_eq!(finish("u", "  text \n", "x"), "u\n\ntext");
        assert_eq!(finish("u", " \n", "why"), "u has no text to read (why).");
        let long = "é".repeat(MAX_TEXT);
        let cut = finish("u", &long, "x");
        assert!(cut.ends_with(&format!("[Cut at {MAX_TEXT} of {} bytes.]", long.len())));
        assert!(cut.len() < MAX_TEXT + 100);
    }

    #[test]
    fn only_web_addresses_are_opened() {
        assert_eq!(check_url(" https://a.org/x ").unwrap(), "https://a.org/x");
        for bad in ["file:///etc/passwd", "a.org", "https://", "http://a b"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }
}
