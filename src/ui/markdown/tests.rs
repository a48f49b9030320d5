//! The renderer as a whole: each construct in the four styles, and the same output however
//! the answer is split into pieces.

use super::*;

fn style(colour: bool, unicode: bool) -> Style {
    Style { colour, unicode }
}

/// `doc` pushed in one piece, then finished.
fn whole(doc: &str, style: Style, width: usize) -> String {
    let mut md = Markdown::new(style, width);
    let mut out = md.push(doc);
    out.push_str(&md.finish());
    out
}

/// `doc` pushed in pieces of the given sizes (in characters; the rest at the end).
fn pieces(doc: &str, sizes: impl Iterator<Item = usize>, style: Style, width: usize) -> String {
    let mut md = Markdown::new(style, width);
    let (mut out, mut rest) = (String::new(), doc);
    for size in sizes {
        let end = rest
            .char_indices()
            .nth(size)
            .map_or(rest.len(), |(at, _)| at);
        out.push_str(&md.push(&rest[..end]));
        rest = &rest[end..];
        if rest.is_empty() {
            break;
        }
    }
    out.push_str(&md.push(rest));
    out.push_str(&md.finish());
    out
}

/// What the ASCII style shows for the symbols in `text`.
fn to_ascii(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '•' | '─' => '-',
            '│' => '|',
            '═' => '=',
            '┌' | '┬' | '┐' | '├' | '┼' | '┤' | '└' | '┴' | '┘' => '+',
            c => c,
        })
        .collect()
}

#[test]
fn each_construct_in_each_style() {
    // (input, with colour (SGR codes as `{1}`), without colour); both with unicode symbols,
    // which the ASCII style replaces.
    let cases: &[(&str, &str, &str)] = &[
        (
            "Hello **world**, `code` and *it*.\n",
            "Hello {1}world{}, {36}code{} and {3}it{}.\n",
            "Hello world, `code` and it.\n",
        ),
        (
            "# Title\n## Sub `x`\n#### Deep\n",
            "{1;4}Title{}\n{1}Sub {1;36}x{1}{}\n{1}Deep{}\n",
            "Title\n═════\nSub `x`\n───────\nDeep\n────\n",
        ),
        (
            "- one\n* two\n  + nested\n    more\nlazy\n\n1. first\n2. second\n10) tenth\n\nafter\n",
            "• one\n• two\n  • nested\n    more\n    lazy\n\n1. first\n2. second\n10) tenth\n\nafter\n",
            "• one\n• two\n  • nested\n    more\n    lazy\n\n1. first\n2. second\n10) tenth\n\nafter\n",
        ),
        (
            "1. step\n\n   continued\n   ```sh\n   make\n   ```\n2. next\n",
            "1. step\n\n   continued\n   {2}── sh ───────────────────────────────{}\n   make\n   {2}─────────────────────────────────────{}\n2. next\n",
            "1. step\n\n   continued\n   ── sh ───────────────────────────────\n   make\n   ─────────────────────────────────────\n2. next\n",
        ),
        (
            "> quoted **b**\n> > - item\n>\nafter\n",
            "{2}│{} quoted {1}b{}\n{2}│{} {2}│{} • item\n{2}│{}\nafter\n",
            "│ quoted b\n│ │ • item\n│\nafter\n",
        ),
        (
            "a\n\n---\n* * *\n",
            "a\n\n{2}────────────────────────────────────────{}\n{2}────────────────────────────────────────{}\n",
            "a\n\n────────────────────────────────────────\n────────────────────────────────────────\n",
        ),
        (
            "```\n**x** # y\n```\n",
            "{2}────────────────────────────────────────{}\n**x** # y\n{2}────────────────────────────────────────{}\n",
            "────────────────────────────────────────\n**x** # y\n────────────────────────────────────────\n",
        ),
        (
            "| a | b |\n|---|--:|\n| **x** | 10 |\n\nafter\n",
            "{2}┌───┬────┐{}\n{2}│{} {1}a{} {2}│{}  {1}b{} {2}│{}\n{2}├───┼────┤{}\n{2}│{} {1}x{} {2}│{} 10 {2}│{}\n{2}└───┴────┘{}\n\nafter\n",
            "┌───┬────┐\n│ a │  b │\n├───┼────┤\n│ x │ 10 │\n└───┴────┘\n\nafter\n",
        ),
        (
            "| not a table\nnext\n",
            "| not a table\nnext\n",
            "| not a table\nnext\n",
        ),
        (
            "See [docs](https://d.io) and <https://e.io>.\n",
            "See docs ({4}https://d.io{}) and\n{4}https://e.io{}.\n",
            "See docs (https://d.io) and\nhttps://e.io.\n",
        ),
        (
            "snake_case and 2 * 3 * 4 and a * b\n",
            "snake_case and 2 * 3 * 4 and a * b\n",
            "snake_case and 2 * 3 * 4 and a * b\n",
        ),
    ];
    for (input, coloured, plain) in cases {
        for unicode in [true, false] {
            let symbols = |text: &str| match unicode {
                true => text.to_string(),
                false => to_ascii(text),
            };
            let shown = readable(&whole(input, style(true, unicode), 40));
            assert_eq!(
                shown,
                symbols(coloured),
                "colour, unicode {unicode}: {input:?}"
            );
            let shown = whole(input, style(false, unicode), 40);
            assert_eq!(
                shown,
                symbols(plain),
                "no colour, unicode {unicode}: {input:?}"
            );
        }
    }
}

