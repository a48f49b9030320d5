//! What tells one release (an edition of an album) from another: its date, its country by name,
//! its status, and in a release's own lookup its packaging and barcode, each as MusicBrainz
//! means it (the packaging "None" is a release without any; a null barcode is not known).

use serde_json::Value;

use super::show::present;

/// "2002-09-03, United States (US), Official"; with `packaging_and_barcode`, also
/// "Jewel Case, barcode 724385522925" or "no packaging".
pub(super) fn facts(release: &Value, packaging_and_barcode: bool) -> Vec<String> {
    let mut facts: Vec<String> = Vec::new();
    facts.extend(present(release, "date"));
    facts.extend(country(release));
    facts.extend(present(release, "status"));
    if packaging_and_barcode {
        facts.extend(present(release, "packaging").map(|p| match p.as_str() {
            "None" => "no packaging".to_string(),
            _ => p,
        }));
        facts.extend(present(release, "barcode").map(|b| format!("barcode {b}")));
    }
    facts
}

/// The country code, with the name its release event gives the area ("Worldwide (XW)" for
/// MusicBrainz's `[Worldwide]`, which has no country of its own); the code alone without one.
pub(super) fn country(release: &Value) -> Option<String> {
    let code = present(release, "country")?;
    let events = release["release-events"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let name = events.iter().find_map(|event| {
        let area = &event["area"];
        let codes = area["iso-3166-1-codes"].as_array()?;
        codes
            .iter()
            .any(|c| c.as_str() == Some(&code))
            .then(|| present(area, "name"))?
    });
    match name {
        Some(name) => Some(format!("{} ({code})", name.trim_matches(['[', ']']))),
        None => Some(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edition_reads_as_musicbrainz_means_it() {
        let worldwide = json!({"area": {"name": "[Worldwide]", "iso-3166-1-codes": ["XW"]}});
        let cases = [
            (json!({}), false, ""),
            (
                json!({"date": "2021-02-15", "country": "XW", "status": "Official",
                       "release-events": [worldwide], "packaging": "None", "barcode": null}),
                true,
                "2021-02-15, Worldwide (XW), Official, no packaging",
            ),
            (
                json!({"country": "GB", "packaging": "Jewel Case", "barcode": "724385522925"}),
                true,
                "GB, Jewel Case, barcode 724385522925",
            ),
            (
                json!({"country": "GB", "packaging": "Jewel Case", "barcode": "724385522925"}),
                false,
                "GB",
            ),
            // An event elsewhere does not name this release's country.
            (
                json!({"country": "US", "release-events": [worldwide]}),
                false,
                "US",
            ),
        ];
        for (release, full, shown) in cases {
            assert_eq!(facts(&release, full).join(", "), shown, "{release}");
        }
    }
}
