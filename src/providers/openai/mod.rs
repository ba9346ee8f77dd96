//! The OpenAI adapter: the Responses API (deepagents' default for `openai:` models, through
//! its provider profile) and Chat Completions, for OpenAI and any server speaking the same
//! protocol (`base_url`). Requests and messages are built and read as langchain-openai builds
//! and reads them; nothing here is known outside this module.

mod additional_tools;
mod cache_key;
mod chat;
mod encoded_input;
mod input;
mod profile_tables;
pub mod profiles;
mod response_format;
mod responses;
mod responses_input;
mod responses_stream;
mod v1_blocks;

use std::sync::Arc;

use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderName};
use serde_json::{Map, Value};

use super::chunks::stream_attempt;
use super::error::ProviderError;
use super::message_cache::MessageCache;
use super::native::setting;
use super::transport::{Endpoint, RetryPolicy, secret_header};
use crate::error::ModelError;
use crate::messages::AiMessage;
use crate::model::{ChatModel, ModelRequest};
use crate::tools::HostContext;

pub(crate) const PROVIDER: &str = "openai";
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Which of OpenAI's two APIs a model speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenAiApi {
    Responses,
    ChatCompletions,
}

#[derive(Clone)]
pub struct OpenAiConfig {
    pub model: String,
    pub api: OpenAiApi,
    pub api_key: String,
    pub base_url: String,
    pub organization: Option<String>,
    pub project: Option<String>,
    pub retry: RetryPolicy,
    /// `max_output_tokens` (Responses) or `max_completion_tokens` (Chat), when set.
    pub max_tokens: Option<u32>,
    /// Parameters sent with every request, as given (`temperature`, `reasoning`, ...).
    pub model_kwargs: Map<String, Value>,
}

