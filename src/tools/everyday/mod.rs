//! The everyday tools, offered in every mode: notes, saved places, ntfy notifications, facts
//! about the machine, the web, Stack Exchange, Wikipedia, papers, feeds, bookmarks, utilities
//! (units, currencies, a dictionary, translation), GitHub, downloads, where the person is,
//! place searches, OpenStreetMap, routes, the weather, the calendar, alarms, timers, personal
//! tickets, Blender, films and games, Steam, music, recipes and Spotify. One file per family (a
//! folder only when a family has several); a new family is that file and one line here.

pub(crate) mod academic;
pub(crate) mod alarm_label;
pub(crate) mod alarms;
pub(crate) mod blender;
pub(crate) mod bookmarks;
pub(crate) mod calendar;
pub(crate) mod downloads;
pub(crate) mod feeds;
pub(crate) mod github;
pub(crate) mod location;
pub(crate) mod maps;
pub(crate) mod media;
pub(crate) mod music;
pub(crate) mod notes;
pub(crate) mod ntfy;
pub(crate) mod places;
mod places_auth;
pub(crate) mod places_search;
pub(crate) mod recipes;
pub(crate) mod spotify;
pub(crate) mod stack;
pub(crate) mod steam;
pub(crate) mod system;
pub(crate) mod tickets;
pub(crate) mod timers;
pub(crate) mod travel;
pub(crate) mod utilities;
pub(crate) mod weather;
pub(crate) mod web;
pub(crate) mod wiki;

use super::{Family, ToolDef};

/// Its families, each with its tools, in the order the model sees them.
pub(crate) fn families() -> Vec<(Family, Vec<ToolDef>)> {
    vec![
        (notes::FAMILY, notes::tools()),
        (places::FAMILY, places::tools()),
        (ntfy::FAMILY, ntfy::tools()),
        (system::FAMILY, system::tools()),
        (wiki::FAMILY, wiki::tools()),
        (academic::FAMILY, academic::tools()),
        (feeds::FAMILY, feeds::tools()),
        (bookmarks::FAMILY, bookmarks::tools()),
        (utilities::FAMILY, utilities::tools()),
        (github::FAMILY, github::tools()),
        (downloads::FAMILY, downloads::tools()),
        (web::FAMILY, web::tools()),
        (stack::FAMILY, stack::tools()),
        (location::FAMILY, location::tools()),
        (places_search::FAMILY, places_search::tools()),
        (maps::FAMILY, maps::tools()),
        (travel::FAMILY, travel::tools()),
        (weather::FAMILY, weather::tools()),
        (calendar::FAMILY, calendar::tools()),
        (alarms::FAMILY, alarms::tools()),
        (timers::FAMILY, timers::tools()),
        (tickets::FAMILY, tickets::tools()),
        (blender::FAMILY, blender::tools()),
        (media::FAMILY, media::tools()),
        (steam::FAMILY, steam::tools()),
        (spotify::FAMILY, spotify::tools()),
        (music::FAMILY, music::tools()),
        (recipes::FAMILY, recipes::tools()),
    ]
}
