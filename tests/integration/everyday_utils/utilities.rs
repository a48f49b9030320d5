//! convert_units (locally, and currencies through Frankfurter), dictionary_lookup (the Free
//! Dictionary API) and translate_text (MyMemory) against local servers.
//!
//! Real recordings (tests/fixtures/apis/, each with its note): Frankfurter's
//! frankfurter_latest_eur_2020-03-02_reformatted.json, a `/latest` answer for base EUR with
//! every rate, kept in tozu/frankfurter's tests (re-formatted, `amount` 1 not 1.0); MyMemory's
//! mymemory_get_comment_en_tr_source_comment.json, a translation pasted into a client's source.
//!
//! Documentation-shaped, written here (no recording found): Frankfurter's answer for base USD
//! and its 404 for an unknown currency (frankfurter.dev: `{"amount", "base", "date",
//! "rates"}`, a 404 `{"message": "not found"}`), the dictionary's 404, and MyMemory's errors
//! (mymemory.translated.net/doc/spec.php: `responseData.translatedText`, `responseStatus` that
//! may be a string, the error inside an HTTP 200), kept minimal.

use super::{Silent, api_fixture, html_page, run};
use crate::common::{ReplayServer, Reply, TempDir};

#[test]
fn units_convert_exactly_without_the_network() {
    let home = TempDir::new("units");
    let run = run(
        &home,
        &[
            (
                "1",
                "convert_units",
                r#"{"value": 26.2, "from": "miles", "to": "km"}"#,
            ),
            (
                "2",
                "convert_units",
                r#"{"value": 350, "from": "°F", "to": "celsius"}"#,
            ),
            (
                "3",
                "convert_units",
                r#"{"value": 1, "from": "GiB", "to": "MB"}"#,
            ),
            (
                "4",
                "convert_units",
                r#"{"value": 3, "from": "kg", "to": "mph"}"#,
            ),
            (
                "5",
                "convert_units",
                r#"{"value": 2, "from": "furlongs", "to": "m"}"#,
            ),
        ],
        &[],
    );
    assert_eq!(
        run.results[0],
        "26.2 mi = 42.1648128 km",
        "{}",
        run.stderr()
    );
    assert_eq!(run.results[1], "350 °F = 176.666666667 °C");
    assert_eq!(run.results[2], "1 GiB = 1073.741824 MB");
    assert_eq!(
        run.results[3],
        "Error: Cannot convert kg (mass) to mph (speed): pick two units of the same kind."
    );
    assert!(
        run.results[4].starts_with("Error: 'furlongs' is not a unit convert_units knows."),
        "{}",
        run.results[4]
    );
}

/// Frankfurter as documented: the rates of `symbols` against `base`, an unknown code a 404.
fn frankfurter() -> ReplayServer {
    ReplayServer::answering(|request| {
        if request.url.contains("symbols=EUR") {
            Reply::json(
                200,
                r#"{"amount":1.0,"base":"USD","date":"2026-11-20","rates":{"EUR":0.9123}}"#,
            )
        } else if request.url.contains("symbols=XYZ") {
            Reply::json(404, r#"{"message":"not found"}"#)
        } else {
            html_page()
        }
    })
}

#[test]
fn currencies_go_through_frankfurter_and_its_errors_say_what_to_do() {
    let home = TempDir::new("currency");
    let server = frankfurter();
    let run = run(
        &home,
        &[
            (
                "1",
                "convert_units",
                r#"{"value": 250, "from": "usd", "to": "EUR"}"#,
            ),
            (
                "2",
                "convert_units",
                r#"{"value": 1, "from": "USD", "to": "XYZ"}"#,
            ),
            (
                "3",
                "convert_units",
                r#"{"value": 1, "from": "USD", "to": "GBP"}"#,
            ),
            (
                "4",
                "convert_units",
                r#"{"value": 5, "from": "CHF", "to": "chf"}"#,
            ),
        ],
        &[("FRANKFURTER_URL", server.root())],
    );
    assert_eq!(
        run.results[0],
        "250.00 USD = 228.07 EUR (1 USD = 0.9123 EUR, reference rate of 2026-11-20 from Frankfurter)",
        "{}",
        run.stderr()
    );
    assert!(
        run.results[1]
            .starts_with("Error: Frankfurter does not know the currency USD or XYZ (HTTP 404)"),
        "{}",
        run.results[1]
    );
    assert!(
        run.results[2].starts_with("Error: Frankfurter answered with a web page instead of data"),
        "{}",
        run.results[2]
    );
    assert!(
        run.results[2].contains("FRANKFURTER_URL"),
        "{}",
        run.results[2]
    );
    assert_eq!(run.results[3], "5.00 CHF = 5.00 CHF");
    let mut asked: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/latest?base=USD&symbols=EUR",
            "/latest?base=USD&symbols=GBP",
            "/latest?base=USD&symbols=XYZ"
        ]
    );
}

