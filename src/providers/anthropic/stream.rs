//! A streamed Messages API reply: each SSE event becomes the chunk langchain-anthropic makes
//! of it (`_make_message_chunk_from_anthropic_event`), and the chunks are merged as LangChain
//! adds `AIMessageChunk`s, so the final message is the one deepagents stores when it streams.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::anthropic::{PROVIDER, usage_metadata};
use super::sse::SseEvent;
use crate::error::ModelError;
use crate::messages::{AiMessage, Content, ToolCall};

pub struct StreamAssembler {
    /// langchain-anthropic streams plain strings when no tools, documents or thinking are in
    /// the request, and content blocks otherwise.
    coerce_to_string: bool,
    merged: Map<String, Value>,
    /// Indices of `tool_use` blocks (their JSON deltas are also tool-call chunks).
    tool_blocks: HashSet<u64>,
    start_usage: Map<String, Value>,
    stopped: bool,
}

fn decode(message: impl Into<String>) -> ModelError {
    ModelError::Decode {
        provider: PROVIDER,
        message: message.into(),
    }
}

impl StreamAssembler {
    pub fn new(coerce_to_string: bool) -> Self {
        StreamAssembler {
            coerce_to_string,
            merged: Map::new(),
            tool_blocks: HashSet::new(),
            start_usage: Map::new(),
            stopped: false,
        }
    }

    fn empty_content(&self) -> Value {
        if self.coerce_to_string {
            json!("")
        } else {
            json!([])
        }
    }

