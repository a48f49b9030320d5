//! At a terminal the person is asked before a web tool reaches this machine, in plan mode too,
//! and their answer holds as the approval framework says: once, for the session, or no; an
//! address spelt as only a browser reads it (`%31%32%37.0.0.1`) is asked about as itself.

use super::secret;
use crate::common::pty::at_80;
use crate::common::{ReplayServer, Reply, TempDir};

fn browse(url: &str) -> Reply {
    Reply::tool_calls(&[("1", "browse_web", &format!(r#"{{"url": "{url}"}}"#))])
}

#[test]
fn the_person_is_asked_and_a_grant_holds_once_or_for_the_session() {
    let home = TempDir::new("reach-asked");
    let service = ReplayServer::answering(|_| secret());
    let url = format!("{}/secret", service.root());
    let model = ReplayServer::start(vec![
        browse(&url),
        Reply::text(&["first"]),
        browse(&url),
        Reply::text(&["second"]),
        browse(&url),
        Reply::text(&["third"]),
    ]);
    let mut pty = at_80(&home, &model.url(), &[], &[]);
    pty.wait_for("› ");
    pty.send(&format!("read {url}\r"));
    pty.wait_for("Enter chooses");
    let screen = pty.screen();
    let address = format!("127.0.0.1:{}", service.port());
    assert!(
        screen.contains("[browse_web]")
            && screen.contains("wants to reach this machine or your network:"),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("{url} leads to {address}")),
        "{screen}"
    );
    assert!(
        screen.contains(&format!(
            "Always in this project, for web tools reaching {address}"
        )),
        "{screen}"
    );
    pty.send("\r");
    pty.wait_for("first");
    assert_eq!(
        model.requests()[1].result_of("1"),
        format!("{url}\n\nthe secret is 4242")
    );
    pty.send("again\r");
    pty.wait_for_nth("Enter chooses", 2);
    pty.send("2\r");
    pty.wait_for("second");
    pty.send("and again\r");
    pty.wait_for("third");
    let asked = pty.screen().matches("wants to reach this machine").count();
    assert_eq!(
        asked,
        2,
        "the session grant spares the third question: {}",
        pty.screen()
    );
    assert_eq!(service.requests().len(), 3);
    pty.leave();
}

#[test]
fn plan_mode_asks_and_a_no_leaves_the_service_alone() {
    let home = TempDir::new("reach-asked-plan");
    let service = ReplayServer::answering(|_| secret()).expecting_no_calls();
    let url = format!("{}/secret", service.root());
    let model = ReplayServer::start(vec![browse(&url), Reply::text(&["understood"])]);
    let mut pty = at_80(&home, &model.url(), &[], &["--permission-mode", "plan"]);
    pty.wait_for("› ");
    pty.send(&format!("read {url}\r"));
    pty.wait_for("Enter chooses");
    assert!(
        pty.screen()
            .contains("wants to reach this machine or your network:"),
        "{}",
        pty.screen()
    );
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("\r");
    pty.wait_for("understood");
    assert_eq!(
        model.requests()[1].result_of("1"),
        "Error: The user declined this browse_web call. Ask them what they would like instead."
    );
    assert!(service.requests().is_empty(), "{:?}", service.requests());
    pty.leave();
}

#[test]
fn an_address_spelt_as_only_a_browser_reads_it_is_asked_about_before_yt_dlp_starts() {
    let home = TempDir::new("reach-asked-spelt");
    let service = ReplayServer::answering(|_| secret()).expecting_no_calls();
    let url = format!("http://%31%32%37.0.0.1:{}/video", service.port());
    let call = Reply::tool_calls(&[("1", "yt_dlp_download", &format!(r#"{{"url": "{url}"}}"#))]);
    let model = ReplayServer::start(vec![call, Reply::text(&["understood"])]);
    let path = super::yt_dlp::curling_yt_dlp(&home);
    let mut pty = at_80(&home, &model.url(), &[("PATH", &path)], &[]);
    pty.wait_for("› ");
    pty.send("save it\r");
    pty.wait_for("Enter chooses");
    pty.wait_for_words("[yt_dlp_download] wants to reach this machine or your network:");
    let address = format!("127.0.0.1:{}", service.port());
    pty.wait_for_words(&format!(
        "{url} leads to {address}, this machine (loopback)"
    ));
    pty.send("4\r");
    pty.wait_for("What should Marvin do instead?");
    pty.send("\r");
    pty.wait_for("understood");
    assert_eq!(
        model.requests()[1].result_of("1"),
        "Error: The user declined this yt_dlp_download call. Ask them what they would like instead."
    );
    assert!(!home.path().join("Downloads/fetched.txt").exists());
    pty.leave();
}