/// Frankfurter's recorded day: the tool asks for one symbol, the recording holds all 32 rates
/// (it answered a request without `symbols`); the tool must pick its own. IDR is an integer
/// (15909), HRK a currency the ECB later dropped.
#[test]
fn a_recorded_day_of_rates_converts_from_euros() {
    let home = TempDir::new("currency-recorded");
    let server = ReplayServer::answering(|request| {
        if request.url.starts_with("/latest?base=EUR&") {
            api_fixture("frankfurter_latest_eur_2020-03-02_reformatted.json")
        } else {
            html_page()
        }
    });
    let conversions = [
        r#"{"value": 100, "from": "EUR", "to": "USD"}"#,
        r#"{"value": 1, "from": "eur", "to": "idr"}"#,
        r#"{"value": 10, "from": "EUR", "to": "JPY"}"#,
        r#"{"value": 2, "from": "EUR", "to": "HRK"}"#,
    ];
    let calls: Vec<(String, &str)> = conversions
        .iter()
        .enumerate()
        .map(|(i, arguments)| ((i + 1).to_string(), *arguments))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, arguments)| (id.as_str(), "convert_units", *arguments))
        .collect();
    let run = run(&home, &calls, &[("FRANKFURTER_URL", server.root())]);
    let day = "reference rate of 2020-03-02 from Frankfurter";
    assert_eq!(
        run.results,
        [
            format!("100.00 EUR = 111.22 USD (1 EUR = 1.1122 USD, {day})"),
            format!("1.00 EUR = 15909.00 IDR (1 EUR = 15909 IDR, {day})"),
            format!("10.00 EUR = 1198.20 JPY (1 EUR = 119.82 JPY, {day})"),
            format!("2.00 EUR = 14.97 HRK (1 EUR = 7.4835 HRK, {day})"),
        ],
        "{}",
        run.stderr()
    );
    let mut asked: Vec<String> = server.requests().into_iter().map(|r| r.url).collect();
    asked.sort();
    assert_eq!(
        asked,
        [
            "/latest?base=EUR&symbols=HRK",
            "/latest?base=EUR&symbols=IDR",
            "/latest?base=EUR&symbols=JPY",
            "/latest?base=EUR&symbols=USD"
        ]
    );
}

