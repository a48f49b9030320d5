//! search_movies and get_movie_details against a local OMDb. Real bodies, replayed byte for
//! byte from tests/fixtures/apis/ (each note says where it was recorded): the searches
//! omdb_search_interstellar (27 titles, page 1) and omdb_search_grinch_duplicate_ids (one film
//! listed twice), the title lookups omdb_title_grinch_ratings (three kinds of rating) and
//! omdb_title_no_ratings_all_na (a `t=` best match with `Ratings: []` and `N/A` everywhere),
//! and the refusals omdb_movie_not_found (in a 200), omdb_invalid_api_key and
//! omdb_401_request_limit_reached (both 401). Where nothing was recorded the bodies follow
//! OMDb's documentation and the errors its users report, kept minimal: `"Incorrect IMDb
//! ID."`, `"Too many results."`, the variant `"Daily request limit reached!"`, a proxy's 403;
//! and one body derived by hand from OMDb's error shape, an `Error` with quotes OMDb did not
//! escape, which is not JSON.

use super::{KEY, Silent, assert_fallback, call, ddg_page, portal};
use crate::common::{ReplayServer, Reply, TempDir, fixture};

fn env(server: &ReplayServer) -> Vec<(&'static str, String)> {
    vec![("OMDB_URL", server.root()), ("OMDB_API_KEY", KEY.into())]
}

/// A recorded OMDb body with `status`.
fn recorded(status: u16, name: &str) -> Reply {
    Reply::json(status, fixture(&format!("apis/{name}")))
}

#[test]
fn a_search_tells_its_pages_and_lists_each_title_once() {
    let home = TempDir::new("omdb-search");
    let server = ReplayServer::start(vec![
        recorded(200, "omdb_search_interstellar.json"),
        recorded(200, "omdb_search_grinch_duplicate_ids.json"),
    ]);
    let found = call(
        &home,
        "search_movies",
        r#"{"query": "Interstellar", "type": "movie"}"#,
        &env(&server),
    );
    // totalResults is the string "27": three pages of ten; posters ("N/A" for two) not shown.
    assert_eq!(
        found,
        "OMDb titles for 'Interstellar' (27 in all; page 1 of 3):\n\
         1. Interstellar (2014, movie) imdb_id tt0816692\n\
         2. The Science of Interstellar (2015, movie) imdb_id tt4415360\n\
         3. Interstellar Wars (2016, movie) imdb_id tt5083736\n\
         4. Lolita from Interstellar Space (2014, movie) imdb_id tt3506492\n\
         5. Interstellar: Nolan's Odyssey (2014, movie) imdb_id tt4172224\n\
         6. Interstellar Civil War: Shadows of the Empire (2017, movie) imdb_id tt5056352\n\
         7. Inside 'Interstellar' (2015, movie) imdb_id tt5297406\n\
         8. Interstellar (2005, movie) imdb_id tt0758429\n\
         9. Cosmic Journey: The Voyager Interstellar Mission and Message (2003, movie) imdb_id tt0802967\n\
         10. Only Interstellar Pinball Lives Forever (2010, movie) imdb_id tt1671674\n\n\
         Details of one with get_movie_details (its imdb_id). More titles with page 2, or fewer by adding the year or the type."
    );
    // OMDb lists tt2709692 twice: one film, shown once.
    let found = call(
        &home,
        "search_movies",
        r#"{"query": "The Grinch", "year": 2018, "type": "movie", "page": 1}"#,
        &env(&server),
    );
    assert_eq!(
        found,
        "OMDb titles for 'The Grinch':\n\
         1. The Grinch (2018, movie) imdb_id tt2709692\n\
         2. The Grinch - First Look (2018, movie) imdb_id tt9298258\n\n\
         Details of one with get_movie_details (its imdb_id)."
    );
    let asked = server.requests();
    assert_eq!(
        asked[0].url,
        format!("/?apikey={KEY}&s=Interstellar&type=movie")
    );
    assert_eq!(
        asked[1].url,
        format!("/?apikey={KEY}&s=The%20Grinch&y=2018&type=movie")
    );
}

/// Past the last page OMDb answers as for no title at all (the recorded "Movie not found!").
#[test]
fn a_later_page_is_asked_for() {
    let home = TempDir::new("omdb-page");
    let server = ReplayServer::start(vec![recorded(200, "omdb_movie_not_found.json")]);
    let text = call(
        &home,
        "search_movies",
        r#"{"query": "Interstellar", "page": 4}"#,
        &env(&server),
    );
    assert_eq!(
        text,
        "OMDb has no page 4 of titles for 'Interstellar': the earlier pages hold them all."
    );
    assert_eq!(
        server.requests()[0].url,
        format!("/?apikey={KEY}&s=Interstellar&page=4")
    );
}

#[test]
fn a_title_is_told_in_full_with_its_three_ratings() {
    let home = TempDir::new("omdb-details");
    let server = ReplayServer::start(vec![recorded(200, "omdb_title_grinch_ratings.json")]);
    let details = call(
        &home,
        "get_movie_details",
        r#"{"movie": "tt2709692"}"#,
        &env(&server),
    );
    // BoxOffice and Website are "N/A": not shown.
    assert_eq!(
        details,
        "The Grinch (2018): movie, rated PG, 85 min\n\
         Genre: Animation, Comedy, Family, Fantasy\n\
         Director: Yarrow Cheney, Scott Mosier\n\
         Writers: Michael LeSieur (screenplay by), Tommy Swerdlow (screenplay by), Dr. Seuss (based on the book \"How The Grinch Stole Christmas\" by)\n\
         Actors: Benedict Cumberbatch, Cameron Seely, Rashida Jones, Pharrell Williams\n\
         Released: 09 Nov 2018\n\
         Country: France, Japan, USA\n\
         Language: English\n\
         Ratings: IMDb 6.3/10 (43,458 votes), Rotten Tomatoes 59%, Metacritic 51/100\n\
         Awards: 1 win & 18 nominations.\n\
         IMDb: https://www.imdb.com/title/tt2709692/ (imdb_id tt2709692)\n\n\
         Plot: A grumpy Grinch (Benedict Cumberbatch) plots to ruin Christmas for the village of Whoville."
    );
    assert_eq!(
        server.requests()[0].url,
        format!("/?apikey={KEY}&i=tt2709692&plot=full")
    );
}

