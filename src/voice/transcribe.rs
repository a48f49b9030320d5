//! Turning a recording into text with Groq's Whisper: `POST {GROQ_BASE_URL}/audio/
//! transcriptions`, multipart (file, model, response_format=json), the key as a Bearer token;
//! the answer's `text` (OpenAI's shape, which Groq keeps). Failures come back as one sentence
//! that never shows the key.

use std::time::Duration;

use serde_json::Value;

use crate::cancel::CancelToken;
use crate::config::Config;
use crate::net::{self, Failure, Multipart, Secrets, Transport};
use crate::services::GROQ;

/// The most of an answer that is read: a transcript of minutes of speech is a few KB.
const ANSWER_CAP: u64 = 1024 * 1024;

/// Groq's transcription endpoint with the key and model to use.
pub(crate) struct Transcriber {
    url: String,
    key: String,
    model: String,
    timeout: Duration,
    client: net::Client,
}

impl Transcriber {
    /// From Config: Groq's base URL, key (GROQ_API_KEY or ~/.ssh/GROQ_API_KEY), proxy, the
    /// tools' timeout and WHISPER_MODEL; or why there is none.
    pub(crate) fn new(config: &Config) -> Result<Self, String> {
        let key = config.web.key("GROQ_API_KEY").ok_or(
            "Cannot transcribe: there is no GROQ_API_KEY. Set it in the environment \
             (export GROQ_API_KEY=gsk_...) or put the key in ~/.ssh/GROQ_API_KEY",
        )?;
        let base = config
            .endpoints
            .url(&GROQ)
            .trim_end_matches('/')
            .to_string();
        let timeout = config.web.timeout;
        let client = net::Client::new(timeout, config.proxy.for_url(&base))
            .with_secrets(Secrets::new().with_url(&base));
        Ok(Self {
            url: format!("{base}/audio/transcriptions"),
            key,
            model: config.voice.whisper_model.clone(),
            timeout,
            client,
        })
    }

    /// The text said in `wav`; an empty transcript is an error too.
    pub(crate) fn transcribe(&self, wav: &[u8], cancel: &CancelToken) -> Result<String, String> {
        let boundary = crate::secret::random_hex(16)
            .map(|hex| format!("marvin-{hex}"))
            .map_err(|error| format!("Cannot transcribe: no randomness for the upload: {error}"))?;
        let (content_type, body) = Multipart::new(&boundary)
            .text("model", &self.model)
            .text("response_format", "json")
            .file("file", "recording.wav", "audio/wav", wav)
            .finish();
        let authorization = format!("Bearer {}", self.key);
        let send = |agent: &ureq::Agent| {
            agent
                .post(&self.url)
                .header("Authorization", &authorization)
                .header("Content-Type", &content_type)
                .send(&body[..])
        };
        // A refusal is the reader's error, so the client cuts the key out of it as it cuts it
        // out of every failure (a service may repeat the Authorization header it was sent).
        let read = |response: net::Response| -> Result<String, String> {
            let status = response.status().as_u16();
            let content_type = net::header(&response, "Content-Type");
            let text = net::read_text(response.into_body().into_reader(), ANSWER_CAP).map_err(
                |error| {
                    format!(
                        "Transcription failed, reading Groq's answer: {error}; nothing was sent"
                    )
                },
            )?;
            if (200..300).contains(&status) {
                Ok(text)
            } else {
                Err(refusal(status, content_type.as_deref(), &text))
            }
        };
        let text = self
            .client
            .exchange(cancel, &self.url, Some(&self.key), send, read)
            .map_err(|failure| self.failure(failure))?;
        transcript(&text)
    }

    fn failure(&self, failure: Failure<String>) -> String {
        match failure {
            Failure::Cancelled => "Stopped; nothing was sent.".to_string(),
            Failure::Transport(Transport::Silent(_) | Transport::ConnectTimeout) => format!(
                "Groq did not answer within {}s; nothing was sent. Try again later.",
                self.timeout.as_secs()
            ),
            Failure::Transport(transport) => format!(
                "Cannot reach Groq at {}: {transport}; nothing was sent",
                net::without_userinfo(&self.url)
            ),
            Failure::Answer(why) => why,
        }
    }
}

/// Why Groq refused: its own error message with the status on one line, or what kind of
/// page answered instead of the API (an outage page, a proxy's) without its markup.
fn refusal(status: u16, content_type: Option<&str>, text: &str) -> String {
    if net::is_html(content_type, text.as_bytes()) {
        return format!(
            "Groq answered HTTP {status} with a web page (an outage or a proxy); try again \
             later; nothing was sent"
        );
    }
    let json: Option<Value> = serde_json::from_str(text).ok();
    let message = json
        .as_ref()
        .and_then(|j| j["error"]["message"].as_str().or(j["error"].as_str()))
        .unwrap_or(text);
    let message: String = message
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect();
    let message = message.trim_end_matches('.');
    format!("Groq refused the recording (HTTP {status}): {message}; nothing was sent")
}

/// The transcript in Groq's successful answer; an empty one is an error too.
fn transcript(text: &str) -> Result<String, String> {
    let json: Option<Value> = serde_json::from_str(text).ok();
    let transcript = json
        .as_ref()
        .and_then(|j| j["text"].as_str())
        .ok_or("Groq's answer has no transcript (no \"text\" in it); nothing was sent")?;
    let transcript = transcript.split_whitespace().collect::<Vec<_>>().join(" ");
    if transcript.is_empty() {
        return Err(super::EMPTY_TRANSCRIPT.to_string());
    }
    Ok(transcript)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_give_the_transcript_or_the_services_words() {
        assert_eq!(
            transcript(r#"{"text":" Hello  there.\n","x_groq":{"id":"req_1"}}"#),
            Ok("Hello there.".to_string())
        );
        for (text, expected) in [
            (r#"{"text":"  "}"#, "The transcript is empty"),
            (r#"{"task":"transcribe"}"#, "no transcript"),
            ("<html>", "no transcript"),
        ] {
            let error = transcript(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
        let json = Some("application/json");
        let cloudflare = "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n\
                          <body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>\n";
        let cases: &[(u16, Option<&str>, &str, &str)] = &[
            (
                401,
                json,
                r#"{"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
                "Groq refused the recording (HTTP 401): Invalid API Key; nothing was sent",
            ),
            (
                413,
                json,
                r#"{"error":"file too large."}"#,
                "Groq refused the recording (HTTP 413): file too large; nothing was sent",
            ),
            (
                502,
                Some("text/plain"),
                "Bad\n  Gateway\n",
                "Groq refused the recording (HTTP 502): Bad Gateway; nothing was sent",
            ),
            (
                502,
                Some("text/html; charset=UTF-8"),
                cloudflare,
                "Groq answered HTTP 502 with a web page (an outage or a proxy); try again later; \
                 nothing was sent",
            ),
            (
                503,
                None,
                cloudflare,
                "Groq answered HTTP 503 with a web page (an outage or a proxy); try again later; \
                 nothing was sent",
            ),
        ];
        for (status, content_type, text, expected) in cases {
            assert_eq!(&refusal(*status, *content_type, text), expected, "{text}");
        }
    }
}
