//! What pages, fragments and snippets come to as text.

use super::*;

fn page_text(html: &str) -> String {
    with_links(&page(
        html.as_bytes(),
        Some("text/html"),
        "https://example.org/blog/post",
    ))
}

#[test]
fn pages_read_as_articles() {
    let cases: &[(&str, &str)] = &[
        (
            "<h1>Title</h1><p>One  two\n three.</p><p>Four</p>",
            "# Title\n\nOne two three.\n\nFour",
        ),
        (
            "<h3>Small <em>heading</em></h3>text",
            "### Small heading\n\ntext",
        ),
        (
            "<ul><li>a</li><li>b<ul><li>c</li></ul></li></ul><p>after</p>",
            "- a\n- b\n  - c\n\nafter",
        ),
        ("<ol start=3><li>three<li>four</ol>", "3. three\n4. four"),
        (
            "<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ann</td><td><p>31</p></td></tr></table>",
            "Name | Age\nAnn | 31",
        ),
        (
            "<table><tr><td>a<td>b<tr><td>c<td>d</table>",
            "a | b\nc | d",
        ),
        (
            "<p>See <a href=\"/docs\">the docs</a> and <a href='https://x.org/'>x</a>, or <a href=\"/docs\">again</a>.</p>",
            "See the docs [1] and x [2], or again [1].\n\nLinks:\n[1] https://example.org/docs\n[2] https://x.org/",
        ),
        (
            "<a href=\"#top\">top</a> <a href=\"javascript:void(0)\">js</a> <a href=\"more\"><img src=i.png></a>",
            "top js",
        ),
        (
            "<script>var x = '<p>no</p>';</script><style>p { color: red }</style><p>yes</p><noscript>enable js</noscript>",
            "yes",
        ),
        (
            "<header><a href=/>Home</a></header><nav><ul><li>Menu</li></ul></nav><p>Body</p><footer>© 2024</footer>",
            "Body",
        ),
        (
            "<article><header><h1>Kept</h1></header><p>text</p><footer>by Ann</footer></article>",
            "# Kept\n\ntext\n\nby Ann",
        ),
        (
            "<p>caf&eacute; &amp; cr&#232;me &#x2014; &nbsp;ok&hellip;</p>",
            "café & crème — ok…",
        ),
        (
            "<blockquote><p>Quoted</p><p>twice</p></blockquote>",
            "> Quoted\n\n> twice",
        ),
        (
            "line one<br>line two<br><br>after a gap",
            "line one\nline two\n\nafter a gap",
        ),
        (
            "<pre>\nfn main() {\n    println!(\"&lt;hi&gt;\");\n}\n</pre><p>done</p>",
            "```\nfn main() {\n    println!(\"<hi>\");\n}\n```\n\ndone",
        ),
        ("<p>Use <code>ls -l</code> here.</p>", "Use `ls -l` here."),
        (
            "<div><div>deep</div></div><span>inline</span> <b>bold</b>",
            "deep\ninline bold",
        ),
        ("<p>Unclosed <b>bold <p>next", "Unclosed bold\n\nnext"),
        ("<img alt=\"A diagram\" src=d.png>", "[A diagram]"),
        ("", ""),
    ];
    for (html, expected) in cases {
        assert_eq!(page_text(html), *expected, "{html}");
    }
}

#[test]
fn an_unclosed_element_never_swallows_the_page() {
    let cases: &[(&str, &str)] = &[
        ("<p>a<svg><circle r=1><p>shown</p>", "a\n\nshown"),
        ("<div>a<svg><text>hidden</div><p>shown", "a\n\nshown"),
        ("<p>x<math><mi>hidden</math>y</p><p>z", "xy\n\nz"),
        ("<div><select><option>A</div>shown", "shown"),
        ("<select><option>A<select>shown", "shown"),
        ("<form><select><option>A<input>shown</form>", "shown"),
        (
            "<table><tr><td><select><option>A<td>shown</table>",
            "| shown",
        ),
        ("<div><button>Go</div><p>shown", "shown"),
        ("<p>a <button>b<button>c</button>shown", "a shown"),
        ("<title>T</title><p>a<title>hidden</title>b", "ab"),
        (
            "<frameset><frame src=x></frameset>gone<noframes>shown</noframes>",
            "shown",
        ),
    ];
    for (html, expected) in cases {
        assert_eq!(page_text(html), *expected, "{html}");
    }
}

