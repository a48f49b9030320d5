//! One event as an iCalendar file (RFC 5545) and back: CRLF line ends, lines folded at 75
//! octets without splitting a UTF-8 character, TEXT values escaped (`\\`, `\;`, `\,`, `\n`),
//! a UID, DTSTAMP, DTSTART and DTEND in UTC (`…Z`, which every calendar reads without a
//! VTIMEZONE). Reading unfolds and unescapes, and also takes what other calendars write:
//! local or TZID times (read in the local zone) and all-day dates.

use crate::clock::{civil_from_days, days_from_civil};
use crate::when;

/// The octets of a line before it is folded; continuation lines start with a space.
const LINE_OCTETS: usize = 75;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub uid: String,
    pub summary: String,
    /// Unix times.
    pub start: i64,
    pub end: i64,
    pub location: Option<String>,
    pub description: Option<String>,
    /// When the file was written (DTSTAMP), unix time.
    pub stamp: i64,
    /// A date without a time (from another calendar).
    pub all_day: bool,
}

/// The whole calendar file of `event`.
pub(crate) fn write(event: &Event) -> String {
    let mut lines = vec![
        "BEGIN:VCALENDAR".to_string(),
        "VERSION:2.0".to_string(),
        "PRODID:-//Marvin//Marvin calendar//EN".to_string(),
        "CALSCALE:GREGORIAN".to_string(),
        "BEGIN:VEVENT".to_string(),
        format!("UID:{}", escape(&event.uid)),
        format!("DTSTAMP:{}", utc(event.stamp)),
        format!("DTSTART:{}", utc(event.start)),
        format!("DTEND:{}", utc(event.end)),
        format!("SUMMARY:{}", escape(&event.summary)),
    ];
    if let Some(location) = &event.location {
        lines.push(format!("LOCATION:{}", escape(location)));
    }
    if let Some(description) = &event.description {
        lines.push(format!("DESCRIPTION:{}", escape(description)));
    }
    lines.extend(["END:VEVENT".to_string(), "END:VCALENDAR".to_string()]);
    lines.iter().map(|line| fold(line)).collect()
}

/// `line` folded into pieces of at most 75 octets, each ended by CRLF.
pub(crate) fn fold(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + line.len() / 70 * 3 + 2);
    let mut room = LINE_OCTETS;
    let mut used = 0;
    for c in line.chars() {
        if used + c.len_utf8() > room {
            out.push_str("\r\n ");
            room = LINE_OCTETS - 1;
            used = 0;
        }
        out.push(c);
        used += c.len_utf8();
    }
    out.push_str("\r\n");
    out
}

/// A TEXT value: backslash, semicolon, comma and line breaks escaped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.replace("\r\n", "\n").chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' | '\r' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n' | 'N') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// `20261124T140000Z` for unix time `at`.
fn utc(at: i64) -> String {
    let (year, month, day) = civil_from_days(at.div_euclid(86_400));
    let rest = at.rem_euclid(86_400);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The content lines of a file, unfolded (CRLF or a bare LF, then a space or a tab).
fn unfold(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        match (raw.strip_prefix([' ', '\t']), lines.last_mut()) {
            (Some(more), Some(last)) => last.push_str(more),
            _ if raw.is_empty() => {}
            _ => lines.push(raw.to_string()),
        }
    }
    lines
}

/// A content line's parameters: names (upper case) and values (unquoted).
type Params = Vec<(String, String)>;

/// A content line's name, parameters and value.
fn split(line: &str) -> Option<(String, Params, &str)> {
    let mut quoted = false;
    let colon = line.char_indices().find_map(|(i, c)| {
        if c == '"' {
            quoted = !quoted;
        }
        (c == ':' && !quoted).then_some(i)
    })?;
    let mut head = line[..colon].split(';');
    let name = head.next()?.to_ascii_uppercase();
    let params = head
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_ascii_uppercase(), v.trim_matches('"').to_string()))
        .collect();
    Some((name, params, &line[colon + 1..]))
}

/// A DATE-TIME or DATE value as unix time, and whether it was a date only.
fn time(value: &str, params: &Params) -> Option<(i64, bool)> {
    let digits = |range: std::ops::Range<usize>| value.get(range)?.parse::<u32>().ok();
    let days = days_from_civil(i64::from(digits(0..4)?), digits(4..6)?, digits(6..8)?);
    let date_only = value.len() == 8 || params.iter().any(|(k, v)| k == "VALUE" && v == "DATE");
    if date_only {
        return Some((when::from_local(days, 0, 0), true));
    }
    if value.get(8..9) != Some("T") {
        return None;
    }
    let (hour, minute, second) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    let at = if value.ends_with('Z') {
        days * 86_400 + i64::from(hour * 3600 + minute * 60 + second)
    } else {
        when::from_civil(days, i64::from(hour * 3600 + minute * 60 + second))
    };
    Some((at, false))
}

