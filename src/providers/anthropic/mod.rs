//! Anthropic Messages API client.
//!
//! Requests are built as deepagents builds them through langchain-anthropic with its prompt
//! caching middleware: the system prompt as one text block tagged `cache_control`, the last
//! tool tagged, and a top-level `cache_control` for the automatic tail breakpoint. Keeping
//! that layout byte-stable across turns (and between a parent and its forks) is what makes the
//! provider's prompt cache hit.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::anthropic_messages::{format_messages, system_blocks};
use super::anthropic_profiles;
use super::anthropic_stream::StreamAssembler;
use super::http::{client, retry_delay, should_retry};
use super::sse::{SseEvent, SseParser};
use crate::error::ModelError;
use crate::messages::{AiMessage, Content, ToolCall, Usage};
use crate::model::{ChatModel, ModelRequest, TokenSink};
use crate::tools::{HostContext, ToolSpec};

pub(crate) const PROVIDER: &str = "anthropic";
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const DEFAULT_API_VERSION: &str = "2023-06-01";

#[derive(Clone)]
pub struct AnthropicConfig {
    pub model: String,
    pub api_key: String,
    pub base_url: String,
    pub max_tokens: u32,
    pub max_retries: u32,
    pub timeout: Duration,
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
            .field("base_url", &self.base_url)
            .field("max_tokens", &self.max_tokens)
            .finish_non_exhaustive()
    }
}

impl AnthropicConfig {
    /// Settings for `model`, with the key and base URL read from the environment as the
    /// official SDK reads them (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`).
    pub fn from_env(model: &str) -> Result<Self, ModelError> {
        let api_key = std::env::var("ANTHROPIC_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                ModelError::Config(format!(
                    "model 'anthropic:{model}' needs an API key: set ANTHROPIC_API_KEY"
                ))
            })?;
        let base_url = std::env::var("ANTHROPIC_BASE_URL")
            .ok()
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        Ok(AnthropicConfig {
            model: model.to_owned(),
            api_key,
            base_url,
            max_tokens: anthropic_profiles::max_output_tokens(model),
            max_retries: 2,
            timeout: Duration::from_secs(600),
            api_version: DEFAULT_API_VERSION.to_owned(),
            cache_control: Some(json!({"type": "ephemeral", "ttl": "5m"})),
        })
    }
}

pub struct AnthropicChat {
    config: AnthropicConfig,
}

impl AnthropicChat {
    pub fn new(config: AnthropicConfig) -> Self {
        AnthropicChat { config }
    }

    pub fn config(&self) -> &AnthropicConfig {
        &self.config
    }
}

impl ChatModel for AnthropicChat {
    fn id(&self) -> String {
        format!("{PROVIDER}:{}", self.config.model)
    }

    fn supports_prompt_cache(&self) -> bool {
        self.config.cache_control.is_some()
    }

    fn invoke(
        &self,
        request: ModelRequest,
        _host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        let config = self.config.clone();
        Box::pin(async move {
            let mut body = build_request(&config, &request)?;
            match &request.tokens {
                // Streamed only when somebody listens for tokens, as LangGraph asks for it.
                Some(tokens) => {
                    body["stream"] = json!(true);
                    let coerce = request.tools.is_empty();
                    let mut reply = send_stream(&config, &body, tokens, coerce).await?;
                    reply.id = Some(tokens.call_id().to_owned());
                    Ok(reply)
                }
                None => parse_response(send(&config, &body).await?),
            }
        })
    }
}

/// The request body for one call.
pub fn build_request(
    config: &AnthropicConfig,
    request: &ModelRequest,
) -> Result<Value, ModelError> {
    // Breakpoints where the chain's caching entry asked for them, on a model configured to
    // take them.
    let cache = request
        .cache_control
        .as_ref()
        .filter(|_| config.cache_control.is_some());
    let (messages, extra_system) = format_messages(&request.messages)?;
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert("max_tokens".into(), json!(config.max_tokens));
    body.insert("messages".into(), Value::Array(messages));
    match &request.system {
        Some(system) => {
            body.insert(
                "system".into(),
                format_system(&system.content, cache, extra_system),
            );
        }
        // No system message of the agent's: only those merged in from the input.
        None if !extra_system.is_empty() => {
            body.insert("system".into(), Value::Array(extra_system));
        }
        None => {}
    }
    if !request.tools.is_empty() {
        body.insert("tools".into(), format_tools(&request.tools, cache));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = match choice.as_str() {
            "auto" | "any" | "none" => json!({ "type": choice }),
            name => json!({ "type": "tool", "name": name }),
        };
        body.insert("tool_choice".into(), choice);
    }
    if let Some(cc) = cache {
        body.insert("cache_control".into(), cc.clone());
    }
    // Bound call parameters go to the top level, as langchain-anthropic sends them.
    for (k, v) in &request.model_settings {
        body.insert(k.clone(), v.clone());
    }
    Ok(Value::Object(body))
}

