//! music_search and music_lookup against a local MusicBrainz. The answers are built from
//! MusicBrainz's documentation (musicbrainz.org/doc/MusicBrainz_API, its Search and Examples
//! pages; see tests/fixtures/apis/musicbrainz.md), nothing was recorded.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{built, call, portal};
use crate::common::tools::call_unanswered;
use crate::common::tools::run;
use crate::common::{ReplayServer, Reply, TempDir};

const RADIOHEAD: &str = "a74b1b7f-71a5-4011-9441-d0b5e4122711";
const OK_COMPUTER: &str = "b1392450-e666-3926-a536-22c65f834433";

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("MUSICBRAINZ_URL", server.root())]
}

#[test]
fn artists_are_found_with_what_tells_namesakes_apart() {
    let home = TempDir::new("music-search");
    let server = ReplayServer::start(vec![built(200, "musicbrainz_search_artist.json")]);
    let text = call(
        &home,
        "music_search",
        r#"{"query": "nirvana", "kind": "artist", "limit": 2}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "MusicBrainz artists for 'nirvana' (2 of 2):\n\n\
         1. Nirvana (90s US grunge band) — Group, United States (US), 1987–1994-04-05 [score 100]\n   \
         MBID 5b11f4ce-a62d-471e-81fc-a69a8278c7da\n\n\
         2. Nirvana (60s band from the UK) — Group, United Kingdom (GB), 1967– [score 88]\n   \
         MBID 9282c8b4-ca0b-4c6b-b7e3-4f7762dfc4d6\n\n\
         Look one up with music_lookup (kind \"artist\", mbid)."
    );
    let asked = &server.requests()[0];
    assert_eq!(asked.url, "/artist?query=nirvana&limit=2&fmt=json");
    let agent = asked.header("User-Agent").unwrap_or_default();
    assert!(agent.starts_with("marvin/"), "{agent}");
}

#[test]
fn an_artist_comes_with_its_albums_oldest_first() {
    let home = TempDir::new("music-artist");
    let server = ReplayServer::start(vec![
        built(200, "musicbrainz_artist_lookup.json"),
        built(200, "musicbrainz_browse_release_groups_by_artist.json"),
    ]);
    let text = call(
        &home,
        "music_lookup",
        &format!(r#"{{"mbid": "{RADIOHEAD}", "kind": "artist"}}"#),
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "Radiohead — Group\n\
             Area: United Kingdom (GB)\n\
             Active: 1991–\n\
             Genres: art rock, alternative rock, rock\n\
             Albums (3):\n  \
             1993-02-22  Pablo Honey  (MBID 1b022e01-4da6-387b-8658-8678046e4cef)\n  \
             1997-05-21  OK Computer  (MBID {OK_COMPUTER})\n  \
             2001-11-12  I Might Be Wrong: Live Recordings [Album + Live]  (MBID 6e335887-60ba-38f0-95af-fae7774336bf)\n\
             MBID {RADIOHEAD}"
        )
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/artist/{RADIOHEAD}?inc=genres+tags&fmt=json")
    );
    assert_eq!(
        asked[1].url,
        format!("/release-group?artist={RADIOHEAD}&type=album&limit=100&fmt=json"),
        "a lookup's inc=release-groups stops at 25: the albums come by a browse"
    );
}

#[test]
fn an_album_shows_the_tracks_of_its_first_official_release() {
    let home = TempDir::new("music-album");
    let server = ReplayServer::start(vec![
        built(200, "musicbrainz_release_group_lookup.json"),
        built(200, "musicbrainz_browse_releases_by_release_group.json"),
        built(200, "musicbrainz_release_lookup.json"),
    ]);
    let text = call(
        &home,
        "music_lookup",
        &format!(r#"{{"mbid": "{OK_COMPUTER}", "kind": "album"}}"#),
        &env(&server),
    );
    assert_eq!(
        text,
        format!(
            "OK Computer — by Radiohead, Album, first released 1997-05-21\n\
             MBID {OK_COMPUTER}\n\n\
             2 official releases of it; the tracks of the earliest, OK Computer (by Radiohead, 1997-05-21, GB, Official), release MBID 52709206-8816-3c12-9ff6-f957f2f1eecf:\n\
             CD 1:\n  \
             1. Airbag 4:44\n  \
             2. Paranoid Android 6:23\n  \
             3. Subterranean Homesick Alien 4:27\n\
             Total length 15:34"
        )
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/release-group/{OK_COMPUTER}?inc=artist-credits&fmt=json")
    );
    assert_eq!(
        asked[1].url,
        format!("/release?release-group={OK_COMPUTER}&status=official&limit=100&fmt=json")
    );
    assert_eq!(
        asked[2].url,
        "/release/52709206-8816-3c12-9ff6-f957f2f1eecf?inc=artist-credits+recordings&fmt=json"
    );
}

#[test]
fn a_song_lists_its_releases() {
    let home = TempDir::new("music-song");
    let server = ReplayServer::start(vec![
        built(200, "musicbrainz_recording_lookup.json"),
        built(200, "musicbrainz_browse_releases_by_recording.json"),
    ]);
    let text = call(
        &home,
        "music_lookup",
        r#"{"mbid": "4d7d8a24-3f5e-4d8f-8a6d-6e0f8c8c0b33", "kind": "song"}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "Paranoid Android — by Radiohead, 6:23, first released 1997-05-21\n\
         MBID 4d7d8a24-3f5e-4d8f-8a6d-6e0f8c8c0b33\n\
         On 2 releases:\n  \
         Paranoid Android (1997-05-26, GB, Official)  release MBID 3c9f2a1b-5d6e-4f70-8a9b-0c1d2e3f4a66\n  \
         OK Computer (1997-05-21, GB, Official)  release MBID 52709206-8816-3c12-9ff6-f957f2f1eecf"
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        "/recording/4d7d8a24-3f5e-4d8f-8a6d-6e0f8c8c0b33?inc=artist-credits&fmt=json"
    );
    assert_eq!(
        asked[1].url,
        "/release?recording=4d7d8a24-3f5e-4d8f-8a6d-6e0f8c8c0b33&limit=15&fmt=json"
    );
}

/// MusicBrainz's lookups stop at 25 linked entities: an artist with more albums than a browse
/// returns at once is said to have them all, counted from `release-group-count`. The browse
/// answer is made here: 100 albums of the 112 it counts.
#[test]
fn an_artist_with_more_albums_than_one_answer_says_how_many_there_are() {
    let home = TempDir::new("music-many-albums");
    let groups: Vec<String> = (0..100)
        .map(|i| {
            format!(
                r#"{{"id":"00000000-0000-4000-8000-{i:012}","title":"Album {i}","primary-type":"Album","secondary-types":[],"first-release-date":"{}-01-01","disambiguation":""}}"#,
                1900 + i
            )
        })
        .collect();
    let browse = format!(
        r#"{{"release-group-count":112,"release-group-offset":0,"release-groups":[{}]}}"#,
        groups.join(",")
    );
    let server = ReplayServer::start(vec![
        built(200, "musicbrainz_artist_lookup.json"),
        Reply::json(200, browse),
    ]);
    let text = call(
        &home,
        "music_lookup",
        &format!(r#"{{"mbid": "{RADIOHEAD}", "kind": "artist"}}"#),
        &env(&server),
    );
    assert!(
        text.contains(
            "\nAlbums (100 of 112, as many as MusicBrainz returns at once):\n  \
             1900-01-01  Album 0  (MBID 00000000-0000-4000-8000-000000000000)\n"
        ),
        "{text}"
    );
    assert!(text.contains("  1999-01-01  Album 99  (MBID "), "{text}");
}

#[test]
fn nothing_found_errors_html_and_silence() {
    let home = TempDir::new("music-errors");
    let server = ReplayServer::start(vec![
        built(200, "musicbrainz_search_release_group_empty.json"),
        built(404, "musicbrainz_error_404.json"),
        built(503, "musicbrainz_error_503.json"),
        Reply::json(
            400,
            r#"{"error":"Invalid mbid.","help":"For usage, please see: https://musicbrainz.org/development/mmd"}"#,
        ),
        portal(),
    ]);
    let env = env(&server);
    let unknown = r#"{"mbid": "00000000-0000-0000-0000-000000000000", "kind": "release"}"#;
    let said: Vec<String> = [
        (
            "music_search",
            r#"{"query": "zzqx frobnicate", "kind": "album"}"#,
        ),
        ("music_lookup", unknown),
        ("music_search", r#"{"query": "x", "kind": "song"}"#),
        (
            "music_lookup",
            r#"{"mbid": "00000000-0000-0000-0000-00000000000A", "kind": "song"}"#,
        ),
        ("music_search", r#"{"query": "x", "kind": "artist"}"#),
        ("music_lookup", r#"{"mbid": "radiohead", "kind": "artist"}"#),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    assert_eq!(
        said[0],
        "MusicBrainz found no albums for 'zzqx frobnicate'. Try other words or spelling, or another kind (artist, album, song, release)."
    );
    assert_eq!(
        said[1],
        "Error: MusicBrainz has no release with MBID 00000000-0000-0000-0000-000000000000: check the id and the kind (music_search gives both)."
    );
    assert_eq!(
        said[2],
        "Error: MusicBrainz is limiting requests (HTTP 503, at most one a second): wait a few seconds and try again."
    );
    assert_eq!(
        said[3],
        "Error: MusicBrainz answered HTTP 400: Invalid mbid."
    );
    assert!(
        said[4].starts_with("Error: MusicBrainz answered with a web page instead of data"),
        "{}",
        said[4]
    );
    assert!(said[4].contains("MUSICBRAINZ_URL"), "{}", said[4]);
    assert!(
        said[5].starts_with("Error: 'radiohead' is not a MusicBrainz id"),
        "{}",
        said[5]
    );
    assert_eq!(server.requests().len(), 5, "a malformed MBID is not sent");
    let timed_out = call_unanswered(
        &home,
        "music_search",
        r#"{"query": "x", "kind": "artist"}"#,
        "MUSICBRAINZ_URL",
    );
    assert_eq!(
        timed_out,
        "Error: MusicBrainz request timed out after 1s. Try again or rephrase query."
    );
}

/// MusicBrainz allows one request a second: two searches the model makes in one round (which
/// run in parallel) reach it about a second apart. Only a lower bound, well under the second.
#[test]
fn parallel_calls_are_paced_one_a_second() {
    let home = TempDir::new("music-pace");
    let arrivals: Arc<Mutex<Vec<Instant>>> = Arc::default();
    let seen = Arc::clone(&arrivals);
    let body = crate::common::fixture("apis/musicbrainz_search_artist.json");
    let server = ReplayServer::answering(move |_| {
        seen.lock().unwrap().push(Instant::now());
        Reply::json(200, body.clone())
    });
    let search = r#"{"query": "nirvana", "kind": "artist"}"#;
    let done = run(
        &home,
        &[("1", "music_search", search), ("2", "music_search", search)],
        &env(&server),
    );
    assert_eq!(done.results.len(), 2, "{}", done.stderr());
    for result in &done.results {
        assert!(result.starts_with("MusicBrainz artists"), "{result}");
    }
    let arrivals = arrivals.lock().unwrap();
    assert_eq!(arrivals.len(), 2);
    let gap = arrivals[1].duration_since(arrivals[0]);
    assert!(gap >= Duration::from_millis(800), "{gap:?} apart");
}
