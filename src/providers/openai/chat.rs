//! Chat Completions: the request body langchain-openai sends, a completion as the AI message
//! it makes (`_create_chat_result`), and a streamed completion's chunks
//! (`_convert_chunk_to_generation_chunk`).

use serde_json::{Map, Value, json};

use super::encoded_input::{Encoded, chat_messages_json};
use super::responses::{common_params, insert_tools, usage};
use super::{OpenAiConfig, PROVIDER};
use crate::error::ModelError;
use crate::messages::{AiMessage, Content, ToolCall, Usage};
use crate::model::ModelRequest;
use crate::providers::chunks::ChunkMerger;
use crate::providers::error::ProviderError;
use crate::providers::message_cache::MessageCache;
use crate::providers::sse::SseEvent;

/// The body keys in the order the official SDK writes them (`chat.completions.create`).
const KEY_ORDER: &[&str] = &[
    "model",
    "stream",
    "service_tier",
    "messages",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "stop",
    "store",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// The request body's bytes, the messages' encodings taken from (and kept in) `cache`.
pub(super) fn build_request(
    config: &OpenAiConfig,
    request: &ModelRequest,
    stream: bool,
    cache: &MessageCache<Encoded>,
) -> Result<Vec<u8>, ModelError> {
    let mut p = common_params(config, request, stream);
    // `ChatOpenAI._get_request_payload`: `max_tokens` is deprecated for
    // `max_completion_tokens` (reasoning models refuse it).
    if let Some(v) = p.shift_remove("max_tokens") {
        p.insert("max_completion_tokens".into(), v);
    }
    if stream {
        // Usage comes in a last chunk only when asked for; langchain-openai asks only for
        // api.openai.com, we always do (a stream without usage is a run without costs).
        p.entry("stream_options")
            .or_insert_with(|| json!({"include_usage": true}));
    }
    let o_series = config.model.len() > 1
        && config.model.starts_with('o')
        && config.model.as_bytes()[1].is_ascii_digit();
    let messages = chat_messages_json(
        request.system.as_deref(),
        &request.messages,
        o_series,
        cache,
    )?;
    // Held by its key's place; its bytes are written as encoded.
    p.insert("messages".into(), Value::Null);
    insert_tools(&mut p, request, true);
    if request.tools.is_empty() && request.response_format.is_some() {
        // LangChain binds a native format with the agent's tools, none here
        // (`bind_tools([])`): langchain-openai sends the empty list on Chat Completions.
        p.insert("tools".into(), json!([]));
    }
    // A native response format; Chat Completions then takes strict function tools only.
    if let Some(format) = p
        .shift_remove("response_format")
        .or_else(|| request.response_format.clone())
    {
        let schema = super::response_format::json_schema(&format)?;
        p.insert(
            "response_format".into(),
            json!({"type": "json_schema", "json_schema": schema}),
        );
        strict_tools(&mut p);
    }
    crate::providers::to_bytes_with(
        &crate::providers::sdk_order(p, KEY_ORDER),
        "messages",
        &messages,
    )
}

/// `bind_tools(strict=True)`: each function tool strict, its objects closed.
fn strict_tools(p: &mut Map<String, Value>) {
    let Some(Value::Array(tools)) = p.get_mut("tools") else {
        return;
    };
    for tool in tools {
        if let Some(Value::Object(f)) = tool.get_mut("function") {
            f.insert("strict".into(), json!(true));
            if let Some(params) = f.get_mut("parameters") {
                super::response_format::close_objects(params);
            }
        }
    }
}

/// `_create_usage_metadata`: `prompt_tokens` includes the cached tokens already.
fn usage_metadata(u: &Value, service_tier: Option<&str>) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let input = n(u.get("prompt_tokens")).unwrap_or(0);
    let output = n(u.get("completion_tokens")).unwrap_or(0);
    let total = n(u.get("total_tokens")).unwrap_or(input + output);
    let pd = u.get("prompt_tokens_details");
    let cd = u.get("completion_tokens_details");
    usage(
        input,
        output,
        total,
        n(pd.and_then(|d| d.get("cached_tokens"))),
        n(pd.and_then(|d| d.get("cache_write_tokens"))),
        n(cd.and_then(|d| d.get("reasoning_tokens"))),
        n(pd.and_then(|d| d.get("audio_tokens"))),
        n(cd.and_then(|d| d.get("audio_tokens"))),
        service_tier,
    )
}

