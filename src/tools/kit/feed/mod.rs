//! Feeds read as data, for read_rss and search_arxiv: Atom (1.0 and 0.3) and RSS (2.0, 1.0 and
//! 0.90) entries from one namespace-aware pull parser (quick-xml), with the fallbacks feedparser
//! reads (Dublin Core, iTunes, a permalink guid), their text made readable (CDATA padding
//! trimmed, HTML-typed text reduced to words, entities decoded, base64 decoded) and their dates
//! read for sorting (`text`: entities, the tag stripper and bytes to text; `date`: the formats).

#[cfg(test)]
mod conformance;
mod date;
mod text;

pub(crate) use date::timestamp;
pub(crate) use text::{collapse, decode, decode_entities, html_text};
use text::{xml_reference, xml_unescape};

use quick_xml::NsReader;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;

pub(crate) const ATOM: &str = "http://www.w3.org/2005/Atom";
/// Atom 0.3, read as Atom (its `issued`, `modified`, `created` and `mode` are its own).
const ATOM03: &str = "http://purl.org/atom/ns#";
const RSS1: &str = "http://purl.org/rss/1.0/";
const RSS090: &str = "http://my.netscape.com/rdf/simple/0.9/";
const DC: &str = "http://purl.org/dc/elements/1.1/";
const DCTERMS: &str = "http://purl.org/dc/terms/";
const ITUNES: &str = "http://www.itunes.com/DTDs/Podcast-1.0.dtd";
const MEDIA: &str = "http://search.yahoo.com/mrss/";
const XHTML: &str = "http://www.w3.org/1999/xhtml";
const CONTENT: &str = "http://purl.org/rss/1.0/modules/content/";
const OPENSEARCH: &str = "http://a9.com/-/spec/opensearch/1.1/";

/// A feed: its title, the total a search feed reports, and its entries in document order.
#[derive(Debug, Default)]
pub(crate) struct Feed {
    pub(crate) title: String,
    /// `opensearch:totalResults`, in a search feed (arXiv).
    pub(crate) total_results: Option<u64>,
    pub(crate) entries: Vec<Entry>,
}

/// An Atom entry or an RSS item, its text readable.
#[derive(Debug, Default)]
pub(crate) struct Entry {
    pub(crate) id: String,
    pub(crate) title: String,
    /// The entry's page: Atom's alternate link, RSS's `<link>`.
    pub(crate) link: String,
    pub(crate) links: Vec<Link>,
    pub(crate) authors: Vec<String>,
    pub(crate) summary: String,
    pub(crate) content: String,
    /// As the feed wrote it (RFC 3339 in Atom, RFC 822 in RSS); see [`timestamp`].
    pub(crate) published: String,
    pub(crate) updated: String,
    pub(crate) created: String,
    pub(crate) categories: Vec<String>,
    /// Elements of other vocabularies (arXiv's `doi`, `comment`, `primary_category`):
    /// namespace, name, and the text or else the `term` attribute.
    pub(crate) extensions: Vec<(String, String, String)>,
}

/// An Atom `<link>`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Link {
    pub(crate) href: String,
    pub(crate) rel: String,
    pub(crate) title: String,
    pub(crate) media_type: String,
}

impl Entry {
    /// The first extension element `name` of namespace `ns`.
    pub(crate) fn extension(&self, ns: &str, name: &str) -> Option<&str> {
        self.extensions
            .iter()
            .find(|(n, e, _)| n == ns && e == name)
            .map(|(_, _, value)| value.as_str())
            .filter(|value| !value.is_empty())
    }

    /// When it was published (else updated, else created), in seconds since 1970.
    pub(crate) fn date(&self) -> Option<i64> {
        [&self.published, &self.updated, &self.created]
            .into_iter()
            .find_map(|date| timestamp(date))
    }
}

/// An element being read: its name, attributes and the text gathered so far.
struct Frame {
    ns: String,
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    /// Its children's text belongs to it (a field of an entry or the feed's title, whose
    /// markup may be written as elements: Atom's `type="xhtml"`, careless RSS).
    collects: bool,
    /// It had child elements: their text is already text, not HTML to read.
    markup: bool,
}

