//! Without anyone to ask (--non-interactive), a model-chosen address on this machine is
//! refused in every spelling and after a redirect, with a sentence that says how to allow it;
//! MARVIN_WEB_ALLOW allows what it names and nothing else.

use super::{redirecting_to, refused, secret_service};
use crate::common::tools::run;
use crate::common::{ReplayServer, Reply, TempDir, marvin, non_interactive, stderr};

#[test]
fn every_spelling_of_loopback_and_the_metadata_address_are_refused() {
    let home = TempDir::new("reach-spellings");
    let secret = secret_service();
    let port = secret.port();
    let urls = [
        ("browse_web", format!("http://127.0.0.1:{port}/plain")),
        ("browse_web", format!("http://2130706433:{port}/decimal")),
        ("browse_web", format!("http://0x7f000001:{port}/hex")),
        ("browse_web", format!("http://127.1:{port}/short")),
        (
            "browse_web",
            format!("http://[::ffff:127.0.0.1]:{port}/mapped"),
        ),
        ("read_rss", format!("http://2130706433:{port}/feed")),
        ("download_file", format!("http://127.1:{port}/file")),
    ];
    let args: Vec<String> = urls
        .iter()
        .map(|(_, url)| format!(r#"{{"url": "{url}"}}"#))
        .collect();
    let ids: Vec<String> = (1..=urls.len()).map(|i| i.to_string()).collect();
    let calls: Vec<(&str, &str, &str)> = urls
        .iter()
        .zip(&args)
        .zip(&ids)
        .map(|(((tool, _), args), id)| (id.as_str(), *tool, args.as_str()))
        .collect();
    let run = run(&home, &calls, &[]);
    let address = format!("127.0.0.1:{port}");
    for ((tool, url), result) in urls.iter().zip(&run.results) {
        assert_eq!(*result, refused(tool, url, &address), "{url}");
    }
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
    assert!(
        !home.path().join("Downloads").exists()
            || std::fs::read_dir(home.path().join("Downloads"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn localhost_the_unspecified_address_and_cloud_metadata_are_refused() {
    let home = TempDir::new("reach-names");
    let secret = secret_service();
    let port = secret.port();
    let localhost = format!(r#"{{"url": "http://localhost:{port}/by-name"}}"#);
    let unspecified = format!(r#"{{"url": "http://0.0.0.0:{port}/any"}}"#);
    let metadata = r#"{"url": "http://169.254.169.254/latest/meta-data/"}"#;
    let run = run(
        &home,
        &[
            ("1", "browse_web", &localhost),
            ("2", "browse_web", &unspecified),
            ("3", "browse_web", metadata),
        ],
        &[],
    );
    let by_name = &run.results[0];
    let start =
        format!("Error: browse_web did not reach http://localhost:{port}/by-name: its address ");
    assert!(by_name.starts_with(&start), "{by_name}");
    assert!(by_name.contains(" is this machine (loopback)"), "{by_name}");
    assert_eq!(
        run.results[1],
        format!(
            "Error: browse_web did not reach http://0.0.0.0:{port}/any: its address 0.0.0.0:{port} is the unspecified address, which reaches this machine, and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW=0.0.0.0:{port} and runs Marvin again; otherwise use a public address."
        )
    );
    assert_eq!(
        run.results[2],
        "Error: browse_web did not reach http://169.254.169.254/latest/meta-data/: its address 169.254.169.254:80 is link-local, where cloud metadata services answer, and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW=169.254.169.254:80 and runs Marvin again; otherwise use a public address."
    );
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}

#[test]
fn a_redirect_from_an_allowed_address_to_another_on_this_machine_is_refused() {
    let home = TempDir::new("reach-redirect");
    let secret = secret_service();
    let allowed = redirecting_to(secret.root());
    let entry = format!("127.0.0.1:{}", allowed.port());
    let page = format!(r#"{{"url": "{}/page"}}"#, allowed.root());
    let jump = |path: &str| format!(r#"{{"url": "{}/to{path}"}}"#, allowed.root());
    let (browse, feed, file) = (jump("/secret"), jump("/feed"), jump("/file"));
    let run = run(
        &home,
        &[
            ("1", "browse_web", &page),
            ("2", "browse_web", &browse),
            ("3", "read_rss", &feed),
            ("4", "download_file", &file),
        ],
        &[("MARVIN_WEB_ALLOW", entry)],
    );
    assert_eq!(
        run.results[0],
        format!("{}/page\n\nan allowed page", allowed.root())
    );
    let target = format!("127.0.0.1:{}", secret.port());
    for (result, (tool, path)) in run.results[1..].iter().zip([
        ("browse_web", "/secret"),
        ("read_rss", "/feed"),
        ("download_file", "/file"),
    ]) {
        assert_eq!(
            *result,
            refused(tool, &format!("{}{path}", secret.root()), &target)
        );
    }
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}

#[test]
fn marvin_web_allow_lets_through_what_it_names_and_nothing_else() {
    let home = TempDir::new("reach-allow");
    let secret = secret_service();
    let allowed = redirecting_to(secret.root());
    let jump = format!(r#"{{"url": "{}/to/secret"}}"#, allowed.root());
    let by_name = format!(r#"{{"url": "http://localhost:{}/page"}}"#, allowed.port());
    let unnamed_url = format!("http://0.0.0.0:{}/page", allowed.port());
    let unnamed = format!(r#"{{"url": "{unnamed_url}"}}"#);
    let run = run(
        &home,
        &[
            ("1", "browse_web", &jump),
            ("2", "browse_web", &by_name),
            ("3", "browse_web", &unnamed),
        ],
        &[("MARVIN_WEB_ALLOW", " 127.0.0.0/8 , example.invalid".into())],
    );
    assert_eq!(
        run.results[0],
        format!("{}/to/secret\n\nthe secret is 4242", allowed.root())
    );
    assert_eq!(
        run.results[1],
        format!(
            "http://localhost:{}/page\n\nan allowed page",
            allowed.port()
        )
    );
    assert!(
        run.results[2].starts_with(&format!(
            "Error: browse_web did not reach {unnamed_url}: its address 0.0.0.0:"
        )),
        "{}",
        run.results[2]
    );
    assert_eq!(secret.requests().len(), 1);
    assert_eq!(allowed.requests().len(), 2);
}

#[test]
fn plan_mode_does_not_read_this_machine_unasked_either() {
    let home = TempDir::new("reach-plan");
    let secret = secret_service();
    let url = format!("{}/plan", secret.root());
    let args = format!(r#"{{"url": "{url}"}}"#);
    let model = ReplayServer::start(vec![
        Reply::tool_calls(&[("1", "browse_web", &args)]),
        Reply::text(&["done"]),
    ]);
    let mut command = marvin(home.path());
    command
        .env("OPENAI_COMPAT_URL", model.url())
        .args(["--permission-mode", "plan"]);
    let output = non_interactive(&mut command, &format!("read {url}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let address = format!("127.0.0.1:{}", secret.port());
    assert_eq!(
        model.requests()[1].result_of("1"),
        refused("browse_web", &url, &address)
    );
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}
