//! The everyday tools, offered in every mode: notes, saved places, ntfy notifications, facts
//! about the machine, the web, Stack Exchange, Wikipedia, papers, feeds, bookmarks, utilities
//! (units, currencies, a dictionary, translation), GitHub, downloads, where the person is,
//! place searches, OpenStreetMap, routes, the weather, the calendar, alarms, timers, personal
//! tickets, Blender, films and games, Steam, music, recipes and Spotify. One file per family (a
//! folder only when a family has several); a new family is that file and one line here.

pub(crate) mod academic;
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

use super::ToolDef;

/// The tools of every everyday family, in the order the model sees them.
pub(crate) fn tools() -> Vec<ToolDef> {
    [
        notes::tools(),
        places::tools(),
        ntfy::tools(),
        system::tools(),
        wiki::tools(),
        academic::tools(),
        feeds::tools(),
        bookmarks::tools(),
        utilities::tools(),
        github::tools(),
        downloads::tools(),
        web::tools(),
        stack::tools(),
        location::tools(),
        places_search::tools(),
        maps::tools(),
        travel::tools(),
        weather::tools(),
        calendar::tools(),
        alarms::tools(),
        timers::tools(),
        tickets::tools(),
        blender::tools(),
        media::tools(),
        steam::tools(),
        spotify::tools(),
        music::tools(),
        recipes::tools(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