/// A document with every construct and the awkward cases between them.
const DOC: &str = concat!(
    "# Marvin's *answer*\n",
    "Intro with **bold**, _it_, `code`, ~~old~~, snake_case, 2 * 3 * 4, a \\* star and [a link](https://x.io/a_(b)).\n",
    "\n",
    "## Steps\n",
    "- first **item**\n",
    "  - nested `one`\n",
    "    continued here\n",
    "* second\n",
    "10. tenth\n",
    "\n",
    "> A quote with *emphasis*\n",
    "> > nested\n",
    ">\n",
    "\n",
    "| Name | Qty | Notes |\n",
    "|:-----|----:|:-----:|\n",
    "| apple | 3 | **fresh** |\n",
    "| 苹果 | 12 | `a \\| b` |\n",
    "\n",
    "```rust\n",
    "fn main() { let s = \"**not bold** # x\"; }\n",
    "\t| not | a | table |\n",
    "```\n",
    "---\n",
    "| lone pipe line\n",
    "Unclosed **bold and `tick\n",
    "Tail <https://y.io> ~~~\n",
    "~~~\n",
    "code after a tilde fence\n",
);

#[test]
fn the_output_does_not_depend_on_how_the_answer_is_split() {
    let mut rng = fastrand::Rng::with_seed(18);
    for (colour, unicode, width) in [
        (true, true, 80),
        (true, false, 30),
        (false, true, 80),
        (false, false, 24),
    ] {
        let style = style(colour, unicode);
        let expected = whole(DOC, style, width);
        let by_char = pieces(DOC, std::iter::repeat(1), style, width);
        assert_eq!(
            by_char, expected,
            "char by char, colour {colour}, unicode {unicode}"
        );
        for round in 0..20 {
            let sizes: Vec<usize> = (0..DOC.len()).map(|_| rng.usize(0..12)).collect();
            let shown = pieces(DOC, sizes.iter().copied(), style, width);
            assert_eq!(shown, expected, "round {round}, sizes {sizes:?}");
        }
    }
}

#[test]
fn nothing_is_lost_and_plain_text_passes_unchanged() {
    let plain = "Just words, numbers 1.5 and 2024, a - dash, 100% sure; (parens) & more!\n\
                 Second line with trailing spaces   \n\nLast line without newline";
    for (colour, unicode) in [(true, true), (false, false)] {
        assert_eq!(whole(plain, style(colour, unicode), 80), plain);
    }
    // Every visible character of DOC's words comes out, whatever the style.
    for (colour, unicode) in [(true, true), (false, false)] {
        let shown = whole(DOC, style(colour, unicode), 80);
        for word in [
            "Marvin's",
            "snake_case",
            "2 * 3",
            "continued",
            "tenth",
            "nested",
            "Tail",
        ] {
            assert!(shown.contains(word), "{word} in {shown}");
        }
        for word in [
            "Unclosed **bold and `tick",
            "| lone pipe line",
            "code after a tilde fence",
        ] {
            assert!(shown.contains(word), "{word} in {shown}");
        }
    }
}

