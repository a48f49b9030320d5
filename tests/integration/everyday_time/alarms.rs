//! set_alarm, list_alarms and cancel_alarm edit only the crontab lines Marvin wrote.

use super::{Machine, USER_TABLE, cron_command, id_after, this_year};

fn uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// The system's `flock(1)`, which Marvin names in a line that edits the table (the tests'
/// PATH has only the fakes).
fn flock() -> Option<&'static str> {
    ["/usr/bin/flock", "/bin/flock"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file())
}

/// A line's edit of the table as it runs holding the lock Marvin's edits take.
fn locked(machine: &Machine, commands: &str) -> String {
    let lock = machine.home.path().join("marvin-home/crontab.lock");
    match flock() {
        Some(flock) => format!(
            "( '{flock}' -w 60 9 && {commands} ) 9>>'{}'",
            lock.display()
        ),
        None => commands.to_string(),
    }
}

/// The label, written three times with the test's long paths, would make a line over 900
/// bytes: it is kept in a label file the line reads, which goes when the alarm has fired.
#[test]
fn an_alarm_is_one_line_that_fires_once_quoted_and_then_removes_itself() {
    let machine = Machine::new("alarm-fire", true, true);
    machine.set_table(USER_TABLE);
    machine.with_topic("marvin-alarms");
    let pwned = machine.home.path().join("pwned");
    let label = format!(
        "Dentist; it's 100% C:\\%TEMP% $(touch {}) `touch {}`",
        pwned.display(),
        pwned.display()
    );
    let args = serde_json::json!({"time": "2099-01-15T07:30:00Z", "label": label}).to_string();
    let run = machine.run(&[("1", "set_alarm", &args)]);
    let result = &run.results[0];
    let id = id_after(result, "Alarm ");
    assert_eq!(
        *result,
        format!("Alarm {id} set for Thu 15 Jan 2099 08:30: {label}."),
        "{}",
        run.stderr()
    );
    let bin = machine.bin().display().to_string();
    let file = machine
        .home
        .path()
        .join(format!("marvin-home/alarms/{id}.txt"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), label);
    let removal = format!(
        "f=$(mktemp) && '{bin}/crontab' -l > \"$f\" && grep -vF 'marvin:{id}' \"$f\" | '{bin}/crontab' - && rm -f '{f}'; rm -f \"$f\"",
        f = file.display(),
    );
    let line = format!(
        "30 8 15 1 * test \"$(date +\\%Y)\" = 2099 || exit 0; m=$(cat '{f}'); DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{uid}/bus {bin}/notify-send -a Marvin 'Marvin alarm' \"$m\"; {bin}/curl -fsS -m 30 -H 'Title: Marvin alarm' -d \"$m\" 'http://ntfy.test/marvin-alarms' >/dev/null 2>&1; {} # marvin:{id}",
        locked(&machine, &removal),
        f = file.display(),
        uid = uid()
    );
    assert_eq!(machine.table(), format!("{USER_TABLE}{line}\n"));

    // In another year the line does nothing and stays.
    machine.fire(&line, None);
    assert_eq!(machine.notified(), "");
    assert_eq!(machine.table(), format!("{USER_TABLE}{line}\n"));
    // A `crontab -l` that fails when the line fires leaves the table as it was.
    let year = this_year();
    let fake = std::fs::read_to_string(machine.bin().join("crontab")).unwrap();
    machine.script(
        "crontab",
        &format!(
            "if [ \"$1\" = - ]; then exec /bin/cat > '{}'; fi\nexit 1\n",
            machine.table_path().display()
        ),
    );
    machine.fire(&line, Some(("2099", &year)));
    assert_eq!(machine.table(), format!("{USER_TABLE}{line}\n"));
    assert!(file.exists(), "the label file went without its line");
    std::fs::remove_file(machine.log_path()).unwrap();
    std::fs::write(machine.bin().join("crontab"), fake).unwrap();
    // In its year it notifies with the label as one word each time, then leaves the table.
    machine.fire(&line, Some(("2099", &year)));
    assert_eq!(
        machine.notified(),
        format!(
            "[notify-send]\n-a\nMarvin\nMarvin alarm\n{label}\n[curl]\n-fsS\n-m\n30\n-H\nTitle: Marvin alarm\n-d\n{label}\nhttp://ntfy.test/marvin-alarms\n"
        )
    );
    assert!(!pwned.exists(), "the label ran as a command");
    assert_eq!(machine.table(), USER_TABLE);
    assert!(!file.exists(), "the label file stayed");
}

