//! The travel and weather families of issue 15 through the built binary: a replayed model
//! calls the tools, local servers replay OSRM and Open-Meteo (recorded answers in
//! tests/fixtures/apis/ with their notes; the few bodies built from the services'
//! documentation say so), with a profile whose saved places and preferred units the tools use
//! without being told.

mod travel;
mod weather;

use crate::common::{Reply, TempDir, fixture};

/// A home whose default profile has these saved places and preferences (JSON).
pub fn home_with(name: &str, places: &str, preferences: &str) -> TempDir {
    let home = TempDir::new(name);
    let profile = home.path().join("marvin-home/profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    std::fs::write(profile.join("saved_places.json"), places).unwrap();
    std::fs::write(profile.join("preferences.json"), preferences).unwrap();
    home
}

/// A recorded answer from tests/fixtures/apis/, as JSON with this status.
pub fn recorded(status: u16, name: &str) -> Reply {
    Reply::json(status, fixture(&format!("apis/{name}")))
}
