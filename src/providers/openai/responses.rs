//! The Responses API: the request body langchain-openai sends for an agent's model call, and
//! a response as the AI message it makes (`_construct_lc_result_from_responses_api`, with
//! its default `responses/v1` content blocks).

use serde_json::{Map, Value, json};

use super::encoded_input::{Encoded, responses_input_json};
use super::{OpenAiConfig, PROVIDER};
use crate::error::ModelError;
use crate::messages::{AiMessage, Content, ToolCall, Usage};
use crate::model::ModelRequest;
use crate::providers::error::ProviderError;
use crate::providers::message_cache::MessageCache;

/// The body keys in the order the official SDK writes them (`responses.create`); the order
/// is part of the bytes the parity tests compare. Keys it does not know follow, as the
/// SDK's `extra_body` does.
const KEY_ORDER: &[&str] = &[
    "model",
    "stream",
    "service_tier",
    "access_programs",
    "background",
    "background_options",
    "context_management",
    "conversation",
    "image",
    "include",
    "input",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "moderation",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "store",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
];

/// The parameters both APIs share, before each renames its own: the model's settings, then
/// the call's (a middleware's `model_settings` win), then the conversation-family cache key.
pub(super) fn common_params(
    config: &OpenAiConfig,
    request: &ModelRequest,
    stream: bool,
) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("model".into(), json!(config.model));
    p.insert("stream".into(), json!(stream));
    if let Some(m) = config.max_tokens {
        p.insert("max_tokens".into(), json!(m));
    }
    p.extend(config.model_kwargs.clone());
    temperature_rules(&config.model, &mut p);
    p.extend(request.model_settings.clone());
    if !p.contains_key("prompt_cache_key")
        && let Some(key) = super::cache_key::for_request(request)
    {
        p.insert("prompt_cache_key".into(), json!(key));
    }
    p
}

/// `ChatOpenAI.validate_temperature`, applied to the model's own settings: o1 models
/// default to `temperature=1`; gpt-5 models other than gpt-5-chat take only 1 unless their
/// reasoning effort is "none", so another value is dropped.
fn temperature_rules(model: &str, p: &mut Map<String, Value>) {
    let lower = model.to_ascii_lowercase();
    if lower.starts_with("o1") && !p.contains_key("temperature") {
        p.insert("temperature".into(), json!(1));
    }
    let effort_none = p.get("reasoning_effort").and_then(Value::as_str) == Some("none")
        || p.get("reasoning")
            .and_then(|r| r.get("effort"))
            .and_then(Value::as_str)
            == Some("none");
    if lower.starts_with("gpt-5")
        && !lower.contains("chat")
        && !effort_none
        && p.get("temperature")
            .is_some_and(|t| !t.is_null() && t.as_f64() != Some(1.0))
    {
        p.shift_remove("temperature");
    }
}

