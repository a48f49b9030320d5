//! The films and games family: `search_movies` and `get_movie_details` through OMDb
//! (OMDB_API_KEY), `search_games` and `get_game_details` through RAWG (RAWG_API_KEY). Without
//! its key a tool searches the web with DuckDuckGo instead (web_search's own search) and says
//! first that the answer is that fallback and which variable gives the real data.

mod omdb;
mod rawg;

use serde::Deserialize;

use crate::services::{OMDB, RAWG, Service};
use crate::tools::everyday::web;
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

/// Results of a web-search fallback.
const FALLBACK_RESULTS: usize = 5;
const DEFAULT_GAMES: i64 = 10;
/// OMDb's last page of a search.
const MAX_MOVIE_PAGE: i64 = 100;
/// RAWG's largest page.
const MAX_GAMES: i64 = 40;

const MOVIE_SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "Words of the title"),
    Param::optional("year", Kind::Integer, "The year of release"),
    Param::optional(
        "type",
        Kind::Choice(Choices::Fixed(&["movie", "series", "episode"])),
        "Only films, series or episodes",
    ),
    Param::optional(
        "page",
        Kind::Integer,
        "Which page of ten titles (default 1), when there are more",
    ),
];
const MOVIE_PARAMS: &[Param] = &[
    Param::required(
        "movie",
        Kind::String,
        "An IMDb id such as tt0083658 (from search_movies), or a title",
    ),
    Param::optional(
        "year",
        Kind::Integer,
        "The year of release, to pick among titles of the same name",
    ),
];
const GAME_SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "Words of the game's name"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many games (default 10, at most 40)",
    ),
];
const GAME_PARAMS: &[Param] = &[Param::required(
    "game",
    Kind::String,
    "The game's RAWG id (from search_games), its slug (grand-theft-auto-v) or its name",
)];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "media",
    about: "films and video games",
    words: &[
        "movie",
        "movies",
        "film",
        "films",
        "cinema",
        "theater",
        "theatre",
        "theaters",
        "actor",
        "actress",
        "director",
        "imdb",
        "showtimes",
        "blockbuster",
        "comedy",
        "romantic comedy",
        "thriller",
        "horror",
        "documentary",
        "trailer",
        "box office",
        "sequel",
        "~rating",
        "~watch",
        "watching",
        "tv show",
        "series",
        "game",
        "games",
        "video game",
        "playstation",
        "xbox",
        "nintendo",
    ],
    asks: &[
        "what's a good film to watch",
        "who's in the cast of this movie",
        "rating of this film",
        "movies like inception",
        "is this series any good",
        "tell me about this video game",
        "what films did this director make",
        "what's showing at the cinema",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("search_movies")
            .describe("Find films and series by title (OMDb): title, year, type and IMDb id. Use get_movie_details for the plot, cast and ratings.")
            .offered(Offered::Everywhere)
            .params(MOVIE_SEARCH_PARAMS)
            .example(r#"{"query": "blade runner", "type": "movie"}"#)
            .handler(search_movies),
        ToolDef::build("get_movie_details")
            .describe("A film's or series' details (OMDb): year, rating, runtime, genre, director, writers, actors, plot, IMDb/Rotten Tomatoes/Metacritic ratings, box office.")
            .offered(Offered::Everywhere)
            .params(MOVIE_PARAMS)
            .example(r#"{"movie": "tt0083658"}"#)
            .handler(get_movie_details),
        ToolDef::build("search_games")
            .describe("Find video games by name (RAWG): release date, rating, Metacritic score, platforms, genres and RAWG id. Use get_game_details for one game's description and makers.")
            .offered(Offered::Everywhere)
            .params(GAME_SEARCH_PARAMS)
            .example(r#"{"query": "witcher 3", "max_results": 5}"#)
            .handler(search_games),
        ToolDef::build("get_game_details")
            .describe("A video game's details (RAWG): release date, rating, Metacritic score, platforms, genres, developers, publishers, description, website.")
            .offered(Offered::Everywhere)
            .params(GAME_PARAMS)
            .example(r#"{"game": "the-witcher-3-wild-hunt"}"#)
            .handler(get_game_details),
    ]
}

/// Without `service`'s key: DuckDuckGo's results for `query`, after a sentence saying that
/// this is a fallback and what gives the real data.
fn fallback(
    ctx: &ToolContext,
    service: &Service,
    get_key: &str,
    query: &str,
) -> Result<String, String> {
    let var = service
        .credential
        .variables()
        .first()
        .copied()
        .unwrap_or_default();
    let name = service.name;
    match web::search_text(&ctx.settings.web, query, FALLBACK_RESULTS, &ctx.cancel) {
        Ok(results) => Ok(format!(
            "{var} is not set, so this is a web-search fallback (DuckDuckGo), not {name}'s data: set {var} (a free key from {get_key}) for real results.\n\n{results}"
        )),
        Err(error) => Err(format!(
            "{var} is not set (a free key from {get_key} gives {name}'s data), and the web-search fallback failed: {error}"
        )),
    }
}

fn nonempty<'a>(text: &'a str, what: &str) -> Result<&'a str, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("The {what} is empty: say what to look for."));
    }
    Ok(text)
}