/// The cron daemon in UTC (MARVIN_CRON_TZ) and Marvin in CET: a one-shot's fields are the
/// daemon's time and the line carries its moment; a daily alarm rings at each UTC hour 08:30
/// CET falls on over the year (07:30 in winter, 06:30 in summer) and checks the CET clock.
#[test]
fn alarms_on_the_daemons_clock() {
    let machine = Machine::new("alarm-daemon-zone", true, false);
    let utc = [("MARVIN_CRON_TZ", "UTC".to_string())];
    let args = r#"{"time": "2099-01-15T07:30:00Z", "label": "Dentist"}"#;
    let run = machine.run_with(&[("1", "set_alarm", args)], &utc);
    let id = id_after(&run.results[0], "Alarm ");
    assert_eq!(
        run.results[0],
        format!(
            "Alarm {id} set for Thu 15 Jan 2099 08:30: Dentist. The profile has no ntfy topic, so nothing goes to the phone (set the preference ntfy_topic or subscribe to a topic)."
        ),
        "{}",
        run.stderr()
    );
    let line = machine.table();
    assert!(
        line.starts_with(
            "30 7 15 1 * : at=4072145400; test \"$(date +\\%Y)\" = 2099 || exit 0; : 'Dentist';"
        ),
        "{line}"
    );
    let args = r#"{"time": "08:30", "label": "Up", "repeat": "weekdays"}"#;
    let run = machine.run_with(&[("1", "set_alarm", args)], &utc);
    let daily = machine.table().lines().nth(1).unwrap().to_string();
    assert!(
        daily.starts_with("30 6,7 * * * case \"$(TZ='CET-1CEST,M3.5.0,M10.5.0/3' date +\\%H:\\%M:\\%u)\" in 08:30:[1-5]) ;; *) exit 0 ;; esac; : 'Up';"),
        "{daily}\n{}",
        run.stderr()
    );
    let listed = machine.run_with(&[("1", "list_alarms", "{}")], &utc);
    assert!(
        listed.results[0].contains(": Dentist")
            && listed.results[0].contains("Monday to Friday at 08:30: Up"),
        "{}",
        listed.results[0]
    );
    assert!(
        listed.results[0].contains("Thu 15 Jan 2099 08:30"),
        "{}",
        listed.results[0]
    );
}

