//! The providers of a session in fallback order. A call retries rate limits on the provider
//! in use, rebuilds a provider's session after a timeout, and on network, auth, server,
//! timeout or lasting rate-limit errors moves on to the next provider, saying why; the user
//! retypes nothing. The session then stays on the provider that answered.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::retry::chat_with_retry;
use super::{ChatRequest, ChatResult, ErrorKind, LlmError, Provider};
use crate::cancel::CancelToken;

pub struct ProviderChain {
    providers: Vec<Arc<dyn Provider>>,
    active: AtomicUsize,
    /// The run ends after this answer: a timed-out provider is rebuilt without a word.
    answers_once: bool,
    /// How long a server still loading its model is waited for (MARVIN_LOAD_WAIT).
    load_wait: std::time::Duration,
}

impl ProviderChain {
    /// `providers[0]` is the chosen one, the rest are fallbacks in order.
    pub fn new(providers: Vec<Arc<dyn Provider>>) -> Self {
        assert!(!providers.is_empty(), "a chain needs at least one provider");
        Self {
            providers,
            active: AtomicUsize::new(0),
            answers_once: false,
            load_wait: super::retry::LOAD_WAIT,
        }
    }

    /// The chain, waiting `wait` for a server that is still loading its model.
    pub fn waiting_for_loads(mut self, wait: std::time::Duration) -> Self {
        self.load_wait = wait;
        self
    }

    /// The chain of a run that answers once (`--once`, `--non-interactive`): there is no next
    /// call to promise a rebuilt session to.
    pub fn answering_once(mut self, once: bool) -> Self {
        self.answers_once = once;
        self
    }

    /// A chain that answers with `primary` from now on and falls back, as before, to this
    /// one's fallbacks (one with the same name is replaced); the primary left is not one.
    pub fn with_primary(&self, primary: Arc<dyn Provider>) -> Self {
        let mut providers = vec![primary];
        // The fallbacks set up stay; the provider left is not one (MARVIN_FALLBACK=none
        // means none).
        let rest = self.providers[1..]
            .iter()
            .filter(|p| p.name() != providers[0].name());
        let rest: Vec<_> = rest.cloned().collect();
        providers.extend(rest);
        Self::new(providers)
            .answering_once(self.answers_once)
            .waiting_for_loads(self.load_wait)
    }

    /// Every provider of the chain waits `timeout` with nothing arriving from now on.
    pub fn set_idle_timeout(&self, timeout: std::time::Duration) {
        for provider in &self.providers {
            provider.set_idle_timeout(timeout);
        }
    }

    /// The provider answering now.
    pub fn active(&self) -> &dyn Provider {
        self.providers[self.active.load(Ordering::SeqCst)].as_ref()
    }

    pub fn chat(
        &self,
        request: &ChatRequest<'_>,
        on_text: &mut dyn FnMut(&str),
        cancel: &CancelToken,
        notice: &mut dyn FnMut(String),
    ) -> Result<ChatResult, LlmError> {
        loop {
            let index = self.active.load(Ordering::SeqCst);
            let provider = self.providers[index].as_ref();
            let waits = super::retry::Waits {
                cancel,
                load: self.load_wait,
            };
            let error = match chat_with_retry(provider, request, on_text, &waits, notice) {
                Ok(result) => return Ok(result),
                Err(error) => error,
            };
            if error.kind == ErrorKind::Timeout {
                provider.reset();
            }
            if error.kind == ErrorKind::Timeout && !self.answers_once {
                notice(format!(
                    "{} timed out; its session will be rebuilt for the next call",
                    provider.name()
                ));
            }
            let next = index + 1;
            if !falls_back(error.kind) || next >= self.providers.len() {
                return Err(error);
            }
            let fallback = self.providers[next].as_ref();
            notice(format!(
                "{} failed: {} — falling back to {} ({})",
                provider.name(),
                error.message,
                fallback.name(),
                fallback.model()
            ));
            self.active.store(next, Ordering::SeqCst);
            if let Some(refusal) = unfit(fallback, request, cancel) {
                return Err(refusal);
            }
        }
    }
}

