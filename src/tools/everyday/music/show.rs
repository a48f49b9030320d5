//! How MusicBrainz's entries read: a search result in a line, an artist with its albums, an
//! album or release with its track list, a song with its releases.

use serde_json::Value;

use super::{Entity, edition};

/// The most releases a song's lookup lists (and asks for).
pub(super) const MAX_RELEASES: usize = 15;
/// The most genres or tags an artist's lookup names.
const MAX_GENRES: usize = 8;

/// A browse answer: the linked entries it returned, and how many MusicBrainz has in all.
pub(super) struct Browsed<'a> {
    items: &'a [Value],
    total: u64,
}

impl<'a> Browsed<'a> {
    /// The list under `list` and the total under `count` ("releases", "release-count").
    pub(super) fn of(value: &'a Value, list: &str, count: &str) -> Self {
        let items = value[list].as_array().map_or(&[][..], Vec::as_slice);
        let total = value[count].as_u64().unwrap_or(0).max(items.len() as u64);
        Self { items, total }
    }

    /// Whether MusicBrainz has more than it returned.
    fn partial(&self) -> bool {
        (self.items.len() as u64) < self.total
    }
}

pub(super) fn describe_search(kind: Entity, query: &str, value: &Value, list: &str) -> String {
    let items = value[list].as_array().map_or(&[][..], Vec::as_slice);
    let word = kind.word();
    if items.is_empty() {
        return format!(
            "MusicBrainz found no {word}s for '{query}'. Try other words or spelling, or another kind (artist, album, song, release)."
        );
    }
    let total = value["count"].as_u64().unwrap_or(items.len() as u64);
    let mut out = format!(
        "MusicBrainz {word}s for '{query}' ({} of {total}):",
        items.len()
    );
    for (i, item) in items.iter().enumerate() {
        out.push_str(&format!(
            "\n\n{}. {}\n   MBID {}",
            i + 1,
            summary(kind, item),
            text(item, "id")
        ));
    }
    out.push_str(&format!(
        "\n\nLook one up with music_lookup (kind \"{word}\", mbid)."
    ));
    out
}

/// One search result in a line: its name, then what the kind knows of it, then its score.
fn summary(kind: Entity, item: &Value) -> String {
    let mut facts: Vec<String> = Vec::new();
    let credit = artist_credit(item);
    if !credit.is_empty() {
        facts.push(format!("by {credit}"));
    }
    match kind {
        Entity::Artist => {
            facts.extend(present(item, "type"));
            facts.extend(place(item));
            facts.extend(life_span(item));
            facts.extend(top_tags(item));
        }
        Entity::Album => {
            facts.extend(album_type(item));
            facts.extend(present(item, "first-release-date"));
        }
        Entity::Song => {
            facts.extend(item["length"].as_u64().map(minutes));
            facts.extend(present(item, "first-release-date"));
            if let Some(title) = item.pointer("/releases/0/title").and_then(Value::as_str) {
                facts.push(format!("on {title}"));
            }
            // A search gives `video` as true or null, never false.
            if item["video"] == Value::Bool(true) {
                facts.push("a music video".into());
            }
        }
        Entity::Release => {
            facts.extend(edition::facts(item, false));
            facts.extend(item["track-count"].as_u64().map(|n| format!("{n} tracks")));
            facts.extend(present(
                item.pointer("/media/0").unwrap_or(&Value::Null),
                "format",
            ));
        }
    }
    let mut line = name(item);
    if !facts.is_empty() {
        line.push_str(&format!(" — {}", facts.join(", ")));
    }
    if let Some(score) = item["score"].as_u64() {
        line.push_str(&format!(" [score {score}]"));
    }
    line
}

/// The name or title, with the disambiguation MusicBrainz gives to tell namesakes apart.
fn name(item: &Value) -> String {
    let name = item["name"]
        .as_str()
        .or(item["title"].as_str())
        .unwrap_or("(untitled)");
    match present(item, "disambiguation") {
        Some(note) => format!("{name} ({note})"),
        None => name.to_string(),
    }
}

/// A string field when it says something.
pub(super) fn present(item: &Value, key: &str) -> Option<String> {
    item[key]
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

pub(super) fn text<'a>(item: &'a Value, key: &str) -> &'a str {
    item[key].as_str().unwrap_or_default()
}

