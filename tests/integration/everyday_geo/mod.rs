//! The places families of issue 15 through the built binary: a replayed model calls
//! get_my_location, the place searches and the OpenStreetMap tools; local servers replay the
//! services with responses recorded by others (tests/fixtures/apis/, with their notes), a fake
//! `where-am-i` on PATH stands in for GeoClue's client, and a server that never answers
//! stands in for a hung service.

mod location;
mod maps;
mod places_search;

pub use crate::common::tools::{Silent, call, reply};

/// A recorded response from tests/fixtures/apis/.
pub fn fixture(name: &str) -> Vec<u8> {
    crate::common::fixture(&format!("apis/{name}"))
}
