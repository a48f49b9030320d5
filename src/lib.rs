//! Marvin: a terminal AI assistant. The binary is a thin wrapper around [`app::run`].
//! The modules the binary and the integration tests use are public; the rest are the crate's
//! own (see ARCHITECTURE.md for the map).

pub mod agent;
pub mod app;
pub(crate) mod audit;
pub mod budget;
pub mod cancel;
pub mod cli;
pub(crate) mod clock;
pub(crate) mod commands;
pub mod completions;
pub mod config;
pub(crate) mod edit_distance;
pub(crate) mod gateway;
pub mod interact;
pub mod llm;
pub(crate) mod local;
pub mod message;
pub(crate) mod net;
pub(crate) mod programs;
pub(crate) mod prompt;
#[cfg(test)]
mod props;
pub mod providers;
pub mod sandbox;
#[cfg(test)]
mod schema_suite;
pub(crate) mod secret;
pub(crate) mod services;
pub mod session;
pub(crate) mod store;
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod test_support;
pub mod tools;
pub(crate) mod ui;
pub mod usage;
pub(crate) mod voice;
pub(crate) mod web;
pub(crate) mod when;
