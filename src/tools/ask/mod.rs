//! The tools that ask the person: `ask_user` at the terminal and the `interview` form.

pub(crate) mod ask_user;
pub(crate) mod interview;

use super::{Family, ToolDef};

/// The asking families, each with its tools, in the order the model sees them.
pub(crate) fn families() -> Vec<(Family, Vec<ToolDef>)> {
    vec![
        (ask_user::FAMILY, ask_user::tools()),
        (interview::FAMILY, interview::tools()),
    ]
}
