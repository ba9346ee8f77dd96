//! A streamed Messages API reply: each SSE event becomes the chunk langchain-anthropic makes
//! of it (`_make_message_chunk_from_anthropic_event`), and the chunks are merged as LangChain
//! adds `AIMessageChunk`s, so the final message is the one deepagents stores when it streams.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::PROVIDER;
use super::response::usage_metadata;
use crate::messages::AiMessage;
use crate::providers::chunks::ChunkMerger;
use crate::providers::error::ProviderError;
use crate::providers::sse::SseEvent;

pub struct StreamAssembler {
    /// langchain-anthropic streams plain strings when no tools, documents or thinking are in
    /// the request, and content blocks otherwise.
    coerce_to_string: bool,
    merged: ChunkMerger,
    /// Indices of `tool_use` blocks (their JSON deltas are also tool-call chunks).
    tool_blocks: HashSet<u64>,
    start_usage: Map<String, Value>,
    stopped: bool,
}

fn decode(message: impl Into<String>) -> ProviderError {
    ProviderError::decode(PROVIDER, message)
}

impl StreamAssembler {
    pub fn new(coerce_to_string: bool) -> Self {
        StreamAssembler {
            coerce_to_string,
            merged: ChunkMerger::default(),
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
    pub fn event(&mut self, event: &SseEvent) -> Result<Option<Map<String, Value>>, ProviderError> {
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
                let mut block = super::response::sdk_block(block);
                if ["tool_result", "tool_use", "document", "redacted_thinking"]
                    .iter()
                    .any(|t| btype.contains(t))
                {
                    if block.get("caller").is_some_and(Value::is_null) {
                        block.shift_remove("caller");
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
                            block.shift_remove("citations");
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
                let mut block = super::response::sdk_block(delta);
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
                            if let Some(c) = block.shift_remove("citation") {
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
                let error_type = text("type");
                // An in-stream error has no status of its own: it takes the one its type
                // stands for, so it is classified (and retried, or not) like an error status.
                let status = match error_type.as_str() {
                    "overloaded_error" => 529,
                    "rate_limit_error" => 429,
                    "invalid_request_error" => 400,
                    "authentication_error" => 401,
                    "permission_error" => 403,
                    "not_found_error" => 404,
                    "request_too_large" => 413,
                    _ => 500,
                };
                let error_type = if error_type.is_empty() {
                    "api_error".to_owned()
                } else {
                    error_type
                };
                return Err(ProviderError::from_response(
                    PROVIDER,
                    status,
                    Some(error_type),
                    None,
                    text("message"),
                ));
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
        self.merged.add(&chunk);
        Ok(Some(chunk))
    }

    /// The merged message (`message_chunk_to_message` of the chunks' sum).
    pub fn finish(self) -> Result<AiMessage, ProviderError> {
        if !self.stopped {
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