#[test]
fn twenty_alarms_set_and_cancelled_in_any_order_leave_the_users_lines_alone() {
    let machine = Machine::new("alarm-twenty", true, false);
    machine.set_table(USER_TABLE);
    let args: Vec<String> = (0..20)
        .map(|i| {
            serde_json::json!({"time": format!("2099-03-{:02} 06:{:02}", i + 1, i), "label": format!("wake {i}")})
                .to_string()
        })
        .collect();
    let call_ids: Vec<String> = (0..20).map(|i| i.to_string()).collect();
    let calls: Vec<(&str, &str, &str)> = (0..20)
        .map(|i| (call_ids[i].as_str(), "set_alarm", args[i].as_str()))
        .collect();
    let set = machine.run(&calls);
    let ids: Vec<String> = set
        .results
        .iter()
        .map(|r| id_after(r, "Alarm ").to_string())
        .collect();
    for (i, result) in set.results.iter().enumerate() {
        assert!(
            result.contains("set for ") && result.contains(&format!("06:{i:02}: wake {i}.")),
            "{result}"
        );
        assert!(result.contains("no ntfy topic"), "{result}");
    }
    let table = machine.table();
    assert!(table.starts_with(USER_TABLE), "{table}");
    let ours: Vec<&str> = table[USER_TABLE.len()..].lines().collect();
    assert_eq!(ours.len(), 20, "{table}");
    for id in &ids {
        assert_eq!(
            ours.iter()
                .filter(|l| l.ends_with(&format!(" # marvin:{id}")))
                .count(),
            1
        );
    }
    // Cancel in a scrambled order, ten in one round and ten in the next.
    let order: Vec<usize> = (0..20).map(|i| (i * 7 + 3) % 20).collect();
    for (round, half) in order.chunks(10).enumerate() {
        let args: Vec<String> = half
            .iter()
            .map(|&i| serde_json::json!({"id": ids[i]}).to_string())
            .collect();
        let calls: Vec<(&str, &str, &str)> = half
            .iter()
            .zip(&args)
            .map(|(&i, a)| (call_ids[i].as_str(), "cancel_alarm", a.as_str()))
            .collect();
        let cancelled = machine.run(&calls);
        for (&i, result) in half.iter().zip(&cancelled.results) {
            assert_eq!(*result, format!("Cancelled alarm {}.", ids[i]));
        }
        let gone: Vec<usize> = order[..(round + 1) * 10].to_vec();
        let left: String = ours
            .iter()
            .filter(|l| {
                !gone
                    .iter()
                    .any(|&g| l.ends_with(&format!(" # marvin:{}", ids[g])))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(machine.table(), format!("{USER_TABLE}{left}"));
    }
    assert_eq!(machine.table(), USER_TABLE);
    let again = machine.run(&[("1", "cancel_alarm", &format!("{{\"id\": \"{}\"}}", ids[0]))]);
    assert!(
        again.results[0].contains("There is no alarm"),
        "{}",
        again.results[0]
    );
}

#[test]
fn no_crontab_yet_is_an_empty_one_and_listing_drops_past_one_time_alarms() {
    let machine = Machine::new("alarm-empty", true, false);
    let set = machine.run(&[(
        "1",
        "set_alarm",
        r#"{"time": "07:30", "label": "Stretch", "repeat": "daily"}"#,
    )]);
    let daily = id_after(&set.results[0], "Alarm ").to_string();
    assert!(
        set.results[0].starts_with(&format!(
            "Alarm {daily} set for every day at 07:30: Stretch."
        )),
        "{}",
        set.results[0]
    );
    let bin = machine.bin().display().to_string();
    let notify = format!(
        "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/{}/bus {bin}/notify-send -a Marvin 'Marvin alarm'",
        uid()
    );
    assert_eq!(
        machine.table(),
        format!("30 7 * * * : 'Stretch'; {notify} 'Stretch' # marvin:{daily}\n")
    );
    let weekdays = machine.run(&[(
        "1",
        "set_alarm",
        r#"{"time": "at 6:05 am", "label": "Work", "repeat": "weekdays"}"#,
    )]);
    let work = id_after(&weekdays.results[0], "Alarm ").to_string();
    let past = format!(
        "5 9 1 2 * test \"$(date +\\%Y)\" = 2001 || exit 0; : 'Old'; {notify} 'Old' # marvin:alarm-0000dead"
    );
    let table = format!("{}{past}\n", machine.table());
    machine.set_table(&table);
    let listed = machine.run(&[("1", "list_alarms", "{}")]);
    assert_eq!(
        listed.results[0],
        format!(
            "- {daily} — every day at 07:30: Stretch\n- {work} — Monday to Friday at 06:05: Work\n(Removed 1 past one-time alarm(s): alarm-0000dead.)"
        )
    );
    assert!(
        machine.table().ends_with(&format!(
            "5 6 * * 1-5 : 'Work'; {notify} 'Work' # marvin:{work}\n"
        )),
        "{}",
        machine.table()
    );
    assert!(!machine.table().contains("Old"));
    // The line fires as cron would run it.
    machine.fire(machine.table().lines().next().unwrap(), None);
    assert_eq!(
        machine.notified(),
        "[notify-send]\n-a\nMarvin\nMarvin alarm\nStretch\n"
    );
    assert!(cron_command(machine.table().lines().next().unwrap()).starts_with(": 'Stretch'"));
}

#[test]
fn what_is_missing_is_said_and_nothing_is_written_without_a_way_to_ring() {
    // No crontab program at all.
    let bare = Machine::new("alarm-no-cron", true, false);
    std::fs::remove_file(bare.bin().join("crontab")).unwrap();
    let run = bare.run(&[
        ("1", "set_alarm", r#"{"time": "07:30"}"#),
        ("2", "list_alarms", "{}"),
    ]);
    for result in &run.results {
        assert!(
            result.contains("There is no cron on this machine ('crontab' is not installed)"),
            "{result}"
        );
    }
    let other = bare.run_with(
        &[("1", "list_alarms", "{}")],
        &[("MARVIN_CRONTAB", "/nonexistent/crontab".into())],
    );
    assert!(
        other.results[0].contains("'/nonexistent/crontab' is not installed"),
        "{}",
        other.results[0]
    );

    // No notify-send and no topic: refused; a topic alone is enough, and the result says
    // what is missing.
    let quiet = Machine::new("alarm-quiet", false, true);
    quiet.set_table(USER_TABLE);
    let refused = quiet.run(&[("1", "set_alarm", r#"{"time": "tomorrow 7:30"}"#)]);
    assert!(
        refused.results[0].contains("Nothing could ring: notify-send is not installed"),
        "{}",
        refused.results[0]
    );
    assert_eq!(quiet.table(), USER_TABLE);
    quiet.with_topic("marvin-wake");
    let set = quiet.run(&[
        ("1", "set_alarm", r#"{"time": "tomorrow 7:30"}"#),
        ("2", "set_alarm", r#"{"time": "7:30", "repeat": "hourly"}"#),
        ("3", "set_alarm", r#"{"time": "half past seven"}"#),
        ("4", "cancel_alarm", r#"{"id": "alarm-x; rm -rf ~"}"#),
        ("5", "set_alarm", r#"{"time": "2001-02-03T04:05:00Z"}"#),
    ]);
    assert_eq!(
        set.results[4],
        "Error: Sat 3 Feb 2001 05:05 has passed already: give a time to come."
    );
    assert!(set.results[0].ends_with(": Alarm. notify-send is not installed, so there will be no desktop notification (install libnotify-bin or libnotify)."), "{}", set.results[0]);
    assert!(
        set.results[1].contains("repeat 'hourly' is not one I know"),
        "{}",
        set.results[1]
    );
    assert!(
        set.results[2].contains("'half past seven' is not a time I can read"),
        "{}",
        set.results[2]
    );
    assert!(
        set.results[3].contains("is not an alarm id"),
        "{}",
        set.results[3]
    );
    assert!(quiet.table().contains("'http://ntfy.test/marvin-wake'"));

    // The topic may come from the profile's first subscription; an NTFY_URL with
    // credentials never goes into the crontab.
    std::fs::remove_file(quiet.profile().join("preferences.json")).unwrap();
    std::fs::write(
        quiet.profile().join("ntfy_subscriptions.json"),
        r#"[{"topic": "subscribed-one", "since": "0"}]"#,
    )
    .unwrap();
    let subscribed = quiet.run(&[("1", "set_alarm", r#"{"time": "in 3 hours"}"#)]);
    assert!(
        subscribed.results[0].starts_with("Alarm "),
        "{}",
        subscribed.results[0]
    );
    assert!(quiet.table().contains("'http://ntfy.test/subscribed-one'"));
    let before = quiet.table();
    let secret = quiet.run_with(
        &[("1", "set_alarm", r#"{"time": "in 4 hours"}"#)],
        &[("NTFY_URL", "http://me:s3cret@ntfy.test".into())],
    );
    assert!(
        secret.results[0].contains("Nothing could ring: notify-send is not installed, so there will be no desktop notification (install libnotify-bin or libnotify). NTFY_URL carries credentials, which never go into the crontab: the ntfy push is left out."),
        "{}",
        secret.results[0]
    );
    assert_eq!(quiet.table(), before);

    // A crontab that refuses the new table: said, with its words.
    quiet.script(
        "crontab",
        &format!(
            "if [ \"$1\" = -l ]; then exec /bin/cat '{}'; fi\necho 'crontab: installing new crontab failed' >&2; exit 1\n",
            quiet.table_path().display()
        ),
    );
    let refused = quiet.run(&[("1", "set_alarm", r#"{"time": "in 2 hours"}"#)]);
    assert!(
        refused.results[0].contains("'crontab -' refused the new crontab (exit code 1): crontab: installing new crontab failed"),
        "{}",
        refused.results[0]
    );
}

#[test]
fn two_marvins_setting_alarms_at_once_keep_both_lines() {
    let machine = Machine::new("alarm-two-processes", true, false);
    machine.set_table(USER_TABLE);
    // A slow `crontab -l` (0.3 s) widens the window where both would read the same table.
    let table = machine.table_path();
    machine.script(
        "crontab",
        &format!(
            "case \"$1\" in\n-l) sleep 0.3; exec /bin/cat '{t}' ;;\n-) exec /bin/cat > '{t}' ;;\nesac\nexit 2\n",
            t = table.display()
        ),
    );
    let set = |label: &str| {
        let args = serde_json::json!({"time": "2099-01-15T07:30:00Z", "label": label}).to_string();
        machine.run(&[("1", "set_alarm", &args)]).results[0].clone()
    };
    let (first, second) = std::thread::scope(|scope| {
        let first = scope.spawn(|| set("first"));
        let second = scope.spawn(|| set("second"));
        (first.join().unwrap(), second.join().unwrap())
    });
    assert!(first.starts_with("Alarm "), "{first}");
    assert!(second.starts_with("Alarm "), "{second}");
    let now = machine.table();
    assert!(now.starts_with(USER_TABLE), "{now}");
    assert_eq!(
        now.matches("# marvin:alarm-").count(),
        2,
        "a line was lost:\n{now}"
    );
}

/// Eight one-shot alarms due in the same minute fire at once, each taking its own line out,
/// while Marvin sets one more: with every edit of the table holding one lock, exactly the
/// user's lines and the new alarm are left. A slow `crontab -l` widens the window where two
/// edits would read the same table.
#[test]
fn alarms_firing_together_while_one_is_set_leave_exactly_the_expected_lines() {
    if flock().is_none() {
        eprintln!("skipped: flock(1) is not installed, so alarm lines remove themselves unlocked");
        return;
    }
    let machine = Machine::new("alarm-race", true, false);
    machine.set_table(USER_TABLE);
    let args: Vec<String> = (0..8)
        .map(|n| {
            serde_json::json!({"time": "2099-01-15T07:30:00Z", "label": format!("ring {n}")})
                .to_string()
        })
        .collect();
    let calls: Vec<(String, &str, &str)> = args
        .iter()
        .enumerate()
        .map(|(n, a)| (n.to_string(), "set_alarm", a.as_str()))
        .collect();
    let calls: Vec<(&str, &str, &str)> =
        calls.iter().map(|(n, t, a)| (n.as_str(), *t, *a)).collect();
    let run = machine.run(&calls);
    let table = machine.table();
    let lines: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("# marvin:alarm-"))
        .collect();
    assert_eq!(lines.len(), 8, "{table}\n{}", run.stderr());
    machine.script(
        "crontab",
        &format!(
            "case \"$1\" in\n-l) sleep 0.2; exec /bin/cat '{t}' ;;\n-) exec /bin/cat > '{t}' ;;\nesac\nexit 2\n",
            t = machine.table_path().display()
        ),
    );
    let year = this_year();
    let set = serde_json::json!({"time": "2099-03-01T09:00:00Z", "label": "stays"}).to_string();
    let result = std::thread::scope(|scope| {
        for line in &lines {
            scope.spawn(|| machine.fire(line, Some(("2099", &year))));
        }
        scope
            .spawn(|| machine.run(&[("9", "set_alarm", &set)]).results[0].clone())
            .join()
            .unwrap()
    });
    assert!(result.starts_with("Alarm "), "{result}");
    let now = machine.table();
    let left: Vec<&str> = now.lines().filter(|l| l.contains("# marvin:")).collect();
    assert_eq!(left.len(), 1, "lines left behind or lost:\n{now}");
    assert!(left[0].contains("'stays'"), "{now}");
    assert!(now.starts_with(USER_TABLE), "{now}");
    assert_eq!(machine.notified().matches("[notify-send]").count(), 8);
}
