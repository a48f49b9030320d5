//! Helpers of the tools that are not tools themselves: files reached without following
//! symlinks, path checks, running programs, walking a tree as git sees it, editing text files,
//! the web client every network tool goes through and the check on the addresses the model
//! gives it (reach), HTML read as text, the feeds (Atom,
//! RSS) it brings back, where a location argument points (geo), the crontab's lines Marvin
//! owns (cron) and the session's private
//! temporary directory (scratch), and a running program's output as
//! progress (watch).

pub(crate) mod confined;
pub(crate) mod cron;
pub(crate) mod cron_clock;
pub(crate) mod edit;
pub(crate) mod feed;
pub(crate) mod fsafe;
pub(crate) mod geo;
pub(crate) mod html;
pub(crate) mod ignore;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod project;
pub(crate) mod reach;
pub(crate) mod read;
pub(crate) mod scratch;
pub(crate) mod target;
pub(crate) mod watch;
pub(crate) mod web;