    /// The chunk one event makes (LangChain `AIMessageChunk` fields), if any; merged into the
    /// final message as it goes. An `error` event is the provider's error.
    pub fn event(&mut self, event: &SseEvent) -> Result<Option<Map<String, Value>>, ModelError> {
        let data: Value = match event.data.as_str() {
            "" => Value::Null,
            d => serde_json::from_str(d).map_err(|e| decode(format!("bad stream event: {e}")))?,
        };
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        let index = data.get("index").and_then(Value::as_u64);
        let mut chunk = Map::new();
        match kind {
            "message_start" => {
                let message = data.get("message").cloned().unwrap_or_default();
                if let Some(Value::Object(u)) = message.get("usage") {
                    self.start_usage = u.clone();
                }
                chunk.insert("content".into(), self.empty_content());
                let mut meta = Map::new();
                if let Some(model) = message.get("model") {
                    meta.insert("model_name".into(), model.clone());
                }
                chunk.insert("response_metadata".into(), Value::Object(meta));
            }
            "content_block_start" => {
                let Some(Value::Object(block)) = data.get("content_block") else {
                    return Ok(None);
                };
                let btype = block.get("type").and_then(Value::as_str).unwrap_or("");
                let mut block = block.clone();
                if ["tool_result", "tool_use", "document", "redacted_thinking"]
                    .iter()
                    .any(|t| btype.contains(t))
                {
                    if block.get("caller").is_some_and(Value::is_null) {
                        block.remove("caller");
                    }
                    block.insert("index".into(), json!(index));
                    let mut calls = Vec::new();
                    if btype == "tool_use" {
                        self.tool_blocks.insert(index.unwrap_or(0));
                        let args = match block.get("input") {
                            Some(Value::Object(o)) if !o.is_empty() => {
                                serde_json::to_string(o).unwrap_or_default()
                            }
                            _ => String::new(),
                        };
                        calls.push(json!({
                            "name": block.get("name"), "args": args, "id": block.get("id"),
                            "index": index, "type": "tool_call_chunk",
                        }));
                    }
                    chunk.insert("content".into(), json!([block]));
                    chunk.insert("tool_call_chunks".into(), Value::Array(calls));
                } else if btype == "text" {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if text.is_empty() {
                        return Ok(None);
                    }
                    if self.coerce_to_string {
                        chunk.insert("content".into(), json!(text));
                    } else {
                        block.insert("index".into(), json!(index));
                        if block.get("citations").is_some_and(Value::is_null) {
                            block.remove("citations");
                        }
                        chunk.insert("content".into(), json!([block]));
                    }
                } else if btype == "thinking" {
                    let has = |k: &str| {
                        block
                            .get(k)
                            .and_then(Value::as_str)
                            .is_some_and(|s| !s.is_empty())
                    };
                    if !(has("thinking") || has("signature")) {
                        return Ok(None);
                    }
                    block.insert("index".into(), json!(index));
                    chunk.insert("content".into(), json!([block]));
                } else {
                    return Ok(None);
                }
            }
            "content_block_delta" => {
                let Some(Value::Object(delta)) = data.get("delta") else {
                    return Ok(None);
                };
                let dtype = delta.get("type").and_then(Value::as_str).unwrap_or("");
                let mut block = delta.clone();
                block.insert("index".into(), json!(index));
                match dtype {
                    "text_delta" | "citations_delta" => {
                        if self.coerce_to_string && dtype == "text_delta" {
                            chunk.insert(
                                "content".into(),
                                delta.get("text").cloned().unwrap_or(json!("")),
                            );
                        } else {
                            block.insert("type".into(), json!("text"));
                            if let Some(c) = block.remove("citation") {
                                block.insert("citations".into(), json!([c]));
                            }
                            chunk.insert("content".into(), json!([block]));
                        }
                    }
                    "thinking_delta" | "signature_delta" => {
                        block.insert("type".into(), json!("thinking"));
                        if dtype == "signature_delta" {
                            block.entry("thinking").or_insert(json!(""));
                        }
                        chunk.insert("content".into(), json!([block]));
                    }
                    "input_json_delta" => {
                        let mut calls = Vec::new();
                        if self.tool_blocks.contains(&index.unwrap_or(0)) {
                            calls.push(json!({
                                "name": null, "args": delta.get("partial_json"), "id": null,
                                "index": index, "type": "tool_call_chunk",
                            }));
                        }
                        chunk.insert("content".into(), json!([block]));
                        chunk.insert("tool_call_chunks".into(), Value::Array(calls));
                    }
                    _ => return Ok(None),
                }
            }
            "message_delta" => {
                let mut usage = self.start_usage.clone();
                if let Some(Value::Object(u)) = data.get("usage") {
                    for (k, v) in u {
                        if !v.is_null() {
                            usage.insert(k.clone(), v.clone());
                        }
                    }
                }
                let delta = data.get("delta").cloned().unwrap_or_default();
                let mut meta = Map::new();
                meta.insert(
                    "stop_reason".into(),
                    delta.get("stop_reason").cloned().unwrap_or_default(),
                );
                meta.insert(
                    "stop_sequence".into(),
                    delta.get("stop_sequence").cloned().unwrap_or_default(),
                );
                chunk.insert("content".into(), self.empty_content());
                chunk.insert(
                    "usage_metadata".into(),
                    serde_json::to_value(usage_metadata(&Value::Object(usage))).unwrap_or_default(),
                );
                let stopped = meta.get("stop_reason").is_some_and(|r| !r.is_null());
                chunk.insert("response_metadata".into(), Value::Object(meta));
                if stopped {
                    chunk.insert("chunk_position".into(), json!("last"));
                }
                self.stopped = true;
            }
            "error" => {
                let error = data.get("error").cloned().unwrap_or_default();
                let text = |k: &str| {
                    error
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                };
                let kind = text("type");
                let status = match kind.as_str() {
                    "overloaded_error" => 529,
                    "rate_limit_error" => 429,
                    "invalid_request_error" => 400,
                    "authentication_error" => 401,
                    "permission_error" => 403,
                    "not_found_error" => 404,
                    "request_too_large" => 413,
                    _ => 500,
                };
                return Err(ModelError::Api {
                    provider: PROVIDER,
                    status,
                    kind: if kind.is_empty() {
                        "api_error".into()
                    } else {
                        kind
                    },
                    message: text("message"),
                    request_id: None,
                });
            }
            // content_block_stop, message_stop, ping
            _ => return Ok(None),
        }
        let meta = chunk
            .entry("response_metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta {
            m.insert("model_provider".into(), json!(PROVIDER));
        }
        merge_dicts(&mut self.merged, &chunk);
        Ok(Some(chunk))
    }

