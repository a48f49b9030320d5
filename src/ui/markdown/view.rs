//! The conformance tests' common ground between an HTML rendering (the CommonMark spec's
//! expected output) and this renderer's tagged mode: a list of lines, each with its quote bars,
//! its list marker and its text with inline marks (`<em>`, `<strong>`, `<code>`, `<del>`,
//! `<a>`, `<img>`); headings end with a `</hN>` line, code blocks are `<pre lang>`, `|line`…,
//! `</pre>`, rules are `<hr>`; blank lines, indentation and runs of spaces do not count.

/// The tags CommonMark and GFM generate; any other tag in the expected HTML is raw HTML the
/// document held, which a terminal shows as written.
const GENERATED: &[&str] = &[
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "em",
    "strong",
    "code",
    "pre",
    "a",
    "img",
    "ul",
    "ol",
    "li",
    "blockquote",
    "hr",
    "br",
    "del",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "input",
];

/// A quote's mark in the view, as the renderer draws it.
const QUOTE: &str = "│ ";

/// A list being read: its next item's marker.
enum List {
    Bullet,
    Ordered(u64),
}

/// The view of an HTML rendering.
/// `markdown`: the document; a tag written in it as it is in `html` is its own raw HTML.
pub(super) fn from_html(html: &str, markdown: &str) -> Vec<String> {
    let mut view = Html::default();
    let mut rest = html;
    while !rest.is_empty() {
        let tag = tag_at(rest).filter(|(_, len)| !markdown.contains(&rest[..*len]));
        match tag {
            Some((tag, len)) => {
                view.tag(&tag, &rest[..len]);
                rest = &rest[len..];
            }
            None => {
                let first = rest.chars().next().map_or(1, char::len_utf8);
                let end = rest[first..].find('<').map_or(rest.len(), |at| at + first);
                view.text(&unescape(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    view.end_line();
    normalise(&view.lines.join("\n"))
}

/// A generated tag at the start of `text`: its name (`/name` for an end tag) and attributes
/// as written, and its length.
fn tag_at(text: &str) -> Option<(Tag, usize)> {
    let inner = text.strip_prefix('<')?;
    let len = inner.find('>')? + 2;
    let body = inner[..len - 2].trim_end_matches('/').trim();
    let (name, attrs) = body.split_once(' ').unwrap_or((body, ""));
    let bare = name.strip_prefix('/').unwrap_or(name);
    GENERATED.contains(&bare).then(|| {
        let tag = Tag {
            name: name.to_string(),
            attrs: attrs.to_string(),
        };
        (tag, len)
    })
}

struct Tag {
    name: String,
    attrs: String,
}

impl Tag {
    /// The value of attribute `name` (written `name="…"`), unescaped.
    fn attr(&self, name: &str) -> Option<String> {
        let from = self.attrs.find(&format!("{name}=\""))? + name.len() + 2;
        let len = self.attrs[from..].find('"')?;
        Some(unescape(&self.attrs[from..from + len]))
    }
}

/// The references the spec's HTML writer makes (`&amp;`, `&lt;`, `&gt;`, `&quot;`), decoded.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[derive(Default)]
struct Html {
    lines: Vec<String>,
    line: String,
    /// The quotes and list items the text is in, outermost first: a quote's bars start each
    /// line, an item's marker its first line only (`None` after it).
    containers: Vec<Option<String>>,
    lists: Vec<List>,
    pre: bool,
    /// A `<pre>` was the last tag: a `<code>` now opens a code block.
    after_pre: bool,
    /// Inside a table's row: its cells are one line.
    row: bool,
}

impl Html {
    fn end_line(&mut self) {
        if !self.line.trim().is_empty() {
            let line = std::mem::take(&mut self.line);
            self.lines.push(line);
        }
        self.line.clear();
    }

    /// What starts a new line: the bars and the markers not shown yet, in their nesting.
    fn prefix(&mut self) -> String {
        let mut prefix = String::new();
        for container in &mut self.containers {
            match container.as_deref() {
                Some(QUOTE) => prefix.push_str(QUOTE),
                Some(_) => prefix.push_str(&container.take().unwrap_or_default()),
                None => {}
            }
        }
        prefix
    }

    /// Appends to the current line, starting it with its bars and marker when new.
    fn put(&mut self, text: &str) {
        if self.line.is_empty() {
            self.line = self.prefix();
        }
        self.line.push_str(text);
    }

    fn text(&mut self, text: &str) {
        let parts: Vec<&str> = text.split('\n').collect();
        for (n, part) in parts.iter().enumerate() {
            if self.row {
                // Between a row's cells: not a line break.
                if !part.trim().is_empty() {
                    self.put(part);
                }
                continue;
            }
            if n > 0 {
                self.end_line();
            }
            if self.pre {
                if !part.is_empty() || n + 1 < parts.len() {
                    self.put("|");
                    self.put(part);
                }
                continue;
            }
            if !part.trim().is_empty() || !self.line.is_empty() {
                self.put(part);
            }
        }
    }

    fn whole_line(&mut self, text: &str) {
        self.end_line();
        self.put(text);
        self.end_line();
    }

    fn tag(&mut self, tag: &Tag, written: &str) {
        let after_pre = std::mem::take(&mut self.after_pre);
        if after_pre && tag.name != "code" {
            self.whole_line("<pre>");
            self.pre = true;
        }
        match tag.name.as_str() {
            "p" | "/p" | "br" | "table" | "/table" | "thead" | "/thead" | "tbody" | "/tbody" => {
                self.end_line()
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => self.end_line(),
            end @ ("/h1" | "/h2" | "/h3" | "/h4" | "/h5" | "/h6") => {
                self.whole_line(&format!("<{end}>"))
            }
            "hr" => self.whole_line("<hr>"),
            "pre" => {
                self.end_line();
                self.after_pre = true;
            }
            "code" if after_pre => self.code_open(tag),
            "/code" if self.pre => {}
            "/pre" => {
                self.pre = false;
                self.whole_line("</pre>");
            }
            "blockquote" | "/blockquote" => {
                self.end_line();
                match tag.name.starts_with('/') {
                    true => self.containers.pop(),
                    false => {
                        self.containers.push(Some(QUOTE.to_string()));
                        None
                    }
                };
            }
            "ul" | "ol" => {
                self.end_line();
                let start = tag.attr("start").and_then(|s| s.parse().ok());
                self.lists.push(match tag.name.as_str() {
                    "ul" => List::Bullet,
                    _ => List::Ordered(start.unwrap_or(1)),
                });
            }
            "/ul" | "/ol" => {
                self.end_line();
                self.lists.pop();
            }
            "li" => self.item(),
            "/li" => self.end_item(),
            "tr" => {
                self.end_line();
                self.row = true;
            }
            "/tr" => {
                self.row = false;
                self.put("");
                self.end_line();
            }
            "th" | "td" => {
                let first = self.line.is_empty();
                self.put(if first { "│ " } else { " " });
            }
            "/th" | "/td" => self.put(" │"),
            "img" => {
                let alt = tag.attr("alt").unwrap_or_default();
                self.put(&format!("<img>{alt}</img>"));
            }
            "input" => self.put(if tag.attrs.contains("checked") {
                "[x]"
            } else {
                "[ ]"
            }),
            "a" | "/a" | "em" | "/em" | "strong" | "/strong" | "code" | "/code" | "del"
            | "/del" => self.put(&format!("<{}>", tag.name)),
            _ => self.put(written),
        }
    }

    /// `<code>` right after `<pre>` opens a code block (a span elsewhere).
    fn code_open(&mut self, tag: &Tag) {
        let language = tag
            .attr("class")
            .and_then(|class| class.strip_prefix("language-").map(str::to_string));
        self.pre = true;
        self.whole_line(&match language {
            Some(language) => format!("<pre {language}>"),
            None => "<pre>".to_string(),
        });
    }

    fn item(&mut self) {
        self.end_line();
        let marker = match self.lists.last_mut() {
            Some(List::Ordered(n)) => {
                *n += 1;
                format!("{}. ", *n - 1)
            }
            _ => "• ".to_string(),
        };
        self.containers.push(Some(marker));
    }

    fn end_item(&mut self) {
        self.end_line();
        if self.containers.last().is_some_and(Option::is_some) {
            let line = self.prefix();
            self.lines.push(line.trim_end().to_string());
        }
        self.containers.pop();
    }
}

/// Lines as compared: blank ones and table borders dropped, leading indentation dropped, in
/// prose runs of spaces made one and the ends trimmed; a code line (`|…`) keeps its text as
/// written but for trailing spaces.
pub(super) fn normalise(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.split('\n') {
        let line = line.trim_start();
        let (bars, rest) = split_bars(line);
        if rest.chars().all(|c| "┌┬┐├┼┤└┴┘─ ".contains(c)) && !rest.is_empty() {
            continue;
        }
        let rest = ordered_marker(rest.trim_start());
        let rest = match rest.starts_with('|') {
            true => rest.trim_end().to_string(),
            false => rest.split_whitespace().collect::<Vec<_>>().join(" "),
        };
        if rest.is_empty() && bars == 0 {
            continue;
        }
        let mut shown = "│ ".repeat(bars);
        shown.push_str(&rest);
        lines.push(shown.trim_end().to_string());
    }
    lines.retain(|line| !line.chars().all(|c| c == '│' || c == ' '));
    lines
}

/// An ordered item's `3)` made `3.`: the delimiter is not compared (HTML has none).
fn ordered_marker(line: &str) -> String {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    match (digits, line.as_bytes().get(digits)) {
        (1.., Some(b')')) => format!("{}.{}", &line[..digits], &line[digits + 1..]),
        _ => line.to_string(),
    }
}

/// The quote bars at the start of `line` (with the spaces around them), and the rest.
fn split_bars(line: &str) -> (usize, &str) {
    let (mut bars, mut rest) = (0, line);
    while let Some(after) = rest.strip_prefix('│') {
        bars += 1;
        rest = after.trim_start_matches(' ');
    }
    (bars, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_as_lines() {
        let cases: &[(&str, &[&str])] = &[
            ("<p>a <em>b</em>\nc</p>\n", &["a <em>b</em>", "c"]),
            ("<h2>T &amp; U</h2>\n", &["T & U", "</h2>"]),
            (
                "<pre><code class=\"language-rs\">  x\n\ny\n</code></pre>\n",
                &["<pre rs>", "|  x", "|", "|y", "</pre>"],
            ),
            (
                "<blockquote>\n<ul>\n<li>a</li>\n<li></li>\n</ul>\n</blockquote>\n",
                &["│ • a", "│ •"],
            ),
            (
                "<ol start=\"3\">\n<li>a</li>\n<li>b</li>\n</ol>\n",
                &["3. a", "4. b"],
            ),
            (
                "<p><a href=\"u\">x</a> <img src=\"i\" alt=\"y\" /></p>\n",
                &["<a>x</a> <img>y</img>"],
            ),
            ("<div>*raw*</div>\n<hr />\n", &["<div>*raw*</div>", "<hr>"]),
            (
                "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n",
                &["│ a │"],
            ),
        ];
        for (html, lines) in cases {
            assert_eq!(from_html(html, ""), *lines, "{html:?}");
        }
    }

    #[test]
    fn a_tag_the_document_wrote_is_text() {
        let html = "<p><a href=\"u\">x</a></p>\n";
        assert_eq!(from_html(html, "[x](u)"), ["<a>x</a>"]);
        assert_eq!(
            from_html(html, "<a href=\"u\">x</a>"),
            ["<a href=\"u\">x</a>"]
        );
    }

    #[test]
    fn a_code_line_keeps_its_spaces_and_prose_does_not() {
        assert_eq!(
            normalise("  a   b  \n\n  |  c  d  \n┌──┐\n│ │ x"),
            ["a b", "|  c  d", "│ │ x"]
        );
    }
}
