//! The dependencies between personal tickets as a graph: the cycle a new dependency would
//! close, and the tree of what a ticket waits for.

use std::collections::HashSet;

use crate::store::tickets::Ticket;

fn find<'a>(tickets: &'a [Ticket], id: &str) -> Option<&'a Ticket> {
    tickets.iter().find(|t| t.id == id)
}

/// The cycle that `from` depending on `to` would close, from `from` back to it
/// (`["a", "b", "c", "a"]`); `None` when there would be none.
pub(super) fn cycle(tickets: &[Ticket], from: &str, to: &str) -> Option<Vec<String>> {
    if from == to {
        return Some(vec![from.to_string(), to.to_string()]);
    }
    let mut seen = HashSet::new();
    let mut path = vec![to.to_string()];
    if reaches(tickets, to, from, &mut seen, &mut path) {
        let mut cycle = vec![from.to_string()];
        cycle.extend(path);
        Some(cycle)
    } else {
        None
    }
}

/// Whether `target` is reachable from `at` through dependencies; `path` ends at `target`
/// when it is.
fn reaches(
    tickets: &[Ticket],
    at: &str,
    target: &str,
    seen: &mut HashSet<String>,
    path: &mut Vec<String>,
) -> bool {
    if !seen.insert(at.to_string()) {
        return false;
    }
    let Some(ticket) = find(tickets, at) else {
        return false;
    };
    for dep in &ticket.deps {
        path.push(dep.clone());
        if dep == target || reaches(tickets, dep, target, seen, path) {
            return true;
        }
        path.pop();
    }
    false
}

/// The tree of what `root` waits for, one ticket a line: `t3 [open] Plan the trip`, its
/// dependencies below it drawn with `├──` and `└──`. A ticket met again is not expanded again
/// ("shown above"); a dependency on a ticket that no longer exists is said to be missing.
pub(super) fn tree(tickets: &[Ticket], root: &str) -> String {
    let mut lines = Vec::new();
    let mut shown = HashSet::new();
    branch(tickets, root, "", "", &mut shown, &mut lines);
    lines.join("\n")
}

fn branch(
    tickets: &[Ticket],
    id: &str,
    lead: &str,
    indent: &str,
    shown: &mut HashSet<String>,
    lines: &mut Vec<String>,
) {
    let Some(ticket) = find(tickets, id) else {
        lines.push(format!("{lead}{id} (missing)"));
        return;
    };
    let label = format!("{lead}{}", label(ticket));
    if !shown.insert(id.to_string()) {
        if !ticket.deps.is_empty() {
            lines.push(format!("{label} (shown above)"));
        } else {
            lines.push(label);
        }
        return;
    }
    lines.push(label);
    for (i, dep) in ticket.deps.iter().enumerate() {
        let last = i + 1 == ticket.deps.len();
        let (lead, more) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        branch(
            tickets,
            dep,
            &format!("{indent}{lead}"),
            &format!("{indent}{more}"),
            shown,
            lines,
        );
    }
}

/// `t3 [open] Plan the trip`.
pub(super) fn label(ticket: &Ticket) -> String {
    format!("{} [{}] {}", ticket.id, ticket.status.word(), ticket.title)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tickets::Status;

    fn ticket(id: &str, deps: &[&str]) -> Ticket {
        Ticket {
            id: id.into(),
            title: format!("do {id}"),
            description: String::new(),
            status: Status::Open,
            deps: deps.iter().map(|d| d.to_string()).collect(),
            notes: Vec::new(),
            created: String::new(),
            started: None,
            closed: None,
        }
    }

    #[test]
    fn a_dependency_that_closes_a_loop_names_it() {
        let tickets = [
            ticket("t1", &["t2"]),
            ticket("t2", &["t3", "t5"]),
            ticket("t3", &[]),
            ticket("t4", &["t1"]),
            ticket("t5", &["t4"]),
        ];
        let cases: &[(&str, &str, Option<&[&str]>)] = &[
            ("t3", "t1", Some(&["t3", "t1", "t2", "t3"])),
            ("t4", "t4", Some(&["t4", "t4"])),
            ("t3", "t4", Some(&["t3", "t4", "t1", "t2", "t3"])),
            ("t1", "t3", None),
            ("t3", "t9", None),
            ("t4", "t3", None),
        ];
        for (from, to, expected) in cases {
            let got = cycle(&tickets, from, to);
            let expected = expected.map(|ids| ids.iter().map(|s| s.to_string()).collect());
            assert_eq!(got, expected, "{from} → {to}");
        }
    }

    #[test]
    fn the_tree_draws_branches_and_expands_each_ticket_once() {
        let mut tickets = vec![
            ticket("t1", &["t2", "t3"]),
            ticket("t2", &["t4"]),
            ticket("t3", &["t4", "t9"]),
            ticket("t4", &["t5"]),
            ticket("t5", &[]),
        ];
        tickets[4].status = Status::Closed;
        assert_eq!(
            tree(&tickets, "t1"),
            "t1 [open] do t1\n\
             ├── t2 [open] do t2\n\
             │   └── t4 [open] do t4\n\
             │       └── t5 [closed] do t5\n\
             └── t3 [open] do t3\n    \
                 ├── t4 [open] do t4 (shown above)\n    \
                 └── t9 (missing)"
        );
        assert_eq!(tree(&tickets, "t5"), "t5 [closed] do t5");
    }
}
