//! HTML as text, written here rather than taken from a crate: a page to read (browse_web,
//! scrape_page), a fragment of a page (Stack Exchange bodies) with its code blocks kept, a
//! snippet as one line; and the tokenizer the search tools read result pages with.

pub(crate) mod charset;
mod elements;
mod entities;
mod entity_table;
mod lex;
mod open;
mod prescan;
mod render;
mod tokenize;
mod url;

pub(crate) use charset::detect as detect_charset;
pub(crate) use entities::reference as character_reference;
pub(crate) use render::{Links, Options, Rendered, render};
pub(crate) use tokenize::{Tag, Token, Tokenizer};
pub(crate) use url::resolve;

/// A fetched page as text: its bytes decoded in the charset it declares, rendered with its
/// links as numbered footnotes resolved against `url`.
pub(crate) fn page(bytes: &[u8], content_type: Option<&str>, url: &str) -> Rendered {
    page_text(&charset::decode(bytes, content_type), url)
}

/// A page already decoded (a browser's DOM) as text: its `<meta>` charset is not applied
/// again.
pub(crate) fn page_text(html: &str, url: &str) -> Rendered {
    render(
        html,
        &Options {
            base: Some(url),
            links: Links::Footnotes,
            page: true,
        },
    )
}

/// Bytes as text in the charset they declare (an HTML page's `<meta>` included).
pub(crate) fn decode(bytes: &[u8], content_type: Option<&str>) -> String {
    charset::decode(bytes, content_type)
}

/// A fragment of HTML (a post's body) as text: code blocks fenced, inline code in
/// backticks, links written out after their text.
pub(crate) fn fragment(html: &str) -> String {
    render(
        html,
        &Options {
            base: None,
            links: Links::Inline,
            page: false,
        },
    )
    .text
}

/// A bit of HTML (a title, a snippet) as one line of text: tags gone, references decoded,
/// whitespace collapsed.
pub(crate) fn line(html: &str) -> String {
    let text = render(
        html,
        &Options {
            base: None,
            links: Links::Drop,
            page: false,
        },
    )
    .text;
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A page's text with its links listed after it, as the model reads it.
pub(crate) fn with_links(rendered: &Rendered) -> String {
    let mut text = rendered.text.clone();
    if !rendered.links.is_empty() {
        text.push_str("\n\nLinks:");
        for (i, link) in rendered.links.iter().enumerate() {
            text.push_str(&format!("\n[{}] {link}", i + 1));
        }
    }
    text
}

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod tests;