/// The agent's system prompt, its last block tagged for caching (deepagents' caching
/// middleware tags it before langchain-anthropic merges in system messages from the input,
/// which follow untagged).
fn format_system(content: &Content, cache: Option<&Value>, extra: Vec<Value>) -> Value {
    let mut blocks = system_blocks(content);
    if blocks.is_empty() && extra.is_empty() {
        // An empty prompt stays the empty string and carries no breakpoint, as deepagents
        // sends it.
        return json!("");
    }
    if let (Some(cc), Some(Value::Object(last))) = (cache, blocks.last_mut()) {
        last.insert("cache_control".into(), cc.clone());
    }
    blocks.extend(extra);
    Value::Array(blocks)
}

fn format_tools(tools: &[ToolSpec], cache: Option<&Value>) -> Value {
    let n = tools.len();
    Value::Array(
        tools
            .iter()
            .enumerate()
            .map(|(i, t)| {
                // deepagents tags the last tool only when it is a tool object.
                let last = i + 1 == n && !t.json_spec;
                // A provider-side tool (web search, ...) goes out as defined.
                if let Some(Value::Object(def)) = &t.provider_definition {
                    let mut def = def.clone();
                    if let (Some(cc), true) = (cache, last) {
                        def.insert("cache_control".into(), cc.clone());
                    }
                    return Value::Object(def);
                }
                let mut tool = Map::new();
                tool.insert("name".into(), json!(t.name));
                // The schema goes out exactly as the tool defined it: key order is part of the
                // cache prefix.
                tool.insert("input_schema".into(), t.parameters.clone());
                tool.insert("description".into(), json!(t.description));
                if let (Some(cc), true) = (cache, last) {
                    tool.insert("cache_control".into(), cc.clone());
                }
                Value::Object(tool)
            })
            .collect(),
    )
}

