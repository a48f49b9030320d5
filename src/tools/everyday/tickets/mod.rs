//! Personal tickets (seed 002 §3 tickets.ts), kept by `store::tickets` in the profile's
//! `tickets/`, one JSON file each with a short id (`t3`): `create_ticket`, `ticket_start`,
//! `ticket_close`, `ticket_add_note`, `ticket_show`, `ticket_list`, `ticket_dep_tree`,
//! `ticket_add_dep`. Not the coding `tk` tool: other names, another store. A dependency that
//! would close a cycle is refused with the cycle named.

mod graph;

use std::path::PathBuf;
use std::time::SystemTime;

use serde::Deserialize;

use crate::store::json::SaveError;
use crate::store::tickets::{self, Note, Status, Ticket};
use crate::tools::schema::{Choices, Kind, Param};
use crate::tools::{Family, Offered, ToolContext, ToolDef};

const MAX_TITLE: usize = 200;
const MAX_TEXT: usize = 10_000;

const ID: Param = Param::required("id", Kind::String, "The ticket's id, e.g. \"t3\"");
const CREATE_PARAMS: &[Param] = &[
    Param::required("title", Kind::String, "What is to be done, in one line"),
    Param::optional("description", Kind::String, "Details worth keeping"),
    Param::optional(
        "depends_on",
        Kind::StringList,
        "Ids of tickets that must be done first, e.g. [\"t1\"]",
    ),
];
const ID_PARAMS: &[Param] = &[ID];
const CLOSE_PARAMS: &[Param] = &[
    ID,
    Param::optional("note", Kind::String, "How it ended, kept as a note"),
];
const NOTE_PARAMS: &[Param] = &[ID, Param::required("note", Kind::String, "The note")];
const LIST_PARAMS: &[Param] = &[Param::optional(
    "status",
    Kind::Choice(Choices::Fixed(&[
        "active",
        "open",
        "in_progress",
        "closed",
        "all",
    ])),
    "Which tickets: active (open or in progress; the default), open, in_progress, closed or all",
)];
const TREE_PARAMS: &[Param] = &[Param::optional(
    "id",
    Kind::String,
    "The ticket whose dependencies to draw (default: every active ticket nothing else waits on)",
)];
const DEP_PARAMS: &[Param] = &[
    ID,
    Param::required(
        "depends_on",
        Kind::String,
        "The id of the ticket it waits for",
    ),
];

/// The family: what it is for and the words that ask for it (see `tools::route`).
pub(crate) const FAMILY: Family = Family {
    id: "tickets",
    about: "personal to-do tickets",
    words: &[
        "ticket", "tickets", "task", "tasks", "todo", "to do", "to-do", "backlog", "done",
        "finished", "my list", "~list",
    ],
    asks: &[
        "add a task to my list",
        "create a ticket for fixing the bike",
        "what's on my todo list",
        "mark that task done",
        "close the ticket",
        "add a note to the ticket",
        "this task is blocked by another",
        "my backlog",
    ],
};

