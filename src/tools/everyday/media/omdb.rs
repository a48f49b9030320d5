//! OMDb (www.omdbapi.com): a search by title (`s=`) and one title's details (`i=` or `t=`,
//! `plot=full`), read into text. OMDb says what went wrong inside its JSON, with a 200 or a
//! 401 (`{"Response":"False","Error":"Movie not found!"}`, `"Invalid API key!"`, `"Request
//! limit reached!"`), sometimes with an unescaped quote that breaks the JSON: nothing found
//! is an answer, the rest one sentence each, never with the key. A search may list a title
//! twice (shown once); `N/A` is nothing, and a title without ratings says so.

use serde_json::Value;

use crate::services::OMDB;
use crate::tools::ToolContext;
use crate::tools::kit::web::Call;

/// Where a key comes from.
pub(super) const GET_KEY: &str = "https://www.omdbapi.com/apikey.aspx";

/// What OMDb answered: a title or a list, or that it has nothing of the kind.
#[derive(Debug, PartialEq)]
enum Answer {
    Found(Value),
    Nothing,
}

/// One request (the key added); `asked` is what the person asked for, for the sentences.
fn ask(
    ctx: &ToolContext,
    key: &str,
    pairs: &[(&str, &str)],
    asked: &str,
) -> Result<Answer, String> {
    let web = &ctx.settings.web;
    let mut query = vec![("apikey", key)];
    query.extend_from_slice(pairs);
    let call = Call {
        query: &query,
        ..Call::default()
    };
    let fetched = web.call(&OMDB, "/", &call, &ctx.cancel)?;
    let value = serde_json::from_slice::<Value>(&fetched.body)
        .ok()
        .or_else(|| loose_refusal(&fetched.text()));
    if let Some(answer) = value.and_then(|value| read(value, asked)) {
        return answer.map_err(|message| web.redact(&OMDB, &message));
    }
    // A refusal without OMDb's own words (a proxy's page, a bare 401 or 403).
    if matches!(fetched.status, 401 | 403) {
        return Err(format!(
            "OMDb refused the key in OMDB_API_KEY (HTTP {}): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at {GET_KEY}.",
            fetched.status
        ));
    }
    web.read_json(&OMDB, &fetched).map(Answer::Found)
}

/// The answer of a JSON body that says whether it holds anything (`Response`); `None` for a
/// body that does not.
fn read(value: Value, asked: &str) -> Option<Result<Answer, String>> {
    match value.get("Response").and_then(Value::as_str) {
        Some("True") => Some(Ok(Answer::Found(value))),
        Some(_) => {
            let said = value["Error"].as_str().unwrap_or("no reason given");
            Some(refusal(said, asked))
        }
        None => None,
    }
}

/// OMDb's refusal in a body that is not JSON (an `Error` with a quote it did not escape, as
/// in `{"Response":"False","Error":"Something "quoted" went wrong."}`), read as the JSON
/// it meant; `None` unless the body says `"Response":"False"`.
fn loose_refusal(body: &str) -> Option<Value> {
    if loose_string(body, "Response")? != "False" {
        return None;
    }
    let error = loose_string(body, "Error").unwrap_or_else(|| "no reason given".into());
    Some(serde_json::json!({"Response": "False", "Error": error}))
}

