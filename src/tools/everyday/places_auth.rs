//! `setup_google_auth`: checks a Google Places key with one real request to the Places API the
//! place searches use (Find Place asking for IDs only, which Google does not bill), says what
//! Google answered in words the person can act on (the key works, the API is not enabled for
//! it, the key is invalid, restricted or over its quota), and keeps a key the person gave in
//! `~/.ssh/GOOGLE_PLACES_API_KEY`, where Marvin reads service keys.

use std::path::Path;

use serde::Deserialize;

use crate::interact::approvals::{Action, ActionKind};
use crate::services::GOOGLE_PLACES;
use crate::tools::ToolContext;
use crate::tools::schema::{Kind, Param};

/// Where the key is read from: this variable, else the file `~/.ssh/<VAR>` (a macro, so the
/// sentences that name it are whole strings in the binary, not formatted at run time).
macro_rules! var {
    () => {
        "GOOGLE_PLACES_API_KEY"
    };
}
const VAR: &str = var!();
/// The Places API's console page, where it is enabled.
macro_rules! library {
    () => {
        "https://console.cloud.google.com/apis/library/places-backend.googleapis.com"
    };
}

pub(super) const PARAMS: &[Param] = &[Param::optional(
    "key",
    Kind::String,
    "A Google Places API key the person already wrote in this conversation, to check and keep. Never ask them to paste one: leave it out to check the key Marvin has",
)];

#[derive(Deserialize)]
pub(super) struct AuthArgs {
    key: Option<String>,
}

/// What Google's answer says of the key.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    Works,
    OverQuota,
    Invalid,
    NotEnabled,
    Billing,
    Restricted,
    ProjectDisabled,
    /// Refused for a reason not told apart here, or an answer that says nothing of the key.
    Unclear,
}

impl Verdict {
    /// Whether Google knows the key (so it is worth keeping).
    fn knows_key(self) -> bool {
        !matches!(self, Self::Invalid | Self::Unclear)
    }

    fn advice(self) -> &'static str {
        match self {
            Self::Works => {
                "The key works: places_text_search and places_nearby_search can use Google Places."
            }
            Self::OverQuota => {
                "The key is valid, but over its quota: searches fail until the quota resets, or until billing is set up for its project (https://console.cloud.google.com/google/maps-apis/quotas)."
            }
            Self::Invalid => {
                "Google does not know this key: check that it was copied whole, from APIs & Services > Credentials in https://console.cloud.google.com/."
            }
            Self::NotEnabled => concat!(
                "The key is valid, but the Places API is not enabled for its project: enable \"Places API\" at ",
                library!(),
                ". Marvin's searches use its Text and Nearby Search, which Google now calls legacy and may not enable for a new project; until it is enabled, place searches use OpenStreetMap."
            ),
            Self::Billing => {
                "The key is valid, but its project has no billing account: add one at https://console.cloud.google.com/project/_/billing/enable (Google's monthly free allowance still applies)."
            }
            Self::Restricted => {
                "The key is valid, but its restrictions refuse this request: for Marvin, set its application restriction to None (or this machine's IP address) and let its API restrictions include the Places API, in APIs & Services > Credentials."
            }
            Self::ProjectDisabled => {
                "Google has disabled the key's project: the Google Cloud console says why, and a key from another project works meanwhile."
            }
            Self::Unclear => {
                "That does not say whether the key is good: try again later, or look at the key in APIs & Services > Credentials."
            }
        }
    }
}

/// What Google's `status` and `error_message` say of the key. The legacy web services answer
/// every refusal with REQUEST_DENIED inside a 200, and only the message tells why.
fn verdict(status: &str, message: &str) -> Verdict {
    let said = message.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| said.contains(word));
    match status {
        "OK" | "ZERO_RESULTS" => Verdict::Works,
        "OVER_QUERY_LIMIT" => Verdict::OverQuota,
        "REQUEST_DENIED" => match () {
            _ if has(&["key is invalid", "key not valid", "key is expired"]) => Verdict::Invalid,
            _ if has(&["billing"]) => Verdict::Billing,
            _ if has(&[
                "restriction",
                "not authorized to use this api key",
                "api key is not authorized",
            ]) =>
            {
                Verdict::Restricted
            }
            _ if has(&[
                "legacy api",
                "project is not authorized",
                "not activated",
                "not enabled",
            ]) =>
            {
                Verdict::NotEnabled
            }
            _ if has(&["disabled the use of apis"]) => Verdict::ProjectDisabled,
            _ => Verdict::Unclear,
        },
        _ => Verdict::Unclear,
    }
}