#[test]
fn a_title_asked_by_name_is_the_best_match_and_may_have_no_ratings() {
    let home = TempDir::new("omdb-title");
    let server = ReplayServer::start(vec![recorded(200, "omdb_title_no_ratings_all_na.json")]);
    let details = call(
        &home,
        "get_movie_details",
        r#"{"movie": "the fast and the furious", "year": 2009}"#,
        &env(&server),
    );
    assert_eq!(
        details,
        "OMDb's one best match for the title 'the fast and the furious' from 2009 is another title; if it is not the one meant, find that with search_movies and ask with its imdb_id.\n\n\
         The Fast and the Furious: Dom's Charger (2009): movie, 4 min\n\
         Genre: Short\n\
         Actors: Vin Diesel, Chris Morgan, Dennis McCarthy, Rob Cohen\n\
         Released: 24 Mar 2009\n\
         Country: USA\n\
         Language: English\n\
         Ratings: none yet (OMDb has no IMDb, Rotten Tomatoes or Metacritic rating for this title)\n\
         IMDb: https://www.imdb.com/title/tt5267212/ (imdb_id tt5267212)\n\n\
         Plot: This short delivers notes from Diesel, Cohen, Rodgers, Moritz, writer Chris Morgan, and picture car coordinator Dennis McCarthy on Dom's car from the first film and its return for the fourth film."
    );
    assert!(!details.contains("N/A"), "{details}");
    assert_eq!(
        server.requests()[0].url,
        format!("/?apikey={KEY}&t=the%20fast%20and%20the%20furious&plot=full&y=2009")
    );
}

#[test]
fn errors_inside_the_answer_are_sentences_without_the_key() {
    let home = TempDir::new("omdb-errors");
    let server = ReplayServer::start(vec![
        recorded(200, "omdb_movie_not_found.json"),
        Reply::json(200, r#"{"Response":"False","Error":"Incorrect IMDb ID."}"#),
        recorded(401, "omdb_invalid_api_key.json"),
        recorded(401, "omdb_401_request_limit_reached.json"),
        Reply::json(
            401,
            r#"{"Response":"False","Error":"Daily request limit reached!"}"#,
        ),
        Reply::json(200, r#"{"Response":"False","Error":"Too many results."}"#),
        // A refusal in a proxy's words, not OMDb's.
        Reply::json(403, "Forbidden: bad request"),
    ]);
    let env = env(&server);
    let said: Vec<String> = [
        (
            "search_movies",
            r#"{"query": "The Me You Can't See", "year": 2021}"#,
        ),
        ("get_movie_details", r#"{"movie": "tt9999999"}"#),
        ("search_movies", r#"{"query": "alien"}"#),
        ("get_movie_details", r#"{"movie": "tt0108941"}"#),
        ("get_movie_details", r#"{"movie": "Alien"}"#),
        ("search_movies", r#"{"query": "a"}"#),
        ("search_movies", r#"{"query": "alien"}"#),
    ]
    .iter()
    .map(|(tool, arguments)| call(&home, tool, arguments, &env))
    .collect();
    let quota = |said: &str| {
        format!(
            "Error: OMDb's daily request limit for the key in OMDB_API_KEY is used up ({said}): the key is fine, its quota is not (the free plan allows 1,000 requests a day). Do not ask OMDb again today; try again tomorrow, or use a key from a paid plan (https://www.omdbapi.com/apikey.aspx)."
        )
    };
    assert_eq!(
        said,
        [
            "OMDb has no title matching 'The Me You Can't See' from 2021. Try other words of the title, or the original title.".to_string(),
            "Error: OMDb knows no title with the IMDb id tt9999999: find the id with search_movies.".into(),
            "Error: OMDb refused the key in OMDB_API_KEY (Invalid API key!): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at https://www.omdbapi.com/apikey.aspx.".into(),
            quota("Request limit reached!"),
            quota("Daily request limit reached!"),
            "Error: OMDb finds too many titles for 'a': use more of the title, or add the year or the type.".into(),
            "Error: OMDb refused the key in OMDB_API_KEY (HTTP 403): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at https://www.omdbapi.com/apikey.aspx.".into(),
        ]
    );
    assert!(said.iter().all(|text| !text.contains(KEY)), "{said:?}");
}

/// OMDb does not escape quotes inside its `Error`: such a body is not JSON, and is still
/// OMDb's refusal in OMDb's words, with a 401 as with a 200. The body is derived from the
/// recorded refusals (no recording of one with quotes was found).
#[test]
fn a_refusal_that_is_not_json_is_still_omdbs_refusal() {
    let home = TempDir::new("omdb-not-json");
    let body = r#"{"Response":"False","Error":"Something "quoted" went wrong."}"#;
    let server = ReplayServer::start(vec![Reply::json(401, body), Reply::json(200, body)]);
    for _ in 0..2 {
        let text = call(
            &home,
            "search_movies",
            r#"{"query": "alien"}"#,
            &env(&server),
        );
        assert_eq!(
            text,
            "Error: OMDb refused the request (Something \"quoted\" went wrong.): check the title, year and type asked for, and if they are right, try again later."
        );
    }
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
