//! The coding tools, offered in coding mode: files, patches, search, the shell, git, tickets,
//! sub-agents, packages and the working directory. This list is the group: a new family is one file and one line here.

pub(crate) mod agents;
pub(crate) mod codex_patch;
pub(crate) mod files;
pub(crate) mod git;
pub(crate) mod packages;
pub(crate) mod search;
pub(crate) mod shell;
pub(crate) mod tickets;
pub(crate) mod workdir;

use super::{Family, ToolDef};

/// Its families, each with its tools, in the order the model sees them.
pub(crate) fn families() -> Vec<(Family, Vec<ToolDef>)> {
    vec![
        (files::FAMILY, files::tools()),
        (shell::FAMILY, shell::tools()),
        (git::FAMILY, git::tools()),
        (search::FAMILY, search::tools()),
        (tickets::FAMILY, tickets::tools()),
        (agents::FAMILY, agents::tools()),
        (packages::FAMILY, packages::tools()),
        (workdir::FAMILY, workdir::tools()),
    ]
}
