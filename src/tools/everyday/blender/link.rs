//! The socket of blender-mcp's Blender add-on (ahujasid/blender-mcp addon.py): a plain TCP
//! connection at BLENDER_MCP_HOST:BLENDER_MCP_PORT, one JSON object `{"type", "params"}` sent,
//! one JSON object `{"status": "success", "result"}` or `{"status": "error", "message"}`
//! answered, with no framing: the reply is whole when it parses (the add-on reads our command
//! the same way). At most MARVIN_TOOL_TIMEOUT for the whole exchange, at most
//! [`MAX_REPLY`] bytes, and a cancel closes the socket at once.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::cancel::CancelToken;
use crate::config::WebSettings;

/// The largest reply read; a viewport screenshot goes to a file, so replies are small.
pub(super) const MAX_REPLY: usize = 5 * 1024 * 1024;

/// Where the add-on listens and how long an exchange may take.
pub(crate) struct Link {
    host: String,
    port: u16,
    timeout: Duration,
}

/// What a cancel or a timeout says of a command that changes the scene: addon.py schedules
/// each command with bpy.app.timers and runs it even after the client has gone.
const MAY_HAVE_HAPPENED: &str = "the change may still have happened: Blender's add-on finishes a command even after Marvin stops waiting, so check with blender_get_scene or blender_get_object before trying again";

/// Whether `command` may change the scene (execute_code: our own programs and the model's
/// code); the rest only read, and may simply be tried again.
fn changes(command: &str) -> bool {
    command == "execute_code"
}

/// Why a reply could not be read.
#[derive(Debug)]
pub(super) enum ReplyError {
    /// The connection ended before a whole JSON value came (`empty`: before any byte).
    Closed {
        empty: bool,
    },
    /// The bytes are not JSON; the start of them.
    NotJson(String),
    TooLarge,
    Io(io::Error),
}

impl Link {
    pub(crate) fn new(settings: &WebSettings) -> Self {
        Self {
            host: settings.blender_host.clone(),
            port: settings.blender_port,
            timeout: settings.timeout,
        }
    }

    /// The same link, waiting at most `limit` (never longer than MARVIN_TOOL_TIMEOUT).
    pub(crate) fn patience(mut self, limit: Duration) -> Self {
        self.timeout = self.timeout.min(limit);
        self
    }

    /// How long it waits, in whole seconds (as messages say it).
    pub(crate) fn patience_secs(&self) -> u64 {
        self.timeout.as_secs()
    }

    /// `host:port`, as messages name it.
    pub(crate) fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The advice when Blender cannot be reached.
    pub(crate) fn unreachable(&self, cause: &str) -> String {
        format!(
            "Blender is not reachable at {}{cause}: start Blender with the BlenderMCP add-on enabled and press \"Connect to Claude\" (\"Connect to MCP\") in its sidebar tab, or set BLENDER_MCP_HOST/BLENDER_MCP_PORT to where it listens.",
            self.address()
        )
    }

    /// Sends `command` with `params` and answers the add-on's `result`, or one sentence.
    pub(crate) fn send(
        &self,
        command: &str,
        params: Value,
        cancel: &CancelToken,
    ) -> Result<Value, String> {
        let deadline = Instant::now() + self.timeout;
        let mut stream = self.connect()?;
        let closer = stream.try_clone().ok();
        let _hook = cancel.on_cancel(move || {
            if let Some(stream) = closer {
                let _ = stream.shutdown(Shutdown::Both);
            }
        });
        let request = json!({"type": command, "params": params}).to_string();
        let exchange = stream
            .set_write_timeout(Some(self.timeout))
            .and_then(|()| stream.write_all(request.as_bytes()))
            .map_err(ReplyError::Io)
            .and_then(|()| {
                read_reply(
                    &mut Deadlined {
                        stream: &stream,
                        deadline,
                    },
                    MAX_REPLY,
                )
            });
        if cancel.is_cancelled() {
            return Err(match changes(command) {
                true => format!("The Blender request was cancelled, but {MAY_HAVE_HAPPENED}."),
                false => "The Blender request was cancelled.".into(),
            });
        }
        let reply = exchange.map_err(|error| self.explain(command, error))?;
        self.result(command, reply)
    }

