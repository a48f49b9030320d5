//! How MusicBrainz's entries read: a search result in a line, an artist with its albums, an
//! album or release with its track list, a song with its releases.

use serde_json::Value;

use super::Entity;

/// The most releases a song's lookup lists.
const MAX_RELEASES: usize = 15;
/// The most genres or tags an artist's lookup names.
const MAX_GENRES: usize = 8;

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
        }
        Entity::Release => {
            facts.extend(present(item, "date"));
            facts.extend(present(item, "country"));
            facts.extend(present(item, "status"));
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
fn present(item: &Value, key: &str) -> Option<String> {
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

pub(super) fn describe_artist(artist: &Value) -> String {
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
    let albums = albums(artist);
    if albums.is_empty() {
        out.push_str("\nAlbums: none listed.");
    } else {
        out.push_str(&format!("\nAlbums ({}):", albums.len()));
        for album in albums {
            let date = present(album, "first-release-date").unwrap_or_else(|| "----".into());
            out.push_str(&format!("\n  {date}  {}", name(album)));
            if let Some(kind) = album_type(album).filter(|kind| kind != "Album") {
                out.push_str(&format!(" [{kind}]"));
            }
            out.push_str(&format!("  (MBID {})", text(album, "id")));
        }
    }
    out.push_str(&format!("\nMBID {}", text(artist, "id")));
    out
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

/// An artist's release groups whose primary type is Album, oldest first (undated last).
fn albums(artist: &Value) -> Vec<&Value> {
    let mut albums: Vec<&Value> = artist["release-groups"]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .filter(|group| group["primary-type"].as_str() == Some("Album"))
                .collect()
        })
        .unwrap_or_default();
    albums.sort_by_key(|album| {
        let date = text(album, "first-release-date");
        (date.is_empty(), date.to_string())
    });
    albums
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
pub(super) fn first_release(group: &Value) -> Option<&Value> {
    let releases = group["releases"].as_array()?;
    releases.iter().min_by_key(|release| {
        let date = text(release, "date");
        (
            release["status"].as_str() != Some("Official"),
            date.is_empty(),
            date.to_string(),
        )
    })
}

/// A release and its track list, medium by medium; under its album when it stands for one.
pub(super) fn describe_release(release: &Value, group: Option<&Value>) -> String {
    let mut facts: Vec<String> = Vec::new();
    let credit = artist_credit(release);
    if !credit.is_empty() {
        facts.push(format!("by {credit}"));
    }
    for key in ["date", "country", "status"] {
        facts.extend(present(release, key));
    }
    let mut out = match group {
        Some(group) => {
            let count = group["releases"].as_array().map_or(0, Vec::len);
            format!(
                "{}\n\n{count} release{} of it; the tracks of {}",
                describe_group(group),
                if count == 1 { "" } else { "s" },
                name(release)
            )
        }
        None => name(release),
    };
    if !facts.is_empty() {
        out.push_str(&format!(" ({})", facts.join(", ")));
    }
    out.push_str(&format!(", release MBID {}:", text(release, "id")));
    out.push_str(&tracks(release));
    out
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

pub(super) fn describe_recording(recording: &Value) -> String {
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
    let releases = recording["releases"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    if releases.is_empty() {
        out.push_str("\nMusicBrainz lists no releases of it.");
        return out;
    }
    out.push_str(&format!(
        "\nOn {} release{}:",
        releases.len(),
        if releases.len() == 1 { "" } else { "s" }
    ));
    for release in releases.iter().take(MAX_RELEASES) {
        let facts: Vec<String> = ["date", "country", "status"]
            .iter()
            .filter_map(|key| present(release, key))
            .collect();
        out.push_str(&format!("\n  {}", name(release)));
        if !facts.is_empty() {
            out.push_str(&format!(" ({})", facts.join(", ")));
        }
        out.push_str(&format!("  release MBID {}", text(release, "id")));
    }
    if releases.len() > MAX_RELEASES {
        out.push_str(&format!(
            "\n  … and {} more.",
            releases.len() - MAX_RELEASES
        ));
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
        ];
        for (kind, item, line) in cases {
            assert_eq!(summary(kind, &item), line, "{item}");
        }
    }

    #[test]
    fn an_album_stands_on_its_earliest_official_release() {
        let group = json!({"releases": [
            {"id": "bootleg", "status": "Bootleg", "date": "1990"},
            {"id": "undated", "status": "Official", "date": ""},
            {"id": "reissue", "status": "Official", "date": "2009-03-24"},
            {"id": "first", "status": "Official", "date": "1997-05-21"}
        ]});
        assert_eq!(first_release(&group).map(|r| text(r, "id")), Some("first"));
        assert!(first_release(&json!({"releases": []})).is_none());
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