/// "Simon & Garfunkel", "Queen & David Bowie": each credited name and its join phrase.
fn artist_credit(item: &Value) -> String {
    let credits = item["artist-credit"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    credits
        .iter()
        .map(|credit| format!("{}{}", text(credit, "name"), text(credit, "joinphrase")))
        .collect::<String>()
        .trim()
        .to_string()
}

/// Where an artist is from: its area, and the country code when the area is not a country.
fn place(item: &Value) -> Option<String> {
    let area = item.pointer("/area/name").and_then(Value::as_str);
    let country = present(item, "country");
    match (area, country) {
        (Some(area), Some(code)) => Some(format!("{area} ({code})")),
        (Some(area), None) => Some(area.to_string()),
        (None, code) => code,
    }
}

/// "1991–" for an artist still active, "1970–1980" for one that ended.
fn life_span(item: &Value) -> Option<String> {
    let span = &item["life-span"];
    let begin = present(span, "begin");
    let end = present(span, "end");
    match (begin, end) {
        (None, None) => None,
        (begin, end) => Some(format!(
            "{}–{}",
            begin.unwrap_or_else(|| "?".into()),
            end.unwrap_or_default()
        )),
    }
}

/// "Album", "Album + Live": the primary type and any secondary ones.
fn album_type(item: &Value) -> Option<String> {
    let primary = present(item, "primary-type")?;
    let secondary: Vec<&str> = item["secondary-types"]
        .as_array()
        .map(|types| types.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Some(
        std::iter::once(primary.as_str())
            .chain(secondary)
            .collect::<Vec<_>>()
            .join(" + "),
    )
}

/// A length in milliseconds as m:ss.
fn minutes(ms: u64) -> String {
    let seconds = (ms + 500) / 1000;
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

pub(super) fn describe_artist(artist: &Value, browsed: &Browsed) -> String {
    let mut out = name(artist);
    out.push_str(&format!(
        " — {}",
        present(artist, "type").unwrap_or_else(|| "artist".into())
    ));
    if let Some(place) = place(artist) {
        out.push_str(&format!("\nArea: {place}"));
    }
    if let Some(span) = life_span(artist) {
        let ended = artist.pointer("/life-span/ended").and_then(Value::as_bool) == Some(true);
        out.push_str(&format!(
            "\nActive: {span}{}",
            if ended { " (ended)" } else { "" }
        ));
    }
    let genres = named_by_count(&artist["genres"]);
    let tags = named_by_count(&artist["tags"]);
    match (genres.is_empty(), tags.is_empty()) {
        (false, _) => out.push_str(&format!("\nGenres: {}", genres.join(", "))),
        (true, false) => out.push_str(&format!("\nTags: {}", tags.join(", "))),
        (true, true) => {}
    }
    out.push_str(&albums_text(browsed));
    out.push_str(&format!("\nMBID {}", text(artist, "id")));
    out
}

/// "tagged heavy metal": a search result's most voted tags (up to 3), those with one vote
/// left out when others have more.
fn top_tags(item: &Value) -> Option<String> {
    let votes = |tag: &Value| tag["count"].as_i64().unwrap_or(0);
    let mut tags: Vec<&Value> = item["tags"].as_array()?.iter().collect();
    tags.sort_by_key(|tag| std::cmp::Reverse(votes(tag)));
    let most = votes(tags.first()?);
    let names: Vec<String> = tags
        .iter()
        .filter(|tag| most <= 1 || votes(tag) > 1)
        .filter_map(|tag| present(tag, "name"))
        .take(3)
        .collect();
    (!names.is_empty()).then(|| format!("tagged {}", names.join(", ")))
}

/// The names of genres or tags, the most voted first.
fn named_by_count(list: &Value) -> Vec<String> {
    let mut items: Vec<&Value> = list
        .as_array()
        .map(|l| l.iter().collect())
        .unwrap_or_default();
    items.sort_by_key(|item| std::cmp::Reverse(item["count"].as_i64().unwrap_or(0)));
    items
        .iter()
        .filter_map(|item| present(item, "name"))
        .take(MAX_GENRES)
        .collect()
}

/// An artist's albums (release groups of primary type Album, browsed), oldest first (undated
/// last), and how many MusicBrainz has when it returned fewer.
fn albums_text(browsed: &Browsed) -> String {
    let mut albums: Vec<&Value> = browsed.items.iter().collect();
    if albums.is_empty() {
        return "\nAlbums: none listed.".into();
    }
    albums.sort_by_key(|album| {
        let date = text(album, "first-release-date");
        (date.is_empty(), date.to_string())
    });
    let mut out = match browsed.partial() {
        true => format!(
            "\nAlbums ({} of {}, as many as MusicBrainz returns at once):",
            albums.len(),
            browsed.total
        ),
        false => format!("\nAlbums ({}):", albums.len()),
    };
    for album in albums {
        let date = present(album, "first-release-date").unwrap_or_else(|| "----".into());
        out.push_str(&format!("\n  {date}  {}", name(album)));
        if let Some(kind) = album_type(album).filter(|kind| kind != "Album") {
            out.push_str(&format!(" [{kind}]"));
        }
        out.push_str(&format!("  (MBID {})", text(album, "id")));
    }
    out
}

pub(super) fn describe_group(group: &Value) -> String {
    let mut facts: Vec<String> = Vec::new();
    let credit = artist_credit(group);
    if !credit.is_empty() {
        facts.push(format!("by {credit}"));
    }
    facts.extend(album_type(group));
    facts.extend(present(group, "first-release-date").map(|date| format!("first released {date}")));
    let mut out = name(group);
    if !facts.is_empty() {
        out.push_str(&format!(" — {}", facts.join(", ")));
    }
    out.push_str(&format!("\nMBID {}", text(group, "id")));
    out
}

/// The release whose tracks stand for the album: an official one, the earliest dated.
pub(super) fn first_release<'a>(releases: &Browsed<'a>) -> Option<&'a Value> {
    releases.items.iter().min_by_key(|release| {
        let date = text(release, "date");
        (
            release["status"].as_str() != Some("Official"),
            date.is_empty(),
            date.to_string(),
        )
    })
}

/// A release and its track list, medium by medium; under its album (and the album's official
/// releases) when it stands for one.
pub(super) fn describe_release(release: &Value, group: Option<(&Value, &Browsed)>) -> String {
    let mut facts: Vec<String> = Vec::new();
    let credit = artist_credit(release);
    if !credit.is_empty() {
        facts.push(format!("by {credit}"));
    }
    facts.extend(edition::facts(release, true));
    let mut out = match group {
        Some((group, releases)) => format!(
            "{}\n\n{}{}",
            describe_group(group),
            official_count(releases),
            name(release)
        ),
        None => name(release),
    };
    if !facts.is_empty() {
        out.push_str(&format!(" ({})", facts.join(", ")));
    }
    out.push_str(&format!(", release MBID {}:", text(release, "id")));
    out.push_str(&tracks(release));
    out
}

/// "2 official releases of it; the tracks of the earliest, ": how many, and which gives the
/// tracks (the earliest of those MusicBrainz returned, when it has more).
fn official_count(releases: &Browsed) -> String {
    let total = releases.total;
    let which = match (total, releases.partial()) {
        (1, _) => String::new(),
        (_, false) => "the earliest, ".into(),
        (_, true) => format!(
            "the earliest of the {} MusicBrainz returned at once, ",
            releases.items.len()
        ),
    };
    let plural = if total == 1 { "" } else { "s" };
    format!("{total} official release{plural} of it; the tracks of {which}")
}

/// Each medium's tracks: "  1. Airbag 4:44", and the total length when every track has one.
fn tracks(release: &Value) -> String {
    let media = release["media"].as_array().map_or(&[][..], Vec::as_slice);
    let mut out = String::new();
    let mut total = Some(0u64);
    for medium in media {
        let format = present(medium, "format").unwrap_or_else(|| "Medium".into());
        let position = medium["position"].as_u64().unwrap_or(1);
        out.push_str(&format!("\n{format} {position}:"));
        if let Some(title) = present(medium, "title") {
            out.push_str(&format!(" {title}"));
        }
        for track in medium["tracks"].as_array().map_or(&[][..], Vec::as_slice) {
            let length = track["length"]
                .as_u64()
                .or(track.pointer("/recording/length").and_then(Value::as_u64));
            total = total.zip(length).map(|(sum, ms)| sum + ms);
            let number = present(track, "number").unwrap_or_else(|| track["position"].to_string());
            let title = present(track, "title").unwrap_or_else(|| "(untitled)".into());
            out.push_str(&format!("\n  {number}. {title}"));
            if let Some(ms) = length {
                out.push_str(&format!(" {}", minutes(ms)));
            }
        }
    }
    if media.is_empty() {
        return "\nMusicBrainz lists no tracks for it.".into();
    }
    if let Some(ms) = total.filter(|ms| *ms > 0) {
        out.push_str(&format!("\nTotal length {}", minutes(ms)));
    }
    out
}

/// A song and the releases it is on (browsed: the first few, and how many in all).
pub(super) fn describe_recording(recording: &Value, browsed: &Browsed) -> String {
    let mut facts: Vec<String> = Vec::new();
    let credit = artist_credit(recording);
    if !credit.is_empty() {
        facts.push(format!("by {credit}"));
    }
    facts.extend(recording["length"].as_u64().map(minutes));
    facts.extend(
        present(recording, "first-release-date").map(|date| format!("first released {date}")),
    );
    let mut out = name(recording);
    if !facts.is_empty() {
        out.push_str(&format!(" — {}", facts.join(", ")));
    }
    out.push_str(&format!("\nMBID {}", text(recording, "id")));
    let releases = browsed.items;
    if releases.is_empty() {
        out.push_str("\nMusicBrainz lists no releases of it.");
        return out;
    }
    let total = browsed.total;
    out.push_str(&format!(
        "\nOn {total} release{}:",
        if total == 1 { "" } else { "s" }
    ));
    let shown = releases.len().min(MAX_RELEASES);
    for release in &releases[..shown] {
        let facts = edition::facts(release, false);
        out.push_str(&format!("\n  {}", name(release)));
        if !facts.is_empty() {
            out.push_str(&format!(" ({})", facts.join(", ")));
        }
        out.push_str(&format!("  release MBID {}", text(release, "id")));
    }
    if total > shown as u64 {
        out.push_str(&format!("\n  … and {} more.", total - shown as u64));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_read_as_minutes_and_seconds() {
        let cases = [
            (0, "0:00"),
            (284_000, "4:44"),
            (387_499, "6:27"),
            (387_500, "6:28"),
            (4_503_000, "75:03"),
        ];
        for (ms, shown) in cases {
            assert_eq!(minutes(ms), shown, "{ms}");
        }
    }

    #[test]
    fn credits_join_their_names_with_their_phrases() {
        let cases = [
            (json!({}), ""),
            (
                json!({"artist-credit": [{"name": "Radiohead", "joinphrase": ""}]}),
                "Radiohead",
            ),
            (
                json!({"artist-credit": [{"name": "Queen", "joinphrase": " & "}, {"name": "David Bowie"}]}),
                "Queen & David Bowie",
            ),
        ];
        for (item, credit) in cases {
            assert_eq!(artist_credit(&item), credit, "{item}");
        }
    }

    #[test]
    fn search_results_say_what_their_kind_knows() {
        let cases = [
            (
                Entity::Artist,
                json!({"name": "Nirvana", "disambiguation": "90s US grunge band", "type": "Group", "country": "US", "area": {"name": "United States"}, "life-span": {"begin": "1987", "end": "1994", "ended": true}, "score": 100}),
                "Nirvana (90s US grunge band) — Group, United States (US), 1987–1994 [score 100]",
            ),
            (
                Entity::Album,
                json!({"title": "MTV Unplugged in New York", "primary-type": "Album", "secondary-types": ["Live"], "first-release-date": "1994-11-01", "artist-credit": [{"name": "Nirvana"}], "score": 95}),
                "MTV Unplugged in New York — by Nirvana, Album + Live, 1994-11-01 [score 95]",
            ),
            (
                Entity::Song,
                json!({"title": "Paranoid Android", "length": 387000, "first-release-date": "1997-05-21", "artist-credit": [{"name": "Radiohead"}], "releases": [{"title": "OK Computer"}]}),
                "Paranoid Android — by Radiohead, 6:27, 1997-05-21, on OK Computer",
            ),
            (
                Entity::Release,
                json!({"title": "OK Computer", "date": "1997-05-21", "country": "GB", "status": "Official", "track-count": 12, "media": [{"format": "CD"}], "disambiguation": ""}),
                "OK Computer — 1997-05-21, GB, Official, 12 tracks, CD",
            ),
            (Entity::Release, json!({"title": "Bare"}), "Bare"),
            (
                Entity::Artist,
                json!({"name": "A", "tags": [{"count": 1, "name": "x"}, {"count": 1, "name": "y"}, {"count": 1, "name": "z"}, {"count": 1, "name": "w"}]}),
                "A — tagged x, y, z",
            ),
        ];
        for (kind, item, line) in cases {
            assert_eq!(summary(kind, &item), line, "{item}");
        }
    }

    #[test]
    fn an_album_stands_on_its_earliest_official_release() {
        let browse = json!({"release-count": 4, "releases": [
            {"id": "bootleg", "status": "Bootleg", "date": "1990"},
            {"id": "undated", "status": "Official", "date": ""},
            {"id": "reissue", "status": "Official", "date": "2009-03-24"},
            {"id": "first", "status": "Official", "date": "1997-05-21"}
        ]});
        let releases = Browsed::of(&browse, "releases", "release-count");
        assert_eq!(
            first_release(&releases).map(|r| text(r, "id")),
            Some("first")
        );
        let none = json!({"release-count": 0, "releases": []});
        assert!(first_release(&Browsed::of(&none, "releases", "release-count")).is_none());
    }

    /// A browse's total is MusicBrainz's count, not the length of the page it returned
    /// (lookups stopped at 25 linked entities and their count was taken for the total).
    #[test]
    fn browsed_counts_say_how_many_musicbrainz_has() {
        let albums = |count: u64, n: usize| {
            let groups: Vec<Value> = (0..n)
                .map(|i| json!({"id": format!("g{i}"), "title": format!("A{i}"), "primary-type": "Album", "first-release-date": format!("19{:02}", 90 - i)}))
                .collect();
            json!({"release-group-count": count, "release-group-offset": 0, "release-groups": groups})
        };
        let cases = [
            (albums(0, 0), "\nAlbums: none listed."),
            (albums(1, 1), "\nAlbums (1):\n  1990  A0  (MBID g0)"),
            (
                albums(230, 2),
                "\nAlbums (2 of 230, as many as MusicBrainz returns at once):\n  1989  A1  (MBID g1)\n  1990  A0  (MBID g0)",
            ),
            (
                json!({"release-groups": [{"id": "g", "title": "A"}]}),
                "\nAlbums (1):\n  ----  A  (MBID g)",
            ),
        ];
        for (browse, shown) in cases {
            let browsed = Browsed::of(&browse, "release-groups", "release-group-count");
            assert_eq!(albums_text(&browsed), shown, "{browse}");
        }
        let releases = |count: u64, n: usize| {
            let list: Vec<Value> = (0..n).map(|i| json!({"id": format!("r{i}")})).collect();
            json!({"release-count": count, "releases": list})
        };
        let cases = [
            (releases(1, 1), "1 official release of it; the tracks of "),
            (
                releases(3, 3),
                "3 official releases of it; the tracks of the earliest, ",
            ),
            (
                releases(240, 2),
                "240 official releases of it; the tracks of the earliest of the 2 MusicBrainz returned at once, ",
            ),
        ];
        for (browse, shown) in cases {
            let browsed = Browsed::of(&browse, "releases", "release-count");
            assert_eq!(official_count(&browsed), shown, "{browse}");
        }
    }

    #[test]
    fn a_song_counts_all_its_releases_and_lists_the_first_few() {
        let recording = json!({"id": "s", "title": "Song"});
        let list: Vec<Value> = (0..MAX_RELEASES)
            .map(|i| json!({"id": format!("r{i}"), "title": format!("R{i}")}))
            .collect();
        let browse = json!({"release-count": 40, "release-offset": 0, "releases": list});
        let text = describe_recording(
            &recording,
            &Browsed::of(&browse, "releases", "release-count"),
        );
        assert!(
            text.starts_with("Song\nMBID s\nOn 40 releases:\n  R0  release MBID r0"),
            "{text}"
        );
        assert!(
            text.ends_with("R14  release MBID r14\n  … and 25 more."),
            "{text}"
        );
        let none = json!({"release-count": 0, "releases": []});
        assert_eq!(
            describe_recording(&recording, &Browsed::of(&none, "releases", "release-count")),
            "Song\nMBID s\nMusicBrainz lists no releases of it."
        );
    }

    #[test]
    fn track_lists_go_medium_by_medium_with_a_total_only_when_every_length_is_known() {
        let cases = [
            (
                json!({"media": []}),
                "\nMusicBrainz lists no tracks for it.",
            ),
            (
                json!({"media": [
                    {"position": 1, "format": "CD", "tracks": [
                        {"number": "1", "title": "A", "length": 60000},
                        {"number": "2", "title": "B", "recording": {"length": 61000}}
                    ]},
                    {"position": 2, "format": "CD", "title": "Bonus", "tracks": [
                        {"number": "1", "title": "C", "length": 1000}
                    ]}
                ]}),
                "\nCD 1:\n  1. A 1:00\n  2. B 1:01\nCD 2: Bonus\n  1. C 0:01\nTotal length 2:02",
            ),
            (
                json!({"media": [{"position": 1, "tracks": [
                    {"position": 1, "title": "A", "length": 60000},
                    {"position": 2, "title": "Unknown length"}
                ]}]}),
                "\nMedium 1:\n  1. A 1:00\n  2. Unknown length",
            ),
        ];
        for (release, shown) in cases {
            assert_eq!(tracks(&release), shown, "{release}");
        }
    }

    #[test]
    fn a_release_on_its_own_names_itself_and_its_artist() {
        let release = json!({"id": "r1", "title": "Bare", "artist-credit": [{"name": "X"}], "date": "2001", "media": []});
        assert_eq!(
            describe_release(&release, None),
            "Bare (by X, 2001), release MBID r1:\nMusicBrainz lists no tracks for it."
        );
    }
}