/// Why `request` cannot go to `provider` as it is (a fallback whose window is smaller, or
/// whose model calls no tools): an error the loop answers by fitting it again.
fn unfit(
    provider: &dyn Provider,
    request: &ChatRequest<'_>,
    cancel: &CancelToken,
) -> Option<LlmError> {
    if request.tokens == 0 {
        return None;
    }
    let facts = provider.facts(cancel);
    let holds = request.tokens + super::window::answer_room(facts.window) <= facts.window;
    let tools = request.tools.is_none() || facts.tools;
    if holds && tools {
        return None;
    }
    let no_tools = if tools { "" } else { ", and calls no tools" };
    Some(LlmError::new(
        ErrorKind::ContextLength,
        format!(
            "{} ({}) cannot take the request as it is: its window holds {} tokens{no_tools}",
            provider.name(),
            provider.model(),
            facts.window
        ),
    ))
}

fn falls_back(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::Network
            | ErrorKind::Timeout
            | ErrorKind::Auth
            | ErrorKind::Server
            | ErrorKind::RateLimited
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a name and a model: these tests look at the order, never at a call.
    struct Named(&'static str, &'static str);

    impl Provider for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn model(&self) -> &str {
            self.1
        }
        fn chat(
            &self,
            _: &ChatRequest<'_>,
            _: &mut dyn FnMut(&str),
            _: &CancelToken,
            _: &mut dyn FnMut(String),
        ) -> Result<ChatResult, LlmError> {
            unreachable!("the order is under test, not a call")
        }
    }

    /// A fallback whose model holds `window` tokens and calls tools or not.
    struct Windowed(usize, bool);

    impl Provider for Windowed {
        fn name(&self) -> &str {
            "ollama"
        }
        fn model(&self) -> &str {
            "small"
        }
        fn chat(
            &self,
            _: &ChatRequest<'_>,
            _: &mut dyn FnMut(&str),
            _: &CancelToken,
            _: &mut dyn FnMut(String),
        ) -> Result<ChatResult, LlmError> {
            unreachable!("only its facts are asked")
        }
        fn facts(&self, _: &CancelToken) -> super::super::ModelFacts {
            let mut facts = super::super::ModelFacts::learned(self.0, "test");
            facts.tools = self.1;
            facts
        }
    }

    #[test]
    fn a_fallback_that_cannot_take_the_request_as_it_is_asks_for_it_fitted_again() {
        let tools = serde_json::value::RawValue::from_string("[]".into()).unwrap();
        // (the fallback's window, whether it calls tools, the request's tokens, tools sent)
        let cases = [
            (8192, true, 6000, true, false),
            (8192, true, 7000, false, true),
            (131_072, false, 6000, true, true),
            (131_072, false, 6000, false, false),
            (8192, true, 0, true, false),
        ];
        for (window, calls, tokens, with_tools, refused) in cases {
            let request = ChatRequest {
                messages: &[],
                tools: with_tools.then_some(tools.as_ref()),
                tokens,
            };
            let unfit = unfit(&Windowed(window, calls), &request, &CancelToken::new());
            assert_eq!(
                unfit.is_some(),
                refused,
                "{window} {calls} {tokens} {with_tools}"
            );
            if let Some(error) = unfit {
                assert_eq!(error.kind, ErrorKind::ContextLength);
                assert!(
                    error.message.starts_with(
                        "ollama (small) cannot take the request as it is: its window holds "
                    ),
                    "{}",
                    error.message
                );
            }
        }
    }

    fn order(chain: &ProviderChain) -> Vec<String> {
        chain
            .providers
            .iter()
            .map(|p| format!("{}/{}", p.name(), p.model()))
            .collect()
    }

    #[test]
    fn a_new_primary_goes_first_and_keeps_only_the_fallbacks_set_up() {
        let chain = ProviderChain::new(vec![
            Arc::new(Named("groq", "llama")),
            Arc::new(Named("copilot", "gpt-4o")),
        ]);
        let model = chain.with_primary(Arc::new(Named("groq", "mixtral")));
        assert_eq!(order(&model), ["groq/mixtral", "copilot/gpt-4o"]);
        assert_eq!(model.active().model(), "mixtral");
        let switched = chain.with_primary(Arc::new(Named("copilot", "gpt-5")));
        assert_eq!(order(&switched), ["copilot/gpt-5"]);
        let other = chain.with_primary(Arc::new(Named("ollama", "llama3.2")));
        assert_eq!(order(&other), ["ollama/llama3.2", "copilot/gpt-4o"]);
        // No fallbacks set up (MARVIN_FALLBACK=none): none after a switch either.
        let alone = ProviderChain::new(vec![Arc::new(Named("openai-compat", "m"))]);
        let switched = alone.with_primary(Arc::new(Named("ollama", "llama3.2")));
        assert_eq!(order(&switched), ["ollama/llama3.2"]);
    }
}