fn year_of(year: Option<i64>) -> Result<Option<String>, String> {
    match year {
        None => Ok(None),
        Some(y) if (1870..=2100).contains(&y) => Ok(Some(y.to_string())),
        Some(y) => Err(format!("year must be a year such as 1982 (got {y}).")),
    }
}

#[derive(Deserialize)]
struct MovieSearchArgs {
    query: String,
    year: Option<i64>,
    #[serde(rename = "type")]
    kind: Option<String>,
    page: Option<i64>,
}

fn search_movies(args: MovieSearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = nonempty(&args.query, "query")?;
    let year = year_of(args.year)?;
    let Some(key) = ctx.settings.web.key(&OMDB) else {
        let kind = match args.kind.as_deref() {
            Some("series") => "TV series",
            Some("episode") => "episode",
            _ => "film",
        };
        let words = [query, year.as_deref().unwrap_or_default(), kind, "imdb"];
        return fallback(ctx, &OMDB, omdb::GET_KEY, &join_words(&words));
    };
    let page = match args.page.unwrap_or(1) {
        n if (1..=MAX_MOVIE_PAGE).contains(&n) => n,
        n => {
            return Err(format!(
                "page must be between 1 and {MAX_MOVIE_PAGE} (got {n})."
            ));
        }
    };
    let asked = omdb::Search {
        query,
        year: year.as_deref(),
        kind: args.kind.as_deref(),
        page,
    };
    omdb::search(ctx, &key, &asked)
}

#[derive(Deserialize)]
struct MovieArgs {
    movie: String,
    year: Option<i64>,
}

fn get_movie_details(args: MovieArgs, ctx: &ToolContext) -> Result<String, String> {
    let movie = nonempty(&args.movie, "movie")?;
    let year = year_of(args.year)?;
    let Some(key) = ctx.settings.web.key(&OMDB) else {
        let words = [movie, year.as_deref().unwrap_or_default(), "film cast plot"];
        return fallback(ctx, &OMDB, omdb::GET_KEY, &join_words(&words));
    };
    omdb::details(ctx, &key, movie, year.as_deref())
}

#[derive(Deserialize)]
struct GameSearchArgs {
    query: String,
    max_results: Option<i64>,
}

fn search_games(args: GameSearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = nonempty(&args.query, "query")?;
    let max = match args.max_results.unwrap_or(DEFAULT_GAMES) {
        n if (1..=MAX_GAMES).contains(&n) => n.to_string(),
        n => {
            return Err(format!(
                "max_results must be between 1 and {MAX_GAMES} (got {n})."
            ));
        }
    };
    let Some(key) = ctx.settings.web.key(&RAWG) else {
        return fallback(
            ctx,
            &RAWG,
            rawg::GET_KEY,
            &join_words(&[query, "video game"]),
        );
    };
    rawg::search(ctx, &key, query, &max)
}

#[derive(Deserialize)]
struct GameArgs {
    game: String,
}

fn get_game_details(args: GameArgs, ctx: &ToolContext) -> Result<String, String> {
    let game = nonempty(&args.game, "game")?;
    let Some(key) = ctx.settings.web.key(&RAWG) else {
        let words = [game, "video game release developer publisher"];
        return fallback(ctx, &RAWG, rawg::GET_KEY, &join_words(&words));
    };
    rawg::details(ctx, &key, game)
}

/// The words that are not empty, with spaces between.
fn join_words(words: &[&str]) -> String {
    let words: Vec<&str> = words.iter().copied().filter(|w| !w.is_empty()).collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_and_words() {
        assert_eq!(year_of(None), Ok(None));
        assert_eq!(year_of(Some(1982)), Ok(Some("1982".into())));
        assert!(year_of(Some(82)).is_err());
        assert_eq!(join_words(&["a", "", "b c"]), "a b c");
        assert!(nonempty("  ", "query").is_err());
    }
}