/// The string after `"key":` in text that may not be valid JSON: it ends at the first quote
/// followed by the object's end or by the next key, so quotes inside it are kept.
fn loose_string(body: &str, key: &str) -> Option<String> {
    let at = body.find(&format!("\"{key}\""))? + key.len() + 2;
    let rest = body[at..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let ends_value = |after: &str| {
        let after = after.trim_start();
        after.starts_with('}')
            || after.strip_prefix(',').is_some_and(|next| {
                let next = next.trim_start();
                next.starts_with('"')
                    && next[1..].split_once('"').is_some_and(|(name, tail)| {
                        !name.contains(' ') && tail.trim_start().starts_with(':')
                    })
            })
    };
    let end = rest
        .match_indices('"')
        .map(|(i, _)| i)
        .find(|&i| !rest[..i].ends_with('\\') && ends_value(&rest[i + 1..]))?;
    Some(rest[..end].replace("\\\"", "\""))
}

/// What OMDb's `Error` means for the model.
fn refusal(said: &str, asked: &str) -> Result<Answer, String> {
    let lower = said.to_ascii_lowercase();
    // "Error getting data." is OMDb's answer to an `i=` id it does not have.
    if ["not found", "incorrect imdb id", "error getting data"]
        .iter()
        .any(|nothing| lower.contains(nothing))
    {
        return Ok(Answer::Nothing);
    }
    Err(if lower.contains("api key") {
        format!(
            "OMDb refused the key in OMDB_API_KEY ({said}): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at {GET_KEY}."
        )
    } else if lower.contains("limit reached") {
        format!(
            "OMDb's daily request limit for the key in OMDB_API_KEY is used up ({said}): the key is fine, its quota is not (the free plan allows 1,000 requests a day). Do not ask OMDb again today; try again tomorrow, or use a key from a paid plan ({GET_KEY})."
        )
    } else if lower.contains("too many results") {
        format!(
            "OMDb finds too many titles for '{asked}': use more of the title, or add the year or the type."
        )
    } else {
        format!(
            "OMDb refused the request ({said}): check the title, year and type asked for, and if they are right, try again later."
        )
    })
}

/// A search as the person asked it.
pub(super) struct Search<'a> {
    pub(super) query: &'a str,
    pub(super) year: Option<&'a str>,
    pub(super) kind: Option<&'a str>,
    pub(super) page: i64,
}

pub(super) fn search(ctx: &ToolContext, key: &str, asked: &Search<'_>) -> Result<String, String> {
    let page = asked.page.to_string();
    let mut pairs = vec![("s", asked.query)];
    pairs.extend(asked.year.map(|y| ("y", y)));
    pairs.extend(asked.kind.map(|k| ("type", k)));
    if asked.page > 1 {
        pairs.push(("page", &page));
    }
    match ask(ctx, key, &pairs, asked.query)? {
        Answer::Nothing if asked.page > 1 => Ok(format!(
            "OMDb has no page {} of titles for '{}': the earlier pages hold them all.",
            asked.page, asked.query
        )),
        Answer::Nothing => Ok(format!(
            "OMDb has no title matching '{}'{}. Try other words of the title, or the original title.",
            asked.query,
            asked.year.map(|y| format!(" from {y}")).unwrap_or_default()
        )),
        Answer::Found(value) => Ok(list(&value, asked)),
    }
}

/// OMDb's page size for a search.
const PAGE: u64 = 10;

/// A search's titles, numbered, with their IMDb ids; a title OMDb lists twice (it does) is
/// shown once.
fn list(value: &Value, asked: &Search<'_>) -> String {
    let titles = value["Search"].as_array().map_or(&[][..], Vec::as_slice);
    let total: u64 = field(value, "totalResults")
        .and_then(|t| t.parse().ok())
        .unwrap_or(titles.len() as u64);
    let pages = total.div_ceil(PAGE);
    let mut out = format!("OMDb titles for '{}'", asked.query);
    if pages > 1 {
        out.push_str(&format!(
            " ({total} in all; page {} of {pages}):",
            asked.page
        ));
    } else {
        out.push(':');
    }
    let mut seen = Vec::new();
    for title in titles {
        let id = field(title, "imdbID").unwrap_or("unknown");
        if id != "unknown" && seen.contains(&id) {
            continue;
        }
        seen.push(id);
        out.push_str(&format!(
            "\n{}. {} ({}, {}) imdb_id {id}",
            seen.len(),
            field(title, "Title").unwrap_or("(untitled)"),
            field(title, "Year").unwrap_or("year unknown"),
            field(title, "Type").unwrap_or("title"),
        ));
    }
    out.push_str("\n\nDetails of one with get_movie_details (its imdb_id).");
    if (asked.page as u64) < pages {
        out.push_str(&format!(
            " More titles with page {}, or fewer by adding the year or the type.",
            asked.page + 1
        ));
    }
    out
}

