//! The Steam store's JSON, which needs no key: `/api/storesearch` (games by name),
//! `/api/appdetails` (one app's store page; `{"<id>": {"success": false}}` for an id the store
//! does not have) and `/api/featuredcategories` (specials, top sellers, new releases), read
//! into text. Prices come in cents with their currency; a free game has no `price_overview`,
//! and a game not released yet may have one (a pre-order).

use serde_json::Value;

use super::date;
use crate::services::STEAM_STORE;
use crate::tools::ToolContext;
use crate::tools::kit::html;
use crate::tools::kit::web::Call;

/// Prices in US dollars and texts in English, as the store gives them for these.
const REGION: [(&str, &str); 2] = [("l", "english"), ("cc", "US")];
/// The featured lists, their keys in the answer and their names.
const FEATURED: [(&str, &str); 3] = [
    ("specials", "Specials"),
    ("top_sellers", "Top sellers"),
    ("new_releases", "New releases"),
];

fn ask(ctx: &ToolContext, path: &str, pairs: &[(&str, &str)]) -> Result<Value, String> {
    let query: Vec<(&str, &str)> = pairs.iter().chain(REGION.iter()).copied().collect();
    let call = Call {
        query: &query,
        ..Call::default()
    };
    ctx.settings
        .web
        .json(&STEAM_STORE, path, &call, &ctx.cancel)
}

fn store_page(id: &str) -> String {
    format!("https://store.steampowered.com/app/{id}")
}

pub(super) fn search(ctx: &ToolContext, query: &str, max: usize) -> Result<String, String> {
    let value = ask(ctx, "/api/storesearch/", &[("term", query)])?;
    let items = value["items"].as_array().map_or(&[][..], Vec::as_slice);
    if items.is_empty() {
        return Ok(format!(
            "The Steam store has no game matching '{query}'. Try other or fewer words."
        ));
    }
    let mut out = format!("Steam store results for '{query}':");
    for (i, item) in items.iter().take(max).enumerate() {
        out.push_str(&format!("\n\n{}. {}", i + 1, search_item(item)));
    }
    out.push_str("\n\nDetails of one with steam_app_details (its app_id).");
    Ok(out)
}

/// `Portal 2 (app_id 620): 9.99 USD; Metacritic 95; Windows, macOS, Linux` and its address.
fn search_item(item: &Value) -> String {
    let id = id_text(&item["id"]);
    let mut facts = Vec::new();
    facts.push(match item.get("price").filter(|p| p.is_object()) {
        Some(price) => price_text(
            price["final"].as_i64(),
            price["initial"].as_i64(),
            price["currency"].as_str(),
        ),
        None => "no price (free, or not sold alone)".to_string(),
    });
    if let Some(score) = item["metascore"].as_str().filter(|s| !s.is_empty()) {
        facts.push(format!("Metacritic {score}"));
    }
    if let Some(platforms) = platforms(&item["platforms"]) {
        facts.push(platforms);
    }
    format!(
        "{} (app_id {id}): {}\n   {}",
        item["name"].as_str().unwrap_or("(unnamed)"),
        facts.join("; "),
        store_page(&id)
    )
}

/// A number or string id as text.
fn id_text(id: &Value) -> String {
    match id {
        Value::String(text) => text.clone(),
        other => other.as_u64().unwrap_or(0).to_string(),
    }
}

/// `4.99 USD (was 9.99 USD, -50%)`, or the one price when there is no discount.
fn price_text(last: Option<i64>, first: Option<i64>, currency: Option<&str>) -> String {
    let currency = currency.unwrap_or("");
    let show = |cents: i64| format!("{}.{:02} {currency}", cents / 100, cents % 100);
    match (last, first) {
        (Some(0), _) => "free".to_string(),
        (Some(last), Some(first)) if first > last => format!(
            "{} (was {}, -{}%)",
            show(last),
            show(first),
            (100 * (first - last) + first / 2) / first
        ),
        (Some(last), _) => show(last),
        (None, _) => "price unknown".to_string(),
    }
    .trim_end()
    .to_string()
}