fn tool_calls_of(raw: Option<&Value>) -> (Vec<ToolCall>, Vec<Value>) {
    let mut calls = Vec::new();
    let mut invalid = Vec::new();
    for rc in raw.and_then(Value::as_array).into_iter().flatten() {
        let f = rc.get("function");
        let name = f
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let raw_args = f
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let id = rc.get("id").and_then(Value::as_str).unwrap_or_default();
        let parsed = if raw_args.is_empty() {
            Ok(json!({}))
        } else {
            crate::providers::chunks::parse_arguments(raw_args)
        };
        match parsed {
            Ok(args @ Value::Object(_)) => calls.push(ToolCall::new(name, args, id)),
            other => invalid.push(json!({
                "type": "invalid_tool_call", "name": name, "args": raw_args, "id": id,
                "error": match other {
                    Err(e) => format!("Function {name} arguments:\n\n{raw_args}\n\nare not valid JSON. Received JSONDecodeError {e}"),
                    Ok(_) => format!("Function {name} arguments are not a JSON object"),
                },
            })),
        }
    }
    (calls, invalid)
}

pub(super) fn parse_response(data: Value) -> Result<AiMessage, ProviderError> {
    let Value::Object(response) = data else {
        return Err(ProviderError::decode(
            PROVIDER,
            "response is not a JSON object",
        ));
    };
    if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
        return Err(super::responses::failed(error));
    }
    let choice = response
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| ProviderError::decode(PROVIDER, "response has no choices"))?;
    let message = choice.get("message").cloned().unwrap_or_default();
    let content = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (tool_calls, invalid) = tool_calls_of(message.get("tool_calls"));
    let mut additional = Map::new();
    for key in ["function_call", "audio"] {
        if let Some(v) = message.get(key).filter(|v| !v.is_null()) {
            additional.insert(key.into(), v.clone());
        }
    }
    // The SDK's message always has `refusal` (None when there is none), and
    // langchain-openai copies it.
    additional.insert(
        "refusal".into(),
        message.get("refusal").cloned().unwrap_or(Value::Null),
    );
    let tier = response.get("service_tier").and_then(Value::as_str);
    let usage = response
        .get("usage")
        .filter(|u| u.is_object())
        .map(|u| usage_metadata(u, tier));
    // llm_output, then the generation's info, as LangChain merges them.
    let mut meta = Map::new();
    meta.insert(
        "token_usage".into(),
        response.get("usage").map_or(Value::Null, sdk_usage),
    );
    meta.insert("model_provider".into(), json!(PROVIDER));
    meta.insert(
        "model_name".into(),
        response.get("model").cloned().unwrap_or(Value::Null),
    );
    // The SDK's model always has the field (None when absent).
    meta.insert(
        "system_fingerprint".into(),
        response
            .get("system_fingerprint")
            .cloned()
            .unwrap_or(Value::Null),
    );
    if let Some(id) = response.get("id") {
        meta.insert("id".into(), id.clone());
    }
    if let Some(t) = response.get("service_tier").filter(|t| !t.is_null()) {
        meta.insert("service_tier".into(), t.clone());
    }
    meta.insert(
        "finish_reason".into(),
        choice.get("finish_reason").cloned().unwrap_or(Value::Null),
    );
    meta.insert(
        "logprobs".into(),
        choice.get("logprobs").cloned().unwrap_or(Value::Null),
    );
    Ok(AiMessage {
        content: Content::Text(content.to_owned()),
        tool_calls,
        invalid_tool_calls: invalid,
        usage_metadata: usage.map(Box::new),
        response_metadata: meta.into(),
        additional_kwargs: additional.into(),
        ..Default::default()
    })
}

