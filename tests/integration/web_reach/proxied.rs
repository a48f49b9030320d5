//! Through the person's proxy (HTTPS_PROXY), the proxy resolves the names: a name this machine
//! cannot resolve goes to the proxy as it is, and the address rules judge what the URL itself
//! names, an address or `localhost`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use super::{refused, secret_service};
use crate::common::TempDir;
use crate::common::tools::run;

/// A small proxy as ureq speaks to one: a CONNECT to port 80 is established and the request
/// inside the tunnel answered with a page naming what was asked (the tunnel's end plays the
/// site); a CONNECT elsewhere is refused with 502 (no TLS server stands behind it). Every
/// request line it was sent, in the tunnel or not, is kept.
struct Proxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let kept = Arc::clone(&kept);
                std::thread::spawn(move || serve(stream, &kept));
            }
        });
        Self { port, seen }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// One connection: a CONNECT, then the request inside it; or a plain proxied request.
fn serve(stream: TcpStream, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(&stream);
    let Some((mut request, mut host)) = head(&mut reader) else {
        return;
    };
    seen.lock().unwrap().push(request.clone());
    if let Some(target) = request.strip_prefix("CONNECT ") {
        if !target.contains(":80 ") {
            let refusal = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n";
            let _ = (&stream).write_all(refusal.as_bytes());
            return;
        }
        let established = "HTTP/1.1 200 Connection established\r\n\r\n";
        if (&stream).write_all(established.as_bytes()).is_err() {
            return;
        }
        let Some(inner) = head(&mut reader) else {
            return;
        };
        (request, host) = inner;
        seen.lock()
            .unwrap()
            .push(format!("{request} (Host: {host})"));
    }
    let path = request.split(' ').nth(1).unwrap_or_default();
    let body = format!("<html><body><p>The proxy fetched {path} of {host}</p></body></html>");
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = (&stream).write_all(answer.as_bytes());
}

/// A request's head read to its blank line: its request line and its Host field.
fn head(reader: &mut impl BufRead) -> Option<(String, String)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut host = String::new();
    loop {
        let mut field = String::new();
        if reader.read_line(&mut field).ok()? == 0 {
            return None;
        }
        let field = field.trim_end();
        if field.is_empty() {
            return Some((line.trim_end().to_string(), host));
        }
        if let Some((name, value)) = field.split_once(':') {
            if name.eq_ignore_ascii_case("host") {
                host = value.trim().to_string();
            }
        }
    }
}

#[test]
fn a_name_only_the_proxy_resolves_reaches_it_and_what_the_url_names_is_judged() {
    let home = TempDir::new("reach-proxied");
    let proxy = Proxy::start();
    let secret = secret_service();
    let urls = [
        "http://something.invalid/page".to_string(),
        "https://something.invalid/tls".to_string(),
        format!("http://127.1:{}/literal", secret.port()),
        format!("http://app.localhost:{}/named", secret.port()),
    ];
    let args: Vec<String> = urls
        .iter()
        .map(|url| format!(r#"{{"url": "{url}"}}"#))
        .collect();
    let calls: Vec<(&str, &str, &str)> = ["1", "2", "3", "4"]
        .into_iter()
        .zip(&args)
        .map(|(id, args)| (id, "browse_web", args.as_str()))
        .collect();
    let empty_path = home.path().join("bare-bin");
    std::fs::create_dir_all(&empty_path).unwrap();
    let env = [
        ("HTTPS_PROXY", proxy.url()),
        ("PATH", empty_path.display().to_string()),
    ];
    let run = run(&home, &calls, &env);
    // A name this machine cannot resolve reaches the proxy as it is.
    assert_eq!(
        run.results[0],
        format!(
            "{}\n\nThe proxy fetched /page of something.invalid",
            urls[0]
        ),
        "{}",
        run.stderr()
    );
    let tls = &run.results[1];
    assert!(tls.starts_with("Error: "), "{tls}");
    assert!(!tls.contains("does not resolve"), "{tls}");
    let mut seen = proxy.seen();
    seen.sort();
    let mut expected = vec![
        "CONNECT something.invalid:443 HTTP/1.1".to_string(),
        "CONNECT something.invalid:80 HTTP/1.1".to_string(),
        "GET /page HTTP/1.1 (Host: something.invalid)".to_string(),
    ];
    expected.sort();
    assert_eq!(seen, expected);
    // What the URL names is judged without a lookup: an address, and `localhost`'s names.
    let address = format!("127.0.0.1:{}", secret.port());
    assert_eq!(run.results[2], refused("browse_web", &urls[2], &address));
    let named = refused("browse_web", &urls[3], &address).replace(
        &format!("MARVIN_WEB_ALLOW={address}"),
        &format!("MARVIN_WEB_ALLOW=app.localhost:{}", secret.port()),
    );
    assert_eq!(run.results[3], named);
    assert!(secret.requests().is_empty(), "{:?}", secret.requests());
}
