//! A streamed Responses API reply: each event becomes the chunk langchain-openai makes of it
//! (`_convert_responses_chunk_to_generation_chunk`), content blocks indexed as it indexes
//! them, and the chunks are summed as LangChain sums them.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::responses::{REPLAYED, read_output_item, response_metadata, usage_metadata};
use super::{PROVIDER, error_from_object, status_of_code};
use crate::messages::AiMessage;
use crate::providers::chunks::ChunkMerger;
use crate::providers::error::ProviderError;
use crate::providers::sse::SseEvent;

pub(super) struct StreamAssembler {
    merged: ChunkMerger,
    /// Index of the content block being streamed, and the output item and part it is for.
    index: i64,
    output_index: i64,
    sub_index: i64,
    /// Each item's `output_index`, by item id (the first seen wins).
    item_outputs: HashMap<String, i64>,
    /// Each function call's arguments streamed so far, by item id.
    arguments: HashMap<String, String>,
    completed: bool,
    /// The response's id (`resp_...`): LangChain keeps a provider's id over its own run id.
    response_id: Option<String>,
}

impl Default for StreamAssembler {
    fn default() -> Self {
        StreamAssembler {
            merged: ChunkMerger::default(),
            index: -1,
            output_index: -1,
            sub_index: -1,
            item_outputs: HashMap::new(),
            arguments: HashMap::new(),
            completed: false,
            response_id: None,
        }
    }
}