/// `Windows, macOS, Linux`: the platforms marked true.
fn platforms(value: &Value) -> Option<String> {
    let names: Vec<&str> = [("windows", "Windows"), ("mac", "macOS"), ("linux", "Linux")]
        .into_iter()
        .filter(|(key, _)| value[key].as_bool() == Some(true))
        .map(|(_, name)| name)
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

pub(super) fn details(ctx: &ToolContext, app: u64) -> Result<String, String> {
    let id = app.to_string();
    let value = ask(ctx, "/api/appdetails", &[("appids", &id)])?;
    let entry = &value[&id];
    if entry["success"].as_bool() != Some(true) || !entry["data"].is_object() {
        return Err(format!(
            "The Steam store has no app {app} (or does not show it in this region): find the game's app_id with steam_search."
        ));
    }
    Ok(describe(&entry["data"], &id))
}

/// One app's store page as text.
fn describe(data: &Value, id: &str) -> String {
    let kind = data["type"].as_str().unwrap_or("app");
    let mut lines = vec![format!(
        "{} (app_id {id}, {kind})",
        data["name"].as_str().unwrap_or("(unnamed)")
    )];
    lines.push(format!("Price: {}", app_price(data)));
    if let Some(date) = data.pointer("/release_date/date").and_then(Value::as_str) {
        let label = if coming_soon(data) {
            "Coming"
        } else {
            "Released"
        };
        lines.push(format!(
            "{label}: {}",
            if date.is_empty() {
                "to be announced"
            } else {
                date
            }
        ));
    }
    if let Some(age) = required_age(&data["required_age"]).filter(|age| *age > 0) {
        lines.push(format!("Minimum age: {age}"));
    }
    lines.extend(facts(data));
    if let Some(site) = data["website"].as_str().filter(|s| !s.is_empty()) {
        lines.push(format!("Website: {site}"));
    }
    lines.push(format!("Store: {}", store_page(id)));
    let mut out = lines.join("\n");
    if let Some(text) = data["short_description"].as_str().filter(|s| !s.is_empty()) {
        out.push_str(&format!("\n\n{}", html::line(text)));
    }
    out
}

/// Whether the store says the app is not released yet.
fn coming_soon(data: &Value) -> bool {
    data.pointer("/release_date/coming_soon") == Some(&Value::Bool(true))
}

/// The age the store asks a buyer to confirm: a number, or a number in a string ("16").
fn required_age(value: &Value) -> Option<u64> {
    match value {
        Value::String(text) => text.trim().parse().ok(),
        other => other.as_u64(),
    }
}

/// Who made it, its genres, platforms, scores and add-ons: a line each that the store gives.
fn facts(data: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    for (label, field) in [("Developers", "developers"), ("Publishers", "publishers")] {
        if let Some(list) = strings(&data[field]) {
            lines.push(format!("{label}: {list}"));
        }
    }
    let genres: Vec<&str> = data["genres"]
        .as_array()
        .map(|g| g.iter().filter_map(|g| g["description"].as_str()).collect())
        .unwrap_or_default();
    if !genres.is_empty() {
        lines.push(format!("Genres: {}", genres.join(", ")));
    }
    if let Some(list) = platforms(&data["platforms"]) {
        lines.push(format!("Platforms: {list}"));
    }
    if let Some(score) = data.pointer("/metacritic/score").and_then(Value::as_i64) {
        lines.push(format!("Metacritic: {score}"));
    }
    if let Some(total) = data
        .pointer("/recommendations/total")
        .and_then(Value::as_u64)
    {
        lines.push(format!("Recommendations: {total}"));
    }
    let dlc: Vec<String> = data["dlc"]
        .as_array()
        .map(|ids| ids.iter().map(id_text).collect())
        .unwrap_or_default();
    if !dlc.is_empty() {
        lines.push(format!("DLC: {} (app_ids {})", dlc.len(), dlc.join(", ")));
    }
    lines
}

/// An app's price: free, on sale, or its price (the store's own formatting when given; its
/// `initial_formatted` is empty when there is no discount). A price before the release is a
/// pre-order's.
fn app_price(data: &Value) -> String {
    if data["is_free"].as_bool() == Some(true) {
        return "free to play".into();
    }
    let Some(price) = data.get("price_overview").filter(|p| p.is_object()) else {
        return "not sold on its own (or not yet)".into();
    };
    let last = price["final_formatted"].as_str().unwrap_or_default();
    let first = price["initial_formatted"].as_str().unwrap_or_default();
    let off = price["discount_percent"].as_i64().unwrap_or(0);
    let text = match (last.is_empty(), off > 0 && !first.is_empty()) {
        (false, true) => format!("{last} (was {first}, -{off}%)"),
        (false, false) => last.to_string(),
        (true, _) => price_text(
            price["final"].as_i64(),
            price["initial"].as_i64(),
            price["currency"].as_str(),
        ),
    };
    if coming_soon(data) {
        return format!("{text} (a pre-order: the game is not released yet)");
    }
    text
}

fn strings(value: &Value) -> Option<String> {
    let list: Vec<&str> = value.as_array()?.iter().filter_map(Value::as_str).collect();
    (!list.is_empty()).then(|| list.join(", "))
}

pub(super) fn featured(
    ctx: &ToolContext,
    category: Option<&str>,
    max: usize,
) -> Result<String, String> {
    let value = ask(ctx, "/api/featuredcategories", &[])?;
    let mut sections = Vec::new();
    for (key, name) in FEATURED {
        if category.is_some_and(|wanted| wanted != key) {
            continue;
        }
        let items = value
            .pointer(&format!("/{key}/items"))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        let mut section = format!("{name}:");
        if items.is_empty() {
            section.push_str(" none listed now.");
        }
        for (i, item) in items.iter().take(max).enumerate() {
            section.push_str(&format!("\n{}. {}", i + 1, featured_item(item)));
        }
        sections.push(section);
    }
    Ok(format!(
        "Featured on the Steam store now (US prices):\n\n{}",
        sections.join("\n\n")
    ))
}

/// `Name (app_id N): 4.99 USD (was 9.99 USD, -50%), until 2026-07-01`.
fn featured_item(item: &Value) -> String {
    let mut price = price_text(
        item["final_price"].as_i64(),
        item["original_price"].as_i64(),
        item["currency"].as_str(),
    );
    if let Some(until) = item["discount_expiration"].as_i64() {
        price.push_str(&format!(", until {}", date(until)));
    }
    format!(
        "{} (app_id {}): {price}",
        item["name"].as_str().unwrap_or("(unnamed)"),
        id_text(&item["id"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// (final, initial, currency) and the text.
    type PriceCase = (Option<i64>, Option<i64>, Option<&'static str>, &'static str);

    #[test]
    fn prices_in_cents() {
        let cases: &[PriceCase] = &[
            (Some(999), Some(999), Some("USD"), "9.99 USD"),
            (
                Some(499),
                Some(999),
                Some("USD"),
                "4.99 USD (was 9.99 USD, -50%)",
            ),
            (
                Some(1339),
                Some(3999),
                Some("EUR"),
                "13.39 EUR (was 39.99 EUR, -67%)",
            ),
            (Some(0), None, Some("USD"), "free"),
            (Some(1999), None, None, "19.99"),
            (None, None, None, "price unknown"),
        ];
        for (last, first, currency, expected) in cases {
            assert_eq!(price_text(*last, *first, *currency), *expected);
        }
    }

    #[test]
    fn app_prices() {
        let cases = [
            (json!({"is_free": true}), "free to play"),
            (
                json!({"is_free": false}),
                "not sold on its own (or not yet)",
            ),
            (
                json!({"price_overview": {"currency": "USD", "initial": 1999, "final": 499, "discount_percent": 75, "initial_formatted": "$19.99", "final_formatted": "$4.99"}}),
                "$4.99 (was $19.99, -75%)",
            ),
            (
                json!({"price_overview": {"currency": "USD", "initial": 999, "final": 999, "discount_percent": 0, "initial_formatted": "", "final_formatted": "$9.99"}}),
                "$9.99",
            ),
            (
                json!({"price_overview": {"currency": "AUD", "initial": 7495, "final": 7495, "discount_percent": 0, "initial_formatted": "", "final_formatted": "A$ 74.95"}, "release_date": {"coming_soon": true, "date": "13 Dec, 2022"}}),
                "A$ 74.95 (a pre-order: the game is not released yet)",
            ),
        ];
        for (data, expected) in cases {
            assert_eq!(app_price(&data), expected, "{data}");
        }
    }

    #[test]
    fn required_age_as_a_number_or_a_string() {
        let cases = [
            (json!(0), Some(0)),
            (json!("16"), Some(16)),
            (json!(18), Some(18)),
            (json!("none"), None),
            (json!(null), None),
        ];
        for (value, expected) in cases {
            assert_eq!(required_age(&value), expected, "{value}");
        }
    }

    #[test]
    fn platforms_marked_true() {
        assert_eq!(
            platforms(&json!({"windows": true, "mac": false, "linux": true})).as_deref(),
            Some("Windows, Linux")
        );
        assert_eq!(platforms(&json!({})), None);
    }
}
