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
    /// Words and phrases that name what it is for, lower case: retrieval counts them most
    /// (see `route::index`; a leading `~` or a trailing `*` is read as the plain word).
    pub words: &'static [&'static str],
    /// Requests that ask for it, as people say them: what retrieval learns the family's
    /// vocabulary from besides its words and its tools' descriptions (see `route::index`).
    pub asks: &'static [&'static str],
}
