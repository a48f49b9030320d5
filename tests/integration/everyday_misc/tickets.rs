//! The personal tickets (create_ticket … ticket_add_dep), kept one JSON file each in the
//! profile's tickets/: their life, a refused cycle named, closing over open dependencies, the
//! tree, mistakes, a corrupt file, and eight tickets created at once.

use serde_json::Value;

use super::{call, round, run};
use crate::common::TempDir;

fn tickets_dir(home: &TempDir) -> std::path::PathBuf {
    home.path().join("marvin-home/profiles/default/tickets")
}

fn file(home: &TempDir, id: &str) -> Value {
    let text = std::fs::read_to_string(tickets_dir(home).join(format!("{id}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Calls one after another, one round each (the calls of a round run at once).
fn one_by_one(home: &TempDir, calls: &[(&str, &str)]) -> Vec<String> {
    let rounds: Vec<[(&str, &str, &str); 1]> = calls
        .iter()
        .map(|(tool, args)| [("1", *tool, *args)])
        .collect();
    let rounds: Vec<&[(&str, &str, &str)]> = rounds.iter().map(|r| &r[..]).collect();
    let run = run(home, &rounds);
    assert_eq!(run.output.status.code(), Some(0), "{}", run.stderr());
    run.rounds.into_iter().map(|mut r| r.remove(0)).collect()
}

#[test]
fn tickets_are_created_started_noted_closed_and_a_cycle_is_refused_by_name() {
    let home = TempDir::new("tickets-life");
    let made = one_by_one(
        &home,
        &[
            ("create_ticket", r#"{"title": "Get passport photos"}"#),
            (
                "create_ticket",
                r#"{"title": "Renew the passport", "description": "Form at the town hall", "depends_on": ["t1"]}"#,
            ),
            (
                "create_ticket",
                r#"{"title": "Book flights", "depends_on": ["T2"]}"#,
            ),
            ("ticket_add_dep", r#"{"id": "t1", "depends_on": "t3"}"#),
            ("ticket_add_dep", r#"{"id": "t3", "depends_on": "t3"}"#),
            ("ticket_add_dep", r#"{"id": "t3", "depends_on": "t1"}"#),
        ],
    );
    assert_eq!(
        made,
        [
            "Created t1 'Get passport photos' (open).",
            "Created t2 'Renew the passport' (open). It waits on t1 'Get passport photos' (open).",
            "Created t3 'Book flights' (open). It waits on t2 'Renew the passport' (open).",
            "Error: Refused: t1 waiting on t3 would close the cycle t1 → t3 → t2 → t1; a ticket cannot wait on itself, even through others.",
            "Error: Refused: t3 waiting on t3 would close the cycle t3 → t3; a ticket cannot wait on itself, even through others.",
            "t3 'Book flights' now waits on t1 'Get passport photos' (open).",
        ]
    );
    assert_eq!(
        file(&home, "t1")["deps"],
        Value::Null,
        "the refused dependency is not kept"
    );
    let done = one_by_one(
        &home,
        &[
            ("ticket_close", r#"{"id": "t3"}"#),
            ("ticket_start", r#"{"id": "t1"}"#),
            (
                "ticket_add_note",
                r#"{"id": "3", "note": "Booked anyway, refundable"}"#,
            ),
            (
                "ticket_close",
                r#"{"id": "t1", "note": "Two photos from the booth"}"#,
            ),
            ("ticket_close", r#"{"id": "t1"}"#),
            ("ticket_start", r#"{"id": "t2"}"#),
            ("ticket_start", r#"{"id": "t2"}"#),
        ],
    );
    assert_eq!(
        done[0],
        "Closed t3 'Book flights'. Note that tickets it depends on are still open: t1 'Get passport photos' (open), t2 'Renew the passport' (open)."
    );
    assert_eq!(done[1], "Started t1 'Get passport photos'.");
    assert_eq!(
        done[2],
        "Added a note to t3 'Book flights' (1 note in all)."
    );
    assert_eq!(done[3], "Closed t1 'Get passport photos'.");
    assert!(
        done[4].starts_with("t1 'Get passport photos' was closed already (20"),
        "{}",
        done[4]
    );
    assert_eq!(done[5], "Started t2 'Renew the passport'.");
    assert_eq!(done[6], "t2 'Renew the passport' is in progress already.");

    let t1 = file(&home, "t1");
    assert_eq!(t1["id"], "t1");
    assert_eq!(t1["status"], "closed");
    assert_eq!(t1["notes"][0]["text"], "Two photos from the booth");
    assert!(t1["started"].as_str().unwrap().ends_with('Z'));
    assert_eq!(file(&home, "t2")["status"], "in_progress");
    assert_eq!(file(&home, "t3")["deps"], serde_json::json!(["t2", "t1"]));

    let read = round(
        &home,
        &[
            ("1", "ticket_list", "{}"),
            ("2", "ticket_list", r#"{"status": "closed"}"#),
            ("3", "ticket_list", r#"{"status": "open"}"#),
            ("4", "ticket_show", r#"{"id": "t2"}"#),
            ("5", "ticket_dep_tree", r#"{"id": "t3"}"#),
            ("6", "ticket_dep_tree", "{}"),
            ("7", "ticket_show", r#"{"id": "t3"}"#),
        ],
    );
    assert_eq!(read[0], "- t2 [in_progress] Renew the passport");
    assert_eq!(
        read[1],
        "- t1 [closed] Get passport photos\n- t3 [closed] Book flights (waits on t2)"
    );
    assert_eq!(
        read[2],
        "No open tickets (0 open, 1 in progress, 2 closed)."
    );
    let show: Vec<&str> = read[3].lines().collect();
    assert_eq!(show[0], "t2 [in_progress] Renew the passport");
    assert!(show[1].starts_with("Dates: created 20") && show[1].contains(", started 20"));
    assert_eq!(
        show[2..],
        [
            "Description: Form at the town hall",
            "Waits on: t1 [closed] Get passport photos",
            "Needed by: t3 [closed] Book flights",
        ]
    );
    assert_eq!(
        read[4],
        "t3 [closed] Book flights\n├── t2 [in_progress] Renew the passport\n│   └── t1 [closed] Get passport photos\n└── t1 [closed] Get passport photos"
    );
    assert_eq!(
        read[5],
        "t2 [in_progress] Renew the passport\n└── t1 [closed] Get passport photos"
    );
    assert!(read[6].contains("\nNotes:\n- 20"), "{}", read[6]);
    assert!(
        read[6].ends_with(": Booked anyway, refundable"),
        "{}",
        read[6]
    );
}

#[test]
fn mistakes_get_sentences_that_say_what_to_do() {
    let home = TempDir::new("tickets-mistakes");
    assert_eq!(
        call(&home, "ticket_list", "{}"),
        "There are no tickets yet (create_ticket makes one)."
    );
    assert_eq!(
        call(&home, "ticket_show", r#"{"id": "t1"}"#),
        "Error: There is no ticket t1: there are no tickets yet (create_ticket makes one)."
    );
    let results = one_by_one(
        &home,
        &[
            (
                "create_ticket",
                r#"{"title": "Water the plants", "depends_on": ["t7"]}"#,
            ),
            ("create_ticket", r#"{"title": "  "}"#),
            ("create_ticket", r#"{"title": "Water the plants"}"#),
            ("ticket_start", r#"{"id": "t9"}"#),
            ("ticket_add_note", r#"{"id": "plants", "note": "x"}"#),
            ("ticket_add_note", r#"{"id": "t1", "note": " "}"#),
            ("ticket_add_dep", r#"{"id": "t1", "depends_on": "t2"}"#),
            ("ticket_dep_tree", r#"{"id": "../t1"}"#),
        ],
    );
    assert_eq!(
        results,
        [
            "Error: There is no ticket t7: there are no tickets yet (create_ticket makes one).",
            "Error: The title is one line of 1 to 200 characters.",
            "Created t1 'Water the plants' (open).",
            "Error: There is no ticket t9; the tickets are t1.",
            "Error: 'plants' is not a ticket id: ids look like t3 (ticket_list shows them).",
            "Error: The note is 1 to 10000 characters.",
            "Error: There is no ticket t2; the tickets are t1.",
            "Error: '../t1' is not a ticket id: ids look like t3 (ticket_list shows them).",
        ]
    );
    let names: Vec<String> = std::fs::read_dir(tickets_dir(&home))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(names, ["t1.json"]);
}

#[test]
fn eight_tickets_created_at_once_get_eight_ids() {
    let home = TempDir::new("tickets-at-once");
    let calls: Vec<(String, String)> = (1..=8)
        .map(|n| (n.to_string(), format!(r#"{{"title": "Chore {n}"}}"#)))
        .collect();
    let calls: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "create_ticket", args.as_str()))
        .collect();
    let results = round(&home, &calls);
    let mut ids: Vec<String> = results
        .iter()
        .map(|r| r.split_whitespace().nth(1).unwrap().to_string())
        .collect();
    ids.sort_by_key(|id| id[1..].parse::<u32>().unwrap());
    assert_eq!(
        ids,
        ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"],
        "{results:?}"
    );
    let mut titles: Vec<String> = (1..=8)
        .map(|n| {
            file(&home, &format!("t{n}"))["title"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    titles.sort();
    let expected: Vec<String> = (1..=8).map(|n| format!("Chore {n}")).collect();
    assert_eq!(titles, expected);
}

#[test]
fn a_corrupt_ticket_is_moved_aside_with_a_warning() {
    let home = TempDir::new("tickets-corrupt");
    call(&home, "create_ticket", r#"{"title": "Call the plumber"}"#);
    std::fs::write(tickets_dir(&home).join("t1.json"), "{\"id\": \"t1\", \"ti").unwrap();
    let run = run(
        &home,
        &[&[("1", "create_ticket", r#"{"title": "Call again"}"#)]],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", run.stderr());
    // The id of the ticket moved aside is not given again.
    assert_eq!(run.rounds[0], ["Created t2 'Call again' (open)."]);
    assert!(
        run.stderr().contains("t1.json was not valid JSON"),
        "{}",
        run.stderr()
    );
    let aside: Vec<String> = std::fs::read_dir(tickets_dir(&home))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("t1.json.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
}