impl Frame {
    fn attr(&self, name: &str) -> &str {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    fn is(&self, ns: &str, name: &str) -> bool {
        self.ns == ns && self.name == name
    }

    /// In RSS's vocabulary: no namespace (2.0) or RSS 1.0's.
    fn is_rss(&self, name: &str) -> bool {
        (self.ns.is_empty() || self.ns == RSS1) && self.name == name
    }
}

/// The parser's state: the open elements and the entry being read.
#[derive(Default)]
struct Reading {
    stack: Vec<Frame>,
    feed: Feed,
    /// The entry open, and the depth of its element.
    entry: Option<(usize, Entry)>,
    /// The root element has ended.
    ended: bool,
    /// Elements open below [`MAX_DEPTH`], not kept: their text goes to the deepest kept one.
    beyond: usize,
    /// The root's namespace when it is not a known one (`<feed xmlns="…newformat#">`, RSS 2.0
    /// in a namespace), and the vocabulary it stands for: Atom, or RSS's none.
    alias: Option<(String, &'static str)>,
}

/// How deep elements are kept: a real feed nests a dozen; a hostile one 60,000 levels of
/// xhtml, whose text would be copied once per level.
const MAX_DEPTH: usize = 64;
/// Authors and categories kept per entry (a real entry has a few; 100,000 would be listed
/// in the result).
const MAX_NAMES: usize = 50;

/// Reads an Atom or RSS document.
pub(crate) fn parse(xml: &str) -> Result<Feed, String> {
    let mut reader = NsReader::from_str(xml);
    reader.config_mut().allow_dangling_amp = true;
    let mut reading = Reading::default();
    loop {
        let (ns, event) = match reader.read_resolved_event() {
            Ok((ns, event)) => (namespace(ns), event),
            Err(error) => {
                return Err(format!(
                    "it is not well-formed XML ({error} at byte {})",
                    reader.error_position()
                ));
            }
        };
        match event {
            Event::Start(start) => reading.open(frame(ns, &start)),
            Event::Empty(start) => {
                reading.open(frame(ns, &start));
                reading.close();
            }
            Event::End(_) => reading.close(),
            Event::Text(text) => reading.push_text(&text),
            Event::CData(data) => reading.push_text(&data),
            Event::GeneralRef(reference) => reading.push_text(&xml_reference(&reference)),
            Event::Eof if !reading.ended && !reading.stack.is_empty() => {
                return Err("it ends before its elements do (the answer was cut off)".into());
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if reading.feed.title.is_empty() && reading.feed.entries.is_empty() {
        let root = reading.stack.first().map(|f| f.name.as_str()).unwrap_or("");
        if !matches!(root, "rss" | "feed" | "RDF") {
            return Err("it is neither an RSS nor an Atom feed".into());
        }
    }
    Ok(reading.feed)
}

fn namespace(resolved: ResolveResult<'_>) -> String {
    match resolved {
        ResolveResult::Bound(ns) => ns.0.to_string(),
        _ => String::new(),
    }
}

fn frame(ns: String, start: &BytesStart<'_>) -> Frame {
    let attrs = start
        .attributes()
        .flatten()
        .map(|a| {
            let name = a.key.local_name().into_inner().to_string();
            (name, xml_unescape(&a.value))
        })
        .collect();
    Frame {
        ns,
        name: start.local_name().into_inner().to_string(),
        attrs,
        text: String::new(),
        collects: false,
        markup: false,
    }
}

impl Reading {
    fn open(&mut self, mut frame: Frame) {
        if self.stack.len() >= MAX_DEPTH && !self.ended {
            self.beyond += 1;
            return;
        }
        self.vocabulary(&mut frame);
        let is_entry = frame.is(ATOM, "entry") || frame.is_rss("item");
        let in_entry = self
            .entry
            .as_ref()
            .is_some_and(|(at, _)| at + 1 == self.stack.len());
        frame.collects = !is_entry
            && self.stack.last().is_some_and(|parent| {
                let head = parent.is(ATOM, "feed") || parent.is_rss("channel");
                parent.collects || in_entry || (head && frame.name == "title")
            });
        if self.entry.is_none() && is_entry {
            self.entry = Some((self.stack.len(), Entry::default()));
        }
        self.stack.push(frame);
    }

    /// Reads the frame's namespace as the vocabulary it belongs to: Atom 0.3 as Atom, RSS
    /// 0.90 as RSS 1.0, an unknown root namespace as what the root's name says; RSS's names
    /// in any case (`<TiTlE>`).
    fn vocabulary(&mut self, frame: &mut Frame) {
        if self.stack.is_empty() && !matches!(frame.ns.as_str(), "" | ATOM | ATOM03 | RSS1) {
            match frame.name.as_str() {
                "feed" => self.alias = Some((frame.ns.clone(), ATOM)),
                "rss" | "channel" => self.alias = Some((frame.ns.clone(), "")),
                _ => {}
            }
        }
        match &self.alias {
            Some((from, to)) if *from == frame.ns => frame.ns = to.to_string(),
            _ if frame.ns == ATOM03 => frame.ns = ATOM.to_string(),
            _ if frame.ns == RSS090 => frame.ns = RSS1.to_string(),
            _ => {}
        }
        if frame.ns.is_empty() || frame.ns == RSS1 {
            frame.name.make_ascii_lowercase();
        }
    }

    fn push_text(&mut self, text: &str) {
        if let Some(top) = self.stack.last_mut() {
            top.text.push_str(text);
        }
    }

    fn close(&mut self) {
        if self.beyond > 0 {
            self.beyond -= 1;
            return;
        }
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let depth = self.stack.len();
        if let Some(parent) = self.stack.last_mut().filter(|parent| parent.collects) {
            // A block's text on a line of its own, as the tag stripper would put it.
            let block = text::BLOCKS.contains(&frame.name.as_str());
            if block {
                parent.text.push('\n');
            }
            parent.text.push_str(&frame.text);
            if block {
                parent.text.push('\n');
            }
            parent.markup = true;
        }
        match &mut self.entry {
            Some((at, _)) if depth == *at => {
                if let Some((_, entry)) = self.entry.take() {
                    self.feed.entries.push(entry);
                }
            }
            Some((at, entry)) if depth == *at + 1 => entry_field(entry, &frame),
            Some((at, entry)) if depth == *at + 2 => {
                let in_author = self.stack.last().is_some_and(|p| p.is(ATOM, "author"));
                if in_author && frame.is(ATOM, "name") {
                    add_author(entry, &frame.text);
                }
            }
            Some(_) => {}
            None => self.feed_field(&frame),
        }
        if depth == 0 {
            self.ended = true;
            // The root ends: keep it, so parse() can name what the document was.
            self.stack.push(Frame {
                text: String::new(),
                ..frame
            });
        }
    }

    fn feed_field(&mut self, frame: &Frame) {
        let parent = self.stack.last();
        let in_head = parent.is_some_and(|p| p.is(ATOM, "feed") || p.is_rss("channel"));
        if in_head && (frame.is(ATOM, "title") || frame.is_rss("title")) {
            self.feed.title = text_of(frame, Kind::Plain);
        } else if in_head && frame.is(DC, "title") && self.feed.title.is_empty() {
            self.feed.title = text_of(frame, Kind::Entities);
        } else if frame.is(OPENSEARCH, "totalResults") {
            self.feed.total_results = frame.text.trim().parse().ok();
        }
    }
}

/// How a text element is written.
#[derive(Clone, Copy)]
enum Kind {
    /// Plain text (Atom's default).
    Plain,
    /// Text that may hold HTML entities (an RSS title).
    Entities,
    /// HTML (Atom `type="html"`, an RSS description).
    Html,
}

fn text_of(frame: &Frame, default: Kind) -> String {
    let media_type = frame.attr("type");
    let kind = match media_type {
        _ if frame.markup => Kind::Plain,
        "html" | "text/html" => Kind::Html,
        "text" | "xhtml" | "text/plain" | "application/xhtml+xml" => Kind::Plain,
        _ => default,
    };
    // Atom 0.3's `mode="base64"`, and Atom 1.0's text of a type that is neither text nor XML.
    let binary = frame.attr("mode") == "base64"
        || (media_type.contains('/')
            && !media_type.starts_with("text/")
            && !media_type.ends_with("xml"));
    let decoded = binary.then(|| from_base64(&frame.text)).flatten();
    let text = decoded.as_deref().unwrap_or(&frame.text);
    match kind {
        Kind::Plain => collapse(text),
        Kind::Entities => collapse(&decode_entities(text)),
        Kind::Html => html_text(text),
    }
}

/// Base64 text as the UTF-8 text it encodes; `None` when it is not that.
fn from_base64(text: &str) -> Option<String> {
    use base64::Engine;
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn entry_field(entry: &mut Entry, frame: &Frame) {
    let rss = frame.ns.is_empty() || frame.ns == RSS1;
    let atom = frame.ns == ATOM;
    let text = || text_of(frame, if rss { Kind::Entities } else { Kind::Plain });
    let html = || text_of(frame, if rss { Kind::Html } else { Kind::Plain });
    let date = || collapse(&frame.text);
    match (frame.ns.as_str(), frame.name.as_str()) {
        (_, "title") if atom || rss => entry.title = text(),
        (DC | MEDIA, "title") => or_else(&mut entry.title, text_of(frame, Kind::Entities)),
        (ATOM, "link") => add_link(entry, frame),
        (_, "link") if rss => {
            // It wins over a permalink guid read before it; an empty one does not.
            let link = collapse(&frame.text);
            if !link.is_empty() {
                entry.link = link;
            }
        }
        (ATOM, "id") => entry.id = collapse(&frame.text),
        (_, "guid") if rss => read_guid(entry, frame),
        (ATOM, "summary") => entry.summary = html(),
        // The first of RSS's description and a stray summary is the summary, the other the
        // content (as feedparser reads them).
        (_, "description" | "summary") if rss => match entry.summary.is_empty() {
            true => entry.summary = html(),
            false => or_else(&mut entry.content, html()),
        },
        (_, "fullitem") if rss => entry.content = html(),
        (XHTML, "body") => entry.content = text_of(frame, Kind::Plain),
        (DC, "description") | (ITUNES, "summary") => {
            or_else(&mut entry.summary, text_of(frame, Kind::Html))
        }
        (ATOM, "content") => entry.content = html(),
        (CONTENT, "encoded") => entry.content = html_text(&frame.text),
        (ATOM, "published" | "issued") | (DCTERMS, "issued") => entry.published = date(),
        (_, "pubdate") if rss => entry.published = date(),
        (ATOM, "updated" | "modified") | (DC, "date") | (DCTERMS, "modified") => {
            entry.updated = date()
        }
        (ATOM | DCTERMS, "created") => entry.created = date(),
        (_, "author") if rss => add_author(entry, &rss_author(&frame.text)),
        (DC, "creator" | "author") | (ITUNES, "author") => {
            add_author(entry, &rss_author(&frame.text))
        }
        (ATOM, "category") => add_category(entry, frame.attr("term")),
        (_, "category") if rss => add_category(entry, &frame.text),
        (DC, "subject") => add_category(entry, &frame.text),
        (ns, name) if !atom && !rss => {
            let text = collapse(&frame.text);
            let value = if text.is_empty() {
                frame.attr("term").to_string()
            } else {
                text
            };
            entry
                .extensions
                .push((ns.to_string(), name.to_string(), value));
        }
        _ => {}
    }
}

/// A fallback's value (Dublin Core's title, iTunes's summary), where the field has none.
fn or_else(field: &mut String, value: String) {
    if field.is_empty() {
        *field = value;
    }
}

/// An RSS `guid`: the entry's id, and its link when it has none and the guid is a permalink
/// (an address, `isPermaLink` not "false"), as feedparser reads it.
fn read_guid(entry: &mut Entry, frame: &Frame) {
    entry.id = collapse(&frame.text);
    let permalink = !frame.attr("isPermaLink").eq_ignore_ascii_case("false");
    let address = ["http://", "https://"]
        .iter()
        .any(|s| entry.id.starts_with(s));
    if permalink && address && entry.link.is_empty() {
        entry.link = entry.id.clone();
    }
}

fn add_link(entry: &mut Entry, frame: &Frame) {
    // Atom 0.3 feeds wrote the address as the element's text.
    let href = match frame.attr("href").trim() {
        "" => collapse(&frame.text),
        href => href.to_string(),
    };
    let link = Link {
        href,
        rel: frame.attr("rel").to_string(),
        title: frame.attr("title").to_string(),
        media_type: frame.attr("type").to_string(),
    };
    if entry.link.is_empty() && matches!(link.rel.as_str(), "" | "alternate") {
        entry.link = link.href.clone();
    }
    entry.links.push(link);
}

fn add_author(entry: &mut Entry, name: &str) {
    let name = collapse(&decode_entities(name));
    if !name.is_empty() && entry.authors.len() < MAX_NAMES && !entry.authors.contains(&name) {
        entry.authors.push(name);
    }
}

/// The name in an RSS author, which is an e-mail address, often with the name beside it
/// (`a@b.c (Ann Lee)`, `Ann Lee (a@b.c)`, `Ann Lee <a@b.c>`); the address when there is no name.
fn rss_author(text: &str) -> String {
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.contains('@'))
        .collect();
    match words.join(" ").trim_matches(['(', ')', '<', '>']).trim() {
        "" => collapse(text),
        name => name.to_string(),
    }
}

fn add_category(entry: &mut Entry, text: &str) {
    let category = collapse(&decode_entities(text));
    let known = entry
        .categories
        .iter()
        .any(|c| c.eq_ignore_ascii_case(&category));
    if !category.is_empty() && !known && entry.categories.len() < MAX_NAMES {
        entry.categories.push(category);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/apis/{name}", env!("CARGO_MANIFEST_DIR"));
        decode(&std::fs::read(path).unwrap(), None).0
    }

    const ARXIV: &str = "http://arxiv.org/schemas/atom";

    #[test]
    fn an_arxiv_search_feed() {
        let feed = parse(&fixture("arxiv_search_testing.xml")).unwrap();
        assert_eq!(feed.total_results, Some(214_881));
        assert_eq!(feed.entries.len(), 10);
        let first = &feed.entries[0];
        assert_eq!(first.id, "http://arxiv.org/abs/2202.12139v1");
        assert_eq!(
            first.title,
            "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
        );
        assert_eq!(first.published, "2022-02-24T15:05:19Z");
        assert_eq!(
            first.authors,
            ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]
        );
        assert_eq!(first.link, "https://arxiv.org/abs/2202.12139v1");
        let pdf = first.links.iter().find(|l| l.title == "pdf").unwrap();
        assert_eq!(pdf.href, "https://arxiv.org/pdf/2202.12139v1");
        assert_eq!(first.extension(ARXIV, "primary_category"), Some("cs.SE"));
        assert!(
            first
                .summary
                .starts_with("Deep Learning (DL) has revolutionized")
        );
        assert!(
            feed.entries[1]
                .authors
                .iter()
                .any(|a| a == "Aurora Ramírez")
        );
        assert!(feed.entries.iter().all(|e| !e.summary.contains('\n')));
        assert_eq!(
            feed.entries
                .iter()
                .filter(|e| e.extension(ARXIV, "doi").is_some())
                .count(),
            6
        );
    }

    #[test]
    fn arxiv_errors_and_empty_results_are_feeds_too() {
        let error = parse(&fixture("arxiv_400_bad_id.xml")).unwrap();
        assert_eq!(error.entries.len(), 1);
        let entry = &error.entries[0];
        assert_eq!(entry.title, "Error");
        assert_eq!(
            entry.id,
            "https://arxiv.org/api/errors#incorrect_id_format_for_abc"
        );
        assert_eq!(entry.summary, "incorrect id format for abc");
        let empty = parse(&fixture("arxiv_id_list_no_results.xml")).unwrap();
        assert_eq!(empty.total_results, Some(0));
        assert!(empty.entries.is_empty());
    }

    #[test]
    fn an_rss_feed_with_padded_cdata_and_html_descriptions() {
        let feed = parse(&fixture("rss2_huffpost_canada.xml")).unwrap();
        assert_eq!(feed.title, "HuffPost Canada - Athena2 - All Posts");
        assert_eq!(feed.entries.len(), 2);
        let item = &feed.entries[0];
        assert_eq!(
            item.title,
            "Winnipeg High School Orders Custom Hijabs For Muslim Athletes"
        );
        assert!(
            item.link
                .starts_with("http://www.huffingtonpost.ca/2017/10/17/winnipeg-high-school-orders-custom-hijabs-for-musl"),
            "{}",
            item.link
        );
        assert_eq!(item.published, "Tue, 17 Oct 2017 22:17:00 +0000");
        assert_eq!(item.authors, ["Canadian Press"]);
        assert!(
            item.summary
                .starts_with("Winnipeg high school student Nusaybah Mohamed's basketball uniform"),
            "{}",
            item.summary
        );
        assert!(!item.summary.contains('<'), "{}", item.summary);
        let lower: Vec<String> = item.categories.iter().map(|c| c.to_lowercase()).collect();
        let mut unique = lower.clone();
        unique.dedup();
        assert_eq!(lower.len(), unique.len());
        assert!(item.categories.iter().all(|c| c.trim() == c));
    }

    #[test]
    fn an_atom_feed_with_html_titles_and_double_escaped_content() {
        let feed = parse(&fixture("atom_google_alerts.xml")).unwrap();
        assert_eq!(feed.title, "Google Alert - Slack");
        assert_eq!(feed.entries.len(), 20);
        let first = &feed.entries[0];
        assert_eq!(
            first.title,
            "Report offers Prediction of Automotive Slack Market by Top key players like Haldex, Meritor, Bendix ..."
        );
        assert!(first.link.starts_with("https://www.google.com/url?rct=j&sa=t&url=https://www.aglobalmarketresearch.com/report-offers-prediction-"));
        assert!(
            first
                .content
                .ends_with("strategists, marketers and senior ..."),
            "{}",
            first.content
        );
        assert!(first.authors.is_empty());
        assert_eq!(first.date(), timestamp("2019-07-10T11:53:37Z"));
        assert!(
            feed.entries[1].content.contains("Company's decision"),
            "{}",
            feed.entries[1].content
        );
        assert!(feed.entries.iter().all(|e| !e.content.contains("&nbsp;")));
    }

    #[test]
    fn documents_that_are_not_feeds_are_refused() {
        let cases: &[(&str, &str)] = &[
            (
                "<html><body><p>Hi</p></body></html>",
                "neither an RSS nor an Atom feed",
            ),
            (
                "<rss><channel><title>x</title></rss>",
                "not well-formed XML",
            ),
            (
                "<rss version=\"2.0\"><channel><title>x</title><item><title>y",
                "the answer was cut off",
            ),
            ("{\"json\": true}", "neither an RSS nor an Atom feed"),
        ];
        for (text, said) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.contains(said), "{text}: {error}");
        }
    }

    #[test]
    fn rss_one_and_careless_entities() {
        let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel><title>One</title></channel>
            <item><title>Caf&amp;eacute; &amp; bar</title><link> http://x/1 </link>
            <description>a&nbsp;b &lt;i&gt;c&lt;/i&gt;</description><dc:date>2020-01-02</dc:date>
            <author>ann@x.org (Ann Lee)</author></item></rdf:RDF>"#;
        let feed = parse(xml).unwrap();
        assert_eq!(feed.title, "One");
        let item = &feed.entries[0];
        assert_eq!(item.title, "Café & bar");
        assert_eq!(item.link, "http://x/1");
        assert_eq!(item.summary, "a b c");
        assert_eq!(
            item.date(),
            Some(crate::clock::days_from_civil(2020, 1, 2) * 86_400)
        );
    }

    #[test]
    fn hostile_feeds_stay_small_and_linear() {
        let authors: String = (0..5_000)
            .map(|i| format!("<author><name>a{i}</name></author>"))
            .collect();
        let categories: String = (0..5_000)
            .map(|i| format!("<category term=\"c{i}\"/>"))
            .collect();
        let deep = format!(
            "{}deep text{}",
            "<div>".repeat(5_000),
            "</div>".repeat(5_000)
        );
        let xml = format!(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>t</title>{authors}{categories}\
             <content type=\"xhtml\">{deep}</content></entry></feed>"
        );
        let feed = parse(&xml).unwrap();
        let entry = &feed.entries[0];
        assert_eq!(entry.authors.len(), MAX_NAMES);
        assert_eq!(entry.authors[0], "a0");
        assert_eq!(entry.categories.len(), MAX_NAMES);
        assert!(entry.content.contains("deep text"), "{}", entry.content);
    }
}