#[test]
fn code_in_a_fence_comes_out_byte_for_byte() {
    let code = "fn main() {\n    let s = \"**not bold** _x_ `y` [a](b)\";\n\t// | a | b |\n\
                # not a heading\n- not a list\n> not a quote\n---\n   trailing   \n\n``\n}\n";
    // An indented fence's lines keep what is past its indentation, shown after the fence's.
    for (fence, indent) in [("```rust\n", ""), ("  ~~~~\n", "  ")] {
        let code: String = code
            .split_inclusive('\n')
            .map(|l| format!("{indent}{l}"))
            .collect();
        let doc = format!("Before:\n{fence}{code}{}\nAfter.\n", fence.trim_end());
        for (colour, unicode) in [(true, true), (false, false)] {
            let shown = whole(&doc, style(colour, unicode), 80);
            let start = shown
                .find(&format!("{indent}fn main"))
                .expect("the code is shown");
            assert_eq!(&shown[start..start + code.len()], code, "{fence:?}");
            let rule = if unicode { "─" } else { "-" };
            assert!(
                shown[start + code.len()..].trim_start().contains(rule),
                "{shown}"
            );
        }
    }
}

#[test]
fn an_unclosed_fence_ends_with_the_answer() {
    let shown = whole("```py\nprint(1)", style(false, true), 20);
    assert_eq!(
        shown,
        "── py ──────────────\nprint(1)\n────────────────────"
    );
    let mut md = Markdown::new(style(false, true), 20);
    md.push("```\nx\n");
    assert_eq!(md.finish(), "────────────────────");
    assert_eq!(md.push("**a**\n"), "a\n", "finish starts a new document");
}

#[test]
fn the_models_escape_sequences_are_neutralised() {
    let doc = "Hi \x1b[31mred\x1b[0m \x1b]0;title\x07 **b**\r\n# \x1b[2J\n```\n\x1b[H code\n```\n\
               | a\x1b[1m | b |\n|---|---|\n| \x1b[5m | c |\n";
    for (colour, unicode) in [(true, true), (false, false)] {
        let shown = whole(doc, style(colour, unicode), 80);
        assert!(shown.contains("^[[31mred^[[0m"), "{shown:?}");
        assert!(shown.contains("^[[H code"), "{shown:?}");
        assert!(
            !shown.contains('\x07') && !shown.contains('\r'),
            "{shown:?}"
        );
        let mut rest = shown.as_str();
        while let Some(at) = rest.find('\x1b') {
            assert!(colour, "no escape codes at all without colour: {shown:?}");
            let sgr = &rest[at..];
            let end = sgr.find('m').expect("an SGR sequence ends with m");
            assert!(
                sgr[2..end].bytes().all(|b| b.is_ascii_digit() || b == b';'),
                "{sgr:?}"
            );
            assert!(sgr.starts_with("\x1b["), "{sgr:?}");
            rest = &sgr[end..];
        }
    }
}

#[test]
fn text_shows_as_it_arrives_and_only_the_undecided_waits() {
    // (pieces pushed one after another, what each push shows) without colour
    let cases: &[&[(&str, &str)]] = &[
        &[
            ("A paragraph that goes on", "A paragraph that\ngoes"),
            (" and on", " on and"),
        ],
        &[("- item text", "• item"), (" more\n", " text more\n")],
        &[("Say **hel", "Say"), ("lo** now", " hello")],
        &[
            ("#", ""),
            ("# Sub", ""),
            ("title\n", "Subtitle\n────────\n"),
        ],
        &[("  ", ""), ("x ", "  x")],
        &[("12", ""), ("3 apples", "123")],
        &[("--", ""), ("-", ""), ("\n", "────────────────────\n")],
        &[
            ("```", ""),
            ("js\n", "── js ──────────────\n"),
            ("let", "let"),
            (" a;\n``", " a;\n"),
        ],
        &[
            ("| a | b |\n", ""),
            ("|---|---|\n", ""),
            ("| 1 | 2 |\n", ""),
            (
                "\n",
                "┌───┬───┐\n│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n\n",
            ),
        ],
        &[("| a |\n", ""), ("b ", "| a |\nb")],
    ];
    for steps in cases {
        let mut md = Markdown::new(style(false, true), 20);
        for (piece, shown) in *steps {
            assert_eq!(md.push(piece), *shown, "pushing {piece:?} in {steps:?}");
        }
    }
    let mut md = Markdown::new(style(true, true), 20);
    assert_eq!(readable(&md.push("# Ti")), "{1;4}");
    assert_eq!(readable(&md.finish()), "Ti{}");
}