pub(super) fn details(
    ctx: &ToolContext,
    key: &str,
    movie: &str,
    year: Option<&str>,
) -> Result<String, String> {
    let by = if is_imdb_id(movie) { "i" } else { "t" };
    let mut pairs = vec![(by, movie), ("plot", "full")];
    pairs.extend(year.map(|y| ("y", y)));
    match ask(ctx, key, &pairs, movie)? {
        Answer::Nothing if by == "i" => Err(format!(
            "OMDb knows no title with the IMDb id {movie}: find the id with search_movies."
        )),
        Answer::Nothing => Err(format!(
            "OMDb has no title '{movie}'{}: find it with search_movies and ask with its imdb_id.",
            year.map(|y| format!(" from {y}")).unwrap_or_default()
        )),
        Answer::Found(value) if by == "t" && !same_title(&value, movie) => Ok(format!(
            "OMDb's one best match for the title '{movie}'{} is another title; if it is not the one meant, find that with search_movies and ask with its imdb_id.\n\n{}",
            year.map(|y| format!(" from {y}")).unwrap_or_default(),
            describe(&value)
        )),
        Answer::Found(value) => Ok(describe(&value)),
    }
}

/// Whether the title found is the one asked for, letters and digits compared.
fn same_title(value: &Value, asked: &str) -> bool {
    let plain = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    field(value, "Title").is_some_and(|title| plain(title) == plain(asked))
}

/// `tt` and at least seven digits.
fn is_imdb_id(text: &str) -> bool {
    text.strip_prefix("tt")
        .is_some_and(|digits| digits.len() >= 7 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A field that says something (OMDb writes `N/A` for nothing).
fn field<'a>(value: &'a Value, name: &str) -> Option<&'a str> {
    value[name]
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty() && *text != "N/A")
}

