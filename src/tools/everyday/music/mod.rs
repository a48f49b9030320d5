//! The music family: `music_search` (artists, albums, songs or releases by name) and
//! `music_lookup` (one of them by its MBID: an artist's albums, an album's or a release's
//! tracks, a song's releases), through the MusicBrainz API at MUSICBRAINZ_URL. What is linked
//! to an entry (albums, releases) comes by a browse request, since a lookup's `inc=` lists at
//! most 25 linked entities, in no useful order. MusicBrainz allows one request a second: the
//! service row paces every call of a session, parallel ones too (an artist's, album's or
//! song's lookup takes two or three). Its errors come as `{"error": "..."}`; a 503 means too
//! many requests.

mod edition;
mod show;

use serde::Deserialize;
use serde_json::Value;

use show::{
    Browsed, MAX_RELEASES, describe_artist, describe_group, describe_recording, describe_release,
    describe_search, first_release, text,
};

use crate::services::MUSICBRAINZ;
use crate::tools::kit::web::Call;
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const DEFAULT_RESULTS: u64 = 5;
const MAX_RESULTS: u64 = 25;
/// The most a browse request returns (MusicBrainz's ceiling for `limit`).
const BROWSE_LIMIT: usize = 100;

const KINDS: Choices = Choices::Fixed(&["artist", "album", "song", "release"]);
const KIND_TEXT: &str = "artist, album (a release group: the album in all its editions), song (a recording) or release (one edition of an album)";

const SEARCH_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "The name to look for (an artist, an album, a song), optionally with MusicBrainz's own syntax (artist:, release:, country:)",
    ),
    Param::required("kind", Kind::Choice(KINDS), KIND_TEXT),
    Param::optional("limit", Kind::Integer, "How many results (1-25, default 5)"),
];
const LOOKUP_PARAMS: &[Param] = &[
    Param::required(
        "mbid",
        Kind::String,
        "The MusicBrainz id (MBID) from music_search",
    ),
    Param::required("kind", Kind::Choice(KINDS), KIND_TEXT),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "music",
    about: "music facts",
    words: &[
        "musicbrainz",
        "song",
        "songs",
        "music",
        "album",
        "albums",
        "artist",
        "band",
        "singer",
        "discography",
        "~released",
        "~record",
        "track",
        "lyrics",
        "composer",
        "musician",
        "musical",
        "who sings",
        "who sang",
        "playing now",
        "this song",
        "hear",
        "who sung",
        "sung",
        "itunes",
    ],
    asks: &[
        "who sings this song",
        "when was this album released",
        "what band recorded",
        "discography of an artist",
        "tell me about this singer",
        "songs on the album",
        "where is the band from",
        "when did the band form",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("music_search")
            .describe("Search MusicBrainz, the open music encyclopedia, for artists, albums, songs or releases: names, artists, dates, countries and MBIDs. Use for questions about music; details with music_lookup.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "OK Computer", "kind": "album", "limit": 5}"#)
            .handler(music_search),
        ToolDef::build("music_lookup")
            .describe("Look up one MusicBrainz entry by its MBID: an artist's type, area, years, genres and albums; an album's or release's track list with lengths; a song's releases.")
            .offered(Offered::Everywhere)
            .params(LOOKUP_PARAMS)
            .example(r#"{"mbid": "a74b1b7f-71a5-4011-9441-d0b5e4122711", "kind": "artist"}"#)
            .handler(music_lookup),
    ]
}

/// What is searched or looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Entity {
    Artist,
    Album,
    Song,
    Release,
}

impl Entity {
    /// The MusicBrainz resource, and the key of its list in a search answer.
    fn resource(self) -> (&'static str, &'static str) {
        match self {
            Self::Artist => ("artist", "artists"),
            Self::Album => ("release-group", "release-groups"),
            Self::Song => ("recording", "recordings"),
            Self::Release => ("release", "releases"),
        }
    }

    fn word(self) -> &'static str {
        match self {
            Self::Artist => "artist",
            Self::Album => "album",
            Self::Song => "song",
            Self::Release => "release",
        }
    }
}

/// One call to MusicBrainz (JSON asked for with `fmt=json`): the answer, or a sentence. A
/// 404 is `missing`, when the caller knows what it means.
fn api(
    ctx: &ToolContext,
    path: &str,
    query: &[(&str, &str)],
    missing: Option<String>,
) -> Result<Value, String> {
    let web = &ctx.settings.web;
    let mut pairs = query.to_vec();
    pairs.push(("fmt", "json"));
    let call = Call {
        query: &pairs,
        ..Call::default()
    };
    let fetched = web.call(&MUSICBRAINZ, path, &call, &ctx.cancel)?;
    match (fetched.status, missing) {
        (503, _) => Err("MusicBrainz is limiting requests (HTTP 503, at most one a second): wait a few seconds and try again.".into()),
        (404, Some(missing)) => Err(missing),
        _ => web.read_json(&MUSICBRAINZ, &fetched),
    }
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    kind: Entity,
    limit: Option<u64>,
}

