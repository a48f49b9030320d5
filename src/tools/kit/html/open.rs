//! The elements open at a point of a page, as far as what is shown depends on them: a small
//! model of the WHATWG tree builder's stack of open elements (scopes, the end tags that close
//! an element and those that close it implicitly, SVG and MathML left by the HTML tags that
//! break out of them, a `select` closed by another or by a table's parts), so that an element
//! whose content is hidden ends where a browser ends it and never swallows the rest of a page.
//! Where text goes in a table (foster parenting) and the adoption agency are not modelled.

use std::collections::HashMap;

use super::elements::{BREAKOUT, CLOSE_IN_SCOPE, CLOSE_P, FORMATTING, SPECIAL, TABLE_PARTS, VOID};
use super::tokenize::Tag;

/// How far down the stack an end tag looks for its element: a page nested deeper than this
/// (a hostile one) costs linear time, not quadratic.
const MAX_SEARCH: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    Html,
    Svg,
    MathMl,
}

struct Element {
    name: String,
    ns: Ns,
    hidden: bool,
}

/// What became of a start tag.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// An HTML element was opened: its content may be read as text (`title`, `script`…).
    Html,
    /// An SVG or MathML element was opened, or the tag opened nothing (void, ignored).
    Other,
}

#[derive(Default)]
pub(crate) struct Open {
    stack: Vec<Element>,
    /// How many of each HTML element are open, so an end tag of one that is not costs nothing.
    counts: HashMap<String, usize>,
    hidden: usize,
}

/// Kinds of scope: the elements an "in scope" search stops at, besides the integration points.
#[derive(Clone, Copy)]
enum Scope {
    Default,
    Button,
    ListItem,
    Table,
}

impl Element {
    fn is(&self, name: &str) -> bool {
        self.ns == Ns::Html && self.name == name
    }

    /// Where SVG or MathML content takes HTML start tags again.
    fn integration_point(&self) -> bool {
        match self.ns {
            Ns::Svg => matches!(self.name.as_str(), "foreignobject" | "desc" | "title"),
            Ns::MathMl => {
                matches!(
                    self.name.as_str(),
                    "mi" | "mo" | "mn" | "ms" | "mtext" | "annotation-xml"
                )
            }
            Ns::Html => false,
        }
    }

    fn bounds(&self, scope: Scope) -> bool {
        if self.ns != Ns::Html {
            return !matches!(scope, Scope::Table) && self.integration_point();
        }
        let name = self.name.as_str();
        match scope {
            Scope::Table => matches!(name, "html" | "table" | "template"),
            _ => {
                matches!(
                    name,
                    "applet"
                        | "caption"
                        | "html"
                        | "table"
                        | "td"
                        | "th"
                        | "marquee"
                        | "object"
                        | "template"
                ) || (matches!(scope, Scope::Button) && name == "button")
                    || (matches!(scope, Scope::ListItem) && matches!(name, "ol" | "ul"))
            }
        }
    }
}

impl Open {
    /// Whether the content here is hidden (an element open here hides its content).
    pub(crate) fn hidden(&self) -> bool {
        self.hidden > 0
    }

    /// Whether the current element is SVG or MathML (where `<![CDATA[` is a CDATA section).
    pub(crate) fn in_foreign(&self) -> bool {
        self.stack.last().is_some_and(|e| e.ns != Ns::Html)
    }

    /// A start tag; `hide` says whether the element, if opened, hides its content.
    pub(crate) fn start(&mut self, tag: &Tag, hide: bool) -> Inserted {
        let name = tag.name.as_str();
        if let Some(current) = self.stack.last() {
            if current.ns != Ns::Html && !current.integration_point() {
                if !breaks_out(tag) {
                    let ns = current.ns;
                    if !tag.self_closing {
                        self.push(name, ns, hide);
                    }
                    return Inserted::Other;
                }
                while self
                    .stack
                    .last()
                    .is_some_and(|e| e.ns != Ns::Html && !e.integration_point())
                {
                    self.pop();
                }
            }
        }
        self.start_html(tag, hide)
    }

