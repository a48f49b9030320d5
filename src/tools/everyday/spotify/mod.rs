//! Spotify (seed 002 §3 spotify.ts): `spotify_auth` signs the user in once (Authorization
//! Code with PKCE, the callback on 127.0.0.1), then `spotify_search` finds tracks, albums,
//! artists and playlists, `spotify_create_playlist` and `spotify_add_tracks` build playlists in
//! the user's account. Every call goes through the one web client (SPOTIFY_API_URL,
//! SPOTIFY_ACCOUNTS_URL) with the profile's token, renewed before it expires.

mod api;
mod auth;
mod playlists;
mod search;
mod token;
mod uris;

use serde::Deserialize;

use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const SEARCH_PARAMS: &[Param] = &[
    Param::required(
        "query",
        Kind::String,
        "What to look for: words, or Spotify's filters such as artist:Muse year:2006",
    ),
    Param::optional(
        "type",
        Kind::Choice(Choices::Fixed(&["track", "album", "artist", "playlist"])),
        "What to find (default track)",
    ),
    Param::optional("limit", Kind::Integer, "How many results, 1-10 (default 5)"),
];

const CREATE_PARAMS: &[Param] = &[
    Param::required("name", Kind::String, "The playlist's name"),
    Param::optional(
        "description",
        Kind::String,
        "A description shown under its name",
    ),
    Param::optional(
        "public",
        Kind::Boolean,
        "Whether it appears on the user's profile (default false: private)",
    ),
];

const ADD_PARAMS: &[Param] = &[
    Param::required(
        "playlist_id",
        Kind::String,
        "The playlist: its id, spotify:playlist: URI or open.spotify.com link",
    ),
    Param::required(
        "tracks",
        Kind::StringList,
        "Tracks to add, in order: ids, spotify:track: URIs or open.spotify.com/track links",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "spotify",
    about: "Spotify music and playlists",
    words: &[
        "spotify",
        "playlist",
        "playlists",
        "~play",
        "song",
        "songs",
        "music",
        "track",
        "tracks",
        "album",
        "albums",
        "listen",
        "artist",
        "band",
        "singer",
        "tune",
        "tunes",
        "jazz",
        "rock",
        "pop",
        "hip hop",
        "rap",
        "classical",
        "radio",
        "dj",
        "genre",
        "hear",
        "put on",
        "shuffle",
        "indie",
        "country",
        "metal",
        "blues",
        "reggae",
        "punk",
        "soul",
        "folk",
        "edm",
        "techno",
        "house music",
        "disco",
        "opera",
        "symphony",
        "concerto",
        "piano",
    ],
    asks: &[
        "play the top hits",
        "play a track",
        "play a song by an artist",
        "put on my workout playlist",
        "add this song to my playlist",
        "find an album on spotify",
        "make a playlist for the road trip",
        "what am I listening to",
        "queue this album",
        "connect spotify",
        "sign in to my music streaming account",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("spotify_auth")
            .describe("Sign the user in to Spotify (once per profile): shows them a Spotify address to open in a browser and waits until they have signed in. Needed before the other spotify_ tools; run it when they say Marvin is not signed in.")
            .offered(Offered::Everywhere)
            .writes()
            .example("{}")
            .handler(spotify_auth),
        ToolDef::build("spotify_search")
            .describe("Search Spotify for tracks, albums, artists or playlists: names, artists, album, length, and the spotify: URI and open.spotify.com link of each (URIs are what spotify_add_tracks takes).")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "Supermassive Black Hole Muse", "type": "track", "limit": 5}"#)
            .handler(search::spotify_search),
        ToolDef::build("spotify_create_playlist")
            .describe("Create a new, empty playlist in the user's Spotify account (private unless asked otherwise); returns its id and link for spotify_add_tracks.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CREATE_PARAMS)
            .example(r#"{"name": "Road trip", "description": "Songs for the drive", "public": false}"#)
            .handler(playlists::create_playlist),
        ToolDef::build("spotify_add_tracks")
            .describe("Add tracks to one of the user's Spotify playlists, in the order given (any number: sent 100 at a time).")
            .offered(Offered::Everywhere)
            .writes()
            .params(ADD_PARAMS)
            .example(r#"{"playlist_id": "3cEYpjA9oz9GiPac4AsH4n", "tracks": ["spotify:track:3lPr8ghNDBLc2uZovNyLs9", "https://open.spotify.com/track/7ouMYWpwJ422jRcDASZB7P"]}"#)
            .handler(playlists::add_tracks),
    ]
}

#[derive(Deserialize)]
struct NoArgs {}

fn spotify_auth(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    auth::spotify_auth(ctx)
}