/// One title's details as text.
fn describe(value: &Value) -> String {
    let mut head = format!(
        "{} ({})",
        field(value, "Title").unwrap_or("(untitled)"),
        field(value, "Year").unwrap_or("year unknown")
    );
    let facts: Vec<String> = [
        field(value, "Type").map(str::to_string),
        field(value, "Rated").map(|r| format!("rated {r}")),
        field(value, "Runtime").map(str::to_string),
        field(value, "totalSeasons").map(|n| format!("{n} seasons")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !facts.is_empty() {
        head.push_str(&format!(": {}", facts.join(", ")));
    }
    let mut lines = vec![head];
    for (label, name) in [
        ("Genre", "Genre"),
        ("Director", "Director"),
        ("Writers", "Writer"),
        ("Actors", "Actors"),
        ("Released", "Released"),
        ("Country", "Country"),
        ("Language", "Language"),
    ] {
        if let Some(text) = field(value, name) {
            lines.push(format!("{label}: {text}"));
        }
    }
    lines.push(format!(
        "Ratings: {}",
        ratings(value).unwrap_or_else(|| NO_RATINGS.to_string())
    ));
    for (label, name) in [("Box office", "BoxOffice"), ("Awards", "Awards")] {
        if let Some(text) = field(value, name) {
            lines.push(format!("{label}: {text}"));
        }
    }
    if let Some(id) = field(value, "imdbID") {
        lines.push(format!(
            "IMDb: https://www.imdb.com/title/{id}/ (imdb_id {id})"
        ));
    }
    let mut out = lines.join("\n");
    if let Some(plot) = field(value, "Plot") {
        out.push_str(&format!("\n\nPlot: {plot}"));
    }
    out
}

/// What a title without any rating shows (OMDb's `Ratings: []` and `imdbRating: "N/A"`).
const NO_RATINGS: &str =
    "none yet (OMDb has no IMDb, Rotten Tomatoes or Metacritic rating for this title)";

/// `IMDb 8.1/10 (826,224 votes), Rotten Tomatoes 89%, Metacritic 84/100`.
/// Without a `Ratings` list, the `imdbRating` and `Metascore` fields; `None` when neither
/// holds a number.
fn ratings(value: &Value) -> Option<String> {
    let votes = field(value, "imdbVotes")
        .map(|v| format!(" ({v} votes)"))
        .unwrap_or_default();
    let list = value["Ratings"].as_array().map_or(&[][..], Vec::as_slice);
    let mut shown: Vec<String> = list
        .iter()
        .filter_map(|rating| {
            let source = field(rating, "Source")?;
            let score = field(rating, "Value")?;
            if source == "Internet Movie Database" {
                return Some(format!("IMDb {score}{votes}"));
            }
            Some(format!("{source} {score}"))
        })
        .collect();
    if shown.is_empty() {
        shown.extend(field(value, "imdbRating").map(|r| format!("IMDb {r}/10{votes}")));
        shown.extend(field(value, "Metascore").map(|m| format!("Metacritic {m}/100")));
    }
    (!shown.is_empty()).then(|| shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_inside_the_answer() {
        let cases: &[(&str, Result<(), &str>)] = &[
            ("Movie not found!", Ok(())),
            ("Series or episode not found!", Ok(())),
            ("Incorrect IMDb ID.", Ok(())),
            (
                "Invalid API key!",
                Err("OMDb refused the key in OMDB_API_KEY"),
            ),
            (
                "No API key provided.",
                Err("OMDb refused the key in OMDB_API_KEY"),
            ),
            ("Error getting data.", Ok(())),
            ("Request limit reached!", Err("OMDb's daily request limit")),
            (
                "Daily request limit reached!",
                Err("OMDb's daily request limit"),
            ),
            (
                "Too many results.",
                Err("OMDb finds too many titles for 'x'"),
            ),
            (
                "Something else.",
                Err("OMDb refused the request (Something else.): check the title"),
            ),
        ];
        for (said, expected) in cases {
            let value = json!({"Response": "False", "Error": said});
            match (read(value, "x").unwrap(), expected) {
                (Ok(answer), Ok(())) => assert_eq!(answer, Answer::Nothing, "{said}"),
                (Err(message), Err(start)) => assert!(message.starts_with(start), "{message}"),
                (got, _) => panic!("{said}: {got:?}"),
            }
        }
        assert!(read(json!({"other": 1}), "x").is_none());
        assert!(matches!(
            read(json!({"Response": "True"}), "x"),
            Some(Ok(Answer::Found(_)))
        ));
    }

    #[test]
    fn a_refusal_that_is_not_json_is_read_all_the_same() {
        let cases = [
            (
                r#"{"Response":"False","Error":"Something "quoted" went wrong."}"#,
                Some(r#"Something "quoted" went wrong."#),
            ),
            (
                r#"{"Error" : "Say "no" , twice", "Response" : "False"}"#,
                Some(r#"Say "no" , twice"#),
            ),
            (r#"{"Response":"False"}"#, Some("no reason given")),
            (r#"{"Response":"True","Title":"A "B" C"}"#, None),
            ("<html>Bad gateway</html>", None),
        ];
        for (body, error) in cases {
            let got = loose_refusal(body);
            assert_eq!(
                got.as_ref().and_then(|v| v["Error"].as_str()),
                error,
                "{body}"
            );
        }
    }

    #[test]
    fn imdb_ids_are_told_from_titles() {
        for (text, id) in [
            ("tt0083658", true),
            ("tt12345678", true),
            ("tt123", false),
            ("Blade Runner", false),
            ("tt00836x8", false),
        ] {
            assert_eq!(is_imdb_id(text), id, "{text}");
        }
    }

    #[test]
    fn details_skip_what_omdb_does_not_know() {
        let value = json!({"Title": "X", "Year": "2001", "Rated": "N/A", "Runtime": "90 min",
            "Type": "movie", "Director": "N/A", "Plot": "A plot.", "imdbID": "tt0000001",
            "Ratings": [{"Source": "Internet Movie Database", "Value": "7.0/10"}],
            "imdbVotes": "N/A", "BoxOffice": "N/A", "Response": "True"});
        assert_eq!(
            describe(&value),
            "X (2001): movie, 90 min\nRatings: IMDb 7.0/10\nIMDb: https://www.imdb.com/title/tt0000001/ (imdb_id tt0000001)\n\nPlot: A plot."
        );
        let fields_only = json!({"Ratings": [], "imdbRating": "5.5", "imdbVotes": "1,024",
            "Metascore": "N/A"});
        assert_eq!(
            ratings(&fields_only).as_deref(),
            Some("IMDb 5.5/10 (1,024 votes)")
        );
        let none = json!({"Ratings": [], "imdbRating": "N/A", "Metascore": "N/A"});
        assert_eq!(ratings(&none), None);
    }
}
