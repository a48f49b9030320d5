//! Words and languages: `dictionary_lookup` (the Free Dictionary API) and `translate_text`
//! (MyMemory, which reports its errors inside an HTTP 200), with language codes checked
//! against ISO 639-1 before any request.

use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::Value;

use crate::services::{DICTIONARY, MYMEMORY};
use crate::tools::kit::web::{Call, encode};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Offered, ToolContext, ToolDef};

/// Definitions shown per part of speech.
const DEFINITIONS_SHOWN: usize = 5;
/// The most text MyMemory translates in one request (its documented limit, in bytes).
const MAX_TRANSLATED: usize = 500;

const DICTIONARY_PARAMS: &[Param] = &[
    Param::required("word", Kind::String, "The word to look up"),
    Param::optional(
        "language",
        Kind::String,
        "Two-letter language code of the word (default en)",
    ),
];
const TRANSLATE_PARAMS: &[Param] = &[
    Param::required(
        "text",
        Kind::String,
        "The text to translate (at most 500 bytes)",
    ),
    Param::required(
        "from",
        Kind::String,
        "Its language: an ISO 639-1 code such as en, fr, de, or with a region such as pt-BR, zh-CN",
    ),
    Param::required(
        "to",
        Kind::String,
        "The language to translate to, as a code",
    ),
];