    fn start_html(&mut self, tag: &Tag, hide: bool) -> Inserted {
        let name = tag.name.as_str();
        match name {
            "html" | "head" | "body" => return Inserted::Other,
            "svg" | "math" => {
                if !tag.self_closing {
                    let ns = if name == "svg" { Ns::Svg } else { Ns::MathMl };
                    self.push(name, ns, true);
                }
                return Inserted::Other;
            }
            "select" if self.in_scope("select", Scope::Default) => {
                self.pop_until("select");
                return Inserted::Other;
            }
            "input" | "keygen" | "textarea" if self.in_scope("select", Scope::Default) => {
                self.pop_until("select");
            }
            _ if TABLE_PARTS.contains(&name) && self.in_scope("select", Scope::Table) => {
                self.pop_until("select");
            }
            _ => {}
        }
        self.close_implied(name);
        if VOID.contains(&name) {
            return Inserted::Other;
        }
        self.push(name, Ns::Html, hide);
        Inserted::Html
    }

    /// What a start tag closes before it opens: a `p`, a list item, a heading, a button, a
    /// table's cell or row, an option.
    fn close_implied(&mut self, name: &str) {
        if CLOSE_P.contains(&name) || matches!(name, "li" | "dd" | "dt") {
            self.close_p();
        }
        match name {
            "li" => self.close_item(&["li"]),
            "dd" | "dt" => self.close_item(&["dd", "dt"]),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if self
                    .stack
                    .last()
                    .is_some_and(|e| e.ns == Ns::Html && is_heading(&e.name)) =>
            {
                self.pop();
            }
            "button" if self.in_scope("button", Scope::Default) => self.pop_until("button"),
            "option" | "optgroup" if self.stack.last().is_some_and(|e| e.is("option")) => {
                self.pop()
            }
            "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" | "caption" | "colgroup" => {
                for part in ["td", "th", "tr", "tbody", "thead", "tfoot"] {
                    if part_closed_by(part, name) && self.in_scope(part, Scope::Table) {
                        self.pop_until(part);
                    }
                }
            }
            _ => {}
        }
    }

    fn close_p(&mut self) {
        if self.in_scope("p", Scope::Button) {
            self.pop_until("p");
        }
    }

    /// The list item loop: an open `li` (or `dd`/`dt`) above any special element but
    /// `address`, `div` and `p` is closed.
    fn close_item(&mut self, names: &[&str]) {
        let found = self.stack.iter().rev().take(MAX_SEARCH).find_map(|e| {
            if e.ns == Ns::Html && names.contains(&e.name.as_str()) {
                Some(Some(e.name.clone()))
            } else if is_special(e) && !matches!(e.name.as_str(), "address" | "div" | "p") {
                Some(None)
            } else {
                None
            }
        });
        if let Some(Some(name)) = found {
            self.pop_until(&name);
        }
    }

    /// An end tag.
    pub(crate) fn end(&mut self, name: &str) {
        if self.in_foreign() {
            if matches!(name, "p" | "br") {
                while self
                    .stack
                    .last()
                    .is_some_and(|e| e.ns != Ns::Html && !e.integration_point())
                {
                    self.pop();
                }
            } else {
                // The foreign element of that name, up to the first HTML element below.
                let mut depth = self.stack.len();
                let floor = depth.saturating_sub(MAX_SEARCH);
                while depth > floor && self.stack[depth - 1].ns != Ns::Html {
                    if self.stack[depth - 1].name.eq_ignore_ascii_case(name) {
                        self.stack_truncate(depth - 1);
                        return;
                    }
                    depth -= 1;
                }
            }
        }
        self.end_html(name);
    }

