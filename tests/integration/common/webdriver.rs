//! A small W3C WebDriver client over ureq, driving Debian's chromium through chromedriver,
//! headless. `Browser::start` is `None` when either is missing, except in CI (CI=true),
//! where that fails the test: the browser tests must run there.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct Browser {
    driver: Child,
    base: String,
    agent: ureq::Agent,
}

/// A key as WebDriver spells it.
pub mod key {
    pub const ENTER: &str = "\u{E007}";
    pub const ESCAPE: &str = "\u{E00C}";
    pub const SPACE: &str = "\u{E00D}";
    pub const LEFT: &str = "\u{E012}";
    pub const RIGHT: &str = "\u{E014}";
    pub const DOWN: &str = "\u{E015}";
    pub const CONTROL: &str = "\u{E009}";
    pub const TAB: &str = "\u{E004}";
}

fn find_program(names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
                .map(|p| p.display().to_string())
        })
    })
}

impl Browser {
    /// A headless chromium at `width`×`height`, or `None` (outside CI) when it is missing.
    pub fn start(width: u32, height: u32) -> Option<Self> {
        let chromium = find_program(&["chromium", "chromium-browser"]);
        let driver = find_program(&["chromedriver"]);
        let (Some(chromium), Some(driver)) = (chromium, driver) else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI needs chromium and chromedriver for the browser tests (.ci/run installs them)"
            );
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "skipped: the browser tests need chromium and chromedriver, which are not installed"
                )
            });
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let mut browser = Self {
            driver: child,
            base: format!("http://127.0.0.1:{port}"),
            agent,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while browser.get_raw("/status").is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let session = browser.post_raw(
            "/session",
            json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", format!("--window-size={width},{height}")]
            }}}}),
        );
        let id = session["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {session}"))
            .to_string();
        browser.base = format!("{}/session/{id}", browser.base);
        // Headless Chromium keeps its window at least 500 px wide: the page is laid out at the
        // width asked for all the same, as a phone's would be.
        browser.command(
            "/goog/cdp/execute",
            json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}}),
        );
        Some(browser)
    }

    fn get_raw(&self, path: &str) -> Result<Value, ureq::Error> {
        let mut response = self.agent.get(&format!("{}{path}", self.base)).call()?;
        let text = response.body_mut().read_to_string()?;
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    fn post_raw(&self, path: &str, body: Value) -> Value {
        let mut response = self
            .agent
            .post(&format!("{}{path}", self.base))
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"));
        let text = response.body_mut().read_to_string().unwrap_or_default();
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    fn command(&self, path: &str, body: Value) -> Value {
        let answer = self.post_raw(path, body);
        if let Some(error) = answer["value"].get("error") {
            panic!("WebDriver {path}: {error}: {}", answer["value"]["message"]);
        }
        answer["value"].clone()
    }

    pub fn open(&self, url: &str) {
        self.command("/url", json!({"url": url}));
    }

    pub fn refresh(&self) {
        self.command("/refresh", json!({}));
    }

    /// The element matching `css`, waiting up to 10 s for it to appear.
    pub fn find(&self, css: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let answer = self.post_raw("/element", json!({"using": "css selector", "value": css}));
            if let Some(id) = answer["value"].as_object().and_then(|o| o.values().next()) {
                if answer["value"].get("error").is_none() {
                    return id.as_str().unwrap().to_string();
                }
            }
            assert!(Instant::now() < deadline, "no element {css}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn click(&self, css: &str) {
        let id = self.find(css);
        self.command(&format!("/element/{id}/click"), json!({}));
    }

    /// Types into the element matching `css`.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.command(&format!("/element/{id}/value"), json!({"text": text}));
    }

    /// Presses keys on whatever has the focus (a chord when several are given at once).
    pub fn press(&self, keys: &[&str]) {
        let mut actions: Vec<Value> = keys
            .iter()
            .map(|k| json!({"type": "keyDown", "value": k}))
            .collect();
        actions.extend(
            keys.iter()
                .rev()
                .map(|k| json!({"type": "keyUp", "value": k})),
        );
        self.command(
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]}),
        );
    }

    /// Runs `script` (a function body) in the page and returns its value.
    pub fn script(&self, script: &str, args: Value) -> Value {
        self.command("/execute/sync", json!({"script": script, "args": args}))
    }

    /// Text of the element matching `css`.
    pub fn text(&self, css: &str) -> String {
        let id = self.find(css);
        let answer = self.get_raw(&format!("/element/{id}/text")).unwrap();
        answer["value"].as_str().unwrap_or("").to_string()
    }

    /// Waits up to 15 s until `script` returns true.
    pub fn wait_until(&self, script: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while self.script(script, json!([])) != Value::Bool(true) {
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the page is wider than the window (it scrolls sideways).
    pub fn scrolls_sideways(&self) -> Value {
        self.script(
            "return document.documentElement.scrollWidth > window.innerWidth",
            json!([]),
        )
    }

    /// The width the page is laid out at, in CSS pixels.
    pub fn inner_width(&self) -> Value {
        self.script("return window.innerWidth", json!([]))
    }

    /// Light or dark, as the system would say.
    pub fn colour_scheme(&self, scheme: &str) {
        self.command(
            "/goog/cdp/execute",
            json!({"cmd": "Emulation.setEmulatedMedia", "params": {
                "features": [{"name": "prefers-color-scheme", "value": scheme}]}}),
        );
    }

    /// Saves a PNG of the window as a test artifact in target/browser-artifacts/.
    pub fn screenshot(&self, name: &str) {
        let answer = self.get_raw("/screenshot").unwrap();
        let data = answer["value"].as_str().expect("a screenshot");
        let bytes = marvin::interact::form::uploads::decode_base64(data).expect("base64 PNG");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), bytes).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.agent.delete(&self.base).call();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