#[test]
fn the_title_and_base_are_read_from_the_head() {
    let html = "<html><head><title> A  page </title><base href=\"https://cdn.example.net/x/\"></head><body><a href=\"y\">y</a></body></html>";
    let rendered = page(html.as_bytes(), None, "https://example.org/");
    assert_eq!(rendered.title.as_deref(), Some("A page"));
    assert_eq!(rendered.text, "y [1]");
    assert_eq!(rendered.links, ["https://cdn.example.net/x/y"]);
}

#[test]
fn a_latin1_page_reads_as_text() {
    let bytes = b"<html><head><meta charset=iso-8859-1></head><body><p>Cr\xe8me br\xfbl\xe9e \x96 \x80 5</p></body></html>";
    assert_eq!(
        page(bytes, None, "https://example.org/").text,
        "Crème brûlée – € 5"
    );
    let bytes = b"<p>Fa\xe7ade</p>";
    assert_eq!(
        page(
            bytes,
            Some("text/html; charset=ISO-8859-1"),
            "https://example.org/"
        )
        .text,
        "Façade"
    );
}

#[test]
fn fragments_keep_code_blocks_and_links() {
    let cases: &[(&str, &str)] = &[
        (
            "<p>Try this:</p>\n\n<pre><code>git reset --hard HEAD~1\ngit push -f\n</code></pre>\n\n<p>Then <code>git log</code>.</p>",
            "Try this:\n\n```\ngit reset --hard HEAD~1\ngit push -f\n```\n\nThen `git log`.",
        ),
        (
            "<pre class=\"lang-py\"><code>def f():\n\n    return 1 &lt; 2\n</code></pre>",
            "```\ndef f():\n\n    return 1 < 2\n```",
        ),
        (
            "<p>See <a href=\"https://docs.python.org/3/\">the docs</a> or <a href=\"https://x.org\">https://x.org</a>.</p>",
            "See the docs (https://docs.python.org/3/) or https://x.org.",
        ),
        (
            "<ul>\n<li><p>first</p></li>\n<li><p>second</p>\n<pre><code>x = 1\n</code></pre></li>\n</ul>",
            "- first\n\n- second\n\n  ```\n  x = 1\n  ```",
        ),
        (
            "<blockquote>\n<p>Note: <strong>careful</strong></p>\n</blockquote>",
            "> Note: careful",
        ),
    ];
    for (html, expected) in cases {
        assert_eq!(fragment(html), *expected, "{html}");
    }
}

#[test]
fn snippets_become_one_line() {
    let cases: &[(&str, &str)] = &[
        (
            "<b>Eino</b> is a framework &quot;i know&quot; &#x27;aino&#x27;",
            "Eino is a framework \"i know\" 'aino'",
        ),
        (
            "\n   GitHub -   cloudwego/eino\n ",
            "GitHub - cloudwego/eino",
        ),
        ("<p>two</p><p>blocks</p>", "two blocks"),
        ("a <a href=\"x\">link</a>", "a link"),
    ];
    for (html, expected) in cases {
        assert_eq!(line(html), *expected, "{html}");
    }
}

#[test]
fn hostile_pages_stay_small_and_linear() {
    // 100,000 nested lists: every line is indented at most MAX_INDENT levels.
    let nested = format!("{}{}", "<ul>".repeat(100_000), "<li>x".repeat(1_000));
    let text = render(
        &nested,
        &Options {
            base: None,
            links: Links::Drop,
            page: false,
        },
    )
    .text;
    assert_eq!(text.lines().filter(|l| l.ends_with('x')).count(), 1_000);
    assert!(
        text.lines().all(|l| l.len() <= 2 * 16 + 4),
        "a line is too long"
    );
    // One tag with 100,000 attributes keeps the first few.
    let attributes: String = (0..100_000).map(|i| format!(" a{i}=1")).collect();
    let tag = format!("<p{attributes}>kept</p>");
    let mut tokens = Tokenizer::new(&tag);
    let Some(Token::Start(start)) = tokens.next() else {
        panic!("a start tag")
    };
    assert_eq!(start.attrs.len(), 64);
    assert_eq!(start.attrs[0], ("a0".to_string(), "1".to_string()));
    // 20,000 distinct links are numbered in order, a repeated one keeps its number.
    let links: String = (0..20_000)
        .map(|i| format!("<a href=\"/p{i}\">l{i}</a> "))
        .chain(["<a href=\"/p7\">again</a>".to_string()])
        .collect();
    let options = Options {
        base: Some("https://e.org/"),
        links: Links::Footnotes,
        page: false,
    };
    let rendered = render(&links, &options);
    assert_eq!(rendered.links.len(), 20_000);
    assert_eq!(rendered.links[7], "https://e.org/p7");
    assert!(
        rendered.text.ends_with("again [8]"),
        "{}",
        &rendered.text[rendered.text.len() - 40..]
    );
}