#[test]
fn random_documents_render_the_same_however_split() {
    const BITS: &[&str] = &[
        "*",
        "**",
        "_",
        "`",
        "```",
        "~~~",
        "~~",
        "\n",
        "\n\n",
        " ",
        "  ",
        "\t",
        "word",
        "a_b",
        "#",
        "## ",
        "- ",
        "1. ",
        "|",
        "| a | b |\n",
        "|---|:-:|\n",
        "---",
        "> ",
        "[",
        "](",
        ")",
        "]",
        "<https://",
        ">",
        "\\",
        "é",
        "苹",
        "🔧",
        "!",
        "\x1b[1m",
        "\r\n",
    ];
    let mut rng = fastrand::Rng::with_seed(2026);
    for round in 0..300 {
        let doc: String = (0..rng.usize(1..60))
            .map(|_| BITS[rng.usize(..BITS.len())])
            .collect();
        for (colour, unicode) in [(true, true), (false, false)] {
            let style = style(colour, unicode);
            let expected = whole(&doc, style, 40);
            let by_char = pieces(&doc, std::iter::repeat(1), style, 40);
            assert_eq!(by_char, expected, "round {round}, char by char: {doc:?}");
            let sizes: Vec<usize> = (0..doc.len()).map(|_| rng.usize(0..8)).collect();
            let shown = pieces(&doc, sizes.iter().copied(), style, 40);
            assert_eq!(shown, expected, "round {round}, {sizes:?}: {doc:?}");
        }
    }
}

#[test]
fn prose_wraps_at_words_and_code_keeps_its_lines() {
    let doc = "Answers are wrapped at word boundaries so that no word is cut in two.\n\
               - a list item whose text runs on past the width\n\n\
               > a quote that runs on past the width too\n\
               ```\nlet code = \"stays on one line however long it is\";\n```\n\n\
               Averyveryverylongwordwithoutspaces ends.\n";
    let expected = "Answers are wrapped at word\nboundaries so that no word is\ncut in two.\n\
                    • a list item whose text runs\n  on past the width\n\n\
                    │ a quote that runs on past\n│ the width too\n\
                    ──────────────────────────────\n\
                    let code = \"stays on one line however long it is\";\n\
                    ──────────────────────────────\n\n\
                    Averyveryverylongwordwithoutsp\naces ends.\n";
    assert_eq!(whole(doc, style(false, true), 30), expected);
    let by_char = pieces(doc, std::iter::repeat(1), style(false, true), 30);
    assert_eq!(by_char, expected);
    // With colour the rows are the same: the style is closed before each break.
    let coloured = whole("> **bold words that wrap** here\n", style(true, true), 20);
    assert_eq!(
        readable(&coloured),
        "{2}│{} {1}bold words that{}\n{2}│{} {1}wrap{} here\n"
    );
}

