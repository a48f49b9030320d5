//! The music and recipes families of issue 16 through the built binary: a replayed model calls
//! the tools, local servers stand in for MusicBrainz and TheMealDB (the recorded answers in
//! tests/fixtures/apis/ where there are some: MusicBrainz's searches, album and release,
//! TheMealDB's lookup and filter by category; the rest built from the services' documentation,
//! as musicbrainz.md and mealdb.md say), a server that never answers for a hung service.

mod music;
mod recipes;

pub use crate::common::tools::{call, reply};
use crate::common::{Reply, TempDir, fixture};

/// An answer from tests/fixtures/apis/ (recorded or documentation-shaped, as its note says),
/// as JSON with this status.
pub fn built(status: u16, name: &str) -> Reply {
    Reply::json(status, fixture(&format!("apis/{name}")))
}

/// A captive portal's page, where a service's data was expected.
pub fn portal() -> Reply {
    reply(
        200,
        "text/html; charset=utf-8",
        "<!DOCTYPE html><html><head><title>Hotel Wi-Fi</title></head><body><form>Log in</form></body></html>",
    )
}

/// A home whose default profile has these preferences (JSON).
pub fn home_with_preferences(name: &str, preferences: &str) -> TempDir {
    let home = TempDir::new(name);
    let profile = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(profile.join("preferences.json"), preferences).unwrap();
    home
}