impl std::fmt::Debug for OpenAiConfig {
    // The key stays out of every debug print, log line and error.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("model", &self.model)
            .field("api", &self.api)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl OpenAiConfig {
    /// Settings for `model`; a key or base URL not given comes from the environment, as the
    /// official SDK reads it (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `OPENAI_ORG_ID`,
    /// `OPENAI_PROJECT_ID`).
    pub fn new(
        model: &str,
        api: OpenAiApi,
        api_key: Option<String>,
        base_url: Option<String>,
    ) -> Result<Self, ModelError> {
        let id = format!("{PROVIDER}:{model}");
        let api_key = setting(api_key, &["OPENAI_API_KEY"], None, &id)?;
        // ChatOpenAI reads OPENAI_API_BASE before the SDK's OPENAI_BASE_URL.
        let base_url = setting(
            base_url,
            &["OPENAI_API_BASE", "OPENAI_BASE_URL"],
            Some(DEFAULT_BASE_URL),
            &id,
        )?;
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Ok(OpenAiConfig {
            model: model.to_owned(),
            api,
            api_key,
            base_url,
            organization: env("OPENAI_ORG_ID").or_else(|| env("OPENAI_ORGANIZATION")),
            project: env("OPENAI_PROJECT_ID"),
            retry: RetryPolicy::default(),
            max_tokens: None,
            model_kwargs: Map::new(),
        })
    }

    fn endpoint(&self) -> Result<Endpoint, ModelError> {
        let path = match self.api {
            OpenAiApi::Responses => "responses",
            OpenAiApi::ChatCompletions => "chat/completions",
        };
        let mut headers = vec![(
            HeaderName::from_static("authorization"),
            secret_header(&format!("Bearer {}", self.api_key)).map_err(ModelError::Config)?,
        )];
        for (name, value) in [
            ("openai-organization", &self.organization),
            ("openai-project", &self.project),
        ] {
            if let Some(v) = value {
                headers.push((
                    HeaderName::from_static(name),
                    secret_header(v).map_err(ModelError::Config)?,
                ));
            }
        }
        Ok(Endpoint {
            provider: PROVIDER,
            url: format!("{}/{path}", self.base_url.trim_end_matches('/')),
            parsed_url: Default::default(),
            headers,
            read_error,
        })
    }
}

/// An error status's body (`{"error": {"message", "type", "param", "code"}}`) as the
/// classified error.
fn read_error(
    provider: &'static str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> ProviderError {
    let parsed: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let mut e = error_from_object(provider, status, parsed.get("error"), body);
    e.request_id = headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .map(Into::into);
    e
}

/// An OpenAI error object (from a status body or an in-stream error) as the classified
/// error; `raw` is the message when there is no object.
pub(crate) fn error_from_object(
    provider: &'static str,
    status: u16,
    error: Option<&Value>,
    raw: &[u8],
) -> ProviderError {
    let field = |k: &str| {
        error
            .and_then(|e| e.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let message = field("message").unwrap_or_else(|| String::from_utf8_lossy(raw).into_owned());
    ProviderError::from_response(provider, status, field("type"), field("code"), message)
}

/// The status an in-stream error stands for, so it is classified like an error status.
pub(crate) fn status_of_code(code: Option<&str>, error_type: Option<&str>) -> u16 {
    let status = |c: &str| match c {
        "rate_limit_exceeded" | "insufficient_quota" | "rate_limit_error" => Some(429),
        "invalid_api_key" | "authentication_error" => Some(401),
        "model_not_found" => Some(404),
        "context_length_exceeded" | "invalid_request_error" | "invalid_prompt" => Some(400),
        // The request's own content was refused (`invalid_image`, `image_too_large`,
        // `unsupported_image_media_type`, ...).
        c if c.starts_with("invalid_")
            || c.starts_with("image_")
            || c.starts_with("unsupported_") =>
        {
            Some(400)
        }
        _ => None,
    };
    code.and_then(status)
        .or_else(|| error_type.and_then(status))
        .unwrap_or(500)
}

pub struct OpenAiChat {
    config: Arc<OpenAiConfig>,
    endpoint: Arc<Endpoint>,
    /// Each message's encoding, reused by every later step and fork that sends it again.
    encoded: Arc<MessageCache<encoded_input::Encoded>>,
}

impl OpenAiChat {
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let endpoint = Arc::new(config.endpoint()?);
        Ok(OpenAiChat {
            config: Arc::new(config),
            endpoint,
            encoded: Arc::default(),
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
        payload(&self.config, request, stream, &self.encoded)
    }
}

fn payload(
    config: &OpenAiConfig,
    request: &ModelRequest,
    stream: bool,
    cache: &MessageCache<encoded_input::Encoded>,
) -> Result<Vec<u8>, ModelError> {
    match config.api {
        OpenAiApi::Responses => responses::build_request(config, request, stream, cache),
        OpenAiApi::ChatCompletions => chat::build_request(config, request, stream, cache),
    }
}

/// langchain-openai's `parsed` on a reply to a request with a format: a Responses reply's
/// text read as JSON (when it is JSON); Chat Completions' SDK parses only schemas given as
/// classes, so a JSON schema leaves it null there.
fn with_parsed(mut reply: AiMessage, formatted: bool, api: OpenAiApi) -> AiMessage {
    if !formatted {
        return reply;
    }
    match api {
        OpenAiApi::Responses => {
            if let Some(parsed) = response_format::parsed(&reply.content.text()) {
                reply.additional_kwargs.insert("parsed".into(), parsed);
            }
        }
        OpenAiApi::ChatCompletions => {
            reply
                .additional_kwargs
                .shift_insert(0, "parsed".into(), Value::Null);
        }
    }
    reply
}

impl ChatModel for OpenAiChat {
    fn id(&self) -> String {
        format!("{PROVIDER}:{}", self.config.model)
    }

    /// As the profile langchain-openai gives the chat model deepagents makes of the same
    /// model name.
    fn input_profile(&self) -> crate::model::InputProfile {
        profiles::input_profile(&self.config.model)
    }

    /// langchain-openai claims it for a client on the Responses API only: Chat Completions
    /// has no `additional_tools` item.
    fn mid_conversation_tools(&self) -> bool {
        self.config.api == OpenAiApi::Responses
            && profiles::mid_conversation_tools(&self.config.model)
    }

    fn reads_v1_replies(&self) -> bool {
        true
    }

    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        let config = self.config.clone();
        let endpoint = self.endpoint.clone();
        let encoded = self.encoded.clone();
        Box::pin(async move {
            // Each attempt sends the same buffer; none copies it. The request's warnings (a
            // system block dropped) are issued where the run's Python runs.
            let (built, warned) = crate::error::holding_warnings(|| {
                payload(&config, &request, request.tokens.is_some(), &encoded)
            });
            crate::error::warn_all_on_host(&host, warned)
                .await
                .map_err(ModelError::host)?;
            let payload = crate::providers::payload::Payload::from(built?);
            let formatted = request.response_format.is_some();
            let policy = &config.retry;
            let reply = match (&request.tokens, config.api) {
                (Some(tokens), api) => {
                    let mut reply = policy
                        .run(|attempt| {
                            let (endpoint, payload) = (&endpoint, &payload);
                            async move {
                                match api {
                                    OpenAiApi::Responses => {
                                        let a = responses_stream::StreamAssembler::default();
                                        stream_attempt(
                                            endpoint, policy, payload, attempt, tokens, a,
                                        )
                                        .await
                                    }
                                    OpenAiApi::ChatCompletions => {
                                        let a = chat::StreamAssembler::default();
                                        stream_attempt(
                                            endpoint, policy, payload, attempt, tokens, a,
                                        )
                                        .await
                                    }
                                }
                            }
                        })
                        .await?;
                    // LangChain keeps a provider's id (a response's); else its run id.
                    if reply.id.is_none() {
                        reply.id = Some(tokens.call_id().to_owned());
                    }
                    reply
                }
                (None, api) => {
                    let (endpoint, payload) = (&endpoint, &payload);
                    policy
                        .run(|attempt| async move {
                            let data = endpoint.post_json(payload, attempt, policy).await?;
                            match api {
                                OpenAiApi::Responses => responses::parse_response(data),
                                OpenAiApi::ChatCompletions => chat::parse_response(data),
                            }
                            .map(|reply| with_parsed(reply, formatted, api))
                        })
                        .await?
                }
            };
            Ok(reply)
        })
    }
}