fn s(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

impl StreamAssembler {
    fn advance(&mut self, item_id: Option<&str>, output: i64, sub: Option<i64>) {
        let output = item_id
            .and_then(|id| self.item_outputs.get(id).copied())
            .unwrap_or(output);
        match sub {
            None => {
                if self.output_index != output {
                    self.index += 1;
                }
            }
            Some(sub) => {
                if self.output_index != output || self.sub_index != sub {
                    self.index += 1;
                }
                self.sub_index = sub;
            }
        }
        self.output_index = output;
    }

    pub(super) fn event(
        &mut self,
        event: &SseEvent,
    ) -> Result<Option<Map<String, Value>>, ProviderError> {
        if event.data.is_empty() {
            return Ok(None);
        }
        let data: Value = serde_json::from_str(&event.data)
            .map_err(|e| ProviderError::decode(PROVIDER, format!("bad stream event: {e}")))?;
        let kind = s(data.get("type"))
            .unwrap_or(event.event.as_str())
            .to_owned();
        let item = data.get("item");
        let item_type = s(item.and_then(|i| i.get("type")));
        let item_id = s(item.and_then(|i| i.get("id")))
            .or_else(|| s(data.get("item_id")))
            .map(str::to_owned);
        let output_index = data.get("output_index").and_then(Value::as_i64);
        if let (Some(id), Some(oi)) = (&item_id, output_index) {
            self.item_outputs.entry(id.clone()).or_insert(oi);
        }
        let id = item_id.as_deref();
        let oi = output_index.unwrap_or(0);
        let sub = data.get("content_index").and_then(Value::as_i64);
        let mut content: Vec<Value> = Vec::new();
        let mut tool_chunks: Vec<Value> = Vec::new();
        let mut meta = Map::new();
        let mut usage = None;
        let mut message_id = None;
        let mut last = false;
        match (kind.as_str(), item_type) {
            ("response.output_text.delta", _) => {
                self.advance(id, oi, sub);
                content
                    .push(json!({"type": "text", "text": data.get("delta"), "index": self.index}));
            }
            ("response.output_text.annotation.added", _) => {
                self.advance(id, oi, sub);
                let annotation = super::responses::annotation_to_lc(
                    data.get("annotation").unwrap_or(&Value::Null),
                );
                content.push(
                    json!({"type": "text", "annotations": [annotation], "index": self.index}),
                );
            }
            ("response.output_text.done", _) => {
                self.advance(id, oi, sub);
                content.push(json!({"type": "text", "text": "", "id": data.get("item_id"), "index": self.index}));
            }
            ("response.created", _) => {
                let rid = data.get("response").and_then(|r| r.get("id")).cloned();
                message_id = rid.clone();
                if let Some(rid) = rid {
                    meta.insert("id".into(), rid);
                }
            }
            ("response.failed", _) => {
                let response = data.get("response");
                let error = response
                    .and_then(|r| r.get("error"))
                    .filter(|e| !e.is_null());
                return Err(match error {
                    Some(e) => super::responses::failed(e),
                    None => ProviderError::from_response(
                        PROVIDER,
                        500,
                        None,
                        None,
                        format!(
                            "Response {} failed.",
                            s(response.and_then(|r| r.get("id"))).unwrap_or_default()
                        ),
                    ),
                });
            }
            ("error", _) => {
                // The SDK's event has the fields at the top; some servers nest them.
                let error = data.get("error").filter(|e| e.is_object()).unwrap_or(&data);
                let code = s(error.get("code"));
                let ty = s(error.get("type")).filter(|t| *t != "error");
                return Err(error_from_object(
                    PROVIDER,
                    status_of_code(code, ty),
                    Some(error),
                    b"",
                ));
            }
            ("response.completed" | "response.incomplete", _) => {
                let Some(Value::Object(response)) = data.get("response") else {
                    return Err(ProviderError::decode(
                        PROVIDER,
                        "a completed event without its response",
                    ));
                };
                let tier = s(response.get("service_tier"));
                usage = response
                    .get("usage")
                    .filter(|u| u.is_object())
                    .map(|u| usage_metadata(u, tier));
                meta = response_metadata(response);
                meta.shift_remove("id");
                last = true;
                self.completed = true;
            }
            ("response.output_item.added", Some("message")) => {
                // Without a phase langchain-openai still yields a chunk, an empty one.
                if let Some(phase) = item.and_then(|i| i.get("phase")).filter(|p| !p.is_null()) {
                    self.advance(id, oi, Some(0));
                    content.push(
                        json!({"type": "text", "text": "", "phase": phase, "index": self.index}),
                    );
                }
            }
            ("response.output_item.added", Some("function_call")) => {
                self.advance(id, oi, None);
                let item = item.cloned().unwrap_or_default();
                let args = item.get("arguments").cloned().unwrap_or(Value::Null);
                if let Some(id) = id {
                    self.arguments
                        .insert(id.to_owned(), args.as_str().unwrap_or_default().to_owned());
                }
                tool_chunks.push(json!({
                    "type": "tool_call_chunk", "name": item.get("name"), "args": args,
                    "id": item.get("call_id"), "index": self.index,
                }));
                let mut block = Map::new();
                block.insert("type".into(), json!("function_call"));
                block.insert(
                    "name".into(),
                    item.get("name").cloned().unwrap_or(Value::Null),
                );
                block.insert("arguments".into(), args);
                block.insert(
                    "call_id".into(),
                    item.get("call_id").cloned().unwrap_or(Value::Null),
                );
                block.insert("id".into(), item.get("id").cloned().unwrap_or(Value::Null));
                block.insert("index".into(), json!(self.index));
                if let Some(ns) = item.get("namespace").filter(|n| !n.is_null()) {
                    block.insert("namespace".into(), ns.clone());
                }
                content.push(Value::Object(block));
            }
            ("response.output_item.done", Some(t)) if REPLAYED.contains(&t) => {
                self.advance(id, oi, None);
                let mut blocks = Vec::new();
                if let Some(Value::Object(item)) = item {
                    read_output_item(item, &mut blocks, &mut Vec::new(), &mut Vec::new());
                }
                for mut b in blocks {
                    b["index"] = json!(self.index);
                    content.push(b);
                }
            }
            ("response.function_call_arguments.delta", _) => {
                self.advance(id, oi, None);
                let delta = s(data.get("delta")).unwrap_or_default();
                if let Some(id) = id {
                    self.arguments
                        .entry(id.to_owned())
                        .or_default()
                        .push_str(delta);
                }
                tool_chunks
                    .push(json!({"type": "tool_call_chunk", "args": delta, "index": self.index}));
                content.push(
                    json!({"type": "function_call", "arguments": delta, "index": self.index}),
                );
            }
            ("response.function_call_arguments.done", _) => {
                let arguments = s(data.get("arguments")).unwrap_or_default().to_owned();
                let streamed = id
                    .and_then(|id| self.arguments.insert(id.to_owned(), arguments.clone()))
                    .unwrap_or_default();
                let remaining = arguments
                    .strip_prefix(streamed.as_str())
                    .unwrap_or_default();
                if remaining.is_empty() {
                    return Ok(None);
                }
                self.advance(id, oi, None);
                tool_chunks.push(
                    json!({"type": "tool_call_chunk", "args": remaining, "index": self.index}),
                );
                content.push(
                    json!({"type": "function_call", "arguments": remaining, "index": self.index}),
                );
            }
            ("response.refusal.done", _) => {
                content.push(json!({"type": "refusal", "refusal": data.get("refusal")}));
            }
            ("response.output_item.added", Some("reasoning")) => {
                self.advance(id, oi, None);
                self.sub_index = 0;
                let mut blocks = Vec::new();
                if let Some(Value::Object(item)) = item {
                    read_output_item(item, &mut blocks, &mut Vec::new(), &mut Vec::new());
                }
                for mut b in blocks {
                    if let Value::Object(o) = &mut b {
                        o.shift_remove("encrypted_content");
                        o.insert("index".into(), json!(self.index));
                    }
                    content.push(b);
                }
            }
            ("response.output_item.done", Some("reasoning")) => {
                let encrypted = item
                    .and_then(|i| i.get("encrypted_content"))
                    .filter(|e| e.as_str().is_some_and(|e| !e.is_empty()));
                let Some(encrypted) = encrypted else {
                    return Ok(None);
                };
                self.advance(id, oi, None);
                content.push(json!({
                    "type": "reasoning", "id": id, "summary": [],
                    "encrypted_content": encrypted, "index": self.index,
                }));
            }
            ("response.reasoning_summary_part.added", _) => {
                self.advance(id, oi, None);
                content.push(json!({
                    "summary": [{"index": data.get("summary_index"), "type": "summary_text", "text": ""}],
                    "index": self.index, "type": "reasoning", "id": data.get("item_id"),
                }));
            }
            ("response.reasoning_summary_text.delta", _) => {
                self.advance(id, oi, None);
                content.push(json!({
                    "summary": [{"index": data.get("summary_index"), "type": "summary_text", "text": data.get("delta")}],
                    "index": self.index, "type": "reasoning",
                }));
            }
            _ => return Ok(None),
        }
        // langchain-openai names the provider first, then adds the event's fields; the last
        // chunk's metadata is the whole response's instead (the provider is in it).
        let meta = if last {
            meta
        } else {
            let mut m = Map::new();
            m.insert("model_provider".into(), json!(PROVIDER));
            m.extend(meta);
            m
        };
        let mut chunk = Map::new();
        chunk.insert("content".into(), Value::Array(content));
        if !tool_chunks.is_empty() {
            chunk.insert("tool_call_chunks".into(), Value::Array(tool_chunks));
        }
        if let Some(u) = usage {
            chunk.insert(
                "usage_metadata".into(),
                serde_json::to_value(u).unwrap_or_default(),
            );
        }
        chunk.insert("response_metadata".into(), Value::Object(meta));
        if let Some(mid) = message_id {
            self.response_id = mid.as_str().map(str::to_owned);
            chunk.insert("id".into(), mid);
        }
        if last {
            chunk.insert("chunk_position".into(), json!("last"));
        }
        self.merged.add(&chunk);
        Ok(Some(chunk))
    }

    pub(super) fn finish(self) -> Result<AiMessage, ProviderError> {
        if !self.completed {
            return Err(ProviderError::connection(
                PROVIDER,
                "the response stream ended before the response was complete",
            ));
        }
        let id = self.response_id;
        let mut message = self.merged.finish();
        message.id = id;
        Ok(message)
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
