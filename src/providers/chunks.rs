//! LangChain's `AIMessageChunk` arithmetic for streamed replies: every provider's adapter
//! turns its events into chunks (the fields langchain-anthropic or langchain-openai give
//! them), and the sum of the chunks is the message, as LangChain adds them. Keeping the sum
//! here means a streamed reply ends as the message deepagents stores, whichever provider.

use serde_json::{Map, Value, json};

use super::error::ProviderError;
use super::sse::SseEvent;
use super::transport::{Endpoint, RetryPolicy};
use crate::messages::{AiMessage, Content, ToolCall};
use crate::model::TokenSink;

/// The running sum of a reply's chunks.
#[derive(Default)]
pub struct ChunkMerger {
    merged: Map<String, Value>,
}

impl ChunkMerger {
    pub fn add(&mut self, chunk: &Map<String, Value>) {
        merge_dicts(&mut self.merged, chunk);
    }

    /// The merged message (`message_chunk_to_message` of the chunks' sum): tool-call chunks
    /// become tool calls, or invalid tool calls when their arguments are not a JSON object.
    pub fn finish(self) -> AiMessage {
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
                    parse_arguments(&raw)
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
            Some(Value::Object(m)) => m.into(),
            _ => Default::default(),
        };
        AiMessage {
            content,
            tool_calls,
            invalid_tool_calls: invalid,
            usage_metadata: usage,
            response_metadata,
            ..Default::default()
        }
    }
}

/// Whether a chunk shows the caller part of the reply (text, a block, a tool call), rather
/// than only metadata; after such a chunk a broken stream cannot be retried.
fn carries_output(chunk: &Map<String, Value>) -> bool {
    let content = match chunk.get("content") {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    };
    content
        || chunk
            .get("tool_call_chunks")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
}

/// A provider's streamed reply, event by event: the chunk each event makes, then the
/// message they add up to.
pub trait Assembler {
    fn event(&mut self, event: &SseEvent) -> Result<Option<Map<String, Value>>, ProviderError>;
    fn finish(self) -> Result<AiMessage, ProviderError>;
}

/// One streamed attempt: each event's chunk goes to `tokens` (opening chunks held until
/// output, see `HeldChunks`); the result is the merged message. A stream that fails before
/// any output was shown may be retried whole; once the caller has seen part of the reply it
/// cannot be, and the call fails: no half message is ever returned.
pub async fn stream_attempt(
    endpoint: &Endpoint,
    policy: &RetryPolicy,
    payload: &super::payload::Payload,
    attempt: u32,
    tokens: &TokenSink,
    mut assembler: impl Assembler,
) -> Result<AiMessage, ProviderError> {
    let response = endpoint.post(payload, attempt, policy).await?;
    let mut held = HeldChunks::new(tokens);
    let read = endpoint
        .read_events(response, policy, |event| {
            if let Some(chunk) = assembler.event(&event)? {
                held.push(chunk);
            }
            Ok(())
        })
        .await;
    let result = read.and_then(|()| assembler.finish());
    let shown = held.finish(result.is_ok());
    result.map_err(|mut e| {
        if shown {
            e.should_retry = Some(false);
        }
        e
    })
}

/// An attempt's chunks on their way to the caller. Metadata-only chunks (a stream's
/// opening event) are held until the first chunk with output, so an attempt that breaks
/// before showing anything can be retried whole without the caller seeing its opening
/// twice (LangChain would concatenate the two openings' metadata).
struct HeldChunks<'a> {
    tokens: &'a TokenSink,
    held: Vec<Map<String, Value>>,
    shown: bool,
}

impl<'a> HeldChunks<'a> {
    fn new(tokens: &'a TokenSink) -> Self {
        HeldChunks {
            tokens,
            held: Vec::new(),
            shown: false,
        }
    }

    fn push(&mut self, chunk: Map<String, Value>) {
        if !self.shown && !carries_output(&chunk) {
            self.held.push(chunk);
            return;
        }
        self.shown = true;
        for c in self.held.drain(..) {
            self.tokens.native_chunk(c);
        }
        self.tokens.native_chunk(chunk);
    }

    /// Ends the attempt: a complete one shows what it held; whether the caller saw output
    /// (then a failed attempt is final).
    fn finish(mut self, complete: bool) -> bool {
        if complete {
            for c in self.held.drain(..) {
                self.tokens.native_chunk(c);
            }
        }
        self.shown
    }
}

/// Tool-call arguments as Python's `json.loads(strict=False)` reads them: control characters
/// (a raw tab or newline) inside strings are allowed, as the providers sometimes send them.
pub fn parse_arguments(raw: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Value>(raw).or_else(|e| {
        let mut escaped = String::with_capacity(raw.len() + 16);
        let (mut in_string, mut escape) = (false, false);
        for c in raw.chars() {
            match c {
                _ if escape => {
                    escape = false;
                    escaped.push(c);
                }
                '\\' if in_string => {
                    escape = true;
                    escaped.push(c);
                }
                '"' => {
                    in_string = !in_string;
                    escaped.push(c);
                }
                c if in_string && (c as u32) < 0x20 => {
                    escaped.push_str(&format!("\\u{:04x}", c as u32));
                }
                c => escaped.push(c),
            }
        }
        serde_json::from_str::<Value>(&escaped).map_err(|_| e)
    })
}

/// LangChain's `merge_dicts`, for the values chunks carry.
pub fn merge_dicts(left: &mut Map<String, Value>, right: &Map<String, Value>) {
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
                e.shift_remove("type");
                if let Value::Object(l) = &mut left[pos] {
                    merge_dicts(l, &e);
                }
            }
            _ => left.push(e.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_with_raw_control_characters_parse_as_python_reads_them() {
        let raw = "{\"content\": \"a\tb\nc\", \"n\": 1}";
        assert_eq!(
            parse_arguments(raw).unwrap(),
            json!({"content": "a\tb\nc", "n": 1})
        );
        // Escapes stay escapes; whitespace between tokens stays whitespace.
        assert_eq!(
            parse_arguments("{\n\t\"q\": \"say \\\"hi\\\"\"\n}").unwrap(),
            json!({"q": "say \"hi\""})
        );
        assert!(parse_arguments("{\"a\": ").is_err());
    }
}
