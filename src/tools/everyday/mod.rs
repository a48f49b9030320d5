//! The everyday tools, offered in every mode: notes, saved places, ntfy notifications, facts
//! about the machine, bookmarks, the web, Stack Exchange. One file per family (a folder only when a family has several);
//! a new family is that file and one line here.

pub(crate) mod bookmarks;
pub(crate) mod notes;
pub(crate) mod ntfy;
pub(crate) mod places;
pub(crate) mod stack;
pub(crate) mod system;
pub(crate) mod web;

use super::ToolDef;

/// The tools of every everyday family, in the order the model sees them.
pub(crate) fn tools() -> Vec<ToolDef> {
    [
        notes::tools(),
        places::tools(),
        ntfy::tools(),
        system::tools(),
        bookmarks::tools(),
        web::tools(),
        stack::tools(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