#[test]
fn commonmark_blocks_and_spans_in_the_tagged_mode() {
    // (input, tagged output): the faults the CommonMark spec's examples found.
    let cases: &[(&str, &str)] = &[
        ("    # foo\n", "<pre>\n|# foo\n</pre>"),
        (
            "    a\\*b *c*\n\n    d\n",
            "<pre>\n|a\\*b *c*\n|\n|d\n</pre>",
        ),
        ("para\n    # not code\n", "para\n    # not code"),
        (
            "&copy; &amp; &#35; &#x22; &nosuch; &copy\n",
            "© & # \" &nosuch; &copy\n",
        ),
        (
            "<div>\n*not* **md**\n</div>\n",
            "<div>\n*not* **md**\n</div>\n",
        ),
        ("a **b\n", "a **b\n"),
        ("**foo*\n", "*<em>foo</em>\n"),
        ("*foo\nbar*\n", "<em>foo\nbar</em>\n"),
        ("Title\n===\n", "Title\n</h1>\n"),
        ("1. a\n1. b\n", "1. a\n2. b\n"),
        ("- # Head\n", "• Head\n</h1>\n"),
        ("[x]: /u\n\n[x]\n", "\n<a>x</a>\n"),
        ("## Title ##\n", "Title\n</h2>\n"),
        // Spans that share a run of marks, and runs that cannot pair across each other.
        ("***a* b**\n", "<strong><em>a</em> b</strong>\n"),
        ("**a *b***\n", "<strong>a <em>b</em></strong>\n"),
        ("***a** b*\n", "<em><strong>a</strong> b</em>\n"),
        ("*a _b* c_\n", "<em>a _b</em> c_\n"),
        ("_a *b_ c* *d*\n", "<em>a *b</em> c* <em>d</em>\n"),
        ("[*a](u) b*\n", "<a>*a</a> b*\n"),
        ("*[a*](u)\n", "*<a>a*</a>\n"),
    ];
    for (input, tagged) in cases {
        let mut md = Markdown::tagged();
        let mut shown = md.push(input);
        shown.push_str(&md.finish());
        assert_eq!(shown.trim_end(), tagged.trim_end(), "{input:?}");
    }
}

/// Issue 41, finding 5: a 280-byte answer, an unclosed backtick and then a run of six across
/// the window's edge, ended the REPL (`begin > end` in `parse.rs`). It is text, as written,
/// however it arrives.
#[test]
fn backticks_across_the_windows_edge_are_shown_as_written() {
    let answer = format!("`{}``````{}\n", "a".repeat(250), "b".repeat(22));
    assert_eq!(answer.len(), 280);
    for (colour, unicode) in [(true, true), (false, false)] {
        let style = style(colour, unicode);
        let expected = whole(&answer, style, usize::MAX / 4);
        assert_eq!(expected, answer, "colour {colour}");
        let by_char = pieces(&answer, std::iter::repeat(1), style, usize::MAX / 4);
        assert_eq!(by_char, expected, "char by char, colour {colour}");
    }
}

/// Deep nesting is read as CommonMark reads it but shown at most `DEEPEST` levels deep, and
/// list items opened on one row follow each other on it: what starts a row stays narrow,
/// however deep the answer nests (cmark's pathological "nested block quotes" and "empty lines
/// in deeply nested lists" made rows of millions of columns here).
#[test]
fn deep_nesting_is_shown_at_most_ten_levels_deep() {
    let deep = |unit: &str, n: usize| unit.repeat(n);
    let cases: &[(String, String)] = &[
        (
            format!("{}a\n", deep("> ", 30)),
            format!("{}a\n", deep("│ ", 10)),
        ),
        ("- - - x\n".to_string(), "• • • x\n".to_string()),
        (
            "- - - x\n  more\n".to_string(),
            "• • • x\n      more\n".to_string(),
        ),
        (
            format!("{}x\n", deep("- ", 12)),
            format!("{}- - x\n", deep("• ", 10)),
        ),
        (
            (0..14).map(|i| format!("{}* a\n", deep("  ", i))).collect(),
            (0..14)
                .map(|i| format!("{}• a\n", deep("  ", i.min(10))))
                .collect(),
        ),
    ];
    for (input, shown) in cases {
        assert_eq!(&whole(input, style(false, true), 200), shown, "{input:?}");
        let by_char = pieces(input, std::iter::repeat(1), style(false, true), 200);
        assert_eq!(&by_char, shown, "char by char: {input:?}");
    }
}