pub(super) fn setup_google_auth(args: AuthArgs, ctx: &ToolContext) -> Result<String, String> {
    let given = args.key.as_deref().map(str::trim).filter(|k| !k.is_empty());
    if given.is_some_and(|key| key.chars().any(|c| c.is_whitespace() || c.is_control())) {
        return Err("The key has spaces or line breaks in it: give it as one word, as the Google Cloud console shows it.".into());
    }
    let Some(key) = given
        .map(str::to_string)
        .or_else(|| ctx.settings.web.key(&GOOGLE_PLACES))
    else {
        return Ok(STEPS.into());
    };
    let (status, message) = ask_google(ctx, &key)?;
    let verdict = verdict(&status, &message);
    let quoted = if message.is_empty() { "" } else { ": \"" };
    let end = if message.is_empty() { "" } else { "\"" };
    let kept = match given {
        Some(_) => keep(ctx, &key, verdict)?,
        None if from_environment(ctx) => concat!(
            "Marvin reads this key from ",
            var!(),
            " in the environment."
        ),
        None => concat!("Marvin reads this key from ~/.ssh/", var!(), "."),
    };
    let out = format!(
        "Google Places (the Places API at {}) answered a test search with {status}{quoted}{message}{end}.\n{}\n\n{kept}",
        crate::net::without_userinfo(&ctx.settings.web.base(&GOOGLE_PLACES)),
        verdict.advice()
    );
    Ok(out.replace(&key, "[key]"))
}

/// One Find Place request for a well-known place, IDs only: Google's `status` and
/// `error_message`.
fn ask_google(ctx: &ToolContext, key: &str) -> Result<(String, String), String> {
    let query = [
        ("input", "Eiffel Tower"),
        ("inputtype", "textquery"),
        ("fields", "place_id"),
    ];
    let value = super::places_search::google_answer(ctx, "/findplacefromtext/json", &query, key)?;
    let text = |field: &str| value[field].as_str().unwrap_or_default().to_string();
    match text("status") {
        status if status.is_empty() => Err("Google Places answered without a status, so the key could not be checked. Try again later.".into()),
        status => Ok((status, text("error_message"))),
    }
}

/// Keeps a key the person gave, when Google knows it, in `~/.ssh/GOOGLE_PLACES_API_KEY`.
fn keep(ctx: &ToolContext, key: &str, verdict: Verdict) -> Result<&'static str, String> {
    if !verdict.knows_key() {
        return Ok("Nothing was kept: give a key Google accepts.");
    }
    let settings = ctx.settings.web.settings();
    let Some(dir) = settings.home.as_ref().map(|home| home.join(".ssh")) else {
        return Err(concat!(
            "The key was not kept: HOME is not set, so Marvin has no ~/.ssh/",
            var!(),
            ". Set ",
            var!(),
            " in the environment instead."
        )
        .into());
    };
    let path = dir.join(VAR);
    ctx.approve(Action {
        tool: "setup_google_auth".into(),
        kind: ActionKind::Edit,
        key: format!("setup_google_auth:{}", path.display()),
        scope: None,
        summary: concat!(
            "setup_google_auth wants to keep the Google Places key in ~/.ssh/",
            var!(),
            ", readable by you alone:"
        )
        .into(),
        detail: format!("the key ending in {}", tail(key)),
    })?;
    write_key(&dir, &path, key).map_err(|e| {
        format!(
            "The key could not be kept in {}: {e}. Set {VAR} in the environment instead.",
            path.display()
        )
    })?;
    let shadowing = settings
        .keys
        .iter()
        .any(|(var, set)| *var == VAR && set != key);
    Ok(match shadowing {
        false => concat!(
            "Kept in ~/.ssh/",
            var!(),
            ", readable by you alone: place searches use it from now on."
        ),
        true => concat!(
            "Kept in ~/.ssh/",
            var!(),
            ", readable by you alone: place searches use it from now on. ",
            var!(),
            " in the environment holds another key, which comes first: remove it, or set it to this key."
        ),
    })
}

