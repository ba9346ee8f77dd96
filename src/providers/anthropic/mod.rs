//! The Anthropic Messages API adapter: everything that knows Anthropic's wire format (the
//! request body and its cache breakpoints, replies, stream events and error bodies) is in
//! this module; HTTP and retries are the transport's.

mod kept_fields;
mod kept_turns;
mod messages;
mod output_format;
mod plain_blocks;
pub mod profiles;
mod reply_reader;
pub mod request;
pub mod response;
pub(crate) mod sdk_dump;
mod stream;
mod system_turns;
mod turns;
mod v1_blocks;

use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::chunks::stream_attempt;
use super::native::setting;
use super::transport::{Endpoint, RetryPolicy, secret_header};
use crate::error::ModelError;
use crate::messages::AiMessage;
use crate::model::{ChatModel, ModelRequest};
use crate::tools::HostContext;

pub use response::parse_reply;
pub use stream::StreamAssembler;

pub(crate) const PROVIDER: &str = "anthropic";
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_API_VERSION: &str = "2023-06-01";

#[derive(Clone)]
pub struct AnthropicConfig {
    pub model: String,
    pub api_key: String,
    pub base_url: String,
    pub max_tokens: u32,
    pub retry: RetryPolicy,
    pub api_version: String,
    /// Whether the model takes prompt-cache breakpoints (`Some`), placed when the chain's
    /// caching entry asks for them (see `middleware::AnthropicPromptCaching`); None sends
    /// none at all.
    pub cache_control: Option<Value>,
}

impl std::fmt::Debug for AnthropicConfig {
    // The key stays out of every debug print, log line and error.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnthropicConfig")
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl AnthropicConfig {
    /// Settings for `model`; a key or base URL not given comes from the environment.
    pub fn new(
        model: &str,
        api_key: Option<String>,
        base_url: Option<String>,
    ) -> Result<Self, ModelError> {
        let id = format!("{PROVIDER}:{model}");
        let api_key = setting(api_key, &["ANTHROPIC_API_KEY"], None, &id)?;
        // ChatAnthropic reads ANTHROPIC_API_URL first.
        let base_url = setting(
            base_url,
            &["ANTHROPIC_API_URL", "ANTHROPIC_BASE_URL"],
            Some(DEFAULT_BASE_URL),
            &id,
        )?;
        Ok(AnthropicConfig {
            model: model.to_owned(),
            api_key,
            base_url,
            max_tokens: profiles::max_output_tokens(model),
            retry: RetryPolicy::default(),
            api_version: DEFAULT_API_VERSION.to_owned(),
            cache_control: Some(json!({"type": "ephemeral", "ttl": "5m"})),
        })
    }

    fn endpoint(&self) -> Result<Endpoint, ModelError> {
        let version = HeaderValue::from_str(&self.api_version)
            .map_err(|_| ModelError::Config("invalid anthropic-version".into()))?;
        Ok(Endpoint {
            provider: PROVIDER,
            url: format!("{}/v1/messages", self.base_url.trim_end_matches('/')),
            parsed_url: Default::default(),
            headers: vec![
                (
                    HeaderName::from_static("x-api-key"),
                    secret_header(&self.api_key).map_err(ModelError::Config)?,
                ),
                (HeaderName::from_static("anthropic-version"), version),
            ],
            read_error: response::read_error,
        })
    }
}

/// The endpoint of a call that needs `beta`, as the official SDK sends `betas` (a header;
/// the path stays).
fn with_beta(endpoint: &Endpoint, beta: &'static str) -> Endpoint {
    let mut headers = endpoint.headers.clone();
    headers.push((
        HeaderName::from_static("anthropic-beta"),
        HeaderValue::from_static(beta),
    ));
    Endpoint {
        provider: endpoint.provider,
        url: endpoint.url.clone(),
        parsed_url: endpoint.parsed_url.clone(),
        headers,
        read_error: endpoint.read_error,
    }
}

pub struct AnthropicChat {
    /// Shared: each call's future holds it (a copy was four strings and a map a call).
    config: Arc<AnthropicConfig>,
    endpoint: Arc<Endpoint>,
    /// Each message's encoding and each conversation's turns as last sent, reused by every
    /// later step and fork that sends them again.
    kept: Arc<kept_turns::KeptTurns>,
    /// The system prompt's and the tools' bytes as last sent.
    fields: Arc<kept_fields::KeptFields>,
}

impl AnthropicChat {
    pub fn new(config: AnthropicConfig) -> Result<Self, ModelError> {
        let endpoint = Arc::new(config.endpoint()?);
        Ok(AnthropicChat {
            config: Arc::new(config),
            endpoint,
            kept: Arc::default(),
            fields: Arc::default(),
        })
    }

    /// The bytes one call sends (`stream` when the reply is streamed); benches/micro.rs
    /// measures it.
    #[cfg_attr(dead_code_check, allow(dead_code))]
    pub fn request_payload(
        &self,
        request: &ModelRequest,
        stream: bool,
    ) -> Result<Vec<u8>, ModelError> {
        request::request_bytes(&self.config, request, stream, &self.kept, &self.fields)
            .map(|r| r.payload.to_vec())
    }
}

impl ChatModel for AnthropicChat {
    fn id(&self) -> String {
        format!("{PROVIDER}:{}", self.config.model)
    }

    /// As the profile langchain-anthropic gives the chat model deepagents makes of the same
    /// model name.
    fn input_profile(&self) -> crate::model::InputProfile {
        profiles::input_profile(&self.config.model)
    }

    fn supports_prompt_cache(&self) -> bool {
        self.config.cache_control.is_some()
    }

    fn reads_v1_replies(&self) -> bool {
        true
    }

    fn mid_conversation_tools(&self) -> bool {
        profiles::mid_conversation_tools(&self.config.model)
    }

    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        let config = self.config.clone();
        let endpoint = self.endpoint.clone();
        let kept = self.kept.clone();
        let fields = self.fields.clone();
        Box::pin(async move {
            let stream = request.tokens.is_some();
            // Each attempt sends the same pieces; none copies them. The request's warnings
            // (a system block dropped) are issued where the run's Python runs.
            let (built, warned) = crate::error::holding_warnings(|| {
                request::request_bytes(&config, &request, stream, &kept, &fields)
            });
            crate::error::warn_all_on_host(&host, warned)
                .await
                .map_err(ModelError::host)?;
            let request::Request { payload, beta } = built?;
            let endpoint = match beta {
                Some(beta) => Arc::new(with_beta(&endpoint, beta)),
                None => endpoint,
            };
            let policy = &config.retry;
            Ok(match &request.tokens {
                // Streamed only when somebody listens for tokens, as LangGraph asks for it.
                Some(tokens) => {
                    let coerce = request.tools.is_empty();
                    let mut reply = policy
                        .run(|attempt| {
                            let assembler = StreamAssembler::new(coerce);
                            stream_attempt(&endpoint, policy, &payload, attempt, tokens, assembler)
                        })
                        .await?;
                    reply.id = Some(tokens.call_id().to_owned());
                    reply
                }
                None => {
                    let payload = &payload;
                    let endpoint = &endpoint;
                    policy
                        .run(|attempt| async move {
                            let response = endpoint.post(payload, attempt, policy).await?;
                            parse_reply(&endpoint.read_body(response, policy).await?)
                        })
                        .await?
                }
            })
        })
    }
}