/// The events of a calendar file.
pub(crate) fn parse(text: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let mut current: Option<Event> = None;
    for line in unfold(text) {
        let Some((name, params, value)) = split(&line) else {
            continue;
        };
        match (name.as_str(), value.to_ascii_uppercase().as_str()) {
            ("BEGIN", "VEVENT") => current = Some(empty()),
            ("END", "VEVENT") => events.extend(current.take().and_then(finish)),
            _ => {}
        }
        let Some(event) = current.as_mut() else {
            continue;
        };
        match name.as_str() {
            "UID" => event.uid = unescape(value),
            "SUMMARY" => event.summary = unescape(value),
            "LOCATION" => event.location = Some(unescape(value)),
            "DESCRIPTION" => event.description = Some(unescape(value)),
            "DTSTAMP" => event.stamp = time(value, &params).map_or(0, |t| t.0),
            "DTSTART" => {
                if let Some((at, all_day)) = time(value, &params) {
                    (event.start, event.all_day) = (at, all_day);
                }
            }
            "DTEND" => event.end = time(value, &params).map_or(i64::MIN, |t| t.0),
            _ => {}
        }
    }
    events
}

fn empty() -> Event {
    Event {
        uid: String::new(),
        summary: String::new(),
        start: i64::MIN,
        end: i64::MIN,
        location: None,
        description: None,
        stamp: 0,
        all_day: false,
    }
}

/// An event with a start; without an end it lasts a day (a date) or no time at all.
fn finish(mut event: Event) -> Option<Event> {
    if event.start == i64::MIN {
        return None;
    }
    if event.end < event.start {
        event.end = if event.all_day {
            event.start + 86_400
        } else {
            event.start
        };
    }
    Some(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(summary: &str) -> Event {
        Event {
            uid: "3f9c0a12@marvin".into(),
            summary: summary.into(),
            start: 1_800_000_000,
            end: 1_800_003_600,
            location: Some("Zahnarztpraxis Müller, Hauptstraße 5; 2. OG".into()),
            description: Some("Bring the card\\the form,\nand the X-ray".into()),
            stamp: 1_799_000_000,
            all_day: false,
        }
    }

    #[test]
    fn long_non_ascii_texts_fold_at_75_octets_and_come_back() {
        let summary = "Zahnarzttermin bei Dr. Müller-Lüdenscheidt; danach Einkäufe, Apotheke, Bäckerei \u{1F9B7}\u{1F9B7} — 東京の友達に電話する, then home\nsecond line";
        let written = write(&event(summary));
        assert!(written.ends_with("END:VCALENDAR\r\n"));
        for line in written.split("\r\n") {
            assert!(line.len() <= 75, "{} octets: {line}", line.len());
        }
        assert!(
            !written.replace("\r\n", "").contains('\n'),
            "a bare line feed"
        );
        assert!(
            written.contains("DTSTAMP:20270103T181320Z\r\n"),
            "{written}"
        );
        assert!(
            written.contains("DTSTART:20270115T080000Z\r\nDTEND:20270115T090000Z\r\n"),
            "{written}"
        );
        let summary_line: String = written
            .split("\r\n")
            .skip_while(|l| !l.starts_with("SUMMARY:"))
            .take_while(|l| !l.starts_with("LOCATION:"))
            .collect::<Vec<_>>()
            .join("\r\n");
        assert!(summary_line.contains("\r\n "), "not folded: {summary_line}");
        assert!(summary_line.replace("\r\n ", "").starts_with(
            "SUMMARY:Zahnarzttermin bei Dr. Müller-Lüdenscheidt\\; danach Einkäufe\\, Apotheke"
        ));
        assert!(
            summary_line
                .replace("\r\n ", "")
                .ends_with("then home\\nsecond line")
        );
        let back = parse(&written);
        assert_eq!(back, [event(summary)]);
    }

    #[test]
    fn folding_never_splits_a_character() {
        for prefix in 0..4 {
            let line = format!("SUMMARY:{}{}", "x".repeat(prefix), "é€😀".repeat(40));
            let folded = fold(&line);
            let pieces: Vec<&str> = folded.trim_end_matches("\r\n").split("\r\n ").collect();
            assert!(pieces.len() > 1);
            for (i, piece) in pieces.iter().enumerate() {
                let room = if i == 0 { 75 } else { 74 };
                assert!(piece.len() <= room, "{}", piece.len());
                // A piece that could take the next character took it.
                if i + 1 < pieces.len() {
                    let next = pieces[i + 1].chars().next().unwrap();
                    assert!(piece.len() + next.len_utf8() > room);
                }
            }
            assert_eq!(pieces.concat(), line);
        }
    }

    #[test]
    fn other_calendars_files_are_read() {
        let text = "BEGIN:VCALENDAR\nBEGIN:VTIMEZONE\nTZID:Europe/Berlin\nEND:VTIMEZONE\nBEGIN:VEVENT\nUID:abc\nSUMMARY;LANGUAGE=de:Fest\\, groß\nDTSTART;VALUE=DATE:20271224\nEND:VEVENT\nBEGIN:VEVENT\nUID:def\nSUMMARY:Call\nDTSTART;TZID=\"Europe/Berlin\":20271224T180000\nDTEND;TZID=Europe/Berlin:20271224T\n\t183000\nEND:VEVENT\nEND:VCALENDAR\n";
        let events = parse(text);
        assert_eq!(events.len(), 2);
        let day = days_from_civil(2027, 12, 24);
        assert_eq!(events[0].summary, "Fest, groß");
        assert!(events[0].all_day);
        assert_eq!(events[0].start, when::from_local(day, 0, 0));
        assert_eq!(events[0].end, events[0].start + 86_400);
        assert_eq!(events[1].start, when::from_local(day, 18, 0));
        assert_eq!(events[1].end, when::from_local(day, 18, 30));
    }
}
