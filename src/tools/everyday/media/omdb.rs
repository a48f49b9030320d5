//! OMDb (www.omdbapi.com): a search by title (`s=`) and one title's details (`i=` or `t=`,
//! `plot=full`), read into text. OMDb says what went wrong inside its JSON, with a 200 or a
//! 401 (`{"Response":"False","Error":"Movie not found!"}`, `"Invalid API key!"`): nothing
//! found is an answer, the rest one sentence each, never with the key.

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
    if let Ok(value) = serde_json::from_slice::<Value>(&fetched.body) {
        if let Some(answer) = read(value, asked) {
            return answer.map_err(|message| web.redact(&OMDB, &message));
        }
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

/// What OMDb's `Error` means for the model.
fn refusal(said: &str, asked: &str) -> Result<Answer, String> {
    let lower = said.to_ascii_lowercase();
    if lower.contains("not found") || lower.contains("incorrect imdb id") {
        return Ok(Answer::Nothing);
    }
    Err(if lower.contains("api key") {
        format!(
            "OMDb refused the key in OMDB_API_KEY ({said}): check it (a new key works only after the link in OMDb's e-mail is followed), or get a free one at {GET_KEY}."
        )
    } else if lower.contains("limit") {
        format!(
            "OMDb's daily limit for this key is reached ({said}; the free plan allows 1,000 requests a day). Try again tomorrow."
        )
    } else if lower.contains("too many results") {
        format!(
            "OMDb finds too many titles for '{asked}': use more of the title, or add the year or the type."
        )
    } else {
        format!("OMDb refused the request: {said}")
    })
}

pub(super) fn search(
    ctx: &ToolContext,
    key: &str,
    query: &str,
    year: Option<&str>,
    kind: Option<&str>,
) -> Result<String, String> {
    let mut pairs = vec![("s", query)];
    pairs.extend(year.map(|y| ("y", y)));
    pairs.extend(kind.map(|k| ("type", k)));
    match ask(ctx, key, &pairs, query)? {
        Answer::Nothing => Ok(format!(
            "OMDb has no title matching '{query}'{}. Try other words of the title, or the original title.",
            year.map(|y| format!(" from {y}")).unwrap_or_default()
        )),
        Answer::Found(value) => Ok(list(&value, query)),
    }
}

/// A search's titles, numbered, with their IMDb ids.
fn list(value: &Value, query: &str) -> String {
    let titles = value["Search"].as_array().map_or(&[][..], Vec::as_slice);
    let total = value["totalResults"].as_str().unwrap_or_default();
    let mut out = format!("OMDb titles for '{query}'");
    if !total.is_empty() && total != titles.len().to_string() {
        out.push_str(&format!(" ({total} in all, the first {}):", titles.len()));
    } else {
        out.push(':');
    }
    for (i, title) in titles.iter().enumerate() {
        out.push_str(&format!(
            "\n{}. {} ({}, {}) imdb_id {}",
            i + 1,
            field(title, "Title").unwrap_or("(untitled)"),
            field(title, "Year").unwrap_or("year unknown"),
            field(title, "Type").unwrap_or("title"),
            field(title, "imdbID").unwrap_or("unknown")
        ));
    }
    out.push_str("\n\nDetails of one with get_movie_details (its imdb_id).");
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
        Answer::Found(value) => Ok(describe(&value)),
    }
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
    if let Some(ratings) = ratings(value) {
        lines.push(format!("Ratings: {ratings}"));
    }
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

/// `IMDb 8.1/10 (826,224 votes), Rotten Tomatoes 89%, Metacritic 84/100`.
fn ratings(value: &Value) -> Option<String> {
    let list = value["Ratings"].as_array()?;
    let shown: Vec<String> = list
        .iter()
        .filter_map(|rating| {
            let source = field(rating, "Source")?;
            let score = field(rating, "Value")?;
            if source == "Internet Movie Database" {
                let votes = field(value, "imdbVotes")
                    .map(|v| format!(" ({v} votes)"))
                    .unwrap_or_default();
                return Some(format!("IMDb {score}{votes}"));
            }
            Some(format!("{source} {score}"))
        })
        .collect();
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
            ("Request limit reached!", Err("OMDb's daily limit")),
            (
                "Too many results.",
                Err("OMDb finds too many titles for 'x'"),
            ),
            (
                "Something else.",
                Err("OMDb refused the request: Something else."),
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
    }
}
