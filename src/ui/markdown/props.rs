//! Properties of the Markdown renderer: any text, cut anywhere, renders without a panic (the
//! guard would turn one into plain text; here none may happen), shows the same however it was
//! cut, and lets no escape sequence through but the renderer's own colour codes. The text is
//! heavy in what Markdown is made of, in long runs, and in multibyte characters put across
//! the inline window's edge. How the time grows with the size is for `make bench`. Before they
//! passed they found three faults, now tests of their own in `tests.rs`:
//! `cuts_the_property_tests_found_show_the_same`, `character_references_write_no_escape_sequence`.

use proptest::prelude::*;

use super::Markdown;
use super::nodes::WINDOW;
use crate::props::{awkward_char, config};
use crate::ui::style::Style;

/// Openers the second property puts before text across the window, and what may close them.
const LEADS: &[&str] = &["`", "``", "*", "**", "_", "[", "![", "<", "&", "~~", "\\"];
const CLOSES: &[&str] = &["`", "``````", "*", "**", "_", "](u)", "]", ">", ";", "~~"];

/// What Markdown is made of, and some text.
const PIECES: &[&str] = &[
    "`",
    "``",
    "```",
    "``````",
    "~~~",
    "*",
    "**",
    "***",
    "_",
    "__",
    "~",
    "~~",
    "[",
    "]",
    "](",
    "(",
    ")",
    "![",
    "<",
    ">",
    "> ",
    "&",
    "&amp;",
    "&#x1F;",
    "\\",
    "#",
    "## ",
    "- ",
    "* ",
    "1. ",
    "10) ",
    "|",
    "| a | b |\n",
    "|---|:-:|\n",
    "---",
    "===",
    "\n",
    "\n\n",
    " ",
    "    ",
    "\t",
    "a",
    "word",
    "snake_case",
    "<https://x.y>",
    "<div>",
    "<!--",
    "-->",
    "[x]: /u\n",
    "é",
    "苹",
    "🔧",
    "\u{301}",
    "\x1b[1m",
    "\r\n",
    "\0",
];

/// A run of one of the marks, long enough to cross the window and the long wait (1 KB).
fn run() -> impl Strategy<Value = String> {
    let mark =
        prop::sample::select(&["`", "*", "_", "~", "[", "]", ">", "-", "#", " ", "é", "苹"][..]);
    (mark, 1..=6 * WINDOW).prop_map(|(mark, n)| mark.repeat(n))
}

/// An answer: pieces of Markdown, runs, and awkward characters.
fn answer() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        6 => prop::sample::select(PIECES).prop_map(str::to_string),
        1 => run(),
        2 => awkward_char().prop_map(String::from),
    ];
    prop::collection::vec(part, 0..48).prop_map(|parts| parts.concat())
}

/// `text` cut before the characters at the given points (each taken modulo its length).
fn cut<'a>(text: &'a str, points: &[usize]) -> Vec<&'a str> {
    let starts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let mut cuts: Vec<usize> = points
        .iter()
        .filter_map(|p| starts.get(p % starts.len().max(1)).copied())
        .collect();
    cuts.push(text.len());
    cuts.sort_unstable();
    cuts.dedup();
    let mut from = 0;
    let mut pieces = Vec::new();
    for to in cuts {
        pieces.push(&text[from..to]);
        from = to;
    }
    pieces
}

/// What `pieces` show, pushed one by one (with a pause after each when `paused`, as a slow
/// model makes: the word held is shown then, and wraps no more), then finished; `Err` when
/// rendering fell back to plain text after a panic.
fn render(pieces: &[&str], style: Style, width: usize, paused: bool) -> Result<String, String> {
    let mut md = Markdown::new(style, width);
    let mut out = String::new();
    for piece in pieces {
        out.push_str(&md.push(piece));
        if paused {
            out.push_str(&md.release());
        }
        if let Some(place) = &md.fault {
            return Err(format!("panicked at {place}"));
        }
    }
    let end = md.finish();
    match end.contains("(a bug in Marvin)") {
        true => Err(format!("panicked finishing: {end:?}")),
        false => Ok(out + &end),
    }
}