fn music_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: give a name to look for.".into());
    }
    let limit = args.limit.unwrap_or(DEFAULT_RESULTS).clamp(1, MAX_RESULTS);
    let limit_text = limit.to_string();
    let (resource, list) = args.kind.resource();
    let value = api(
        ctx,
        &format!("/{resource}"),
        &[("query", query), ("limit", limit_text.as_str())],
        None,
    )?;
    Ok(describe_search(args.kind, query, &value, list))
}

#[derive(Deserialize)]
struct LookupArgs {
    mbid: String,
    kind: Entity,
}

fn music_lookup(args: LookupArgs, ctx: &ToolContext) -> Result<String, String> {
    let mbid = args.mbid.trim().to_ascii_lowercase();
    if !is_mbid(&mbid) {
        return Err(format!(
            "'{}' is not a MusicBrainz id: an MBID looks like a74b1b7f-71a5-4011-9441-d0b5e4122711 (music_search gives them).",
            args.mbid.trim()
        ));
    }
    match args.kind {
        Entity::Artist => lookup_artist(ctx, &mbid),
        Entity::Album => lookup_album(ctx, &mbid),
        Entity::Song => lookup_song(ctx, &mbid),
        Entity::Release => {
            let release = lookup(ctx, Entity::Release, &mbid, "artist-credits+recordings")?;
            Ok(describe_release(&release, None))
        }
    }
}

/// An artist, and its albums by a browse: a lookup's `inc=release-groups` stops at 25 of them,
/// in no useful order.
fn lookup_artist(ctx: &ToolContext, mbid: &str) -> Result<String, String> {
    let artist = lookup(ctx, Entity::Artist, mbid, "genres+tags")?;
    let limit = BROWSE_LIMIT.to_string();
    let albums = api(
        ctx,
        "/release-group",
        &[("artist", mbid), ("type", "album"), ("limit", &limit)],
        None,
    )?;
    let albums = Browsed::of(&albums, "release-groups", "release-group-count");
    Ok(describe_artist(&artist, &albums))
}

/// An album (a release group) and the tracks of its earliest official release, chosen from a
/// browse of its official releases (a lookup's `inc=releases` stops at 25 of them).
fn lookup_album(ctx: &ToolContext, mbid: &str) -> Result<String, String> {
    let group = lookup(ctx, Entity::Album, mbid, "artist-credits")?;
    let limit = BROWSE_LIMIT.to_string();
    let releases = api(
        ctx,
        "/release",
        &[
            ("release-group", mbid),
            ("status", "official"),
            ("limit", &limit),
        ],
        None,
    )?;
    let releases = Browsed::of(&releases, "releases", "release-count");
    let Some(first) = first_release(&releases) else {
        return Ok(format!(
            "{}\n\nMusicBrainz lists no official release of it, so no track list (music_search with kind \"release\" finds its other editions).",
            describe_group(&group)
        ));
    };
    let id = text(first, "id").to_string();
    let release = lookup(ctx, Entity::Release, &id, "artist-credits+recordings")?;
    Ok(describe_release(&release, Some((&group, &releases))))
}

/// A song (a recording) and the releases it is on, by a browse that also gives their number
/// (a lookup's `inc=releases` stops at 25).
fn lookup_song(ctx: &ToolContext, mbid: &str) -> Result<String, String> {
    let recording = lookup(ctx, Entity::Song, mbid, "artist-credits")?;
    let limit = MAX_RELEASES.to_string();
    let releases = api(
        ctx,
        "/release",
        &[("recording", mbid), ("limit", &limit)],
        None,
    )?;
    let releases = Browsed::of(&releases, "releases", "release-count");
    Ok(describe_recording(&recording, &releases))
}

/// One lookup; a 404 says which id was not found.
fn lookup(ctx: &ToolContext, kind: Entity, mbid: &str, inc: &str) -> Result<Value, String> {
    let (resource, _) = kind.resource();
    let missing = format!(
        "MusicBrainz has no {} with MBID {mbid}: check the id and the kind (music_search gives both).",
        kind.word()
    );
    api(
        ctx,
        &format!("/{resource}/{mbid}?inc={inc}"),
        &[],
        Some(missing),
    )
}

/// 8-4-4-4-12 hexadecimal digits.
fn is_mbid(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(part, len)| part.len() == len && part.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mbids_are_checked_before_asking() {
        let cases = [
            ("a74b1b7f-71a5-4011-9441-d0b5e4122711", true),
            ("A74B1B7F-71A5-4011-9441-D0B5E4122711", true),
            ("a74b1b7f71a5401194410b5e4122711", false),
            ("a74b1b7f-71a5-4011-9441-d0b5e412271", false),
            ("radiohead", false),
            ("../../x-71a5-4011-9441-d0b5e4122711", false),
        ];
        for (text, ok) in cases {
            assert_eq!(is_mbid(text), ok, "{text}");
        }
    }
}