    fn connect(&self) -> Result<TcpStream, String> {
        if self.host.contains('/') {
            return Err(format!(
                "BLENDER_MCP_HOST is a host name or address such as 127.0.0.1, not a URL ({}); the port goes in BLENDER_MCP_PORT.",
                self.host
            ));
        }
        let addresses: Vec<SocketAddr> = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| self.unreachable(&format!(" (cannot resolve {}: {e})", self.host)))?
            .collect();
        let mut last = None;
        for address in addresses {
            match TcpStream::connect_timeout(&address, self.timeout) {
                Ok(stream) => return Ok(stream),
                Err(error) => last = Some(error),
            }
        }
        Err(match last {
            Some(error) if error.kind() == io::ErrorKind::ConnectionRefused => self.unreachable(""),
            Some(error) => self.unreachable(&format!(" ({error})")),
            None => self.unreachable(&format!(" ({} has no address)", self.host)),
        })
    }

    /// The sentence for a failed exchange: a command that changes the scene may have run all
    /// the same, so it is never simply "try again" for one of those.
    fn explain(&self, command: &str, error: ReplyError) -> String {
        let at = self.address();
        let changes = changes(command);
        match error {
            ReplyError::Io(e) if is_timeout(&e) && changes => format!(
                "Blender did not answer within {}s, but {MAY_HAVE_HAPPENED} (if Blender is busy with a long operation, raise MARVIN_TOOL_TIMEOUT).",
                self.timeout.as_secs()
            ),
            ReplyError::Io(e) if is_timeout(&e) => format!(
                "Blender did not answer within {}s: it may be busy (a long operation, a dialog open); try again, or raise MARVIN_TOOL_TIMEOUT.",
                self.timeout.as_secs()
            ),
            ReplyError::Closed { empty: false } if changes => format!(
                "Blender at {at} closed the connection in the middle of its reply, so the change has most likely happened: check with blender_get_scene or blender_get_object before trying again."
            ),
            ReplyError::Io(e) => format!("The connection to Blender at {at} failed: {e}."),
            ReplyError::Closed { empty: true } => format!(
                "Blender at {at} closed the connection without answering; is the BlenderMCP add-on what listens there?"
            ),
            ReplyError::Closed { empty: false } => format!(
                "Blender at {at} closed the connection in the middle of its reply; try again."
            ),
            ReplyError::NotJson(start) => format!(
                "What answered at {at} is not Blender's add-on: its reply is not JSON ({start:?}). Check BLENDER_MCP_HOST/BLENDER_MCP_PORT."
            ),
            ReplyError::TooLarge => format!(
                "Blender's reply is larger than {} MB, more than a tool reads; ask for less.",
                MAX_REPLY / (1024 * 1024)
            ),
        }
    }

    /// The add-on's `result`, or its error said as one sentence.
    fn result(&self, command: &str, reply: Value) -> Result<Value, String> {
        match reply["status"].as_str() {
            Some("success") => {}
            Some("error") => {
                let message = reply["message"]
                    .as_str()
                    .unwrap_or("no reason given")
                    .trim();
                let hint = if message.starts_with("Unknown command type") {
                    " (this BlenderMCP add-on does not have it: update the add-on from github.com/ahujasid/blender-mcp)"
                } else {
                    ""
                };
                return Err(format!("Blender refused {command}: {message}{hint}."));
            }
            _ => {
                return Err(format!(
                    "What answered at {} is not Blender's add-on: its reply has no status.",
                    self.address()
                ));
            }
        }
        let result = reply.get("result").cloned().unwrap_or(Value::Null);
        // Some commands catch their own failures and answer {"error": …} as a success.
        if let Some(error) = result.get("error").and_then(Value::as_str) {
            return Err(format!("Blender could not do {command}: {error}."));
        }
        Ok(result)
    }
}

