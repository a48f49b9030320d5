//! A model server on this machine, looked for only when no provider is set up: Ollama (known
//! by its `/api/tags`) or an OpenAI-compatible server such as llama.cpp's `llama-server`,
//! LM Studio or vLLM (known by `/v1/models`), on the ports Config names. Every port is asked
//! at once and the look takes at most [`PATIENCE`] in all; the first port in the list that
//! answered wins.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::net;

/// How long the whole look may take.
const PATIENCE: Duration = Duration::from_millis(100);

/// What kind of server answered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Ollama,
    OpenAiCompatible,
}

/// A server found, with the models it offers (in its order).
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub kind: Kind,
    pub port: u16,
    pub models: Vec<String>,
}

impl Found {
    pub fn base_url(&self) -> String {
        match self.kind {
            Kind::Ollama => format!("http://127.0.0.1:{}", self.port),
            Kind::OpenAiCompatible => format!("http://127.0.0.1:{}/v1", self.port),
        }
    }

    /// `the local Ollama at 127.0.0.1:11434 (model llama3.2:1b)`.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            Kind::Ollama => "the local Ollama",
            Kind::OpenAiCompatible => "the local OpenAI-compatible server",
        };
        let model = match self.models.first() {
            Some(model) => format!(" (model {model})"),
            None => String::new(),
        };
        format!("{what} at 127.0.0.1:{}{model}", self.port)
    }

    /// The variables that choose it, as if the user had set them.
    pub fn variables(&self) -> Vec<(&'static str, String)> {
        let (provider, url_var, model_var) = match self.kind {
            Kind::Ollama => ("ollama", "OLLAMA_URL", "OLLAMA_MODEL"),
            Kind::OpenAiCompatible => ("openai-compat", "OPENAI_COMPAT_URL", "OPENAI_COMPAT_MODEL"),
        };
        let mut variables = vec![
            ("LLM_PROVIDER", provider.to_string()),
            (url_var, self.base_url()),
        ];
        variables.extend(self.models.first().map(|model| (model_var, model.clone())));
        variables
    }
}

/// The first of `ports` with a model server on it, asked all at once.
pub fn find(ports: &[u16]) -> Option<Found> {
    let deadline = Instant::now() + PATIENCE;
    let (sender, receiver) = mpsc::channel();
    for (rank, port) in ports.iter().copied().enumerate() {
        let sender = sender.clone();
        // A thread that cannot be started is a port not looked at.
        let _ = std::thread::Builder::new()
            .name("local-model-probe".into())
            .spawn(move || {
                let _ = sender.send((rank, look(port, deadline)));
            });
    }
    drop(sender);
    let mut answers: Vec<(usize, Found)> = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match receiver.recv_timeout(left) {
            Ok((rank, Some(found))) => answers.push((rank, found)),
            Ok((_, None)) => {}
            Err(_) => break,
        }
    }
    answers.sort_by_key(|(rank, _)| *rank);
    answers.into_iter().next().map(|(_, found)| found)
}

/// What is on `port`: Ollama first (it also answers `/v1/models`), then an OpenAI-compatible
/// server.
fn look(port: u16, deadline: Instant) -> Option<Found> {
    let left = || deadline.checked_duration_since(Instant::now());
    let base = format!("http://127.0.0.1:{port}");
    if let Some(tags) = net::get_json(&format!("{base}/api/tags"), left()?) {
        if let Some(models) = names(&tags, "models", "name") {
            return Some(Found {
                kind: Kind::Ollama,
                port,
                models,
            });
        }
    }
    let listed = net::get_json(&format!("{base}/v1/models"), left()?)?;
    Some(Found {
        kind: Kind::OpenAiCompatible,
        port,
        models: names(&listed, "data", "id")?,
    })
}

/// The `field` of each object in the array `list`, when `list` is an array.
fn names(value: &Value, list: &str, field: &str) -> Option<Vec<String>> {
    let items = value.get(list)?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|item| item.get(field)?.as_str().map(str::to_string))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_found_server_is_chosen_with_its_first_model() {
        let ollama = Found {
            kind: Kind::Ollama,
            port: 11434,
            models: vec!["llama3.2:1b".into(), "qwen3:4b".into()],
        };
        assert_eq!(
            ollama.describe(),
            "the local Ollama at 127.0.0.1:11434 (model llama3.2:1b)"
        );
        assert_eq!(
            ollama.variables(),
            [
                ("LLM_PROVIDER", "ollama".to_string()),
                ("OLLAMA_URL", "http://127.0.0.1:11434".to_string()),
                ("OLLAMA_MODEL", "llama3.2:1b".to_string()),
            ]
        );
        let server = Found {
            kind: Kind::OpenAiCompatible,
            port: 8080,
            models: Vec::new(),
        };
        assert_eq!(server.base_url(), "http://127.0.0.1:8080/v1");
        assert_eq!(server.variables().len(), 2);
        assert_eq!(
            names(
                &json!({"data": [{"id": "smollm2"}, {"object": "model"}]}),
                "data",
                "id"
            ),
            Some(vec!["smollm2".to_string()])
        );
        assert_eq!(names(&json!({"error": "no"}), "data", "id"), None);
    }

    #[test]
    fn nothing_listening_is_nothing_found_quickly() {
        // A port nobody listens on: bound, then let go.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        assert_eq!(find(&[port]), None);
        assert_eq!(find(&[]), None);
    }
}