    fn end_html(&mut self, name: &str) {
        match name {
            "html" | "head" | "body" | "br" => {}
            "p" => self.close_p(),
            "li" => {
                if self.in_scope("li", Scope::ListItem) {
                    self.pop_until("li");
                }
            }
            "table" | "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" | "caption" | "colgroup" => {
                if self.in_scope(name, Scope::Table) {
                    self.pop_until(name);
                }
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                if ["h1", "h2", "h3", "h4", "h5", "h6"]
                    .iter()
                    .any(|h| self.in_scope(h, Scope::Default))
                {
                    while let Some(e) = self.stack.last() {
                        let heading = e.ns == Ns::Html && is_heading(&e.name);
                        self.pop();
                        if heading {
                            break;
                        }
                    }
                }
            }
            "template" => self.pop_until("template"),
            _ if FORMATTING.contains(&name) => self.end_formatting(name),
            // The block and formatting elements close when open in scope (the adoption
            // agency's moves of formatting elements change no text's order).
            _ if CLOSE_IN_SCOPE.contains(&name) => {
                if self.in_scope(name, Scope::Default) {
                    self.pop_until(name);
                }
            }
            _ => self.end_other(name),
        }
    }

    /// The end of a formatting element (`b`, `a`…) open in scope: the adoption agency leaves
    /// a special element opened inside it open (`<b><button>` stays in the button), so only
    /// the formatting element goes then.
    fn end_formatting(&mut self, name: &str) {
        if !self.in_scope(name, Scope::Default) {
            return;
        }
        let Some(at) = self.stack.iter().rposition(|e| e.is(name)) else {
            return;
        };
        if self.stack[at + 1..].iter().any(is_special) {
            let e = self.stack.remove(at);
            self.hidden -= usize::from(e.hidden);
            if let Some(count) = self.counts.get_mut(&e.name) {
                *count -= 1;
            }
        } else {
            self.stack_truncate(at);
        }
    }

    /// "Any other end tag": the nearest open element of the name, unless a special element is
    /// above it.
    fn end_other(&mut self, name: &str) {
        if self.counts.get(name).is_none_or(|n| *n == 0) {
            return;
        }
        for (i, e) in self.stack.iter().enumerate().rev().take(MAX_SEARCH) {
            if e.is(name) {
                self.stack_truncate(i);
                return;
            }
            if is_special(e) {
                return;
            }
        }
    }

    fn in_scope(&self, name: &str, scope: Scope) -> bool {
        if self.counts.get(name).is_none_or(|n| *n == 0) {
            return false;
        }
        for e in self.stack.iter().rev().take(MAX_SEARCH) {
            if e.is(name) {
                return true;
            }
            if e.bounds(scope) {
                return false;
            }
        }
        false
    }

    fn push(&mut self, name: &str, ns: Ns, hidden: bool) {
        if ns == Ns::Html {
            *self.counts.entry(name.to_string()).or_default() += 1;
        }
        self.hidden += usize::from(hidden);
        self.stack.push(Element {
            name: name.to_string(),
            ns,
            hidden,
        });
    }

    fn pop(&mut self) {
        if let Some(e) = self.stack.pop() {
            self.hidden -= usize::from(e.hidden);
            if e.ns == Ns::Html {
                if let Some(count) = self.counts.get_mut(&e.name) {
                    *count -= 1;
                }
            }
        }
    }

    /// Pops up to and including the nearest open HTML element `name`.
    fn pop_until(&mut self, name: &str) {
        if let Some(i) = self.stack.iter().rposition(|e| e.is(name)) {
            self.stack_truncate(i);
        }
    }

    fn stack_truncate(&mut self, len: usize) {
        while self.stack.len() > len {
            self.pop();
        }
    }
}

fn breaks_out(tag: &Tag) -> bool {
    BREAKOUT.contains(&tag.name.as_str())
        || (tag.name == "font"
            && ["color", "face", "size"]
                .iter()
                .any(|a| tag.attr(a).is_some()))
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

fn is_special(e: &Element) -> bool {
    match e.ns {
        Ns::Html => SPECIAL.contains(&e.name.as_str()),
        _ => e.integration_point(),
    }
}

/// Whether an open `part` of a table is closed by the start of `name`.
fn part_closed_by(part: &str, name: &str) -> bool {
    match part {
        "td" | "th" => matches!(
            name,
            "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" | "caption" | "colgroup"
        ),
        "tr" => matches!(
            name,
            "tr" | "tbody" | "thead" | "tfoot" | "caption" | "colgroup"
        ),
        _ => matches!(name, "tbody" | "thead" | "tfoot" | "caption" | "colgroup"),
    }
}