/// Reads until the bytes so far are one whole JSON value, the way the add-on itself reads.
pub(super) fn read_reply(reader: &mut impl Read, cap: usize) -> Result<Value, ReplyError> {
    let mut buffer = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ReplyError::Io(e)),
        };
        if n == 0 {
            let empty = buffer.iter().all(u8::is_ascii_whitespace);
            return Err(ReplyError::Closed { empty });
        }
        buffer.extend_from_slice(&chunk[..n]);
        if buffer.len() > cap {
            return Err(ReplyError::TooLarge);
        }
        let mut values = serde_json::Deserializer::from_slice(&buffer).into_iter::<Value>();
        match values.next() {
            Some(Ok(value)) => return Ok(value),
            Some(Err(e)) if !e.is_eof() => {
                let start: String = String::from_utf8_lossy(&buffer).chars().take(60).collect();
                return Err(ReplyError::NotJson(start));
            }
            _ => {}
        }
    }
}

/// A stream whose reads give up at the deadline.
struct Deadlined<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for Deadlined<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

fn is_timeout(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its pieces one read at a time, then the end.
    struct Pieces(Vec<Vec<u8>>);

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Ok(0);
            }
            let piece = self.0.remove(0);
            buf[..piece.len()].copy_from_slice(&piece);
            Ok(piece.len())
        }
    }

    fn read(pieces: &[&[u8]], cap: usize) -> Result<Value, ReplyError> {
        read_reply(
            &mut Pieces(pieces.iter().map(|p| p.to_vec()).collect()),
            cap,
        )
    }

    #[test]
    fn a_reply_is_whole_when_it_parses() {
        let emoji = "{\"status\": \"success\", \"result\": \"🙂\"}".as_bytes();
        let cut = emoji.len() - 4; // inside the emoji's four bytes
        let cases: &[(&[&[u8]], Value)] = &[
            (
                &[b"{\"status\": \"success\", \"result\": {}}"],
                json!({"status": "success", "result": {}}),
            ),
            (
                &[b"{\"status\": \"succ", b"ess\", \"result\": 3}"],
                json!({"status": "success", "result": 3}),
            ),
            (
                &[&emoji[..cut], &emoji[cut..]],
                json!({"status": "success", "result": "🙂"}),
            ),
            (
                &[b"  ", b"{\"a\": [1,", b" 2]}", b"never read"],
                json!({"a": [1, 2]}),
            ),
            (&[b"{\"a\": 1} trailing"], json!({"a": 1})),
        ];
        for (pieces, expected) in cases {
            match read(pieces, MAX_REPLY) {
                Ok(value) => assert_eq!(&value, expected),
                Err(e) => panic!("{pieces:?}: {e:?}"),
            }
        }
    }

    #[test]
    fn broken_replies_say_how() {
        assert!(matches!(
            read(&[], MAX_REPLY),
            Err(ReplyError::Closed { empty: true })
        ));
        assert!(matches!(
            read(&[b" \n"], MAX_REPLY),
            Err(ReplyError::Closed { empty: true })
        ));
        assert!(matches!(
            read(&[b"{\"status\": "], MAX_REPLY),
            Err(ReplyError::Closed { empty: false })
        ));
        match read(&[b"HTTP/1.1 400 Bad Request\r\n"], MAX_REPLY) {
            Err(ReplyError::NotJson(start)) => {
                assert!(start.starts_with("HTTP/1.1 400"), "{start}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read(&[b"{\"result\": \"", b"0123456789"], 12),
            Err(ReplyError::TooLarge)
        ));
    }

    /// A change that may have happened is never "try again": the model is told to look first.
    #[test]
    fn a_change_that_timed_out_or_was_cut_off_says_to_check_before_trying_again() {
        let link = Link::new(&WebSettings::default()).patience(Duration::from_secs(2));
        let timeout = || ReplyError::Io(io::ErrorKind::TimedOut.into());
        let check = "check with blender_get_scene or blender_get_object before trying again";
        let cases = [
            (
                "execute_code",
                timeout(),
                Some("Blender did not answer within 2s, but the change may still have happened"),
            ),
            (
                "execute_code",
                ReplyError::Closed { empty: false },
                Some(
                    "Blender at 127.0.0.1:9876 closed the connection in the middle of its reply, so the change has most likely happened",
                ),
            ),
            ("get_scene_info", timeout(), None),
            ("get_object_info", ReplyError::Closed { empty: false }, None),
            ("get_viewport_screenshot", timeout(), None),
        ];
        for (command, error, start) in cases {
            let said = link.explain(command, error);
            match start {
                Some(start) => assert!(
                    said.starts_with(start) && said.contains(check) && !said.contains("try again,"),
                    "{command}: {said}"
                ),
                None => assert!(
                    said.contains("try again") && !said.contains(check),
                    "{command}: {said}"
                ),
            }
        }
    }

    /// A local socket that takes one command and never answers; the receiver hears when the
    /// command has come.
    fn unanswering() -> (u16, std::sync::mpsc::Receiver<()>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (got, heard) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut command = Vec::new();
            let mut chunk = [0u8; 4096];
            // Held open until the client closes it.
            while let Ok(n @ 1..) = stream.read(&mut chunk) {
                command.extend_from_slice(&chunk[..n]);
                if serde_json::from_slice::<Value>(&command).is_ok() {
                    let _ = got.send(());
                }
            }
        });
        (port, heard)
    }

    #[test]
    fn a_cancelled_change_says_it_may_have_happened_and_a_cancelled_read_does_not() {
        let cases = [
            (
                "execute_code",
                "The Blender request was cancelled, but the change may still have happened: Blender's add-on finishes a command even after Marvin stops waiting, so check with blender_get_scene or blender_get_object before trying again.",
            ),
            ("get_scene_info", "The Blender request was cancelled."),
        ];
        for (command, expected) in cases {
            let (port, heard) = unanswering();
            let link = Link {
                host: "127.0.0.1".into(),
                port,
                timeout: Duration::from_secs(600),
            };
            let cancel = CancelToken::new();
            let canceller = cancel.clone();
            std::thread::spawn(move || {
                if heard.recv().is_ok() {
                    canceller.cancel();
                }
            });
            assert_eq!(
                link.send(command, json!({}), &cancel),
                Err(expected.to_string())
            );
        }
    }

    #[test]
    fn statuses_become_results_or_sentences() {
        let link = Link::new(&WebSettings::default());
        let cases = [
            (json!({"status": "success", "result": {"name": "Scene"}}), Ok(json!({"name": "Scene"}))),
            (
                json!({"status": "error", "message": "Object not found: Cube"}),
                Err("Blender refused get_object_info: Object not found: Cube.".to_string()),
            ),
            (
                json!({"status": "success", "result": {"error": "No 3D viewport found"}}),
                Err("Blender could not do get_object_info: No 3D viewport found.".to_string()),
            ),
            (
                json!({"status": "error", "message": "Unknown command type: get_object_info"}),
                Err("Blender refused get_object_info: Unknown command type: get_object_info (this BlenderMCP add-on does not have it: update the add-on from github.com/ahujasid/blender-mcp).".to_string()),
            ),
            (
                json!({"jsonrpc": "2.0"}),
                Err("What answered at 127.0.0.1:9876 is not Blender's add-on: its reply has no status.".to_string()),
            ),
        ];
        for (reply, expected) in cases {
            assert_eq!(
                link.result("get_object_info", reply.clone()),
                expected,
                "{reply}"
            );
        }
    }
}
