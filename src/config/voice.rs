//! What `!v` and `!voice` need from the environment: the program that records (MARVIN_RECORDER,
//! else `arecord` on Linux and `sox` elsewhere, whichever is found at first use) and the
//! Whisper model Groq transcribes with (WHISPER_MODEL). Groq's key and base URL come from its
//! row in the services table, as for the provider.

use super::Env;

/// Groq's Whisper model unless WHISPER_MODEL names another.
const WHISPER_MODEL: &str = "whisper-large-v3";

#[derive(Debug, Clone, PartialEq)]
pub struct VoiceSettings {
    /// MARVIN_RECORDER: a program that records (tests use a script writing a prepared WAV).
    pub recorder: Option<String>,
    /// WHISPER_MODEL, else `whisper-large-v3`.
    pub whisper_model: String,
}

impl Default for VoiceSettings {
    fn default() -> Self {
        Self {
            recorder: None,
            whisper_model: WHISPER_MODEL.to_string(),
        }
    }
}

impl VoiceSettings {
    pub(super) fn from_env(env: &Env) -> Self {
        let non_empty = |var: &str| {
            env.get(var)
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map(str::to_string)
        };
        Self {
            recorder: non_empty("MARVIN_RECORDER"),
            whisper_model: non_empty("WHISPER_MODEL").unwrap_or_else(|| WHISPER_MODEL.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorder_and_the_model_come_from_the_environment() {
        let env = Env::from_pairs([
            ("MARVIN_RECORDER", " /opt/rec.sh "),
            ("WHISPER_MODEL", "whisper-large-v3-turbo"),
        ]);
        let voice = VoiceSettings::from_env(&env);
        assert_eq!(voice.recorder.as_deref(), Some("/opt/rec.sh"));
        assert_eq!(voice.whisper_model, "whisper-large-v3-turbo");
        let unset = VoiceSettings::from_env(&Env::from_pairs([("WHISPER_MODEL", " ")]));
        assert_eq!(unset, VoiceSettings::default());
    }
}
