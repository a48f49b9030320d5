//! Saved places of the active profile (kept by `store::places`): `save_place`, `remove_place`,
//! `list_places`.

use std::path::PathBuf;

use serde::Deserialize;

use crate::store::places::{self, Place};
use crate::tools::schema::{Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const SAVE_PARAMS: &[Param] = &[
    Param::required(
        "label",
        Kind::String,
        "A short name for it, e.g. home, work, dentist",
    ),
    Param::required("name", Kind::String, "The place's name"),
    Param::required("address", Kind::String, "Its address"),
    Param::optional("lat", Kind::Number, "Latitude"),
    Param::optional("lng", Kind::Number, "Longitude"),
    Param::optional("notes", Kind::String, "Anything worth remembering"),
];
const LABEL: &[Param] = &[Param::required("label", Kind::String, "The place's label")];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "places",
    about: "saved places: home, work",
    words: &[
        "my places",
        "saved place",
        "save this place",
        "my home address",
        "my work address",
        "remember this address",
    ],
    asks: &[
        "remember this address as home",
        "save my work address",
        "keep this place as the gym",
        "which places have I saved",
        "forget the place called office",
        "what's my home address",
        "store mum's address",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("save_place")
            .describe("Save (or update) a place in the user's profile under a label.")
            .offered(Offered::Everywhere)
            .writes()
            .params(SAVE_PARAMS)
            .example(r#"{"label": "work", "name": "Acme HQ", "address": "1 Main St"}"#)
            .handler(save_place),
        ToolDef::build("remove_place")
            .describe("Remove a saved place by its label.")
            .offered(Offered::Everywhere)
            .writes()
            .params(LABEL)
            .example(r#"{"label": "work"}"#)
            .handler(remove_place),
        ToolDef::build("list_places")
            .describe("List the user's saved places.")
            .offered(Offered::Everywhere)
            .example("{}")
            .handler(list_places),
    ]
}

fn profile_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.shared
        .profile_dir()
        .ok_or_else(|| "There is no profile to keep places in (no MARVIN_HOME).".to_string())
}

fn save(dir: &std::path::Path, list: &[Place]) -> Result<(), String> {
    places::save(dir, list).map_err(|unsaved| {
        format!(
            "Cannot save places to {}: {}.",
            unsaved.path.display(),
            unsaved.error
        )
    })
}

fn save_place(place: Place, ctx: &ToolContext) -> Result<String, String> {
    let dir = profile_dir(ctx)?;
    let _held = places::hold(&dir)
        .map_err(|e| format!("Cannot lock the saved places in {}: {e}.", dir.display()))?;
    let mut list = places::load(&dir, &ctx.shared.warnings);
    let label = place.label.trim().to_string();
    if label.is_empty() {
        return Err("The label is empty: give the place a short name such as home or work.".into());
    }
    let updated = list.iter().any(|p| p.label.eq_ignore_ascii_case(&label));
    list.retain(|p| !p.label.eq_ignore_ascii_case(&label));
    list.push(Place {
        label: label.clone(),
        ..place
    });
    save(&dir, &list)?;
    Ok(format!(
        "{} the place '{label}'.",
        if updated { "Updated" } else { "Saved" }
    ))
}

#[derive(Deserialize)]
struct LabelArgs {
    label: String,
}

fn remove_place(args: LabelArgs, ctx: &ToolContext) -> Result<String, String> {
    let dir = profile_dir(ctx)?;
    let _held = places::hold(&dir)
        .map_err(|e| format!("Cannot lock the saved places in {}: {e}.", dir.display()))?;
    let mut list = places::load(&dir, &ctx.shared.warnings);
    let before = list.len();
    list.retain(|p| !p.label.eq_ignore_ascii_case(args.label.trim()));
    if list.len() == before {
        let labels: Vec<&str> = list.iter().map(|p| p.label.as_str()).collect();
        return Err(format!(
            "There is no place labelled '{}'. Saved: {}.",
            args.label.trim(),
            if labels.is_empty() {
                "none".into()
            } else {
                labels.join(", ")
            }
        ));
    }
    save(&dir, &list)?;
    Ok(format!("Removed the place '{}'.", args.label.trim()))
}

#[derive(Deserialize)]
struct NoArgs {}

fn list_places(_: NoArgs, ctx: &ToolContext) -> Result<String, String> {
    Ok(describe(&places::load(
        &profile_dir(ctx)?,
        &ctx.shared.warnings,
    )))
}

/// One line per place, for the tool and the `saved` command.
pub(crate) fn describe(places: &[Place]) -> String {
    if places.is_empty() {
        return "No saved places.".to_string();
    }
    places
        .iter()
        .map(|p| {
            let notes = p
                .notes
                .as_deref()
                .map(|n| format!(" — {n}"))
                .unwrap_or_default();
            format!("{}: {}, {}{notes}", p.label, p.name, p.address)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::SessionTools;
    use std::sync::Arc;

    #[test]
    fn places_are_saved_updated_listed_and_removed() {
        let dir = crate::test_support::TempDir::new("places");
        let shared = SessionTools {
            profile_dir: std::sync::RwLock::new(Some(dir.path().to_path_buf())),
            ..SessionTools::default()
        };
        let ctx = ToolContext {
            shared: Arc::new(shared),
            ..ToolContext::new(dir.path().to_path_buf())
        };
        let place = |name: &str| Place {
            label: "Work".into(),
            name: name.into(),
            address: "1 Main St".into(),
            lat: None,
            lng: None,
            notes: None,
        };
        assert_eq!(
            save_place(place("Acme"), &ctx).unwrap(),
            "Saved the place 'Work'."
        );
        assert_eq!(
            save_place(place("Acme HQ"), &ctx).unwrap(),
            "Updated the place 'Work'."
        );
        assert_eq!(
            list_places(NoArgs {}, &ctx).unwrap(),
            "Work: Acme HQ, 1 Main St"
        );
        assert!(
            remove_place(
                LabelArgs {
                    label: "gym".into()
                },
                &ctx
            )
            .unwrap_err()
            .contains("Saved: Work.")
        );
        remove_place(
            LabelArgs {
                label: "work".into(),
            },
            &ctx,
        )
        .unwrap();
        assert_eq!(list_places(NoArgs {}, &ctx).unwrap(), "No saved places.");
    }
}
