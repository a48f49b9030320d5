//! A family of tools: the unit a request offers or leaves out (`tools/everyday/*`,
//! `coding/*`, each MCP server, the user's own tools). Each declares its id, one line for the
//! catalogue the model can load from, and the words a person would use when they need it,
//! which `route` matches against what they say.

/// A built-in family, declared in its own file beside its tools.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Family {
    /// Its name in the catalogue and in `find_tools`: `weather`, `coding/git`.
    pub id: &'static str,
    /// What it is for, a few words for the catalogue.
    pub about: &'static str,
    /// Words and phrases that ask for it, lower case. A trailing `*` matches any ending
    /// (`remind*`); a leading `~` marks a weak hint (`~tomorrow`), which counts less.
    pub words: &'static [&'static str],
}
