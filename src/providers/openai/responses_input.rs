//! LangChain messages as Responses API input items, as langchain-openai converts them
//! (`_construct_responses_api_input`), whole or one message at a time.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::additional_tools::{ADDITIONAL_TOOLS, kind_repr};
use super::input::{block_type, chat_content, obj, python_json, responses_block};
use crate::messages::{AiMessage, Content, Message, SystemMessage};

/// A tool result's output for the Responses API: its blocks formatted as for any message,
/// then `_ensure_valid_tool_message_content`.
fn function_output(content: &Content) -> Value {
    match unwrapped(chat_content(content)) {
        Value::Array(blocks) => {
            let known = blocks.iter().all(|b| {
                matches!(
                    block_type(b),
                    Some(
                        "input_text" | "input_image" | "input_file" | "text" | "image_url" | "file"
                    )
                )
            });
            if known {
                Value::Array(blocks.into_iter().map(responses_block).collect())
            } else {
                // `_stringify`: anything else goes as its JSON text.
                json!(python_json(&Value::Array(blocks)))
            }
        }
        other => other,
    }
}

/// Formatted content with each of LangChain's `non_standard` wrappers replaced by the
/// provider block it holds, as langchain-openai reads a message other than an assistant's.
fn unwrapped(content: Value) -> Value {
    match content {
        Value::Array(blocks) => Value::Array(
            blocks
                .into_iter()
                .map(|b| match b {
                    Value::Object(mut o)
                        if o.get("type").and_then(Value::as_str) == Some("non_standard")
                            && o.contains_key("value") =>
                    {
                        o.shift_remove("value").unwrap_or_default()
                    }
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

/// A user, system or developer message as a Responses input item, or nothing when its
/// content is an empty list. A system message's `additional_tools` blocks become items of
/// their own; the types of its other blocks that have no place are returned (dropped with a
/// warning; a user message's are dropped silently).
fn responses_message(
    content: &Content,
    role: &str,
    system: bool,
    out: &mut Vec<Value>,
) -> Vec<String> {
    let mut dropped = Vec::new();
    let content = match unwrapped(chat_content(content)) {
        Value::Array(blocks) => {
            let mut kept = Vec::new();
            for b in blocks {
                match block_type(&b) {
                    Some("text" | "image_url" | "file") => kept.push(responses_block(b)),
                    Some("input_text" | "input_image" | "input_file") => kept.push(b),
                    Some(
                        "mcp_approval_response"
                        | "tool_search_output"
                        | "apply_patch_call_output"
                        | "configuration_update",
                    ) => out.push(b),
                    Some(ADDITIONAL_TOOLS) if system => out.push(b),
                    _ if system => dropped.push(kind_repr(&b)),
                    _ => {}
                }
            }
            if kept.is_empty() {
                return dropped;
            }
            Value::Array(kept)
        }
        other => other,
    };
    out.push(obj([
        ("content", content),
        ("role", json!(role)),
        ("type", json!("message")),
    ]));
    dropped
}

const REPLAYED_ITEMS: [&str; 14] = [
    "compaction",
    "web_search_call",
    "file_search_call",
    "function_call",
    "computer_call",
    "custom_tool_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "tool_search_call",
    "tool_search_output",
    "apply_patch_call",
    "apply_patch_call_output",
];

/// `_pop_index_and_sub_index`: the streaming `index` keys go, on the block and on its
/// summary parts (the name notwithstanding, `sub_index` stays).
fn without_index(b: &Value) -> Value {
    let mut b = b.clone();
    if let Value::Object(o) = &mut b {
        o.shift_remove("index");
        if let Some(Value::Array(summary)) = o.get_mut("summary") {
            for part in summary {
                if let Value::Object(p) = part {
                    p.shift_remove("index");
                }
            }
        }
    }
    b
}

/// What langchain-openai looks up in the input built so far: the first item carrying each
/// `id` (a later text block of the same message id joins it) and the call ids of function
/// calls (a tool call already replayed from the content is not added again). It scans the
/// whole input on every AI message; kept here and extended by the items appended since, the
/// same answers cost O(1) instead of O(input) per message.
#[derive(Default)]
struct Seen {
    scanned: usize,
    ids: HashMap<String, usize>,
    call_ids: HashSet<String>,
}

impl Seen {
    fn refresh(&mut self, out: &[Value]) {
        for (i, item) in out.iter().enumerate().skip(self.scanned) {
            if let Some(id) = item.get("id").and_then(Value::as_str) {
                self.ids.entry(id.to_owned()).or_insert(i);
            }
            if matches!(block_type(item), Some("function_call" | "custom_tool_call"))
                && let Some(call_id) = item.get("call_id").and_then(Value::as_str)
            {
                self.call_ids.insert(call_id.to_owned());
            }
        }
        self.scanned = out.len();
    }
}

/// An AI message as Responses input items: its text blocks as output messages (grouped by
/// item id), its reasoning and function-call blocks replayed as they came, and tool calls
/// no block carries as new `function_call` items.
fn responses_ai(m: &AiMessage, store: Option<bool>, out: &mut Vec<Value>, seen: &mut Seen) {
    match &m.content {
        Content::Text(s) => {
            if !s.is_empty() || (m.tool_calls.is_empty() && m.invalid_tool_calls.is_empty()) {
                out.push(obj([
                    ("type", json!("message")),
                    ("role", json!("assistant")),
                    (
                        "content",
                        json!([{"type": "output_text", "text": s, "annotations": []}]),
                    ),
                ]));
            }
        }
        Content::Blocks(blocks) => {
            let read;
            let blocks = if crate::providers::is_v1_reply(m) {
                read = super::v1_blocks::responses_blocks(m, blocks);
                &read
            } else {
                blocks
            };
            for b in blocks {
                match block_type(b) {
                    Some(t @ ("text" | "output_text" | "refusal")) => {
                        let new_block = if t == "refusal" {
                            json!({"type": "refusal", "refusal": b.get("refusal")})
                        } else {
                            let Some(text) = b.get("text").filter(|t| !t.is_null()) else {
                                continue;
                            };
                            let annotations: Vec<Value> = b
                                .get("annotations")
                                .and_then(Value::as_array)
                                .map(|a| {
                                    a.iter().map(super::responses::annotation_from_lc).collect()
                                })
                                .unwrap_or_default();
                            json!({"type": "output_text", "text": text, "annotations": annotations})
                        };
                        let id = b.get("id").and_then(Value::as_str);
                        let phase = b.get("phase").filter(|p| !p.is_null());
                        seen.refresh(out);
                        let existing = id
                            .and_then(|id| seen.ids.get(id))
                            .and_then(|&i| out.get_mut(i));
                        if let Some(Value::Object(item)) = existing {
                            if let Some(Value::Array(c)) = item.get_mut("content") {
                                c.push(new_block);
                            } else {
                                item.insert("content".into(), json!([new_block]));
                            }
                            if let Some(p) = phase {
                                item.insert("phase".into(), p.clone());
                            }
                            continue;
                        }
                        let mut item = Map::new();
                        item.insert("type".into(), json!("message"));
                        item.insert("content".into(), json!([new_block]));
                        item.insert("role".into(), json!("assistant"));
                        if let Some(id) = id
                            && store != Some(false)
                            && !id.starts_with("lc_")
                        {
                            item.insert("id".into(), json!(id));
                        }
                        if let Some(p) = phase {
                            item.insert("phase".into(), p.clone());
                        }
                        out.push(Value::Object(item));
                    }
                    // Without server storage only encrypted reasoning can be replayed.
                    Some("reasoning")
                        if store != Some(false) || b.get("encrypted_content").is_some() =>
                    {
                        out.push(without_index(b));
                    }
                    Some("reasoning") => {}
                    Some(t) if REPLAYED_ITEMS.contains(&t) => out.push(without_index(b)),
                    // A stored generated image is referred to by its id; without storage
                    // only a whole item can be resolved (a bare reference is dropped).
                    Some("image_generation_call") if store != Some(false) => out.push(obj([
                        ("type", json!("image_generation_call")),
                        ("id", b.get("id").cloned().unwrap_or(Value::Null)),
                    ])),
                    Some("image_generation_call") => {
                        let item = without_index(b);
                        if item
                            .as_object()
                            .is_some_and(|o| o.keys().any(|k| k != "type" && k != "id"))
                        {
                            out.push(item);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    seen.refresh(out);
    let present = &seen.call_ids;
    let mut missing = Vec::new();
    for call in &m.tool_calls {
        if !present.contains(call.id.as_deref().unwrap_or_default()) {
            missing.push(obj([
                ("type", json!("function_call")),
                ("name", json!(call.name)),
                ("arguments", json!(python_json(&call.args))),
                ("call_id", json!(call.id)),
            ]));
        }
    }
    for call in &m.invalid_tool_calls {
        let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
        if !present.contains(id) {
            missing.push(obj([
                ("type", json!("function_call")),
                ("name", call.get("name").cloned().unwrap_or(Value::Null)),
                (
                    "arguments",
                    call.get("args").cloned().unwrap_or(Value::Null),
                ),
                ("call_id", json!(id)),
            ]));
        }
    }
    out.extend(missing);
}

fn system_role(s: &SystemMessage) -> String {
    s.additional_kwargs
        .get("__openai_role__")
        .and_then(Value::as_str)
        .unwrap_or("system")
        .to_owned()
}

/// The agent's system prompt as the Responses items that open the input, and the types of
/// the blocks dropped from it.
pub(super) fn responses_system(s: &SystemMessage) -> (Vec<Value>, Vec<String>) {
    let mut out = Vec::new();
    let dropped = responses_message(&s.content, &system_role(s), true, &mut out);
    (out, dropped)
}

/// One message's Responses items, appended to the input built so far (`seen` describes it),
/// and the types of the blocks dropped from a system message.
fn responses_item(
    m: &Message,
    store: Option<bool>,
    out: &mut Vec<Value>,
    seen: &mut Seen,
) -> Vec<String> {
    match m {
        Message::System(s) => return responses_message(&s.content, &system_role(s), true, out),
        Message::Human(h) => return responses_message(&h.content, "user", false, out),
        Message::Ai(a) => responses_ai(a, store, out, seen),
        Message::Tool(t) => out.push(obj([
            ("type", json!("function_call_output")),
            ("output", function_output(&t.content)),
            ("call_id", json!(t.tool_call_id)),
        ])),
    }
    Vec::new()
}

/// One message's Responses items as if it opened the input (they are its items anywhere
/// unless it looks up what an earlier message provides, `responses_lookups`), and the types
/// of the blocks dropped from a system message.
pub(super) fn responses_items(m: &Message, store: Option<bool>) -> (Vec<Value>, Vec<String>) {
    let mut out = Vec::new();
    let dropped = responses_item(m, store, &mut out, &mut Seen::default());
    (out, dropped)
}

/// What an assistant message looks up in the input before it: the ids its text blocks may
/// join, and the call ids of its tool calls (added unless already there).
pub(super) fn responses_lookups(m: &Message) -> (Vec<String>, Vec<String>) {
    let Message::Ai(a) = m else {
        return (Vec::new(), Vec::new());
    };
    let ids = match &a.content {
        Content::Blocks(blocks) => blocks
            .iter()
            .filter(|b| matches!(block_type(b), Some("text" | "output_text" | "refusal")))
            .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_owned))
            .collect(),
        Content::Text(_) => Vec::new(),
    };
    let calls = a
        .tool_calls
        .iter()
        .map(|c| c.id.clone().unwrap_or_default())
        .chain(a.invalid_tool_calls.iter().map(|c| {
            c.get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        }))
        .collect();
    (ids, calls)
}

/// What items provide to later lookups: their ids and their function calls' call ids.
pub(super) fn responses_provides(items: &[Value]) -> (Vec<String>, Vec<String>) {
    let mut seen = Seen::default();
    seen.refresh(items);
    (
        seen.ids.into_keys().collect(),
        seen.call_ids.into_iter().collect(),
    )
}

/// The conversation (system message first) as Responses input items.
pub(super) fn responses_input(
    system: Option<&SystemMessage>,
    messages: &[Arc<Message>],
    store: Option<bool>,
) -> Vec<Value> {
    let mut out = system.map(|s| responses_system(s).0).unwrap_or_default();
    let mut seen = Seen::default();
    for m in messages {
        responses_item(m, store, &mut out, &mut seen);
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::messages::ToolCall;

    #[test]
    fn python_json_uses_pythons_separators() {
        let v = json!({"a": [1, "x"], "b": {"c": null, "é": true}});
        assert_eq!(
            python_json(&v),
            r#"{"a": [1, "x"], "b": {"c": null, "é": true}}"#
        );
    }

    pub(crate) fn ai(content: Value, calls: &[&str]) -> Arc<Message> {
        Arc::new(Message::Ai(AiMessage {
            content: Content::Blocks(content.as_array().cloned().unwrap_or_default()),
            tool_calls: calls
                .iter()
                .map(|id| ToolCall::new("echo", json!({}), *id))
                .collect(),
            ..Default::default()
        }))
    }

    /// As langchain-openai looks across the whole input, not only the message's own items:
    /// a call replayed by an earlier message is not added again, and a text block joins the
    /// first item of its id wherever it is.
    #[test]
    fn lookups_span_the_whole_input() {
        let messages = [
            ai(
                json!([
                    {"type": "function_call", "call_id": "c1", "name": "echo", "arguments": "{}"},
                    {"type": "text", "text": "a", "id": "msg_1"},
                ]),
                &[],
            ),
            ai(
                json!([{"type": "text", "text": "b", "id": "msg_1"}]),
                &["c1", "c2"],
            ),
        ];
        let items = responses_input(None, &messages, None);
        let calls: Vec<&str> = items
            .iter()
            .filter(|i| block_type(i) == Some("function_call"))
            .filter_map(|i| i["call_id"].as_str())
            .collect();
        assert_eq!(calls, ["c1", "c2"]);
        let texts: Vec<&Value> = items
            .iter()
            .filter(|i| i.get("id") == Some(&json!("msg_1")))
            .collect();
        assert_eq!(texts.len(), 1);
        assert_eq!(texts[0]["content"].as_array().map(Vec::len), Some(2));
    }
}
