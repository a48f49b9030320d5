//! search_movies and get_movie_details against a local OMDb. Nothing of OMDb was recorded, so
//! these bodies follow its documentation (www.omdbapi.com, "Parameters" and "Examples": `s=`
//! answers `{"Search": [{Title, Year, imdbID, Type, Poster}], "totalResults": "<string>",
//! "Response": "True"}`; `i=`/`t=` with `plot=full` answer one title's fields as strings, `N/A`
//! where unknown, `Ratings` as `[{Source, Value}]`) and the errors OMDb is known to send inside
//! its JSON, with a 200 or a 401 (`{"Response":"False","Error":"Movie not found!"}`,
//! `"Invalid API key!"`, `"Incorrect IMDb ID."`, `"Request limit reached!"`), kept minimal.

use super::{KEY, Silent, assert_fallback, call, ddg_page, portal};
use crate::common::{ReplayServer, Reply, TempDir};

const SEARCH: &str = r#"{"Search":[{"Title":"Blade Runner","Year":"1982","imdbID":"tt0083658","Type":"movie","Poster":"https://m.media-amazon.com/images/M/blade-runner.jpg"},{"Title":"Blade Runner 2049","Year":"2017","imdbID":"tt1856101","Type":"movie","Poster":"N/A"}],"totalResults":"54","Response":"True"}"#;

const DETAILS: &str = r#"{"Title":"Blade Runner","Year":"1982","Rated":"R","Released":"25 Jun 1982","Runtime":"117 min","Genre":"Action, Drama, Sci-Fi","Director":"Ridley Scott","Writer":"Hampton Fancher, David Webb Peoples, Philip K. Dick","Actors":"Harrison Ford, Rutger Hauer, Sean Young","Plot":"A blade runner must pursue and terminate four replicants who stole a ship in space and have returned to Earth to find their creator.","Language":"English, German, Cantonese","Country":"United States","Awards":"Nominated for 2 Oscars. 13 wins & 22 nominations total","Poster":"https://m.media-amazon.com/images/M/blade-runner.jpg","Ratings":[{"Source":"Internet Movie Database","Value":"8.1/10"},{"Source":"Rotten Tomatoes","Value":"89%"},{"Source":"Metacritic","Value":"84/100"}],"Metascore":"84","imdbRating":"8.1","imdbVotes":"826,224","imdbID":"tt0083658","Type":"movie","DVD":"N/A","BoxOffice":"$32,914,489","Production":"N/A","Website":"N/A","Response":"True"}"#;

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("OMDB_URL", server.root()), ("OMDB_API_KEY", KEY.into())]
}

#[test]
fn titles_are_found_and_one_is_told_in_full() {
    let home = TempDir::new("omdb-found");
    let server = ReplayServer::start(vec![Reply::json(200, SEARCH), Reply::json(200, DETAILS)]);
    let found = call(
        &home,
        "search_movies",
        r#"{"query": "blade runner", "year": 1982, "type": "movie"}"#,
        &env(&server),
    );
    assert_eq!(
        found,
        "OMDb titles for 'blade runner' (54 in all, the first 2):\n\
         1. Blade Runner (1982, movie) imdb_id tt0083658\n\
         2. Blade Runner 2049 (2017, movie) imdb_id tt1856101\n\n\
         Details of one with get_movie_details (its imdb_id)."
    );
    let details = call(
        &home,
        "get_movie_details",
        r#"{"movie": "tt0083658"}"#,
        &env(&server),
    );
    assert_eq!(
        details,
        "Blade Runner (1982): movie, rated R, 117 min\n\
         Genre: Action, Drama, Sci-Fi\n\
         Director: Ridley Scott\n\
         Writers: Hampton Fancher, David Webb Peoples, Philip K. Dick\n\
         Actors: Harrison Ford, Rutger Hauer, Sean Young\n\
         Released: 25 Jun 1982\n\
         Country: United States\n\
         Language: English, German, Cantonese\n\
         Ratings: IMDb 8.1/10 (826,224 votes), Rotten Tomatoes 89%, Metacritic 84/100\n\
         Box office: $32,914,489\n\
         Awards: Nominated for 2 Oscars. 13 wins & 22 nominations total\n\
         IMDb: https://www.imdb.com/title/tt0083658/ (imdb_id tt0083658)\n\n\
         Plot: A blade runner must pursue and terminate four replicants who stole a ship in space and have returned to Earth to find their creator."
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/?apikey={KEY}&s=blade%20runner&y=1982&type=movie")
    );
    assert_eq!(
        asked[1].url,
        format!("/?apikey={KEY}&i=tt0083658&plot=full")
    );
}

