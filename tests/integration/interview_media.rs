//! Every kind of media and content block, through the real binary on an 80-column terminal
//! (a table, a chart's numbers, code with its line numbers, a diff, Mermaid's source, HTML's
//! text, a picture's path: nothing the page shows is lost over SSH), and through the page in
//! headless Chromium (the chart drawn as SVG, the picture served by the form, nothing loaded
//! from elsewhere, no script from the HTML run).

use std::time::Duration;

use crate::common::pty::at_80;
use crate::common::webdriver::Browser;
use crate::common::{ReplayServer, Reply, TempDir};
use marvin::interact::form::server::{FormEvent, FormServer};
use marvin::interact::form::{page, pictures, questions};
use serde_json::{Value, json};

/// Questions showing every kind of media; `logo.png` must be in the working directory.
pub(crate) const MEDIA_QUESTIONS: &str = r##"{
  "title": "Every kind of media",
  "questions": [
    {
      "id": "look",
      "type": "info",
      "question": "What the page shows besides questions.",
      "media": [
        { "type": "image", "src": "logo.png", "alt": "The logo", "caption": "A picture on this machine" },
        { "type": "image", "src": "https://example.com/remote.png", "alt": "Remote" },
        { "type": "mermaid", "mermaid": "graph LR\n  API --> Auth\n  API --> Data", "caption": "The services" },
        { "type": "html", "html": "<p>Some <b>bold</b> words</p><script>window.__ran = true</script><img src=x onerror=\"window.__ran = true\"><a href=\"javascript:alert(1)\">no link</a><a href=\"https://example.com/\">a link</a>" }
      ]
    },
    {
      "id": "storage",
      "type": "single",
      "question": "Where should the reports be stored?",
      "options": ["Disk", "Bucket"],
      "recommended": "Disk",
      "media": [
        {
          "type": "table",
          "table": {
            "headers": ["Place", "Cost a month", "Latency"],
            "rows": [["Disk", "$0", "1 ms"], ["Bucket", "$4", 40]],
            "highlights": [1]
          },
          "position": "side"
        },
        {
          "type": "chart",
          "chart": { "type": "line", "data": { "labels": ["Jan", "Feb", "Mar"],
            "datasets": [{ "label": "GB stored", "data": [12, null, 30] }] } },
          "caption": "Growth"
        },
        {
          "type": "chart",
          "chart": { "type": "pie", "data": { "labels": ["Logs", "Reports", "Images"],
            "datasets": [{ "data": [50, 30, 20] }] } }
        },
        {
          "type": "chart",
          "chart": { "type": "radar", "data": { "labels": ["Speed", "Cost"],
            "datasets": [{ "label": "Disk", "data": [5, 4] }, { "label": "Bucket", "data": [3, 2] }] } },
          "position": "below"
        }
      ]
    },
    {
      "id": "patch",
      "type": "single",
      "question": "Apply this change?",
      "content": {
        "source": "--- a/src/report.rs\n+++ b/src/report.rs\n@@ -1,2 +1,2 @@\n-let path = \"/tmp/report\";\n+let path = settings.report_dir.join(\"report\");",
        "lang": "diff",
        "file": "src/report.rs"
      },
      "options": ["Apply", "Leave it"],
      "recommended": "Apply"
    },
    {
      "id": "notes",
      "type": "text",
      "question": "Anything about the long line below?",
      "optional": true,
      "content": {
        "source": "let message = format!(\"a line much longer than eighty columns, so that the terminal has to break it somewhere sensible {}\", value);\nlet done = true;",
        "lang": "rust",
        "lines": "120-121",
        "highlights": [2],
        "title": "The long line"
      }
    }
  ]
}
"##;

/// A 1×1 PNG.
pub(crate) const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0d, 0x49, 0x44, 0x41, 0x54,
    0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50, 0x0f, 0, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d,
    0x6b, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn media_questions() -> Value {
    serde_json::from_str(MEDIA_QUESTIONS).unwrap()
}