/// A line's start, or a run of marks, that stays undecided for long is looked at again only
/// as it doubles (or its line ends), not for every small piece: the same shows.
#[test]
fn long_waits_show_the_same_however_split() {
    let docs = [
        format!("{}a*b*\n", ">".repeat(3000)),
        format!("{}a{}\n", "*".repeat(2000), "*".repeat(2000)),
        format!("{}\nafter\n", "- ".repeat(1500)),
        format!("x {}y\n", "`".repeat(2500)),
        format!("{}\n", "|".repeat(3000)),
    ];
    for doc in &docs {
        for style in [style(true, true), style(false, false)] {
            let expected = whole(doc, style, 80);
            for size in [1, 3, 700] {
                let shown = pieces(doc, std::iter::repeat(size), style, 80);
                assert_eq!(shown, expected, "pieces of {size}: {}", &doc[..20]);
            }
        }
    }
}

/// A panic while rendering (a bug: here the buffer's position set past its end, as one might
/// leave it) does not leave the renderer: what was shown stays, what it held and the rest of
/// the answer come as the plain text they are, one line at the answer's end says what
/// happened, and the next answer is rendered again.
#[test]
fn a_panic_while_rendering_shows_the_rest_as_plain_text() {
    let mut md = Markdown::new(style(true, true), 80);
    let mut shown = md.push("Hello **bold** and *it");
    md.pos = usize::MAX / 2;
    shown.push_str(&md.push("alic* and \x1b[2J`code`\n"));
    shown.push_str(&md.push("# not a heading\n"));
    assert_eq!(
        readable(&shown),
        "Hello {1}bold{} and{} *italic* and ^[[2J`code`\n# not a heading\n"
    );
    let end = md.finish();
    assert!(
        end.starts_with("\x1b[2m[marvin: showing this answer's Markdown failed at src/ui/"),
        "{end:?}"
    );
    assert!(
        end.ends_with("from there on it is plain text]\x1b[0m"),
        "{end:?}"
    );
    assert_eq!(readable(&md.push("**b**\n")), "{1}b{}\n");
    assert_eq!(md.finish(), "");
}

/// Cuts the property tests (`props.rs`) found to show otherwise than the whole answer: an
/// image's `!` alone at a piece's end (shown before its `[` came, it made a link of the
/// image), and a run of marks a span used part of (read again from inside the run, the rest
/// was a shorter run that paired otherwise, or not at all).
#[test]
fn cuts_the_property_tests_found_show_the_same() {
    let stars = format!("**-{}_", "*".repeat(99));
    let cases: &[(&str, &str)] = &[
        ("see !", "[the logo](l.png) now\n"),
        ("![", "](u)\n"),
        ("************ ]***_**_", "`aa`***`****``````\n"),
        (&stars, "*****```\n"),
    ];
    for (front, back) in cases {
        for (style, width) in [(style(false, false), 8), (style(true, true), 80)] {
            let expected = whole(&format!("{front}{back}"), style, width);
            let mut md = Markdown::new(style, width);
            let mut shown = md.push(front);
            shown.push_str(&md.push(back));
            shown.push_str(&md.finish());
            assert_eq!(shown, expected, "{front:?} then {back:?}");
        }
    }
}

/// A character reference decodes after the answer was sanitized: one that stands for ESC (or
/// any control character) is shown as the sanitizer shows it, never written (found by the
/// property tests).
#[test]
fn character_references_write_no_escape_sequence() {
    let doc = "a &#x1B;[2J b &#27;]0;title&#7; [x](&#x1b;[31m) &#x202E;c\n";
    for (colour, unicode) in [(true, true), (false, false)] {
        let shown = whole(doc, style(colour, unicode), 200);
        let plain = readable(&shown);
        assert!(plain.contains("a ^[[2J b ^[]0;title\u{fffd}"), "{plain:?}");
        assert!(plain.contains("^[[31m"), "{plain:?}");
        assert!(
            !shown.contains('\u{7}') && !shown.contains('\u{202e}'),
            "{shown:?}"
        );
        let escapes = shown.matches('\x1b').count();
        let codes = shown.matches("\x1b[0").count() + shown.matches("\x1b[2m").count();
        assert_eq!(escapes, codes, "only the renderer's own codes: {shown:?}");
    }
}
