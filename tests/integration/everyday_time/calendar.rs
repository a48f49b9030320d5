//! calendar_add_event, calendar_view, calendar_list_upcoming and calendar_delete_event keep
//! one RFC 5545 file an event in the profile, with reminders as crontab lines Marvin owns.

use super::{Machine, USER_TABLE, id_after, this_year};

const SUMMARY: &str = "Zahnarzt bei Dr. Müller-Lüdenscheidt; danach Apotheke, Bäckerei und 東京の友達に電話 \u{1F9B7} — it's 100% $(reboot)\nsecond line";

#[test]
fn an_event_is_an_ics_file_with_two_reminders_that_go_with_it() {
    let machine = Machine::new("calendar-add", true, false);
    machine.set_table(USER_TABLE);
    let args = serde_json::json!({
        "summary": SUMMARY,
        "start": "2099-06-10 15:00",
        "location": "Hauptstraße 5, 2. OG",
        "description": "Bring the card\\the form",
    })
    .to_string();
    let added = machine.run(&[("1", "calendar_add_event", &args)]);
    let result = &added.results[0];
    let id = id_after(result, "(id ");
    let file = machine.profile().join(format!("calendar/{id}.ics"));
    let one_line = SUMMARY.replace('\n', " ");
    assert_eq!(
        *result,
        format!(
            "Added '{one_line}' on Wed 10 Jun 2099 15:00–16:00 at Hauptstraße 5, 2. OG (id {id}), saved as {}. Reminders at 14:00 and 14:30. The profile has no ntfy topic, so nothing goes to the phone (set the preference ntfy_topic or subscribe to a topic).",
            file.display()
        ),
        "{}",
        added.stderr()
    );

    // The file: CRLF lines of at most 75 octets, escaped texts, UTC times.
    let ics = std::fs::read_to_string(&file).unwrap();
    assert!(ics.starts_with(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Marvin//Marvin calendar//EN\r\n"
    ));
    assert!(ics.ends_with("END:VEVENT\r\nEND:VCALENDAR\r\n"));
    assert!(!ics.replace("\r\n", "").contains(['\r', '\n']));
    for line in ics.split("\r\n") {
        assert!(line.len() <= 75, "{} octets: {line}", line.len());
    }
    let unfolded = ics.replace("\r\n ", "");
    for expected in [
        format!("\r\nUID:{id}@marvin\r\n"),
        "\r\nDTSTART:20990610T130000Z\r\nDTEND:20990610T140000Z\r\n".to_string(),
        "\r\nSUMMARY:Zahnarzt bei Dr. Müller-Lüdenscheidt\\; danach Apotheke\\, Bäckerei und 東京の友達に電話 \u{1F9B7} — it's 100% $(reboot)\\nsecond line\r\n".to_string(),
        "\r\nLOCATION:Hauptstraße 5\\, 2. OG\r\n".to_string(),
        "\r\nDESCRIPTION:Bring the card\\\\the form\r\n".to_string(),
    ] {
        assert!(unfolded.contains(&expected), "{expected} not in {unfolded}");
    }
    assert!(unfolded.contains("\r\nDTSTAMP:"), "{unfolded}");

    // Two one-time lines, marked with the event's id, after the user's.
    let table = machine.table();
    assert!(table.starts_with(USER_TABLE), "{table}");
    let ours: Vec<&str> = table[USER_TABLE.len()..].lines().collect();
    assert_eq!(ours.len(), 2, "{table}");
    let message = format!("{one_line} at 15:00 (Hauptstraße 5, 2. OG)");
    assert!(
        ours[0].starts_with("0 14 10 6 * test \"$(date +\\%Y)\" = 2099 || exit 0; : 'Zahnarzt"),
        "{}",
        ours[0]
    );
    assert!(
        ours[0].ends_with(&format!(" # marvin:event-{id}-60")),
        "{}",
        ours[0]
    );
    assert!(ours[1].starts_with("30 14 10 6 * "), "{}", ours[1]);
    assert!(
        ours[1].ends_with(&format!(" # marvin:event-{id}-30")),
        "{}",
        ours[1]
    );
    machine.fire(ours[0], Some(("2099", &this_year())));
    assert_eq!(
        machine.notified(),
        format!("[notify-send]\n-a\nMarvin\nIn 1 hour\n{message}\n")
    );
    assert_eq!(
        machine.table(),
        format!("{USER_TABLE}{}\n", ours[1]),
        "only the fired line went"
    );

    // Viewing the day, a range, an empty day, the coming week.
    let seen = machine.run(&[
        ("1", "calendar_view", r#"{"date": "2099-06-10"}"#),
        (
            "2",
            "calendar_view",
            r#"{"date": "2099-06-01", "end_date": "2099-06-30"}"#,
        ),
        ("3", "calendar_view", r#"{"date": "2099-06-11"}"#),
        ("4", "calendar_list_upcoming", "{}"),
        ("5", "calendar_view", r#"{"date": "someday"}"#),
    ]);
    let line = format!(
        "- '{one_line}' on Wed 10 Jun 2099 15:00–16:00 at Hauptstraße 5, 2. OG (id {id})\n  Bring the card\\the form"
    );
    assert_eq!(seen.results[0], format!("Wed 10 Jun 2099:\n{line}"));
    assert_eq!(
        seen.results[1],
        format!("Mon 1 Jun 2099 to Tue 30 Jun 2099:\n{line}")
    );
    assert_eq!(
        seen.results[2],
        "Nothing on the calendar for Thu 11 Jun 2099."
    );
    assert_eq!(
        seen.results[3],
        "Nothing on the calendar in the next 7 day(s)."
    );
    assert!(
        seen.results[4].contains("'someday' is not a day I can read"),
        "{}",
        seen.results[4]
    );

    // Deleting takes the file and the reminder left.
    let deleted = machine.run(&[(
        "1",
        "calendar_delete_event",
        &format!("{{\"id\": \"{id}\"}}"),
    )]);
    assert_eq!(
        deleted.results[0],
        format!(
            "Deleted '{one_line}' on Wed 10 Jun 2099 15:00–16:00 at Hauptstraße 5, 2. OG and its 1 reminder(s)."
        )
    );
    assert!(!file.exists());
    assert_eq!(machine.table(), USER_TABLE);
    let again = machine.run(&[(
        "1",
        "calendar_delete_event",
        &format!("{{\"id\": \"{id}\"}}"),
    )]);
    assert!(
        again.results[0].contains(&format!("There is no event {id}")),
        "{}",
        again.results[0]
    );
}

#[test]
fn without_cron_the_event_is_saved_and_other_calendars_files_are_shown() {
    let machine = Machine::new("calendar-no-cron", true, false);
    std::fs::remove_file(machine.bin().join("crontab")).unwrap();
    let dir = machine.profile().join("calendar");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("imported.ics"),
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:xmas@example.org\r\nSUMMARY:Christmas Eve\\, family\r\nDTSTART;VALUE=DATE:20991224\r\nDTEND;VALUE=DATE:20991225\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    )
    .unwrap();
    let run = machine.run(&[
        ("1", "calendar_add_event", r#"{"summary": "Dinner", "start": "2099-12-24 19:30", "end": "22:00"}"#),
        ("2", "calendar_add_event", r#"{"summary": "Call", "start": "2099-12-24 18:00", "end": "17:00", "reminders": false}"#),
        ("3", "calendar_add_event", r#"{"summary": "Nap", "start": "2099-12-24 14:00", "reminders": false}"#),
    ]);
    let dinner = id_after(&run.results[0], "(id ");
    assert!(
        run.results[0].ends_with("The event is saved, but without reminders. There is no cron on this machine ('crontab' is not installed), so nothing can be scheduled: install cron (cronie or the cron package) or set MARVIN_CRONTAB to the crontab program."),
        "{}",
        run.results[0]
    );
    // A bare end time before the start is the next day's.
    assert!(
        run.results[1].contains("'Call' on Thu 24 Dec 2099 18:00 – Fri 25 Dec 2099 17:00"),
        "{}",
        run.results[1]
    );
    let nap = id_after(&run.results[2], "(id ");
    assert!(run.results[2].ends_with(".ics."), "{}", run.results[2]);
    let day = machine.run(&[("1", "calendar_view", r#"{"date": "2099-12-24"}"#)]);
    let lines: Vec<&str> = day.results[0].lines().collect();
    assert_eq!(lines[0], "Thu 24 Dec 2099:");
    assert_eq!(
        lines[1],
        "- 'Christmas Eve, family' on Thu 24 Dec 2099 (all day) (id imported)"
    );
    assert_eq!(
        lines[2],
        format!("- 'Nap' on Thu 24 Dec 2099 14:00–15:00 (id {nap})")
    );
    assert!(
        lines[3].starts_with("- 'Call' on Thu 24 Dec 2099 18:00 – Fri 25 Dec"),
        "{}",
        lines[3]
    );
    assert_eq!(
        lines[4],
        format!("- 'Dinner' on Thu 24 Dec 2099 19:30–22:00 (id {dinner})")
    );
    let deleted = machine.run(&[
        ("1", "calendar_delete_event", r#"{"id": "imported"}"#),
        ("2", "calendar_delete_event", r#"{"id": "../x"}"#),
    ]);
    assert_eq!(
        deleted.results[0],
        "Deleted 'Christmas Eve, family' on Thu 24 Dec 2099 (all day)."
    );
    assert!(
        deleted.results[1].contains("is not an event id"),
        "{}",
        deleted.results[1]
    );
    assert!(!dir.join("imported.ics").exists());
    assert!(!machine.table_path().exists());
}

#[test]
fn an_end_on_the_starts_named_day_stays_on_it_and_a_file_of_many_events_is_not_deleted() {
    let machine = Machine::new("calendar-days", true, false);
    std::fs::remove_file(machine.bin().join("crontab")).unwrap();
    let dir = machine.profile().join("calendar");
    std::fs::create_dir_all(&dir).unwrap();
    let two = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a@example.org\r\nSUMMARY:Birthday Anna\r\nDTSTART;VALUE=DATE:20991224\r\nDTEND;VALUE=DATE:20991225\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:b@example.org\r\nSUMMARY:Birthday Ben\r\nDTSTART;VALUE=DATE:20991226\r\nDTEND;VALUE=DATE:20991227\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    std::fs::write(dir.join("family.ics"), two).unwrap();
    let run = machine.run(&[
        ("1", "calendar_add_event", r#"{"summary": "Dentist", "start": "friday 15:00", "end": "friday 16:00", "reminders": false}"#),
        ("2", "calendar_add_event", r#"{"summary": "Lunch", "start": "tomorrow 12:00", "end": "tomorrow 13:30", "reminders": false}"#),
        ("3", "calendar_delete_event", r#"{"id": "family"}"#),
    ]);
    assert!(run.results[0].contains("15:00–16:00"), "{}", run.results[0]);
    assert!(run.results[1].contains("12:00–13:30"), "{}", run.results[1]);
    assert!(
        run.results[2].starts_with("Error: family.ics holds 2 events"),
        "{}",
        run.results[2]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("family.ics")).unwrap(),
        two
    );
}
