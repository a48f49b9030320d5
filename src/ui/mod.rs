//! Everything that reaches the terminal: the REPL, the turn view, the non-interactive writer.

pub(crate) mod actions;
pub(crate) mod ask;
pub(crate) mod banner;
pub(crate) mod batch;
mod batch_ask;
pub(crate) mod calls;
pub(crate) mod complete;
mod help;
mod input;
pub(crate) mod keys;
pub(crate) mod markdown;
pub(crate) mod output;
pub(crate) mod park;
mod phone;
pub(crate) mod repl;
pub(crate) mod sanitize;
pub(crate) mod sessions;
mod shell;
pub(crate) mod signal;
pub(crate) mod spinner;
pub(crate) mod stdin;
pub(crate) mod style;
pub(crate) mod table;
pub(crate) mod terminal;
pub(crate) mod turn;
pub(crate) mod voice;
pub(crate) mod width;