#[test]
fn the_terminal_shows_every_block_as_text_within_80_columns() {
    let home = TempDir::new("interview-media-terminal");
    std::fs::write(home.path().join("logo.png"), PNG).unwrap();
    let call = json!({"questions": media_questions()}).to_string();
    let server = ReplayServer::start(vec![
        Reply::tool_calls(&[("i1", "interview", &call)]),
        Reply::text(&["Stored on disk."]),
    ]);
    let mut pty = at_80(
        &home,
        &server.url(),
        &[("MARVIN_NO_BROWSER", "1"), ("MARVIN_TOOLS", "all")],
        &[],
    );
    pty.wait_for("› ");
    pty.send("where do reports go?\r");
    pty.wait_for("Enter chooses");
    // The recommended option is where the cursor starts: Enter takes it.
    pty.send("\r");
    pty.wait_for("✓ storage: Disk");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("\r");
    pty.wait_for("✓ patch: Apply");
    pty.wait_for("Your answer (Enter to skip): ");
    pty.send("\r");
    pty.wait_for("Stored on disk.");
    let screen = pty.visible();
    let text = screen.text();
    let logo = std::fs::canonicalize(home.path().join("logo.png")).unwrap();
    let expected = [
        // The pictures: where they are.
        format!("    Picture: {}", logo.display()),
        "    Picture: https://example.com/remote.png (Remote)".into(),
        "    A picture on this machine".into(),
        // Mermaid as its source, behind a bar.
        "    Mermaid diagram, as its source:".into(),
        "    │ graph LR".into(),
        "    │   API --> Auth".into(),
        // HTML as its text, scripts left out.
        "    Some bold words".into(),
        // A table in columns, its marked row pointed at.
        "      Place   Cost a month  Latency".into(),
        "      Disk    $0            1 ms".into(),
        "    › Bucket  $4            40".into(),
        // Charts as their numbers.
        "    Line chart, as its numbers:".into(),
        "           GB stored".into(),
        "      Jan  12".into(),
        "      Feb".into(),
        "      Mar  30".into(),
        "    Pie chart, as its numbers:".into(),
        "      Logs     50".into(),
        "    Radar chart, as its numbers:".into(),
        "             Disk  Bucket".into(),
        "      Speed  5     3".into(),
        // A diff with its header and line numbers.
        "    src/report.rs (diff)".into(),
        "    │ 4 -let path = \"/tmp/report\";".into(),
        // Code numbered from its first line, the marked line pointed at, the long line
        // broken by Marvin, not by the terminal.
        "    The long line (rust)".into(),
        "    │ 120 let message = format!(\"a line much longer than eighty columns, so".into(),
        "    │›121 let done = true;".into(),
    ];
    for line in &expected {
        assert!(
            screen
                .lines()
                .iter()
                .any(|row| row.starts_with(line.as_str())),
            "missing {line:?}:\n{text}"
        );
    }
    assert!(!text.contains("__ran"), "{text}");
    assert!(!text.contains("<p>"), "{text}");
    assert!(
        screen.wrapped.is_empty(),
        "wrapped: {:?}\n{text}",
        screen.wrapped
    );
    assert!(pty.leave().success());
    let result = server.requests()[1].last_tool_result();
    assert!(
        result.starts_with(
            "User completed the interview form.\n\nResponses:\n- storage: Disk\n- patch: Apply\n- notes: (skipped)\n\n"
        ),
        "{result}"
    );
}

fn media_server(home: &TempDir) -> FormServer {
    std::fs::write(home.path().join("logo.png"), PNG).unwrap();
    let mut interview = questions::parse(&media_questions()).unwrap();
    pictures::resolve(&mut interview, home.path()).unwrap();
    FormServer::start(interview, page(), home.path().join("uploads"), 600).unwrap()
}