pub(crate) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::build("create_ticket")
            .describe("Create a personal ticket (a task to track, with an optional description and tickets it depends on). Use for the user's own to-dos; coding work is tracked with the tk tool instead.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CREATE_PARAMS)
            .example(r#"{"title": "Renew the passport", "description": "Photos first", "depends_on": ["t1"]}"#)
            .handler(create_ticket),
        ToolDef::build("ticket_start")
            .describe("Mark a personal ticket as in progress (a closed one is reopened).")
            .offered(Offered::Everywhere)
            .writes()
            .params(ID_PARAMS)
            .example(r#"{"id": "t3"}"#)
            .handler(ticket_start),
        ToolDef::build("ticket_close")
            .describe("Close a personal ticket that is done, optionally with a note; says when tickets it depends on are still open.")
            .offered(Offered::Everywhere)
            .writes()
            .params(CLOSE_PARAMS)
            .example(r#"{"id": "t3", "note": "Sent by post"}"#)
            .handler(ticket_close),
        ToolDef::build("ticket_add_note")
            .describe("Add a dated note to a personal ticket.")
            .offered(Offered::Everywhere)
            .writes()
            .params(NOTE_PARAMS)
            .example(r#"{"id": "t3", "note": "Called the office: bring two photos"}"#)
            .handler(ticket_add_note),
        ToolDef::build("ticket_show")
            .describe("Show a personal ticket: status, dates, description, what it waits on, what waits on it, notes.")
            .offered(Offered::Everywhere)
            .params(ID_PARAMS)
            .example(r#"{"id": "t3"}"#)
            .handler(ticket_show),
        ToolDef::build("ticket_list")
            .describe("List the user's personal tickets by status (by default those open or in progress).")
            .offered(Offered::Everywhere)
            .params(LIST_PARAMS)
            .example(r#"{"status": "open"}"#)
            .handler(ticket_list),
        ToolDef::build("ticket_dep_tree")
            .describe("Draw the tree of what a personal ticket waits for (or of every active ticket).")
            .offered(Offered::Everywhere)
            .params(TREE_PARAMS)
            .example(r#"{"id": "t3"}"#)
            .handler(ticket_dep_tree),
        ToolDef::build("ticket_add_dep")
            .describe("Record that a personal ticket waits for another; a dependency that would make a cycle is refused.")
            .offered(Offered::Everywhere)
            .writes()
            .params(DEP_PARAMS)
            .example(r#"{"id": "t3", "depends_on": "t1"}"#)
            .handler(ticket_add_dep),
    ]
}

fn profile_dir(ctx: &ToolContext) -> Result<PathBuf, String> {
    ctx.shared
        .profile_dir()
        .ok_or_else(|| "There is no profile to keep tickets in (no MARVIN_HOME).".to_string())
}

/// Runs `change` on the tickets under the store's lock; saves what it changed.
fn update<R>(
    ctx: &ToolContext,
    change: impl FnOnce(&mut Vec<Ticket>) -> Result<R, String>,
) -> Result<R, String> {
    update_with_id(ctx, |tickets, _| change(tickets))
}

/// As [`update`], `change` also getting the id a new ticket takes.
fn update_with_id<R>(
    ctx: &ToolContext,
    change: impl FnOnce(&mut Vec<Ticket>, String) -> Result<R, String>,
) -> Result<R, String> {
    let dir = profile_dir(ctx)?;
    tickets::update(&dir, &ctx.shared.warnings, change).map_err(|unsaved: SaveError| {
        format!(
            "Cannot save the tickets in {}: {}.",
            unsaved.path.display(),
            unsaved.error
        )
    })?
}

fn now() -> String {
    crate::clock::iso8601(SystemTime::now())
}

/// An id as given ("t3", "T3", "#3", "3"), made `t3`; or why it is not one.
fn clean_id(text: &str) -> Result<String, String> {
    let trimmed = text.trim().trim_start_matches('#').to_lowercase();
    let id = if trimmed.bytes().all(|b| b.is_ascii_digit()) {
        format!("t{trimmed}")
    } else {
        trimmed
    };
    match tickets::number(&id) {
        Some(_) => Ok(id),
        None => Err(format!(
            "'{}' is not a ticket id: ids look like t3 (ticket_list shows them).",
            text.trim()
        )),
    }
}

/// The ticket `id` among `tickets`, or an error naming the ids there are.
fn position(tickets: &[Ticket], id: &str) -> Result<usize, String> {
    tickets.iter().position(|t| t.id == id).ok_or_else(|| {
        if tickets.is_empty() {
            format!("There is no ticket {id}: there are no tickets yet (create_ticket makes one).")
        } else {
            let ids: Vec<&str> = tickets.iter().map(|t| t.id.as_str()).collect();
            format!(
                "There is no ticket {id}; the tickets are {}.",
                ids.join(", ")
            )
        }
    })
}

/// One line of text: trimmed, not empty, at most `max` characters.
fn line(text: &str, what: &str, max: usize) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() || text.contains('\n') || text.chars().count() > max {
        return Err(format!("The {what} is one line of 1 to {max} characters."));
    }
    Ok(text.to_string())
}

fn text(text: &str, what: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_TEXT {
        return Err(format!("The {what} is 1 to {MAX_TEXT} characters."));
    }
    Ok(text.to_string())
}

/// "t1 'Book flights' (open), t2 'Photos' (in_progress)".
fn named(tickets: &[&Ticket]) -> String {
    let named: Vec<String> = tickets
        .iter()
        .map(|t| format!("{} '{}' ({})", t.id, t.title, t.status.word()))
        .collect();
    named.join(", ")
}

/// The tickets `ticket` waits on that are not closed.
fn open_deps<'a>(tickets: &'a [Ticket], ticket: &Ticket) -> Vec<&'a Ticket> {
    tickets
        .iter()
        .filter(|t| ticket.deps.contains(&t.id) && t.status != Status::Closed)
        .collect()
}

#[derive(Deserialize)]
struct CreateArgs {
    title: String,
    description: Option<String>,
    depends_on: Option<Vec<String>>,
}

fn create_ticket(args: CreateArgs, ctx: &ToolContext) -> Result<String, String> {
    let title = line(&args.title, "title", MAX_TITLE)?;
    let description = match args.description.as_deref().map(str::trim) {
        None | Some("") => String::new(),
        Some(description) => text(description, "description")?,
    };
    let mut deps = Vec::new();
    for dep in args.depends_on.unwrap_or_default() {
        let dep = clean_id(&dep)?;
        if !deps.contains(&dep) {
            deps.push(dep);
        }
    }
    update_with_id(ctx, |tickets, id| {
        for dep in &deps {
            position(tickets, dep)?;
        }
        let ticket = Ticket {
            id,
            title,
            description,
            status: Status::Open,
            deps,
            notes: Vec::new(),
            created: now(),
            started: None,
            closed: None,
        };
        let waits = open_deps(tickets, &ticket);
        let mut said = format!("Created {} '{}' (open).", ticket.id, ticket.title);
        if !waits.is_empty() {
            said.push_str(&format!(" It waits on {}.", named(&waits)));
        }
        tickets.push(ticket);
        Ok(said)
    })
}

#[derive(Deserialize)]
struct IdArgs {
    id: String,
}

fn ticket_start(args: IdArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = clean_id(&args.id)?;
    update(ctx, |tickets| {
        let index = position(tickets, &id)?;
        let ticket = &tickets[index];
        let waits = named(&open_deps(tickets, ticket));
        let mut said = match ticket.status {
            Status::InProgress => {
                return Ok(format!("{id} '{}' is in progress already.", ticket.title));
            }
            Status::Closed => format!("Reopened and started {id} '{}'.", ticket.title),
            Status::Open => format!("Started {id} '{}'.", ticket.title),
        };
        if !waits.is_empty() {
            said.push_str(&format!(" It still waits on {waits}."));
        }
        let ticket = &mut tickets[index];
        ticket.status = Status::InProgress;
        ticket.started = Some(now());
        ticket.closed = None;
        Ok(said)
    })
}

#[derive(Deserialize)]
struct CloseArgs {
    id: String,
    note: Option<String>,
}

fn ticket_close(args: CloseArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = clean_id(&args.id)?;
    let note = match args.note.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(note) => Some(text(note, "note")?),
    };
    update(ctx, |tickets| {
        let index = position(tickets, &id)?;
        let ticket = &tickets[index];
        if ticket.status == Status::Closed {
            return Ok(format!(
                "{id} '{}' was closed already ({}).",
                ticket.title,
                ticket.closed.as_deref().unwrap_or("date unknown")
            ));
        }
        let mut said = format!("Closed {id} '{}'.", ticket.title);
        let waits = open_deps(tickets, ticket);
        if !waits.is_empty() {
            said.push_str(&format!(
                " Note that tickets it depends on are still open: {}.",
                named(&waits)
            ));
        }
        let at = now();
        let ticket = &mut tickets[index];
        ticket.status = Status::Closed;
        ticket.closed = Some(at.clone());
        if let Some(text) = note {
            ticket.notes.push(Note { at, text });
        }
        Ok(said)
    })
}

#[derive(Deserialize)]
struct NoteArgs {
    id: String,
    note: String,
}

fn ticket_add_note(args: NoteArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = clean_id(&args.id)?;
    let note = text(&args.note, "note")?;
    update(ctx, |tickets| {
        let index = position(tickets, &id)?;
        let ticket = &mut tickets[index];
        ticket.notes.push(Note {
            at: now(),
            text: note,
        });
        Ok(format!(
            "Added a note to {id} '{}' ({} in all).",
            ticket.title,
            match ticket.notes.len() {
                1 => "1 note".to_string(),
                n => format!("{n} notes"),
            }
        ))
    })
}

fn load(ctx: &ToolContext) -> Result<Vec<Ticket>, String> {
    Ok(tickets::all(&profile_dir(ctx)?, &ctx.shared.warnings))
}

fn ticket_show(args: IdArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = clean_id(&args.id)?;
    let tickets = load(ctx)?;
    let ticket = &tickets[position(&tickets, &id)?];
    let mut lines = vec![graph::label(ticket)];
    let mut dates = vec![format!("created {}", ticket.created)];
    dates.extend(ticket.started.as_ref().map(|at| format!("started {at}")));
    dates.extend(ticket.closed.as_ref().map(|at| format!("closed {at}")));
    lines.push(format!("Dates: {}", dates.join(", ")));
    if !ticket.description.is_empty() {
        lines.push(format!("Description: {}", ticket.description));
    }
    let labels = |list: Vec<String>| list.join("; ");
    if !ticket.deps.is_empty() {
        let deps = ticket.deps.iter().map(|dep| match position(&tickets, dep) {
            Ok(i) => graph::label(&tickets[i]),
            Err(_) => format!("{dep} (missing)"),
        });
        lines.push(format!("Waits on: {}", labels(deps.collect())));
    }
    let needed: Vec<String> = tickets
        .iter()
        .filter(|t| t.deps.contains(&id))
        .map(graph::label)
        .collect();
    if !needed.is_empty() {
        lines.push(format!("Needed by: {}", labels(needed)));
    }
    if !ticket.notes.is_empty() {
        lines.push("Notes:".into());
        lines.extend(
            ticket
                .notes
                .iter()
                .map(|n| format!("- {}: {}", n.at, n.text)),
        );
    }
    Ok(lines.join("\n"))
}

#[derive(Deserialize)]
struct ListArgs {
    status: Option<String>,
}

fn ticket_list(args: ListArgs, ctx: &ToolContext) -> Result<String, String> {
    let which = args.status.unwrap_or_else(|| "active".into());
    let tickets = load(ctx)?;
    if tickets.is_empty() {
        return Ok("There are no tickets yet (create_ticket makes one).".into());
    }
    let chosen: Vec<&Ticket> = tickets
        .iter()
        .filter(|t| match which.as_str() {
            "all" => true,
            "active" => t.status != Status::Closed,
            word => t.status.word() == word,
        })
        .collect();
    if chosen.is_empty() {
        let count = |status: Status| tickets.iter().filter(|t| t.status == status).count();
        return Ok(format!(
            "No {} tickets ({} open, {} in progress, {} closed).",
            if which == "active" {
                "open or in-progress"
            } else {
                which.as_str()
            },
            count(Status::Open),
            count(Status::InProgress),
            count(Status::Closed)
        ));
    }
    let lines: Vec<String> = chosen
        .iter()
        .map(|ticket| {
            let waits: Vec<&str> = open_deps(&tickets, ticket)
                .iter()
                .map(|t| t.id.as_str())
                .collect();
            let waits = if waits.is_empty() {
                String::new()
            } else {
                format!(" (waits on {})", waits.join(", "))
            };
            format!("- {}{waits}", graph::label(ticket))
        })
        .collect();
    Ok(lines.join("\n"))
}

#[derive(Deserialize)]
struct TreeArgs {
    id: Option<String>,
}

fn ticket_dep_tree(args: TreeArgs, ctx: &ToolContext) -> Result<String, String> {
    let tickets = load(ctx)?;
    if let Some(id) = args.id.as_deref().filter(|id| !id.trim().is_empty()) {
        let id = clean_id(id)?;
        position(&tickets, &id)?;
        return Ok(graph::tree(&tickets, &id));
    }
    let active: Vec<&Ticket> = tickets
        .iter()
        .filter(|t| t.status != Status::Closed)
        .collect();
    let roots: Vec<String> = active
        .iter()
        .filter(|t| !active.iter().any(|other| other.deps.contains(&t.id)))
        .map(|t| graph::tree(&tickets, &t.id))
        .collect();
    if roots.is_empty() {
        return Ok("No ticket is open or in progress.".into());
    }
    Ok(roots.join("\n\n"))
}

#[derive(Deserialize)]
struct DepArgs {
    id: String,
    depends_on: String,
}

fn ticket_add_dep(args: DepArgs, ctx: &ToolContext) -> Result<String, String> {
    let id = clean_id(&args.id)?;
    let dep = clean_id(&args.depends_on)?;
    update(ctx, |tickets| {
        let index = position(tickets, &id)?;
        let target = &tickets[position(tickets, &dep)?];
        if tickets[index].deps.contains(&dep) {
            return Ok(format!("{id} waits on {dep} already."));
        }
        if let Some(cycle) = graph::cycle(tickets, &id, &dep) {
            return Err(format!(
                "Refused: {id} waiting on {dep} would close the cycle {}; a ticket cannot wait on itself, even through others.",
                cycle.join(" → ")
            ));
        }
        let said = format!(
            "{id} '{}' now waits on {}.",
            tickets[index].title,
            named(&[target])
        );
        tickets[index].deps.push(dep);
        Ok(said)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_as_people_write_them() {
        for (given, id) in [("t3", "t3"), (" T12 ", "t12"), ("#4", "t4"), ("7", "t7")] {
            assert_eq!(clean_id(given).as_deref(), Ok(id), "{given}");
        }
        for given in ["", "x", "t", "t3/../x", "ticket 3"] {
            let error = clean_id(given).unwrap_err();
            assert!(error.contains("is not a ticket id"), "{given}: {error}");
        }
    }
}