/// The request body's bytes, the messages' encodings taken from (and kept in) `cache`.
pub(super) fn build_request(
    config: &OpenAiConfig,
    request: &ModelRequest,
    stream: bool,
    cache: &MessageCache<Encoded>,
) -> Result<Vec<u8>, ModelError> {
    let mut p = common_params(config, request, stream);
    // `_construct_responses_api_payload`: legacy names, and no `stop`.
    for legacy in ["max_tokens", "max_completion_tokens"] {
        if let Some(v) = p.shift_remove(legacy) {
            p.insert("max_output_tokens".into(), v);
        }
    }
    if !p.contains_key("reasoning")
        && let Some(effort) = p.shift_remove("reasoning_effort")
    {
        p.insert("reasoning".into(), json!({ "effort": effort }));
    }
    p.shift_remove("stop");
    // gpt-5 reasoning models refuse `temperature` (gpt-5-chat and effort "none" take it).
    let effort_none = p
        .get("reasoning")
        .and_then(|r| r.get("effort"))
        .and_then(Value::as_str)
        == Some("none");
    if config.model.starts_with("gpt-5") && !config.model.contains("chat") && !effort_none {
        p.shift_remove("temperature");
    }
    // A native response format is the text's format (set before its verbosity).
    if let Some(format) = p
        .shift_remove("response_format")
        .or_else(|| request.response_format.clone())
    {
        let mut format_value = Map::new();
        format_value.insert("type".into(), json!("json_schema"));
        format_value.extend(super::response_format::json_schema(&format)?);
        match p.get_mut("text") {
            Some(Value::Object(t)) => {
                t.insert("format".into(), Value::Object(format_value));
            }
            _ => {
                p.insert("text".into(), json!({ "format": format_value }));
            }
        }
    }
    if let Some(verbosity) = p.shift_remove("verbosity").filter(|v| !v.is_null()) {
        match p.get_mut("text") {
            Some(Value::Object(t)) => {
                t.insert("verbosity".into(), verbosity);
            }
            _ => {
                p.insert("text".into(), json!({ "verbosity": verbosity }));
            }
        }
    }
    let store = p.get("store").and_then(Value::as_bool);
    let system = request.system.as_deref();
    let input = responses_input_json(system, &request.messages, store, cache)?;
    // Held by its key's place; its bytes are written as encoded.
    p.insert("input".into(), Value::Null);
    insert_tools(&mut p, request, false);
    crate::providers::to_bytes_with(&crate::providers::sdk_order(p, KEY_ORDER), "input", &input)
}

/// The request's tools and tool choice, as `bind_tools` converts them: flat function
/// definitions for the Responses API, nested under `function` for Chat Completions; a
/// provider-side tool goes as defined.
pub(super) fn insert_tools(p: &mut Map<String, Value>, request: &ModelRequest, nested: bool) {
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|t| match &t.provider_definition {
                Some(def) => def.clone(),
                None if nested => json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }),
                None => json!({
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                }),
            })
            .collect();
        p.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        p.insert("tool_choice".into(), tool_choice(choice, nested));
    }
}

/// LangChain's `tool_choice` as OpenAI takes it (`bind_tools`): "any" is "required", a
/// tool's name is a function choice.
pub(super) fn tool_choice(choice: &str, nested: bool) -> Value {
    match choice {
        "auto" | "none" | "required" => json!(choice),
        "any" => json!("required"),
        name if nested => json!({"type": "function", "function": {"name": name}}),
        name => json!({"type": "function", "name": name}),
    }
}