async fn send(config: &AnthropicConfig, body: &Value) -> Result<Value, ModelError> {
    let response = post(config, body).await?;
    let bytes = response.bytes().await.map_err(|e| ModelError::Connection {
        provider: PROVIDER,
        message: without_url(e),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| ModelError::Decode {
        provider: PROVIDER,
        message: e.to_string(),
    })
}

/// A streamed call: each event's chunk goes to `tokens` as it arrives; the result is the
/// merged message. A stream that breaks off fails the call: no half message is returned.
async fn send_stream(
    config: &AnthropicConfig,
    body: &Value,
    tokens: &TokenSink,
    coerce_to_string: bool,
) -> Result<AiMessage, ModelError> {
    let mut response = post(config, body).await?;
    let mut parser = SseParser::default();
    let mut assembler = StreamAssembler::new(coerce_to_string);
    let mut handle = |event: SseEvent| -> Result<(), ModelError> {
        if let Some(chunk) = assembler.event(&event)? {
            tokens.native_chunk(chunk);
        }
        Ok(())
    };
    loop {
        match response.chunk().await {
            Ok(Some(bytes)) => {
                for event in parser.feed(&bytes) {
                    handle(event)?;
                }
            }
            Ok(None) => break,
            Err(e) => {
                return Err(ModelError::Connection {
                    provider: PROVIDER,
                    message: format!("the response stream broke off: {}", without_url(e)),
                });
            }
        }
    }
    if let Some(event) = parser.finish() {
        handle(event)?;
    }
    assembler.finish()
}

/// Sends the request, retrying as the SDK does; the successful response, unread.
async fn post(config: &AnthropicConfig, body: &Value) -> Result<reqwest::Response, ModelError> {
    let url = format!("{}/v1/messages", config.base_url.trim_end_matches('/'));
    let payload = serde_json::to_vec(body).map_err(|e| ModelError::Decode {
        provider: PROVIDER,
        message: e.to_string(),
    })?;
    let mut attempt = 0;
    loop {
        let result = client()
            .post(&url)
            .header("x-api-key", &config.api_key)
            .header("anthropic-version", &config.api_version)
            .header("content-type", "application/json")
            .header("x-stainless-retry-count", attempt.to_string())
            .timeout(config.timeout)
            .body(payload.clone())
            .send()
            .await;
        let response = match result {
            Ok(r) => r,
            Err(e) if attempt < config.max_retries => {
                tracing::debug!(attempt, error = %e, "anthropic request failed; retrying");
                tokio::time::sleep(retry_delay(attempt, None)).await;
                attempt += 1;
                continue;
            }
            Err(e) => {
                return Err(ModelError::Connection {
                    provider: PROVIDER,
                    message: without_url(e),
                });
            }
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        if attempt < config.max_retries && should_retry(status, response.headers()) {
            let delay = retry_delay(attempt, Some(response.headers()));
            tracing::debug!(
                attempt,
                status,
                ?delay,
                "anthropic returned a retryable error"
            );
            tokio::time::sleep(delay).await;
            attempt += 1;
            continue;
        }
        let request_id = response
            .headers()
            .get("request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let text = response.text().await.unwrap_or_default();
        let parsed: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let error = parsed.get("error");
        let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str);
        return Err(ModelError::Api {
            provider: PROVIDER,
            status,
            kind: field("type").unwrap_or("api_error").to_owned(),
            message: field("message").map_or(text.clone(), str::to_owned),
            request_id,
        });
    }
}

/// reqwest's errors print the URL; keep only the cause (the URL may carry credentials in a
/// user-configured base URL).
fn without_url(e: reqwest::Error) -> String {
    e.without_url().to_string()
}

/// A Messages API response as the AI message langchain-anthropic makes of it.
pub fn parse_response(data: Value) -> Result<AiMessage, ModelError> {
    let decode = |message: &str| ModelError::Decode {
        provider: PROVIDER,
        message: message.to_owned(),
    };
    let Value::Object(mut data) = data else {
        return Err(decode("response is not a JSON object"));
    };
    let Some(Value::Array(mut blocks)) = data.remove("content") else {
        return Err(decode("response has no content array"));
    };
    for block in &mut blocks {
        if let Value::Object(b) = block {
            // The SDK's model_dump leaves these as null; langchain drops them.
            for key in ["citations", "caller", "encrypted_content"] {
                if b.get(key).is_some_and(Value::is_null) {
                    b.remove(key);
                }
            }
        }
    }
    let usage = data.get("usage").map(usage_metadata);
    let mut response_metadata = Map::new();
    for (k, v) in &data {
        if !matches!(k.as_str(), "role" | "type") {
            response_metadata.insert(k.clone(), v.clone());
        }
    }
    if let Some(model) = data.get("model") {
        response_metadata
            .entry("model_name")
            .or_insert_with(|| model.clone());
    }
    response_metadata.insert("model_provider".into(), json!(PROVIDER));

    let single_text = blocks.len() == 1
        && blocks[0].get("type").and_then(Value::as_str) == Some("text")
        && blocks[0]
            .get("citations")
            .is_none_or(|c| c.is_null() || c == &json!([]));
    let mut tool_calls = Vec::new();
    for b in &blocks {
        if b.get("type").and_then(Value::as_str) == Some("tool_use") {
            tool_calls.push(ToolCall::new(
                b.get("name").and_then(Value::as_str).unwrap_or_default(),
                b.get("input").cloned().unwrap_or_else(|| json!({})),
                b.get("id").and_then(Value::as_str).unwrap_or_default(),
            ));
        }
    }
    let content = if single_text {
        Content::Text(
            blocks[0]
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        )
    } else {
        Content::Blocks(blocks)
    };
    Ok(AiMessage {
        content,
        tool_calls,
        // The message id is LangChain's (`lc_run--...`), given by the loop; the API's id
        // stays in response_metadata["id"], as langchain-anthropic keeps it.
        id: None,
        usage_metadata: usage,
        response_metadata,
        ..Default::default()
    })
}

/// Anthropic usage in LangChain's form: `input_tokens` adds the cached and cache-written
/// tokens back, since Anthropic's own count excludes them.
pub(crate) fn usage_metadata(u: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let uncached = n(u.get("input_tokens")).unwrap_or(0);
    let cache_read = n(u.get("cache_read_input_tokens"));
    let mut cache_creation = n(u.get("cache_creation_input_tokens"));
    let mut details = Map::new();
    let mut by_ttl = 0;
    if let Some(cc) = u.get("cache_creation").filter(|c| c.is_object()) {
        for key in ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"] {
            let v = n(cc.get(key));
            by_ttl += v.unwrap_or(0);
            if let Some(v) = v {
                details.insert(key.into(), json!(v));
            }
        }
        if by_ttl > 0 {
            cache_creation = Some(0);
        }
    }
    let mut ordered = Map::new();
    if let Some(r) = cache_read {
        ordered.insert("cache_read".into(), json!(r));
    }
    if let Some(c) = cache_creation {
        ordered.insert("cache_creation".into(), json!(c));
    }
    ordered.extend(details);
    let written = if by_ttl > 0 {
        by_ttl
    } else {
        cache_creation.unwrap_or(0)
    };
    let input = uncached + cache_read.unwrap_or(0) + written;
    let output = n(u.get("output_tokens")).unwrap_or(0);
    let reasoning = u
        .get("output_tokens_details")
        .and_then(|d| n(d.get("thinking_tokens")));
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        input_token_details: Some(ordered),
        output_token_details: reasoning.map(|r| {
            let mut m = Map::new();
            m.insert("reasoning".into(), json!(r));
            m
        }),
    }
}
