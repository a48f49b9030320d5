//! The Steam family: the store's own JSON without a key (`steam_search`, `steam_app_details`,
//! `steam_featured`, STEAM_STORE_URL) and the Steam Web API with STEAM_API_KEY
//! (`steam_user_summary`, `steam_user_games`, `steam_player_stats`, STEAM_API_URL), a person
//! given as a 64-bit SteamID, a profile address or a custom URL name. A private profile is
//! said to be one, with how to make it public.

mod player;
mod store;

use serde::Deserialize;

use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const USER: Param = Param::required(
    "user",
    Kind::String,
    "The person: a 64-bit SteamID (17 digits, 7656119…), a profile address, or the custom name of steamcommunity.com/id/<name>",
);
const APP_ID: Param = Param::required(
    "app_id",
    Kind::Integer,
    "The game's Steam app id (from steam_search, or its store address)",
);

const SEARCH_PARAMS: &[Param] = &[
    Param::required("query", Kind::String, "Words of the game's name"),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many (default 10, at most 25)",
    ),
];
const APP_PARAMS: &[Param] = &[APP_ID];
const FEATURED_PARAMS: &[Param] = &[
    Param::optional(
        "category",
        Kind::Choice(Choices::Fixed(&["specials", "top_sellers", "new_releases"])),
        "Only this list (default: all three)",
    ),
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many games a list (default 5, at most 20)",
    ),
];
const USER_PARAMS: &[Param] = &[USER];
const GAMES_PARAMS: &[Param] = &[
    USER,
    Param::optional(
        "max_results",
        Kind::Integer,
        "How many games, most played first (default 20, at most 200)",
    ),
];
const STATS_PARAMS: &[Param] = &[USER, APP_ID];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "steam",
    about: "Steam games and players",
    words: &[
        "steam",
        "pc game",
        "game sale",
        "achievement",
        "achievements",
        "playtime",
    ],
    asks: &[
        "steam deals this week",
        "how many hours have I played",
        "look up a steam game",
        "show my steam profile",
        "achievements in this game",
        "steam store page of a game",
        "featured games on steam",
        "is my friend online on steam",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("steam_search")
            .describe("Search the Steam store for games by name: app id, price, Metacritic score, platforms. Use steam_app_details for one game.")
            .offered(Offered::Everywhere)
            .params(SEARCH_PARAMS)
            .example(r#"{"query": "portal", "max_results": 5}"#)
            .handler(steam_search),
        ToolDef::build("steam_app_details")
            .describe("A Steam game's store page as facts: price (and discount), release date, developers, publishers, genres, platforms, Metacritic, short description.")
            .offered(Offered::Everywhere)
            .params(APP_PARAMS)
            .example(r#"{"app_id": 620}"#)
            .handler(steam_app_details),
        ToolDef::build("steam_featured")
            .describe("What the Steam store features now: games on special offer, top sellers and new releases, with prices and discounts.")
            .offered(Offered::Everywhere)
            .params(FEATURED_PARAMS)
            .example(r#"{"category": "specials", "max_results": 5}"#)
            .handler(steam_featured),
        ToolDef::build("steam_user_summary")
            .describe("A Steam user's profile: name, online status, the game being played, when the account was made, whether the profile is public. Needs STEAM_API_KEY.")
            .offered(Offered::Everywhere)
            .params(USER_PARAMS)
            .example(r#"{"user": "gabelogannewell"}"#)
            .handler(steam_user_summary),
        ToolDef::build("steam_user_games")
            .describe("The games a Steam user owns, most played first, with hours played in all and in the last two weeks. Needs STEAM_API_KEY and a public profile.")
            .offered(Offered::Everywhere)
            .params(GAMES_PARAMS)
            .example(r#"{"user": "76561197960435530", "max_results": 10}"#)
            .handler(steam_user_games),
        ToolDef::build("steam_player_stats")
            .describe("A Steam user's achievements in one game: how many of all are unlocked and the latest unlocks. Needs STEAM_API_KEY and a public profile.")
            .offered(Offered::Everywhere)
            .params(STATS_PARAMS)
            .example(r#"{"user": "76561197960435530", "app_id": 620}"#)
            .handler(steam_player_stats),
    ]
}

/// `asked` when it is between 1 and `max`, else `default`'s sentence.
fn within(asked: Option<i64>, default: usize, max: usize) -> Result<usize, String> {
    match asked {
        None => Ok(default),
        Some(n) if (1..=max as i64).contains(&n) => Ok(n as usize),
        Some(n) => Err(format!(
            "max_results must be between 1 and {max} (got {n})."
        )),
    }
}

fn app_id(asked: i64) -> Result<u64, String> {
    u64::try_from(asked)
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| format!("app_id must be a Steam app id such as 620 (got {asked})."))
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    max_results: Option<i64>,
}

fn steam_search(args: SearchArgs, ctx: &ToolContext) -> Result<String, String> {
    let query = args.query.trim();
    if query.is_empty() {
        return Err("The query is empty: say which game to look for.".into());
    }
    store::search(ctx, query, within(args.max_results, 10, 25)?)
}

#[derive(Deserialize)]
struct AppArgs {
    app_id: i64,
}

fn steam_app_details(args: AppArgs, ctx: &ToolContext) -> Result<String, String> {
    store::details(ctx, app_id(args.app_id)?)
}

#[derive(Deserialize)]
struct FeaturedArgs {
    category: Option<String>,
    max_results: Option<i64>,
}

fn steam_featured(args: FeaturedArgs, ctx: &ToolContext) -> Result<String, String> {
    let max = within(args.max_results, 5, 20)?;
    store::featured(ctx, args.category.as_deref(), max)
}

#[derive(Deserialize)]
struct UserArgs {
    user: String,
}

fn steam_user_summary(args: UserArgs, ctx: &ToolContext) -> Result<String, String> {
    player::summary(ctx, &args.user)
}

#[derive(Deserialize)]
struct GamesArgs {
    user: String,
    max_results: Option<i64>,
}

fn steam_user_games(args: GamesArgs, ctx: &ToolContext) -> Result<String, String> {
    let max = within(args.max_results, 20, 200)?;
    player::games(ctx, &args.user, max)
}

#[derive(Deserialize)]
struct StatsArgs {
    user: String,
    app_id: i64,
}

fn steam_player_stats(args: StatsArgs, ctx: &ToolContext) -> Result<String, String> {
    let app = app_id(args.app_id)?;
    player::achievements(ctx, &args.user, app)
}

/// Seconds since 1970 as `2024-01-15`.
fn date(seconds: i64) -> String {
    let (year, month, day) = crate::clock::civil_from_days(seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_ids_and_dates() {
        assert_eq!(within(None, 5, 20), Ok(5));
        assert_eq!(within(Some(20), 5, 20), Ok(20));
        assert!(within(Some(0), 5, 20).is_err());
        assert_eq!(app_id(620), Ok(620));
        assert!(app_id(-1).is_err());
        assert_eq!(date(1_782_145_718), "2026-06-22");
        assert_eq!(date(0), "1970-01-01");
    }
}