/// Fields of an output item in the SDK model's order (`model_dump`), then any others;
/// nulls dropped (`exclude_none`).
fn dump(item: &Map<String, Value>, order: &[&str]) -> Value {
    let mut out = Map::new();
    for key in order {
        if let Some(v) = item.get(*key).filter(|v| !v.is_null()) {
            // A reasoning item's summary and content parts are models too (`text`, `type`).
            let v = match (*key, v) {
                ("summary" | "content", Value::Array(parts)) => Value::Array(
                    parts
                        .iter()
                        .map(|p| match p {
                            Value::Object(p) => dump(p, &["text", "type"]),
                            other => other.clone(),
                        })
                        .collect(),
                ),
                _ => v.clone(),
            };
            out.insert((*key).to_owned(), v);
        }
    }
    for (k, v) in item {
        if !order.contains(&k.as_str()) && !v.is_null() {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

const FUNCTION_CALL_FIELDS: &[&str] = &[
    "arguments",
    "call_id",
    "name",
    "type",
    "id",
    "caller",
    "namespace",
    "status",
];
const REASONING_FIELDS: &[&str] = &[
    "id",
    "summary",
    "type",
    "content",
    "encrypted_content",
    "status",
];
/// Output items kept as content blocks as they are (also when a stream reports them done).
pub(super) const REPLAYED: &[&str] = &[
    "compaction",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "apply_patch_call",
    "apply_patch_call_output",
];

/// An output item's content blocks, tool calls and invalid tool calls, appended.
pub(super) fn read_output_item(
    item: &Map<String, Value>,
    blocks: &mut Vec<Value>,
    tool_calls: &mut Vec<ToolCall>,
    invalid: &mut Vec<Value>,
) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
    match item.get("type").and_then(Value::as_str) {
        Some("message") => {
            let phase = item.get("phase").filter(|p| !p.is_null());
            for part in item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mut block = match part.get("type").and_then(Value::as_str) {
                    Some("output_text") => json!({
                        "type": "text",
                        "text": part.get("text").cloned().unwrap_or(json!("")),
                        "annotations": annotations(part.get("annotations")),
                        "id": item.get("id"),
                    }),
                    Some("refusal") => json!({
                        "type": "refusal",
                        "refusal": part.get("refusal"),
                        "id": item.get("id"),
                    }),
                    _ => continue,
                };
                if let Some(p) = phase {
                    block["phase"] = p.clone();
                }
                blocks.push(block);
            }
        }
        Some("function_call") => {
            blocks.push(dump(item, FUNCTION_CALL_FIELDS));
            let raw = text(item.get("arguments"));
            let name = text(item.get("name"));
            let id = text(item.get("call_id"));
            match crate::providers::chunks::parse_arguments(&raw) {
                Ok(args) => tool_calls.push(ToolCall::new(name, args, id)),
                Err(e) => invalid.push(json!({
                    "type": "invalid_tool_call", "name": name, "args": raw, "id": id,
                    "error": e.to_string(),
                })),
            }
        }
        Some("reasoning") => blocks.push(dump(item, REASONING_FIELDS)),
        Some(t) if REPLAYED.contains(&t) => blocks.push(dump(item, &[])),
        _ => {}
    }
}

/// Annotations in LangChain's form (`_format_annotation_to_lc`): a file citation's `index`
/// is renamed, since LangChain reserves `index` for streaming.
fn annotations(v: Option<&Value>) -> Value {
    let Some(Value::Array(list)) = v else {
        return json!([]);
    };
    Value::Array(list.iter().map(annotation_to_lc).collect())
}

pub(super) fn annotation_to_lc(a: &Value) -> Value {
    rename_index(a, "index", "file_index")
}

/// `_format_annotation_from_lc`: the rename undone when the message is sent back.
pub(super) fn annotation_from_lc(a: &Value) -> Value {
    rename_index(a, "file_index", "index")
}

fn rename_index(a: &Value, from: &str, to: &str) -> Value {
    match a {
        Value::Object(o)
            if o.get("type").and_then(Value::as_str) == Some("file_citation")
                && o.contains_key(from) =>
        {
            // Python's copy then pop/insert: the renamed key moves to the end.
            let mut o = o.clone();
            if let Some(i) = o.shift_remove(from) {
                o.insert(to.into(), i);
            }
            Value::Object(o)
        }
        other => other.clone(),
    }
}

/// `response_metadata`: the response's own fields LangChain keeps, in the SDK's order.
pub(super) fn response_metadata(response: &Map<String, Value>) -> Map<String, Value> {
    let mut meta = Map::new();
    for key in [
        "id",
        "created_at",
        "incomplete_details",
        "metadata",
        "model",
        "object",
        "service_tier",
        "status",
        "user",
    ] {
        if let Some(v) = response.get(key).filter(|v| !v.is_null()) {
            // The SDK types `created_at` as a float.
            let v = match (key, v.as_f64()) {
                ("created_at", Some(t)) => json!(t),
                _ => v.clone(),
            };
            meta.insert(key.to_owned(), v);
        }
    }
    meta.insert("model_provider".into(), json!(PROVIDER));
    let model = meta.get("model").cloned().unwrap_or(Value::Null);
    meta.insert("model_name".into(), model);
    meta
}

pub(super) fn parse_response(data: Value) -> Result<AiMessage, ProviderError> {
    let Value::Object(response) = data else {
        return Err(ProviderError::decode(
            PROVIDER,
            "response is not a JSON object",
        ));
    };
    if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
        return Err(failed(error));
    }
    let mut blocks = Vec::new();
    let mut tool_calls = Vec::new();
    let mut invalid = Vec::new();
    for item in response
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Value::Object(item) = item {
            read_output_item(item, &mut blocks, &mut tool_calls, &mut invalid);
        }
    }
    let tier = response.get("service_tier").and_then(Value::as_str);
    let usage = response
        .get("usage")
        .filter(|u| u.is_object())
        .map(|u| usage_metadata(u, tier));
    Ok(AiMessage {
        content: Content::Blocks(blocks),
        tool_calls,
        invalid_tool_calls: invalid,
        id: response
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned),
        usage_metadata: usage.map(Box::new),
        response_metadata: response_metadata(&response).into(),
        ..Default::default()
    })
}

