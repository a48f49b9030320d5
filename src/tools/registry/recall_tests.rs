//! How well routing serves Marvin's development set, and how big a session's requests grow
//! (the targets are asserted; `cargo test --lib recall_tests -- --nocapture` prints
//! the numbers, SHOW_MISSES=1 what was missed, SHOW_SCORES=1 the scores).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::*;
use crate::tools::ToolSettings;

/// A context in `mode`: everyday, coding, or a project's directory outside coding mode.
fn ctx(mode: &str) -> ToolContext {
    let dir = match mode {
        "project" => {
            let project = std::env::temp_dir().join("marvin-recall-project");
            std::fs::create_dir_all(project.join(".git")).unwrap();
            project
        }
        _ => std::env::temp_dir(),
    };
    ToolContext {
        coding_mode: mode == "coding",
        settings: Arc::new(ToolSettings {
            on_demand: true,
            ..ToolSettings::default()
        }),
        ..ToolContext::new(dir)
    }
}

fn lines(name: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/routing/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

#[test]
fn recall() {
    let registry = Registry::builtin();
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    let mut noise = 0;
    for line in lines("marvin_devel.jsonl") {
        let kind = line["kind"].as_str().unwrap().to_string();
        let mode = line["mode"].as_str().unwrap_or("everyday");
        // Project questions are asked outside coding mode, where the project family answers.
        let ctx = ctx(mode);
        if let Some(before) = line["before"].as_str() {
            registry.route(&ctx, before);
        }
        let sentence = line["sentence"].as_str().unwrap();
        if std::env::var("SHOW_SCORES").is_ok() {
            let remote = registry.mcp_tools();
            let families = registry.loadable(&ctx, &remote);
            let ranked = registry.ranked(&families, &remote, &ctx, sentence);
            let top: Vec<String> = ranked
                .iter()
                .take(3)
                .map(|(f, s)| format!("{f}:{s:.1}"))
                .collect();
            eprintln!(
                "SCORE [{kind}] {sentence} | want {:?} | {}",
                names(&line["expect"]),
                top.join(" ")
            );
        }
        let chosen = registry.route(&ctx, sentence);
        let expect = names(&line["expect"]);
        let entry = by_kind.entry(kind.clone()).or_default();
        if expect.is_empty() {
            entry.1 += 1;
            if chosen.is_empty() {
                entry.0 += 1;
            } else {
                noise += 1;
                misses.push(format!(
                    "[{kind}] {sentence} → {:?}",
                    chosen.iter().map(|c| &c.family).collect::<Vec<_>>()
                ));
            }
            continue;
        }
        entry.1 += 1;
        let offered = registry.names(&ctx);
        let groups: Vec<Vec<String>> = match line["groups"].as_array() {
            Some(groups) => groups.iter().map(names).collect(),
            None => vec![expect.clone()],
        };
        if groups.iter().all(|g| g.iter().any(|t| offered.contains(t))) {
            entry.0 += 1;
        } else {
            misses.push(format!(
                "[{kind}] {sentence} → {:?} (wanted {expect:?})",
                chosen
                    .iter()
                    .map(|c| format!("{}:{}", c.family, c.why))
                    .collect::<Vec<_>>()
            ));
        }
    }
    let (mut served, mut asked) = (0, 0);
    for (kind, (s, a)) in &by_kind {
        eprintln!(
            "{kind:>10}: {s}/{a} = {:.1}%",
            100.0 * *s as f64 / *a as f64
        );
        if kind != "none" {
            served += s;
            asked += a;
        }
    }
    eprintln!(
        "     total: {served}/{asked} = {:.1}%; no-tool given a family: {noise}",
        100.0 * served as f64 / asked as f64
    );
    if std::env::var("SHOW_MISSES").is_ok() {
        for miss in misses {
            eprintln!("{miss}");
        }
    }
    // The target for the first request over the whole catalogue (SLURP's share is
    // `offered`'s test).
    let recall = served as f64 / asked as f64;
    assert!(recall >= 0.95, "first-round recall {served}/{asked}");
}

/// Ten topics in one session, one a message: the bytes of the tools each request offers stay
/// within the 16 KB.
#[test]
fn ten_topics() {
    let registry = Registry::builtin();
    let ctx = ctx("everyday");
    let topics = [
        "will it rain in Oslo tomorrow?",
        "set an alarm for 6:30",
        "find me a recipe for lentil soup",
        "play something by Nina Simone",
        "what's on my calendar on Friday?",
        "directions to the central station",
        "convert 30 miles to kilometres",
        "any news about the election?",
        "save this link for later: https://example.org/a",
        "how much disk space is left?",
    ];
    for (n, topic) in topics.iter().enumerate() {
        registry.route(&ctx, topic);
        let bytes = registry.definitions(&ctx).map_or(0, |d| d.get().len());
        let families: Vec<String> = ctx
            .shared
            .offer
            .families()
            .into_iter()
            .map(|l| l.family)
            .collect();
        eprintln!(
            "turn {:>2}: {:>5.1} KB  {}",
            n + 1,
            bytes as f64 / 1024.0,
            families.join(", ")
        );
        assert!(bytes <= 16 * 1024, "turn {}: {bytes} bytes", n + 1);
    }
}

/// What each of PROBE's lines ("MODE|sentence", or a sentence in everyday mode) is offered:
/// `PROBE='coding|fix the build' cargo test --lib probe -- --ignored --nocapture`.
#[test]
#[ignore = "a tool for tuning the router: prints what PROBE's sentences are offered"]
fn probe() {
    let registry = Registry::builtin();
    for line in std::env::var("PROBE").unwrap_or_default().lines() {
        let (mode, sentence) = line.split_once('|').unwrap_or(("everyday", line));
        let ctx = ctx(mode);
        let chosen = registry.route(&ctx, sentence);
        let why: Vec<String> = chosen
            .iter()
            .map(|c| format!("{}:{}", c.family, c.why))
            .collect();
        eprintln!(
            "PROBE {sentence} → {why:?}\n      {:?}",
            registry.names(&ctx)
        );
    }
}