/// Whether every escape sequence in `shown` is an SGR code of the renderer's (none without
/// colour), and no other control character than a newline or a tab is left.
fn only_own_escapes(shown: &str, colour: bool) -> bool {
    let mut rest = shown;
    while let Some(c) = rest.chars().next() {
        if c == '\x1b' {
            let Some(end) = rest.find('m') else {
                return false;
            };
            let codes = &rest[1..end];
            let sgr = codes.starts_with('[')
                && codes[1..].bytes().all(|b| b.is_ascii_digit() || b == b';');
            if !colour || !sgr {
                return false;
            }
            rest = &rest[end + 1..];
            continue;
        }
        if c.is_control() && c != '\n' && c != '\t' {
            return false;
        }
        rest = &rest[c.len_utf8()..];
    }
    true
}

/// Found by the property below: a title's `#` arriving after the text before it was shown
/// was taken for the closing run.
#[test]
fn a_titles_hash_arriving_after_its_text_is_shown() {
    let style = Style {
        colour: false,
        unicode: false,
    };
    let text = "## >&amp;#\r\n";
    let whole = render(&[text], style, 8, false);
    assert_eq!(whole, Ok(">&#\n---\n".to_string()));
    assert_eq!(render(&cut(text, &[9]), style, 8, false), whole);
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_answer_cut_anywhere_renders_without_a_panic_and_the_same(
        text in answer(),
        points in prop::collection::vec(any::<usize>(), 0..16),
        colour in any::<bool>(),
        unicode in any::<bool>(),
        width in 8usize..120,
    ) {
        let style = Style { colour, unicode };
        let whole = render(&[text.as_str()], style, width, false);
        prop_assert!(whole.is_ok(), "{:?}: {:?}", whole, text);
        let pieces = cut(&text, &points);
        let cut_shown = render(&pieces, style, width, false);
        prop_assert_eq!(&cut_shown, &whole, "{:?} cut at {:?}", text, points);
        let paused = render(&pieces, style, width, true);
        prop_assert!(paused.is_ok(), "{:?}: {:?} cut at {:?}", paused, text, points);
        let shown = whole.unwrap_or_default();
        prop_assert!(only_own_escapes(&shown, colour), "{:?} showed {:?}", text, shown);
    }

    #[test]
    fn text_across_the_window_in_any_script_renders_without_a_panic(
        lead in prop::sample::select(LEADS),
        filler in prop::sample::select(&["a", "é", "苹", "🔧", " ", "`", "*"][..]),
        before in 0..=WINDOW + 8,
        close in prop::sample::select(CLOSES),
        after in 0..16usize,
    ) {
        let text = format!("{lead}{}{close}{}\n", filler.repeat(before), "z".repeat(after));
        for style in [Style { colour: true, unicode: true }, Style::PLAIN] {
            let whole = render(&[text.as_str()], style, 80, false);
            prop_assert!(whole.is_ok(), "{:?}: {:?}", whole, text);
            let by_char: Vec<&str> = cut(&text, &(0..text.len()).collect::<Vec<_>>());
            let shown = render(&by_char, style, 80, false);
            prop_assert_eq!(shown, whole, "{:?} char by char", text);
        }
    }
}

/// Found by the property above: a piece settled up to the middle of a run of marks (`*`
/// then `**`) left the rest to be read as a shorter run, which the rule of three pairs
/// otherwise, so the line cut there showed `_**[` where the whole showed `_[`.
#[test]
fn a_long_run_after_an_unpaired_run_shows_the_same_cut_or_whole() {
    let style = Style {
        colour: false,
        unicode: false,
    };
    let text = format!("*_***[*\0*{}a", "_".repeat(250));
    let whole = render(&[text.as_str()], style, 8, false);
    assert_eq!(render(&cut(&text, &[10]), style, 8, false), whole);
}