#[test]
fn a_title_is_asked_by_name_with_its_year() {
    let home = TempDir::new("omdb-title");
    let server = ReplayServer::start(vec![Reply::json(200, DETAILS)]);
    let details = call(
        &home,
        "get_movie_details",
        r#"{"movie": "Blade Runner", "year": 1982}"#,
        &env(&server),
    );
    assert!(
        details.starts_with("Blade Runner (1982): movie"),
        "{details}"
    );
    assert_eq!(
        server.requests()[0].url,
        format!("/?apikey={KEY}&t=Blade%20Runner&plot=full&y=1982")
    );
}

#[test]
fn errors_inside_the_answer_are_sentences_without_the_key() {
    let home = TempDir::new("omdb-errors");
    let server = ReplayServer::start(vec![
        Reply::json(200, r#"{"Response":"False","Error":"Movie not found!"}"#),
        Reply::json(200, r#"{"Response":"False","Error":"Incorrect IMDb ID."}"#),
        Reply::json(401, r#"{"Response":"False","Error":"Invalid API key!"}"#),
        Reply::json(
            401,
            r#"{"Response":"False","Error":"Request limit reached!"}"#,
        ),
        Reply::json(200, r#"{"Response":"False","Error":"Too many results."}"#),
        // A refusal in a proxy's words, not OMDb's.
        Reply::json(403, "Forbidden: bad request"),
    ]);
    let env = env(&server);
    let said: Vec<String> = [
        (
            "search_movies",
            r#"{"query": "zzqx frobnicate", "year": 2001}"#,
        ),
        ("get_movie_details", r#"{"movie": "tt9999999"}"#),
        ("search_movies", r#"{"query": "alien"}"#),
        ("get_movie_details", r#"{"movie": "Alien"}"#),
        ("search_movies", r#"{"query": "a"}"#),
        ("search_movies", r#"{"query": "alien"}"#),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    assert_eq!(
        said,
        [
            "OMDb has no title matching 'zzqx frobnicate' from 2001. Try other words of the title, or the original title.",
            "Error: OMDb knows no title with the IMDb id tt9999999: find the id with search_movies.",
            "Error: OMDb refused the key in OMDB_API_KEY (Invalid API key!): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at https://www.omdbapi.com/apikey.aspx.",
            "Error: OMDb's daily limit for this key is reached (Request limit reached!; the free plan allows 1,000 requests a day). Try again tomorrow.",
            "Error: OMDb finds too many titles for 'a': use more of the title, or add the year or the type.",
            "Error: OMDb refused the key in OMDB_API_KEY (HTTP 403): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at https://www.omdbapi.com/apikey.aspx.",
        ]
    );
    assert!(said.iter().all(|text| !text.contains(KEY)), "{said:?}");
}

#[test]
fn without_a_key_the_web_is_searched_and_says_so() {
    let home = TempDir::new("omdb-fallback");
    let omdb = ReplayServer::unused();
    let ddg = ReplayServer::start(vec![ddg_page()]);
    let text = call(
        &home,
        "search_movies",
        r#"{"query": "blade runner", "year": 1982}"#,
        &[("OMDB_URL", omdb.root()), ("DDG_URL", ddg.root())],
    );
    assert_fallback(
        &text,
        "OMDB_API_KEY",
        "OMDb",
        &ddg,
        "blade%20runner%201982%20film%20imdb",
    );
    assert!(
        text.contains("(a free key from https://www.omdbapi.com/apikey.aspx)"),
        "{text}"
    );
    let ddg = ReplayServer::start(vec![ddg_page()]);
    let text = call(
        &home,
        "get_movie_details",
        r#"{"movie": "tt0083658"}"#,
        &[("OMDB_URL", omdb.root()), ("DDG_URL", ddg.root())],
    );
    assert_fallback(
        &text,
        "OMDB_API_KEY",
        "OMDb",
        &ddg,
        "tt0083658%20film%20cast%20plot",
    );
}

#[test]
fn a_web_page_instead_of_data_and_a_silent_server() {
    let home = TempDir::new("omdb-portal");
    let server = ReplayServer::start(vec![portal()]);
    let text = call(
        &home,
        "search_movies",
        r#"{"query": "alien"}"#,
        &env(&server),
    );
    assert!(
        text.starts_with("Error: OMDb answered with a web page instead of data (HTTP 200)"),
        "{text}"
    );
    assert!(text.contains("OMDB_URL") && !text.contains(KEY), "{text}");
    let silent = Silent::start();
    let text = call(
        &home,
        "get_movie_details",
        r#"{"movie": "tt0083658"}"#,
        &[
            ("OMDB_URL", silent.url()),
            ("OMDB_API_KEY", KEY.into()),
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
        ],
    );
    assert_eq!(
        text,
        "Error: OMDb request timed out after 1s. Try again or rephrase query."
    );
}
