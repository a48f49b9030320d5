//! The web and Stack Exchange families of issue 14 through the built binary: a replayed model
//! calls the tools, local servers replay the services (DuckDuckGo pages and a NewsAPI answer
//! recorded by others in tests/fixtures/apis/; for GNews, DuckDuckGo news, NewsAPI's errors and
//! Stack Exchange, of which nothing real was recorded, bodies built from the services'
//! documentation), and a server that never answers stands in for a hung service.

mod news;
mod stack;
mod web;

pub use crate::common::tools::{Silent, call, reply};