#[test]
fn the_dictionary_gives_pronunciation_meanings_examples_and_says_when_a_word_is_unknown() {
    let home = TempDir::new("dictionary");
    let server = ReplayServer::answering(|request| match request.url.as_str() {
        "/api/v2/entries/en/hello" => api_fixture("dictionaryapi_entries_hello_docexample.json"),
        "/api/v2/entries/en/qwxzzy" => Reply::json(
            404,
            r#"{"title":"No Definitions Found","message":"Sorry pal, we couldn't find definitions for the word you were looking for.","resolution":"You can try the search again at later time or head to the web instead."}"#,
        ),
        _ => html_page(),
    });
    let run = run(
        &home,
        &[
            ("1", "dictionary_lookup", r#"{"word": "hello"}"#),
            ("2", "dictionary_lookup", r#"{"word": "qwxzzy"}"#),
            ("3", "dictionary_lookup", r#"{"word": "portal"}"#),
            (
                "4",
                "dictionary_lookup",
                r#"{"word": "hola", "language": "klingon"}"#,
            ),
        ],
        &[("DICTIONARY_URL", server.root())],
    );
    let hello = &run.results[0];
    assert!(
        hello.starts_with("hello həˈləʊ (audio: https://ssl.gstatic.com/dictionary/static/sounds/20200429/hello--_gb_1.mp3)\nOrigin: early 19th century: variant of earlier hollo ; related to holla.\n"),
        "{hello}\n{}",
        run.stderr()
    );
    assert!(
        hello.contains("\nexclamation\n  1. used as a greeting or to begin a phone conversation.\n     Example: hello there, Katie!\n"),
        "{hello}"
    );
    assert!(
        hello.contains("\nnoun\n  1. an utterance of ‘hello’; a greeting.\n"),
        "{hello}"
    );
    assert!(
        hello.contains("\nverb\n  1. say or shout ‘hello’.\n     Example: I pressed the phone button and helloed"),
        "{hello}"
    );
    assert!(!hello.contains("Synonyms"), "{hello}");
    assert_eq!(
        run.results[1],
        "The Free Dictionary has no definitions for 'qwxzzy' (en). Check the spelling, try the word's base form, or search the web."
    );
    assert!(
        run.results[2]
            .starts_with("Error: Free Dictionary API answered with a web page instead of data"),
        "{}",
        run.results[2]
    );
    assert!(
        run.results[3].starts_with("Error: 'klingon' is not a language code"),
        "{}",
        run.results[3]
    );
    assert_eq!(
        server.requests().len(),
        3,
        "a bad language code is never sent"
    );
}

/// MyMemory as documented: a translation, or the error inside an HTTP 200 by the text asked.
fn mymemory() -> ReplayServer {
    ReplayServer::answering(|request| {
        let url = &request.url;
        if url.contains("langpair=en%7Cfr") {
            Reply::json(
                200,
                r#"{"responseData":{"translatedText":"O&#249; est la gare ?","match":0.99},"quotaFinished":false,"mtLangSupported":null,"responseDetails":"","responseStatus":200,"responderId":null,"exception_code":null,"matches":[]}"#,
            )
        } else if url.contains("langpair=en%7Cse") {
            Reply::json(
                200,
                r#"{"responseData":{"translatedText":"INVALID TARGET LANGUAGE","match":0},"quotaFinished":false,"mtLangSupported":null,"responseDetails":"INVALID TARGET LANGUAGE","responseStatus":"403","responderId":null,"exception_code":null,"matches":""}"#,
            )
        } else if url.contains("langpair=en%7Cde") {
            Reply::json(
                200,
                r#"{"responseData":{"translatedText":"MYMEMORY WARNING: YOU USED ALL AVAILABLE FREE TRANSLATIONS FOR TODAY. NEXT AVAILABLE IN  10 HOURS","match":0},"quotaFinished":true,"responseDetails":"MYMEMORY WARNING: YOU USED ALL AVAILABLE FREE TRANSLATIONS FOR TODAY. NEXT AVAILABLE IN  10 HOURS","responseStatus":429,"matches":[]}"#,
            )
        } else {
            html_page()
        }
    })
}

#[test]
fn translations_come_back_and_mymemorys_errors_inside_a_200_are_told() {
    let home = TempDir::new("translate");
    let server = mymemory();
    let run = run(
        &home,
        &[
            (
                "1",
                "translate_text",
                r#"{"text": "Where is the station?", "from": "English", "to": "fr"}"#,
            ),
            (
                "2",
                "translate_text",
                r#"{"text": "Hello", "from": "en", "to": "se"}"#,
            ),
            (
                "3",
                "translate_text",
                r#"{"text": "Hello", "from": "en", "to": "de"}"#,
            ),
            (
                "4",
                "translate_text",
                r#"{"text": "Hello", "from": "en", "to": "it"}"#,
            ),
            (
                "5",
                "translate_text",
                r#"{"text": "Hello", "from": "en", "to": "zz"}"#,
            ),
        ],
        &[("MYMEMORY_URL", server.root())],
    );
    assert_eq!(
        run.results[0],
        "Où est la gare ?\n(en → fr by MyMemory, match 0.99)",
        "{}",
        run.stderr()
    );
    assert_eq!(
        run.results[1],
        "Error: MyMemory refused the language pair en|se: INVALID TARGET LANGUAGE. Use two-letter ISO 639-1 codes such as en, fr, zh-CN."
    );
    assert!(
        run.results[2].starts_with(
            "Error: MyMemory's free translation quota is used up for today: MYMEMORY WARNING"
        ),
        "{}",
        run.results[2]
    );
    assert!(
        run.results[3].starts_with("Error: MyMemory answered with a web page instead of data"),
        "{}",
        run.results[3]
    );
    assert!(run.results[4].starts_with("Error: 'zz' is not a language code"));
    let asked = server.requests();
    assert_eq!(asked.len(), 4, "a bad language code is never sent");
    assert!(
        asked
            .iter()
            .any(|r| r.url == "/get?q=Where%20is%20the%20station%3F&langpair=en%7Cfr"),
        "{:?}",
        asked.iter().map(|r| &r.url).collect::<Vec<_>>()
    );
}

#[test]
fn a_real_mymemory_translation_is_read_from_its_response_data() {
    let home = TempDir::new("translate-real");
    let server = ReplayServer::start(vec![api_fixture(
        "mymemory_get_comment_en_tr_source_comment.json",
    )]);
    let run = run(
        &home,
        &[(
            "1",
            "translate_text",
            r#"{"text": "Comment", "from": "en", "to": "tr"}"#,
        )],
        &[("MYMEMORY_URL", server.root())],
    );
    // responseData's translation and its integer match, not the memory's other candidates.
    assert_eq!(
        run.results[0],
        "Yorum Yap\n(en → tr by MyMemory, match 1)",
        "{}",
        run.stderr()
    );
    assert_eq!(server.requests()[0].url, "/get?q=Comment&langpair=en%7Ctr");
}

#[test]
fn a_silent_service_times_out_with_one_sentence() {
    let home = TempDir::new("utilities-timeout");
    let silent = Silent::start();
    let run = run(
        &home,
        &[
            ("1", "dictionary_lookup", r#"{"word": "hello"}"#),
            (
                "2",
                "translate_text",
                r#"{"text": "Hello", "from": "en", "to": "fr"}"#,
            ),
            (
                "3",
                "convert_units",
                r#"{"value": 1, "from": "USD", "to": "EUR"}"#,
            ),
        ],
        &[
            ("MARVIN_TOOL_TIMEOUT", "1".into()),
            ("DICTIONARY_URL", silent.url()),
            ("MYMEMORY_URL", silent.url()),
            ("FRANKFURTER_URL", silent.url()),
        ],
    );
    assert_eq!(
        run.results,
        [
            "Error: Free Dictionary API request timed out after 1s. Try again or rephrase query.",
            "Error: MyMemory request timed out after 1s. Try again or rephrase query.",
            "Error: Frankfurter request timed out after 1s. Try again or rephrase query.",
        ],
        "{}",
        run.stderr()
    );
}