pub(super) fn dictionary_tool() -> ToolDef {
    ToolDef::build("dictionary_lookup")
        .describe("Look up a word in the dictionary: pronunciation, meanings by part of speech, examples, origin.")
        .offered(Offered::Everywhere)
        .params(DICTIONARY_PARAMS)
        .example(r#"{"word": "serendipity"}"#)
        .handler(dictionary_lookup)
}

pub(super) fn translate_tool() -> ToolDef {
    ToolDef::build("translate_text")
        .describe("Translate a short text from one language to another (MyMemory). Use when the user asks for a translation or text in another language.")
        .offered(Offered::Everywhere)
        .params(TRANSLATE_PARAMS)
        .example(r#"{"text": "Where is the station?", "from": "en", "to": "fr"}"#)
        .handler(translate_text)
}

#[derive(Deserialize)]
struct DictionaryArgs {
    word: String,
    language: Option<String>,
}

fn dictionary_lookup(args: DictionaryArgs, ctx: &ToolContext) -> Result<String, String> {
    let word = args.word.trim();
    if word.is_empty() {
        return Err("The word is empty: say which word to look up.".into());
    }
    let language = language_code(args.language.as_deref().unwrap_or("en"))?;
    let web = &ctx.settings.web;
    let path = format!("/api/v2/entries/{}/{}", encode(&language), encode(word));
    let fetched = web.call(&DICTIONARY, &path, &Call::default(), &ctx.cancel)?;
    if fetched.status == 404 {
        // The service's "nothing found": {"title": "No Definitions Found", "message": …}.
        let said: Option<Value> = serde_json::from_slice(&fetched.body).ok();
        if said.as_ref().and_then(|v| v["title"].as_str()) == Some("No Definitions Found") {
            return Ok(format!(
                "The Free Dictionary has no definitions for '{word}' ({language}). Check the spelling, try the word's base form, or search the web."
            ));
        }
    }
    let answer = web.read_json(&DICTIONARY, &fetched)?;
    let entries = answer.as_array().ok_or_else(|| {
        "The Free Dictionary API sent an answer that is not a list of entries. Try again later."
            .to_string()
    })?;
    if entries.is_empty() {
        return Ok(format!(
            "The Free Dictionary has no definitions for '{word}' ({language})."
        ));
    }
    Ok(entries
        .iter()
        .map(describe_entry)
        .collect::<Vec<_>>()
        .join("\n\n"))
}

/// One entry: the word, its pronunciation and audio, its origin, its meanings.
fn describe_entry(entry: &Value) -> String {
    let mut text = entry["word"].as_str().unwrap_or("?").to_string();
    let phonetic = entry["phonetic"].as_str().or_else(|| {
        entry["phonetics"]
            .as_array()?
            .iter()
            .find_map(|p| p["text"].as_str())
    });
    if let Some(phonetic) = phonetic.filter(|p| !p.is_empty()) {
        let _ = write!(text, " {}", phonetic);
    }
    let audio = entry["phonetics"].as_array().and_then(|list| {
        list.iter()
            .filter_map(|p| p["audio"].as_str())
            .find(|a| !a.is_empty())
    });
    if let Some(audio) = audio {
        let audio = match audio.strip_prefix("//") {
            Some(rest) => format!("https://{rest}"),
            None => audio.to_string(),
        };
        let _ = write!(text, " (audio: {audio})");
    }
    if let Some(origin) = entry["origin"].as_str().filter(|o| !o.is_empty()) {
        let _ = write!(text, "\nOrigin: {origin}");
    }
    for meaning in entry["meanings"].as_array().into_iter().flatten() {
        describe_meaning(&mut text, meaning);
    }
    text
}

fn describe_meaning(text: &mut String, meaning: &Value) {
    let part = meaning["partOfSpeech"]
        .as_str()
        .unwrap_or("(no part of speech)");
    let _ = write!(text, "\n{part}");
    let definitions = meaning["definitions"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    for (n, definition) in definitions.iter().take(DEFINITIONS_SHOWN).enumerate() {
        let said = definition["definition"].as_str().unwrap_or_default();
        let _ = write!(text, "\n  {}. {said}", n + 1);
        if let Some(example) = definition["example"].as_str() {
            let _ = write!(text, "\n     Example: {example}");
        }
        let synonyms = words(&definition["synonyms"]);
        if !synonyms.is_empty() {
            let _ = write!(text, "\n     Synonyms: {synonyms}");
        }
    }
    if definitions.len() > DEFINITIONS_SHOWN {
        let _ = write!(
            text,
            "\n  [{} more definitions]",
            definitions.len() - DEFINITIONS_SHOWN
        );
    }
    for (label, key) in [("Synonyms", "synonyms"), ("Antonyms", "antonyms")] {
        let list = words(&meaning[key]);
        if !list.is_empty() {
            let _ = write!(text, "\n  {label}: {list}");
        }
    }
}

fn words(list: &Value) -> String {
    list.as_array()
        .map(|l| {
            l.iter()
                .filter_map(Value::as_str)
                .take(10)
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .join(", ")
}

#[derive(Deserialize)]
struct TranslateArgs {
    text: String,
    from: String,
    to: String,
}

fn translate_text(args: TranslateArgs, ctx: &ToolContext) -> Result<String, String> {
    let from = language_code(&args.from)?;
    let to = language_code(&args.to)?;
    let text = args.text.trim();
    if text.is_empty() {
        return Err("The text is empty: give the text to translate.".into());
    }
    if text.len() > MAX_TRANSLATED {
        return Err(format!(
            "The text is {} bytes; MyMemory translates at most {MAX_TRANSLATED} at a time. Split it into sentences or paragraphs and translate them one by one.",
            text.len()
        ));
    }
    if from == to {
        return Err(format!(
            "The text is to be translated from {from} to {from}: give two different languages."
        ));
    }
    let pair = format!("{from}|{to}");
    let call = Call {
        query: &[("q", text), ("langpair", &pair)],
        ..Call::default()
    };
    let answer = ctx
        .settings
        .web
        .json(&MYMEMORY, "/get", &call, &ctx.cancel)?;
    let translated = read_translation(&answer, &pair)?;
    let quality = answer
        .pointer("/responseData/match")
        .and_then(Value::as_f64)
        .map(|m| format!(", match {m}"))
        .unwrap_or_default();
    Ok(format!(
        "{translated}\n({from} → {to} by MyMemory{quality})"
    ))
}

/// The translation in MyMemory's answer, or the error it reported inside its HTTP 200: a
/// `responseStatus` other than 200 (a number, or a string such as "403"), with the reason in
/// `responseDetails` (and the same text put in `translatedText`).
fn read_translation(answer: &Value, pair: &str) -> Result<String, String> {
    let status = match &answer["responseStatus"] {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    let details = answer["responseDetails"]
        .as_str()
        .filter(|d| !d.trim().is_empty())
        .or_else(|| answer.pointer("/responseData/translatedText")?.as_str())
        .unwrap_or("no reason given")
        .trim();
    if answer["quotaFinished"] == Value::Bool(true) || status == Some(429) {
        return Err(format!(
            "MyMemory's free translation quota is used up for today: {details}. Try again tomorrow, or translate the text yourself."
        ));
    }
    match status {
        Some(200) => {}
        Some(403) => {
            return Err(format!(
                "MyMemory refused the language pair {pair}: {details}. Use two-letter ISO 639-1 codes such as en, fr, zh-CN."
            ));
        }
        Some(code) => {
            return Err(format!(
                "MyMemory could not translate (status {code}): {details}."
            ));
        }
        None => {
            return Err(
                "MyMemory sent an answer without a responseStatus. Try again later.".into(),
            );
        }
    }
    answer
        .pointer("/responseData/translatedText")
        .and_then(Value::as_str)
        .map(|t| decode_entities(t.trim()))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| "MyMemory sent no translation. Try again, or rephrase the text.".into())
}

/// The few HTML entities MyMemory leaves in translations (`&#39;`, `&quot;`, `&amp;`…).
fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let decoded = rest.find(';').filter(|end| *end <= 10).and_then(|end| {
            let name = &rest[1..end];
            let ch = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| name.strip_prefix('#')?.parse().ok())
                    .and_then(char::from_u32),
            };
            ch.map(|c| (c, end))
        });
        match decoded {
            Some((ch, end)) => {
                out.push(ch);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A language as a code the services take: an ISO 639-1 code, optionally with a region
/// (`pt-BR`, `zh-CN`), or an English language name; else a sentence saying what to give.
fn language_code(text: &str) -> Result<String, String> {
    let text = text.trim();
    let (base, region) = match text.split_once(['-', '_']) {
        Some((base, region)) => (base, Some(region)),
        None => (text, None),
    };
    let base = base.to_lowercase();
    if let Some((code, _)) = LANGUAGES.iter().find(|(code, _)| *code == base) {
        return match region {
            None => Ok(code.to_string()),
            Some(r)
                if (2..=3).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphanumeric()) =>
            {
                Ok(format!("{code}-{}", r.to_uppercase()))
            }
            Some(r) => Err(format!(
                "'{text}' has a region '{r}' that is not a two-letter country code (as in pt-BR, zh-CN)."
            )),
        };
    }
    let lower = text.to_lowercase();
    if let Some((code, _)) = LANGUAGES
        .iter()
        .find(|(_, name)| name.to_lowercase() == lower)
    {
        return Ok(code.to_string());
    }
    Err(format!(
        "'{text}' is not a language code: give an ISO 639-1 code such as en (English), fr (French), de (German), es (Spanish), it (Italian), pt (Portuguese), ru (Russian), ja (Japanese), zh-CN (Chinese), ar (Arabic)."
    ))
}

/// ISO 639-1: every two-letter language code, with the language's English name.
#[rustfmt::skip]
const LANGUAGES: &[(&str, &str)] = &[
    ("aa", "Afar"), ("ab", "Abkhazian"), ("ae", "Avestan"), ("af", "Afrikaans"), ("ak", "Akan"),
    ("am", "Amharic"), ("an", "Aragonese"), ("ar", "Arabic"), ("as", "Assamese"), ("av", "Avaric"),
    ("ay", "Aymara"), ("az", "Azerbaijani"), ("ba", "Bashkir"), ("be", "Belarusian"),
    ("bg", "Bulgarian"), ("bi", "Bislama"), ("bm", "Bambara"), ("bn", "Bengali"), ("bo", "Tibetan"),
    ("br", "Breton"), ("bs", "Bosnian"), ("ca", "Catalan"), ("ce", "Chechen"), ("ch", "Chamorro"),
    ("co", "Corsican"), ("cr", "Cree"), ("cs", "Czech"), ("cu", "Church Slavic"), ("cv", "Chuvash"),
    ("cy", "Welsh"), ("da", "Danish"), ("de", "German"), ("dv", "Divehi"), ("dz", "Dzongkha"),
    ("ee", "Ewe"), ("el", "Greek"), ("en", "English"), ("eo", "Esperanto"), ("es", "Spanish"),
    ("et", "Estonian"), ("eu", "Basque"), ("fa", "Persian"), ("ff", "Fulah"), ("fi", "Finnish"),
    ("fj", "Fijian"), ("fo", "Faroese"), ("fr", "French"), ("fy", "Western Frisian"),
    ("ga", "Irish"), ("gd", "Scottish Gaelic"), ("gl", "Galician"), ("gn", "Guarani"),
    ("gu", "Gujarati"), ("gv", "Manx"), ("ha", "Hausa"), ("he", "Hebrew"), ("hi", "Hindi"),
    ("ho", "Hiri Motu"), ("hr", "Croatian"), ("ht", "Haitian"), ("hu", "Hungarian"),
    ("hy", "Armenian"), ("hz", "Herero"), ("ia", "Interlingua"), ("id", "Indonesian"),
    ("ie", "Interlingue"), ("ig", "Igbo"), ("ii", "Sichuan Yi"), ("ik", "Inupiaq"), ("io", "Ido"),
    ("is", "Icelandic"), ("it", "Italian"), ("iu", "Inuktitut"), ("ja", "Japanese"),
    ("jv", "Javanese"), ("ka", "Georgian"), ("kg", "Kongo"), ("ki", "Kikuyu"), ("kj", "Kuanyama"),
    ("kk", "Kazakh"), ("kl", "Kalaallisut"), ("km", "Khmer"), ("kn", "Kannada"), ("ko", "Korean"),
    ("kr", "Kanuri"), ("ks", "Kashmiri"), ("ku", "Kurdish"), ("kv", "Komi"), ("kw", "Cornish"),
    ("ky", "Kyrgyz"), ("la", "Latin"), ("lb", "Luxembourgish"), ("lg", "Ganda"),
    ("li", "Limburgish"), ("ln", "Lingala"), ("lo", "Lao"), ("lt", "Lithuanian"),
    ("lu", "Luba-Katanga"), ("lv", "Latvian"), ("mg", "Malagasy"), ("mh", "Marshallese"),
    ("mi", "Maori"), ("mk", "Macedonian"), ("ml", "Malayalam"), ("mn", "Mongolian"),
    ("mr", "Marathi"), ("ms", "Malay"), ("mt", "Maltese"), ("my", "Burmese"), ("na", "Nauru"),
    ("nb", "Norwegian Bokmål"), ("nd", "North Ndebele"), ("ne", "Nepali"), ("ng", "Ndonga"),
    ("nl", "Dutch"), ("nn", "Norwegian Nynorsk"), ("no", "Norwegian"), ("nr", "South Ndebele"),
    ("nv", "Navajo"), ("ny", "Chichewa"), ("oc", "Occitan"), ("oj", "Ojibwa"), ("om", "Oromo"),
    ("or", "Oriya"), ("os", "Ossetian"), ("pa", "Punjabi"), ("pi", "Pali"), ("pl", "Polish"),
    ("ps", "Pashto"), ("pt", "Portuguese"), ("qu", "Quechua"), ("rm", "Romansh"), ("rn", "Rundi"),
    ("ro", "Romanian"), ("ru", "Russian"), ("rw", "Kinyarwanda"), ("sa", "Sanskrit"),
    ("sc", "Sardinian"), ("sd", "Sindhi"), ("se", "Northern Sami"), ("sg", "Sango"),
    ("si", "Sinhala"), ("sk", "Slovak"), ("sl", "Slovenian"), ("sm", "Samoan"), ("sn", "Shona"),
    ("so", "Somali"), ("sq", "Albanian"), ("sr", "Serbian"), ("ss", "Swati"),
    ("st", "Southern Sotho"), ("su", "Sundanese"), ("sv", "Swedish"), ("sw", "Swahili"),
    ("ta", "Tamil"), ("te", "Telugu"), ("tg", "Tajik"), ("th", "Thai"), ("ti", "Tigrinya"),
    ("tk", "Turkmen"), ("tl", "Tagalog"), ("tn", "Tswana"), ("to", "Tonga"), ("tr", "Turkish"),
    ("ts", "Tsonga"), ("tt", "Tatar"), ("tw", "Twi"), ("ty", "Tahitian"), ("ug", "Uyghur"),
    ("uk", "Ukrainian"), ("ur", "Urdu"), ("uz", "Uzbek"), ("ve", "Venda"), ("vi", "Vietnamese"),
    ("vo", "Volapük"), ("wa", "Walloon"), ("wo", "Wolof"), ("xh", "Xhosa"), ("yi", "Yiddish"),
    ("yo", "Yoruba"), ("za", "Zhuang"), ("zh", "Chinese"), ("zu", "Zulu"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn language_codes_are_checked_and_names_accepted() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            ("en", Ok("en")),
            (" FR ", Ok("fr")),
            ("pt-br", Ok("pt-BR")),
            ("zh_CN", Ok("zh-CN")),
            ("German", Ok("de")),
            ("xx", Err("'xx' is not a language code")),
            ("en-language", Err("has a region 'language'")),
            ("auto", Err("'auto' is not a language code")),
        ];
        for (text, expected) in cases {
            match (language_code(text), expected) {
                (Ok(code), Ok(want)) => assert_eq!(code, *want, "{text}"),
                (Err(error), Err(want)) => assert!(error.contains(want), "{text}: {error}"),
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn mymemory_errors_inside_a_200_are_read() {
        let ok = json!({"responseData": {"translatedText": "L&#39;eau", "match": 1}, "responseStatus": 200});
        assert_eq!(read_translation(&ok, "fr|en"), Ok("L'eau".into()));
        let bad_pair = json!({"responseData": {"translatedText": "'XX' IS AN INVALID TARGET LANGUAGE"}, "responseDetails": "'XX' IS AN INVALID TARGET LANGUAGE", "responseStatus": "403"});
        let error = read_translation(&bad_pair, "en|xx").unwrap_err();
        assert!(
            error.starts_with("MyMemory refused the language pair en|xx: 'XX' IS AN INVALID"),
            "{error}"
        );
        let quota = json!({"responseData": {"translatedText": "MYMEMORY WARNING: YOU USED ALL AVAILABLE FREE TRANSLATIONS FOR TODAY."}, "quotaFinished": true, "responseStatus": 429});
        let error = read_translation(&quota, "en|fr").unwrap_err();
        assert!(
            error.contains("quota is used up") && error.contains("YOU USED ALL"),
            "{error}"
        );
        let none = json!({"responseData": {"translatedText": ""}, "responseStatus": 200});
        assert!(read_translation(&none, "en|fr").is_err());
    }

    #[test]
    fn entities_are_decoded_and_stray_ampersands_kept() {
        for (text, plain) in [
            ("a &amp; b", "a & b"),
            ("&quot;x&quot; &#x27;y&#39;", "\"x\" 'y'"),
            ("R&D; fish & chips", "R&D; fish & chips"),
        ] {
            assert_eq!(decode_entities(text), plain);
        }
    }
}