/// A response's `error` (a failed response) as the classified error.
pub(super) fn failed(error: &Value) -> ProviderError {
    let code = error.get("code").and_then(Value::as_str);
    let ty = error.get("type").and_then(Value::as_str);
    let status = super::status_of_code(code, ty);
    super::error_from_object(PROVIDER, status, Some(error), b"")
}

/// `_create_usage_metadata_responses`: input includes the cached tokens already.
pub(super) fn usage_metadata(u: &Value, service_tier: Option<&str>) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let input = n(u.get("input_tokens")).unwrap_or(0);
    let output = n(u.get("output_tokens")).unwrap_or(0);
    let total = n(u.get("total_tokens")).unwrap_or(input + output);
    let details = u.get("input_tokens_details");
    let cache_read = n(details.and_then(|d| d.get("cached_tokens")));
    let cache_write = n(details.and_then(|d| d.get("cache_write_tokens")));
    let reasoning = n(u
        .get("output_tokens_details")
        .and_then(|d| d.get("reasoning_tokens")));
    usage(
        input,
        output,
        total,
        cache_read,
        cache_write,
        reasoning,
        None,
        None,
        service_tier,
    )
}

/// LangChain's usage record, with the service-tier prefixes langchain-openai adds for the
/// priority and flex tiers.
#[allow(clippy::too_many_arguments)]
pub(super) fn usage(
    input: u64,
    output: u64,
    total: u64,
    cache_read: Option<u64>,
    cache_write: Option<u64>,
    reasoning: Option<u64>,
    input_audio: Option<u64>,
    output_audio: Option<u64>,
    service_tier: Option<&str>,
) -> Usage {
    let tier = service_tier.filter(|t| matches!(*t, "priority" | "flex"));
    let prefix = tier.map(|t| format!("{t}_")).unwrap_or_default();
    let mut input_details = Map::new();
    let mut output_details = Map::new();
    let put = |m: &mut Map<String, Value>, k: String, v: Option<u64>| {
        if let Some(v) = v {
            m.insert(k, json!(v));
        }
    };
    put(&mut input_details, "audio".into(), input_audio);
    put(
        &mut input_details,
        format!("{prefix}cache_read"),
        cache_read,
    );
    put(
        &mut input_details,
        format!("{prefix}cache_creation"),
        cache_write,
    );
    put(&mut output_details, "audio".into(), output_audio);
    put(&mut output_details, format!("{prefix}reasoning"), reasoning);
    if let Some(t) = tier {
        input_details.insert(t.into(), json!(input - cache_read.unwrap_or(0)));
        output_details.insert(t.into(), json!(output - reasoning.unwrap_or(0)));
    }
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: total,
        input_token_details: Some(input_details.into()),
        output_token_details: Some(output_details.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_file_citations_rename_their_index_and_back() {
        let citation = json!({"type": "file_citation", "index": 3, "file_id": "f"});
        let lc = annotation_to_lc(&citation);
        assert_eq!(
            lc,
            json!({"type": "file_citation", "file_id": "f", "file_index": 3})
        );
        assert_eq!(
            annotation_from_lc(&lc),
            json!({"type": "file_citation", "file_id": "f", "index": 3})
        );
        let url = json!({"type": "url_citation", "index": 1});
        assert_eq!(annotation_to_lc(&url), url);
    }
}
