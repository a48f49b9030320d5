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
        let read = |response: net::Response| -> Result<(u16, String), String> {
            let status = response.status().as_u16();
            net::read_text(response.into_body().into_reader(), ANSWER_CAP)
                .map(|text| (status, text))
                .map_err(|error| format!("reading Groq's answer: {error}"))
        };
        let (status, text) = self
            .client
            .exchange(cancel, &self.url, Some(&self.key), send, read)
            .map_err(|failure| self.failure(failure))?;
        answer(status, &text)
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
            Failure::Answer(why) => format!("Transcription failed, {why}; nothing was sent"),
        }
    }
}

/// The transcript in Groq's answer, or the service's own error message with the status.
fn answer(status: u16, text: &str) -> Result<String, String> {
    let json: Option<Value> = serde_json::from_str(text).ok();
    if !(200..300).contains(&status) {
        let message = json
            .as_ref()
            .and_then(|j| j["error"]["message"].as_str().or(j["error"].as_str()))
            .map(str::to_string)
            .unwrap_or_else(|| text.trim().chars().take(200).collect());
        let message = message.trim_end_matches('.');
        return Err(format!(
            "Groq refused the recording (HTTP {status}): {message}; nothing was sent"
        ));
    }
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
        let ok = |text: &str| answer(200, text);
        assert_eq!(
            ok(r#"{"text":" Hello  there.\n","x_groq":{"id":"req_1"}}"#),
            Ok("Hello there.".to_string())
        );
        let cases: &[(u16, &str, &str)] = &[
            (200, r#"{"text":"  "}"#, "The transcript is empty"),
            (200, r#"{"task":"transcribe"}"#, "no transcript"),
            (200, "<html>", "no transcript"),
            (
                401,
                r#"{"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}"#,
                "Groq refused the recording (HTTP 401): Invalid API Key; nothing was sent",
            ),
            (
                413,
                r#"{"error":"file too large."}"#,
                "(HTTP 413): file too large;",
            ),
            (502, "Bad Gateway\n", "(HTTP 502): Bad Gateway;"),
        ];
        for (status, text, expected) in cases {
            let error = answer(*status, text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