/// Fields of a model in the SDK's order, absent ones as null (its `model_dump`), then any
/// others the server sent.
fn sdk_fields(v: &Value, order: &[&str], nested: &[(&str, &[&str])]) -> Value {
    let Value::Object(o) = v else {
        return v.clone();
    };
    let mut out = Map::new();
    for key in order {
        let value = o.get(*key).cloned().unwrap_or(Value::Null);
        let value = match nested.iter().find(|(k, _)| k == key) {
            Some((_, fields)) if value.is_object() => sdk_fields(&value, fields, &[]),
            _ => value,
        };
        out.insert((*key).to_owned(), value);
    }
    for (k, v) in o {
        out.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Value::Object(out)
}

/// `token_usage` as langchain-openai keeps it: the SDK's `CompletionUsage` dumped.
fn sdk_usage(u: &Value) -> Value {
    sdk_fields(
        u,
        &[
            "completion_tokens",
            "prompt_tokens",
            "total_tokens",
            "completion_tokens_details",
            "prompt_tokens_details",
        ],
        &[
            (
                "completion_tokens_details",
                &[
                    "accepted_prediction_tokens",
                    "audio_tokens",
                    "reasoning_tokens",
                    "rejected_prediction_tokens",
                    "text_tokens",
                ],
            ),
            (
                "prompt_tokens_details",
                &[
                    "audio_tokens",
                    "cache_write_tokens",
                    "cached_tokens",
                    "image_tokens",
                    "text_tokens",
                ],
            ),
        ],
    )
}

/// A streamed completion: `data:` chunks without event names, ending with `[DONE]`.
#[derive(Default)]
pub(super) struct StreamAssembler {
    merged: ChunkMerger,
    done: bool,
    finished: bool,
}

impl StreamAssembler {
    pub(super) fn event(
        &mut self,
        event: &SseEvent,
    ) -> Result<Option<Map<String, Value>>, ProviderError> {
        if event.data == "[DONE]" {
            self.done = true;
            // LangChain closes a stream whose chunks never said "last" with an empty one.
            let mut last = Map::new();
            last.insert("content".into(), json!(""));
            last.insert("response_metadata".into(), json!({}));
            last.insert("chunk_position".into(), json!("last"));
            return Ok(Some(last));
        }
        if event.data.is_empty() {
            return Ok(None);
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| ProviderError::decode(PROVIDER, format!("bad stream event: {e}")))?;
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            return Err(super::responses::failed(error));
        }
        let tier = data.get("service_tier").and_then(Value::as_str);
        let usage = data
            .get("usage")
            .filter(|u| u.is_object())
            .map(|u| usage_metadata(u, tier));
        let mut chunk = Map::new();
        let choices = data.get("choices").and_then(Value::as_array);
        match choices.and_then(|c| c.first()) {
            None => {
                chunk.insert("content".into(), json!(""));
                if let Some(u) = usage {
                    chunk.insert(
                        "usage_metadata".into(),
                        serde_json::to_value(u).unwrap_or_default(),
                    );
                }
            }
            Some(choice) => {
                let Some(delta) = choice.get("delta").filter(|d| !d.is_null()) else {
                    return Ok(None);
                };
                chunk.insert(
                    "content".into(),
                    json!(
                        delta
                            .get("content")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                    ),
                );
                let mut tool_chunks = Vec::new();
                for rc in delta
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let f = rc.get("function");
                    tool_chunks.push(json!({
                        "name": f.and_then(|f| f.get("name")),
                        "args": f.and_then(|f| f.get("arguments")),
                        "id": rc.get("id"),
                        "index": rc.get("index"),
                        "type": "tool_call_chunk",
                    }));
                }
                if !tool_chunks.is_empty() {
                    chunk.insert("tool_call_chunks".into(), Value::Array(tool_chunks));
                }
                let mut meta = Map::new();
                if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
                    meta.insert("finish_reason".into(), reason.clone());
                    for key in ["model", "system_fingerprint", "service_tier"] {
                        if let Some(v) = data.get(key).filter(|v| !v.is_null() && *v != "") {
                            let name = if key == "model" { "model_name" } else { key };
                            meta.insert(name.into(), v.clone());
                        }
                    }
                    self.finished = true;
                }
                if let Some(lp) = choice.get("logprobs").filter(|l| !l.is_null()) {
                    meta.insert("logprobs".into(), lp.clone());
                }
                meta.insert("model_provider".into(), json!(PROVIDER));
                chunk.insert("response_metadata".into(), Value::Object(meta));
                if let Some(u) = usage {
                    chunk.insert(
                        "usage_metadata".into(),
                        serde_json::to_value(u).unwrap_or_default(),
                    );
                }
            }
        }
        self.merged.add(&chunk);
        Ok(Some(chunk))
    }

    pub(super) fn finish(self) -> Result<AiMessage, ProviderError> {
        // A stream is whole when `[DONE]` came (some compatible servers only close the body
        // after the finish reason).
        if !self.done && !self.finished {
            return Err(ProviderError::connection(
                PROVIDER,
                "the response stream ended before the message was complete",
            ));
        }
        Ok(self.merged.finish())
    }
}

impl crate::providers::chunks::Assembler for StreamAssembler {
    fn event(&mut self, event: &SseEvent) -> Result<Option<Map<String, Value>>, ProviderError> {
        StreamAssembler::event(self, event)
    }

    fn finish(self) -> Result<AiMessage, ProviderError> {
        StreamAssembler::finish(self)
    }
}