    /// The merged message (`message_chunk_to_message` of the chunks' sum).
    pub fn finish(self) -> Result<AiMessage, ModelError> {
        if !self.stopped {
            return Err(ModelError::Connection {
                provider: PROVIDER,
                message: "the response stream ended before the message was complete".into(),
            });
        }
        let mut merged = self.merged;
        let content = match merged.remove("content") {
            Some(Value::String(s)) => Content::Text(s),
            Some(Value::Array(blocks)) => Content::Blocks(blocks),
            _ => Content::Text(String::new()),
        };
        let mut tool_calls = Vec::new();
        let mut invalid = Vec::new();
        if let Some(Value::Array(chunks)) = merged.remove("tool_call_chunks") {
            for c in chunks {
                let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
                let raw = text("args").unwrap_or_default();
                let parsed = if raw.is_empty() {
                    Ok(json!({}))
                } else {
                    serde_json::from_str::<Value>(&raw)
                };
                match parsed {
                    Ok(args @ Value::Object(_)) => tool_calls.push(ToolCall::new(
                        text("name").unwrap_or_default(),
                        args,
                        text("id").unwrap_or_default(),
                    )),
                    _ => invalid.push(json!({
                        "name": text("name"), "args": raw, "id": text("id"),
                        "error": null, "type": "invalid_tool_call",
                    })),
                }
            }
        }
        let usage = merged
            .remove("usage_metadata")
            .and_then(|u| serde_json::from_value(u).ok());
        let response_metadata = match merged.remove("response_metadata") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        Ok(AiMessage {
            content,
            tool_calls,
            invalid_tool_calls: invalid,
            usage_metadata: usage,
            response_metadata,
            ..Default::default()
        })
    }
}

/// LangChain's `merge_dicts`, for the values chunks carry.
fn merge_dicts(left: &mut Map<String, Value>, right: &Map<String, Value>) {
    for (k, r) in right {
        match left.get_mut(k) {
            None => {
                left.insert(k.clone(), r.clone());
            }
            Some(l) if l.is_null() => *l = r.clone(),
            Some(_) if r.is_null() => {}
            Some(Value::String(l)) => {
                if let Value::String(r) = r
                    && !(matches!(k.as_str(), "id" | "output_version" | "model_provider") && l == r)
                {
                    l.push_str(r);
                }
            }
            Some(Value::Object(l)) => {
                if let Value::Object(r) = r {
                    merge_dicts(l, r);
                }
            }
            Some(Value::Array(l)) => {
                if let Value::Array(r) = r {
                    merge_lists(l, r);
                }
            }
            Some(Value::Number(l)) => {
                if let Value::Number(rn) = r
                    && l != rn
                {
                    *l = if matches!(k.as_str(), "index" | "created" | "timestamp") {
                        rn.clone()
                    } else {
                        match (l.as_u64(), rn.as_u64()) {
                            (Some(a), Some(b)) => (a + b).into(),
                            _ => rn.clone(),
                        }
                    };
                }
            }
            Some(_) => {}
        }
    }
}

/// LangChain's `merge_lists`: elements with the same integer `index` merge (the right one's
/// `type` dropped), others are appended.
fn merge_lists(left: &mut Vec<Value>, right: &[Value]) {
    for e in right {
        let index = e.get("index").filter(|i| i.is_u64());
        let target = index.and_then(|i| left.iter().position(|l| l.get("index") == Some(i)));
        match (target, e) {
            (Some(pos), Value::Object(e)) => {
                let mut e = e.clone();
                e.remove("type");
                if let Value::Object(l) = &mut left[pos] {
                    merge_dicts(l, &e);
                }
            }
            _ => left.push(e.clone()),
        }
    }
}
