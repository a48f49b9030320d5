//! scrape_page cannot go around the check through Chromium: the page's JavaScript, its images,
//! a redirect and a name that resolves to loopback all go through Marvin's filtering proxy,
//! which refuses what the person did not allow.

use super::{refused, secret_service};
use crate::common::tools::{reply, run};
use crate::common::{ReplayServer, TempDir};

fn chromium_installed() -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|dir| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .any(|name| dir.join(name).is_file())
    })
}

/// A page whose script reads `target` by address and by name and shows what it got, with an
/// image from there too; `/to/<path>` redirects to `<target><path>`.
fn page_reaching(target_port: u16) -> ReplayServer {
    let target = format!("http://127.0.0.1:{target_port}");
    let page = format!(
        r#"<html><body><p id="address">waiting</p><p id="name">waiting</p>
<img src="{target}/pixel.png">
<script>
function show(id, reading) {{
  reading.then(r => r.text()).then(
    t => {{ document.getElementById(id).textContent = 'read: ' + t; }},
    e => {{ document.getElementById(id).textContent = 'failed'; }});
}}
show('address', fetch('{target}/by-address'));
show('name', fetch('http://localhost:{target_port}/by-name'));
</script></body></html>"#
    );
    ReplayServer::answering(move |request| match request.url.strip_prefix("/to") {
        Some(path) => {
            reply(302, "text/plain", "moved").header("Location", &format!("{target}{path}"))
        }
        None => reply(200, "text/html", page.clone()),
    })
}

#[test]
fn the_pages_script_images_and_redirects_do_not_reach_this_machine() {
    if !chromium_installed() {
        println!("Chromium is not installed: scrape_page's proxy is not tested here");
        return;
    }
    let home = TempDir::new("reach-chromium");
    let secret = secret_service();
    let allowed = page_reaching(secret.port());
    let app = format!(r#"{{"url": "{}/app"}}"#, allowed.root());
    let jump = format!(r#"{{"url": "{}/to/secret"}}"#, allowed.root());
    let direct_url = format!("{}/direct", secret.root());
    let direct = format!(r#"{{"url": "{direct_url}"}}"#);
    let run = run(
        &home,
        &[
            ("1", "scrape_page", &app),
            ("2", "scrape_page", &jump),
            ("3", "scrape_page", &direct),
        ],
        &[
            ("MARVIN_WEB_ALLOW", format!("127.0.0.1:{}", allowed.port())),
            ("MARVIN_TOOL_TIMEOUT", "120".into()),
        ],
    );
    let address = format!("127.0.0.1:{}", secret.port());
    // The page reads the service by address and by name at once: the note names whichever
    // refusal came first, with the entry that allows that one.
    let noted = |text: &str| {
        [address.clone(), format!("localhost:{}", secret.port())]
            .iter()
            .any(|asked| {
                text.contains(&format!(
                    "[Marvin kept the page from reaching the person's own machine or network: {address} is this machine (loopback). If the page needs it, the person can allow it with MARVIN_WEB_ALLOW={asked}.]"
                ))
            })
    };
    let page = &run.results[0];
    assert!(
        page.starts_with(&format!("{}/app\n\n", allowed.root())),
        "{page}"
    );
    assert!(!page.contains("4242"), "{page}");
    assert!(!page.contains("waiting"), "the script ran: {page}");
    assert!(page.contains("failed"), "the reads were refused: {page}");
    assert!(noted(page), "{page}");
    let redirected = &run.results[1];
    assert!(!redirected.contains("4242"), "{redirected}");
    assert!(noted(redirected), "{redirected}");
    assert_eq!(
        run.results[2],
        refused("scrape_page", &direct_url, &address)
    );
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}
