//! Building a native model from `provider:name` and the settings a model string resolves
//! to (deepagents' provider profiles, or the caller's kwargs). Every setting given is either
//! used or refused here with a clear error; none is silently dropped.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::anthropic::{AnthropicChat, AnthropicConfig};
use super::openai::{OpenAiApi, OpenAiChat, OpenAiConfig};
use crate::error::ModelError;
use crate::model::ChatModel;

/// The settings a native model takes, by their LangChain names. No `Debug`: it holds the key.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeOptions {
    pub api_key: Option<String>,
    pub base_url: Option<String>,
    pub max_retries: Option<u32>,
    /// Seconds, as the SDKs take it.
    pub timeout: Option<f64>,
    pub max_tokens: Option<u32>,
    /// OpenAI only: the Responses API (deepagents' default for `openai:`) or Chat Completions.
    pub use_responses_api: Option<bool>,
    /// OpenAI only: sent as is with every request (`temperature`, `reasoning`, `include`,
    /// `store`, `service_tier`, `prompt_cache_key`, ...).
    #[serde(default)]
    pub model_kwargs: Map<String, Value>,
}

/// A connection setting: the one given, else the first environment variable set (in the
/// LangChain integration's order), else the default (`None`: required, and the error names
/// the first variable).
pub(crate) fn setting(
    given: Option<String>,
    vars: &[&str],
    default: Option<&str>,
    model: &str,
) -> Result<String, ModelError> {
    given
        .filter(|v| !v.is_empty())
        .or_else(|| {
            vars.iter()
                .find_map(|var| std::env::var(var).ok().filter(|v| !v.is_empty()))
        })
        .or_else(|| default.map(str::to_owned))
        .ok_or_else(|| {
            ModelError::Config(format!(
                "model '{model}' needs an API key: set {}",
                vars.first().copied().unwrap_or_default()
            ))
        })
}

/// The native providers, as `init_chat_model` names them.
pub const NATIVE_PROVIDERS: [&str; 2] = ["anthropic", "openai"];

fn timeout(seconds: Option<f64>) -> Result<Option<Duration>, ModelError> {
    seconds
        .map(|s| {
            Duration::try_from_secs_f64(s).map_err(|_| {
                ModelError::Config(format!(
                    "timeout must be a positive number of seconds, got {s}"
                ))
            })
        })
        .transpose()
}

pub fn native_model(
    provider: &str,
    name: &str,
    options: NativeOptions,
) -> Result<Arc<dyn ChatModel>, ModelError> {
    let timeout = timeout(options.timeout)?;
    match provider {
        "anthropic" => {
            if options.use_responses_api.is_some() || !options.model_kwargs.is_empty() {
                return Err(ModelError::Config(format!(
                    "model 'anthropic:{name}': use_responses_api and model_kwargs are OpenAI settings"
                )));
            }
            let mut config = AnthropicConfig::new(name, options.api_key, options.base_url)?;
            if let Some(n) = options.max_retries {
                config.retry.max_retries = n;
            }
            if let Some(t) = timeout {
                config.retry.timeout = t;
            }
            if let Some(m) = options.max_tokens {
                config.max_tokens = m;
            }
            Ok(Arc::new(AnthropicChat::new(config)?))
        }
        "openai" => {
            let api = match options.use_responses_api {
                Some(false) => OpenAiApi::ChatCompletions,
                _ => OpenAiApi::Responses,
            };
            let mut config = OpenAiConfig::new(name, api, options.api_key, options.base_url)?;
            if let Some(n) = options.max_retries {
                config.retry.max_retries = n;
            }
            if let Some(t) = timeout {
                config.retry.timeout = t;
            }
            config.max_tokens = options.max_tokens;
            config.model_kwargs = options.model_kwargs;
            Ok(Arc::new(OpenAiChat::new(config)?))
        }
        other => Err(ModelError::Config(format!(
            "'{other}' is not a native model provider (native: {})",
            NATIVE_PROVIDERS.join(", ")
        ))),
    }
}
