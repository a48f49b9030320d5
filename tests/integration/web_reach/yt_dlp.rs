//! yt_dlp_download cannot go around the check either: yt-dlp fetches the address itself, so
//! it is given Marvin's filtering proxy, and the address is asked about before it runs. A
//! stand-in yt-dlp fetches with curl through the proxy it is given, as yt-dlp's `--proxy` does.

use std::os::unix::fs::PermissionsExt;

use super::{redirecting_to, refused, secret_service};
use crate::common::TempDir;
use crate::common::tools::run;

/// A `yt-dlp` on PATH that saves what curl fetches of the address through `--proxy`.
pub(super) fn curling_yt_dlp(home: &TempDir) -> String {
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = r#"#!/bin/sh
proxy=""; dir=""; prev=""; url=""
for a in "$@"; do
  if [ "$prev" = "--proxy" ]; then proxy="$a"; fi
  if [ "$prev" = "--paths" ]; then dir="$a"; fi
  prev="$a"; url="$a"
done
curl -s -L --proxy "$proxy" -o "$dir/fetched.txt" "$url"
echo "$dir/fetched.txt"
"#;
    let path = bin.join("yt-dlp");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let system = std::env::var("PATH").unwrap_or_default();
    format!("{}:{system}", bin.display())
}

#[test]
fn yt_dlp_goes_through_the_filtering_proxy_and_is_not_started_for_this_machine() {
    let home = TempDir::new("reach-yt-dlp");
    let secret = secret_service();
    let allowed = redirecting_to(secret.root());
    let jump = format!(r#"{{"url": "{}/to/video"}}"#, allowed.root());
    let direct_url = format!("{}/video", secret.root());
    let direct = format!(r#"{{"url": "{direct_url}"}}"#);
    let run = run(
        &home,
        &[
            ("1", "yt_dlp_download", &jump),
            ("2", "yt_dlp_download", &direct),
        ],
        &[
            ("PATH", curling_yt_dlp(&home)),
            ("MARVIN_WEB_ALLOW", format!("127.0.0.1:{}", allowed.port())),
        ],
    );
    let address = format!("127.0.0.1:{}", secret.port());
    let saved = home.path().join("Downloads/fetched.txt");
    assert_eq!(
        run.results[0],
        format!(
            "Saved {} with yt-dlp.\n\n[Marvin kept yt-dlp from reaching the person's own machine or network: {address} is this machine (loopback). If yt-dlp needs it, the person can allow it with MARVIN_WEB_ALLOW={address}.]",
            saved.display()
        )
    );
    let fetched = std::fs::read_to_string(&saved).unwrap();
    assert!(!fetched.contains("4242"), "{fetched}");
    assert_eq!(
        run.results[1],
        refused("yt_dlp_download", &direct_url, &address)
    );
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}

/// The sentence for `url`, refused early: its address and what it is (`said`), the entry
/// that would allow it.
fn refused_early(url: &str, said: &str, entry: &str) -> String {
    format!(
        "Error: yt_dlp_download did not reach {url}: its address {said}, and web tools reach the person's own machine or network only with their approval, which nobody is here to give. To allow it, the person sets MARVIN_WEB_ALLOW={entry} and runs Marvin again; otherwise use a public address."
    )
}

#[test]
fn a_browsers_spellings_of_this_machine_and_the_network_are_refused_before_yt_dlp_starts() {
    let home = TempDir::new("reach-yt-dlp-spellings");
    let secret = secret_service();
    let port = secret.port();
    let address = format!("127.0.0.1:{port}");
    let loopback = format!("{address} is this machine (loopback)");
    // Spellings the WHATWG URL standard (and so a browser) reads as an address of the
    // person's own that the system's resolver does not read at all.
    let cases = [
        (
            format!("http://%31%32%37.0.0.1:{port}/percent"),
            loopback.clone(),
            address.clone(),
        ),
        (
            format!("http://１２７.０.０.１:{port}/full-width"),
            loopback.clone(),
            address.clone(),
        ),
        (
            format!("http://127.0.0.1.:{port}/dot"),
            loopback.clone(),
            address.clone(),
        ),
        (
            format!("http://ｌｏｃａｌｈｏｓｔ:{port}/name"),
            loopback.clone(),
            format!("localhost:{port}"),
        ),
        (
            format!("http://0x7f.1:{port}/hex"),
            loopback.clone(),
            address.clone(),
        ),
        (
            "http://192.168.257./private".to_string(),
            "192.168.1.1:80 is on a private network".to_string(),
            "192.168.1.1:80".to_string(),
        ),
        (
            "http://0x.0x.0/unspecified".to_string(),
            "0.0.0.0:80 is the unspecified address, which reaches this machine".to_string(),
            "0.0.0.0:80".to_string(),
        ),
    ];
    let args: Vec<String> = cases
        .iter()
        .map(|(url, _, _)| format!(r#"{{"url": "{url}"}}"#))
        .collect();
    let ids: Vec<String> = (1..=cases.len()).map(|i| i.to_string()).collect();
    let calls: Vec<(&str, &str, &str)> = ids
        .iter()
        .zip(&args)
        .map(|(id, args)| (id.as_str(), "yt_dlp_download", args.as_str()))
        .collect();
    let run = run(&home, &calls, &[("PATH", curling_yt_dlp(&home))]);
    for ((url, said, entry), result) in cases.iter().zip(&run.results) {
        assert_eq!(*result, refused_early(url, said, entry), "{url}");
    }
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
    assert!(
        !home.path().join("Downloads/fetched.txt").exists(),
        "yt-dlp was started"
    );
}
