//! yt_dlp_download cannot go around the check either: yt-dlp fetches the address itself, so
//! it is given Marvin's filtering proxy, and the address is asked about before it runs. A
//! stand-in yt-dlp fetches with curl through the proxy it is given, as yt-dlp's `--proxy` does.

use std::os::unix::fs::PermissionsExt;

use super::{redirecting_to, refused, secret_service};
use crate::common::TempDir;
use crate::common::tools::run;

/// A `yt-dlp` on PATH that saves what curl fetches of the address through `--proxy`.
fn curling_yt_dlp(home: &TempDir) -> String {
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