/// `~/.ssh` made private when missing, then the key file, 0600 from its first byte.
fn write_key(dir: &Path, path: &Path, key: &str) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.is_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    crate::store::json::replace_private(path, format!("{key}\n").as_bytes())
}

/// The key's last four characters, which tell it apart without giving it away.
fn tail(key: &str) -> &str {
    key.char_indices()
        .rev()
        .nth(3)
        .map_or(key, |(start, _)| &key[start..])
}

/// Whether the key Marvin has comes from the environment (else from `~/.ssh`).
fn from_environment(ctx: &ToolContext) -> bool {
    let settings = ctx.settings.web.settings();
    settings.keys.iter().any(|(var, _)| *var == VAR)
}

/// How to get a key, when there is none.
const STEPS: &str = concat!(
    "No key is set now: place searches use OpenStreetMap's Nominatim, which needs no key.\n\n",
    "To use Google Places:\n",
    "1. Open https://console.cloud.google.com/, create or pick a project, and enable billing for it (Google gives a monthly free allowance).\n",
    "2. Enable \"Places API\" for it: ",
    library!(),
    ".\n",
    "3. In APIs & Services > Credentials, choose Create credentials > API key; restrict it to the Places API.\n",
    "4. Store it where Marvin reads it: the environment variable ",
    var!(),
    " (e.g. in your shell's profile), or the file ~/.ssh/",
    var!(),
    " holding only the key (chmod 600 ~/.ssh/",
    var!(),
    ").\n",
    "5. Ask Marvin to check it: this tool then asks Google whether the key works.\n\n",
    "Never paste the key into the chat: Marvin does not need to see it."
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn googles_refusals_are_told_apart_by_their_message() {
        let cases = [
            ("OK", "", Verdict::Works),
            ("ZERO_RESULTS", "", Verdict::Works),
            (
                "OVER_QUERY_LIMIT",
                "You have exceeded your daily request quota for this API.",
                Verdict::OverQuota,
            ),
            (
                "REQUEST_DENIED",
                "The provided API key is invalid.",
                Verdict::Invalid,
            ),
            (
                "REQUEST_DENIED",
                "The provided API key is expired.",
                Verdict::Invalid,
            ),
            (
                "REQUEST_DENIED",
                "This API project is not authorized to use this API. Please ensure that this API is activated in the APIs Console: Learn more: https://code.google.com/apis/console",
                Verdict::NotEnabled,
            ),
            // Quoted from cablate/mcp-google-map#22 (2025), a legacy call from a new project.
            (
                "REQUEST_DENIED",
                "You’re calling a legacy API, which is not enabled for your project. To get newer features and more functionality, switch to the Places API (New) or Routes API. Learn more: https://developers.google.com/maps/legacy#LegacyApiNotActivatedMapError",
                Verdict::NotEnabled,
            ),
            (
                "REQUEST_DENIED",
                "You must enable Billing on the Google Cloud Project at https://console.cloud.google.com/project/_/billing/enable Learn more at https://developers.google.com/maps/gmp-get-started",
                Verdict::Billing,
            ),
            (
                "REQUEST_DENIED",
                "Browser API keys cannot have referer restrictions when used with this API.",
                Verdict::Restricted,
            ),
            (
                "REQUEST_DENIED",
                "This IP, site or mobile application is not authorized to use this API key. Request received from IP address 109.69.89.52, with empty referer",
                Verdict::Restricted,
            ),
            (
                "REQUEST_DENIED",
                "Google has disabled the use of APIs from this API project.",
                Verdict::ProjectDisabled,
            ),
            ("REQUEST_DENIED", "", Verdict::Unclear),
            ("INVALID_REQUEST", "", Verdict::Unclear),
        ];
        for (status, message, expected) in cases {
            assert_eq!(verdict(status, message), expected, "{status} {message}");
        }
    }

    #[test]
    fn a_key_is_shown_by_its_last_four_characters_only() {
        assert_eq!(tail("AIzaSyExample1234"), "1234");
        assert_eq!(tail("ab"), "ab");
    }
}
