//! Everyday utilities: `convert_units` (physical units locally, currencies through
//! Frankfurter), `dictionary_lookup` (the Free Dictionary API) and `translate_text` (MyMemory).

mod language;
mod units;

use serde::Deserialize;
use serde_json::Value;

use crate::services::FRANKFURTER;
use crate::tools::kit::web::Call;
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const CONVERT_PARAMS: &[Param] = &[
    Param::required("value", Kind::Number, "The amount to convert"),
    Param::required(
        "from",
        Kind::String,
        "Its unit (km, lb, °F, mph, acre, GiB, h…) or currency code (USD)",
    ),
    Param::required(
        "to",
        Kind::String,
        "The unit or currency code to convert to",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "utilities",
    about: "units and currencies, a dictionary, translation",
    words: &[
        "convert",
        "conversion",
        "exchange rate",
        "currency",
        "dollar",
        "euro",
        "yen",
        "pound",
        "rupee",
        "usd",
        "eur",
        "gbp",
        "cad",
        "aud",
        "inr",
        "jpy",
        "peso",
        "franc",
        "~how many",
        "in kilometers",
        "miles",
        "celsius",
        "fahrenheit",
        "cups",
        "quart",
        "ounce",
        "gram",
        "kilo",
        "inch",
        "feet",
        "meter",
        "liter",
        "gallon",
        "dictionary",
        "definition",
        "define",
        "~meaning",
        "~mean",
        "synonym",
        "antonym",
        "opposite of",
        "pronounce",
        "pronunciation",
        "plural",
        "spell",
        "spelling",
        "word",
        "translate",
        "translation",
        "in french",
        "in spanish",
        "in german",
        "in italian",
        "in japanese",
        "in chinese",
        "say in",
    ],
    asks: &[
        "convert 10 miles to km",
        "how many grams in a cup of flour",
        "what's 50 dollars in euros",
        "exchange rate pound to yen",
        "define the word ephemeral",
        "translate good morning to french",
        "what does this word mean",
        "how do you say thank you in japanese",
        "fahrenheit to celsius",
        "spell check this word",
        "synonyms for happy",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("convert_units")
            .describe("Convert an amount between units of length, mass, volume, temperature, speed, area, data or time (exactly, offline), or between currencies (today's reference rates). Use it instead of doing the arithmetic yourself.")
            .offered(Offered::Everywhere)
            .params(CONVERT_PARAMS)
            .example(r#"{"value": 5, "from": "mi", "to": "km"}"#)
            .handler(convert_units),
        language::dictionary_tool(),
        language::translate_tool(),
    ]
}

#[derive(Deserialize)]
struct ConvertArgs {
    value: f64,
    from: String,
    to: String,
}

fn convert_units(args: ConvertArgs, ctx: &ToolContext) -> Result<String, String> {
    if !args.value.is_finite() {
        return Err("The value must be a finite number.".into());
    }
    let (from, to) = (units::find(&args.from), units::find(&args.to));
    let (from, to) = match (from, to) {
        (Ok(from), Ok(to)) => (from, to),
        _ if is_currency(&args.from) && is_currency(&args.to) => {
            return currency(args.value, &args.from, &args.to, ctx);
        }
        (Err(error), _) | (_, Err(error)) => return Err(error),
    };
    let result = units::convert(args.value, from, to)?;
    let mut text = format!(
        "{} {} = {} {}",
        units::number(args.value),
        from.symbol,
        units::number(result),
        to.symbol
    );
    if units::is_average(from) != units::is_average(to) {
        text.push_str(
            " (a year is taken as the mean Gregorian year of 365.2425 days, a month as a twelfth of it)",
        );
    }
    Ok(text)
}

/// Three letters: what a currency code looks like (ISO 4217).
fn is_currency(text: &str) -> bool {
    let text = text.trim();
    text.len() == 3 && text.bytes().all(|b| b.is_ascii_alphabetic())
}

/// `value` of currency `from` in currency `to` at Frankfurter's latest reference rate.
fn currency(value: f64, from: &str, to: &str, ctx: &ToolContext) -> Result<String, String> {
    let (from, to) = (from.trim().to_uppercase(), to.trim().to_uppercase());
    if from == to {
        return Ok(format!("{} {from} = {} {to}", money(value), money(value)));
    }
    let web = &ctx.settings.web;
    let call = Call {
        query: &[("base", &from), ("symbols", &to)],
        ..Call::default()
    };
    let fetched = web.call(&FRANKFURTER, "/latest", &call, &ctx.cancel)?;
    if matches!(fetched.status, 404 | 422)
        && !crate::net::is_html(fetched.content_type.as_deref(), &fetched.body)
    {
        return Err(format!(
            "Frankfurter does not know the currency {from} or {to} (HTTP {}). It has the reference rates of central banks for about 30 major currencies (USD, EUR, GBP, JPY, CHF, CNY, …): check the codes.",
            fetched.status
        ));
    }
    let answer = web.read_json(&FRANKFURTER, &fetched)?;
    let rate = answer
        .pointer(&format!("/rates/{to}"))
        .and_then(Value::as_f64)
        .ok_or_else(|| {
            format!("Frankfurter has no rate from {from} to {to}; check the currency codes.")
        })?;
    let date = answer["date"].as_str().unwrap_or("the latest day");
    Ok(format!(
        "{} {from} = {} {to} (1 {from} = {} {to}, reference rate of {date} from Frankfurter)",
        money(value),
        money(value * rate),
        units::number(rate)
    ))
}

/// An amount of money: two decimals, unless that would hide it.
fn money(value: f64) -> String {
    if value.abs() >= 0.01 || value == 0.0 {
        format!("{value:.2}")
    } else {
        units::number(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn currency_codes_and_amounts() {
        for (text, code) in [
            ("usd", true),
            (" EUR ", true),
            ("km", false),
            ("U$D", false),
        ] {
            assert_eq!(is_currency(text), code, "{text}");
        }
        for (value, shown) in [(91.234, "91.23"), (0.0, "0.00"), (0.001234, "0.001234")] {
            assert_eq!(money(value), shown);
        }
    }
}