#[test]
fn the_page_draws_every_kind_itself_and_loads_nothing_from_elsewhere() {
    let Some(browser) = Browser::start(1280, 1600) else {
        return;
    };
    let home = TempDir::new("interview-media-page");
    let server = media_server(&home);
    browser.open(&server.url());
    browser.find("#q-storage input");
    // The picture on this machine, served by the form by its question and item number.
    browser.wait_until(
        "const img = document.querySelector('#q-look img'); return img && img.complete && img.naturalWidth === 1",
        "the local picture loads",
    );
    let count = |css: &str| {
        browser.script(
            &format!("return document.querySelectorAll({css:?}).length"),
            json!([]),
        )
    };
    assert_eq!(
        count("#q-look img"),
        json!(1),
        "the remote picture is a link, not an image"
    );
    assert_eq!(
        browser.text("#q-look .media.image:nth-of-type(2) a"),
        "https://example.com/remote.png"
    );
    // Mermaid as its source; HTML with its scripts, handlers and javascript: links gone.
    assert!(
        browser
            .text("#q-look .media.mermaid")
            .contains("API --> Auth")
    );
    assert_eq!(browser.text("#q-look .html b"), "bold");
    assert_eq!(count("#q-look .html script, #q-look .html img"), json!(0));
    assert_eq!(count("#q-look .html a"), json!(1));
    assert_eq!(
        browser.script("return window.__ran === undefined", json!([])),
        json!(true)
    );
    // The table beside the question, its marked row; the charts drawn as SVG.
    assert_eq!(count("#q-storage .media.side table tbody tr"), json!(2));
    assert_eq!(browser.text("#q-storage tr.hl td"), "Bucket");
    assert_eq!(
        count("#q-storage .media.chart:nth-of-type(2) path.stroke"),
        json!(1),
        "one line, its gap kept"
    );
    assert_eq!(
        count("#q-storage .media.chart:nth-of-type(2) circle"),
        json!(2)
    );
    assert_eq!(
        count("#q-storage .media.chart:nth-of-type(3) svg > path"),
        json!(3),
        "three pie slices"
    );
    assert_eq!(
        count("#q-storage .media.chart:nth-of-type(4) svg rect"),
        json!(4),
        "radar drawn as bars"
    );
    assert!(
        browser
            .text("#q-storage .media.chart:nth-of-type(4)")
            .contains("drawn as bars")
    );
    // The diff and the code with their line numbers and marks.
    assert_eq!(count("#q-patch .line.add"), json!(1));
    assert_eq!(count("#q-patch .line.del"), json!(1));
    assert_eq!(browser.text("#q-notes .line.hl .n"), "121");
    assert!(
        browser
            .text("#q-notes .content-head")
            .contains("The long line")
    );
    // Nothing was fetched from anywhere but the form itself.
    let elsewhere = browser.script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(location.origin))",
        json!([]),
    );
    assert_eq!(elsewhere, json!([]));
    // Answered: the recommended options were chosen already; the optional text may stay empty.
    browser.click("#submit");
    let Some(FormEvent::Submitted(replies)) = server.wait(Duration::from_secs(15)) else {
        panic!("the answers did not arrive");
    };
    let ids: Vec<&str> = replies.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["storage", "patch", "notes"]);
}

#[test]
fn screenshots_of_every_kind_light_dark_desktop_and_360_px() {
    for (width, name) in [(1280, "desktop"), (360, "360px")] {
        let Some(browser) = Browser::start(width, 2400) else {
            return;
        };
        let home = TempDir::new("interview-media-shots");
        let server = media_server(&home);
        for scheme in ["light", "dark"] {
            browser.colour_scheme(scheme);
            browser.open(&server.url());
            browser.find("#q-storage input");
            let inner = browser.inner_width();
            assert_eq!(
                inner,
                json!(width),
                "{name}: the page is laid out {inner} px wide"
            );
            let overflow = browser.scrolls_sideways();
            assert_eq!(overflow, json!(false), "{name} {scheme} scrolls sideways");
            browser.screenshot(&format!("form-media-{name}-{scheme}"));
        }
    }
}
