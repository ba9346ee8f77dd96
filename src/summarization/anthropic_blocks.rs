//! LangChain's Anthropic reader of an AI message's content (`model_provider` `anthropic`,
//! and `bedrock` for a Claude model, which also adds the tool calls its content does not
//! hold). Its reading decides what the summarization's media offload sees: an `image` or
//! `document` block of an Anthropic reply is `non_standard` here, so nothing of it is
//! uploaded, while `thinking` is read as reasoning and shows in the history.

use serde_json::{Map, Value, json};

use super::provider_blocks::{add_missing_calls, converse_tool_use, get_or, plain_text};
use crate::error::Builtin;
use crate::messages::{AiMessage, Content};
use crate::pyrepr::truthy;

/// `model_provider` `bedrock`: the Anthropic reading for a Claude model; `None` (the generic
/// reading) for any other model.
pub(super) fn bedrock(message: &AiMessage) -> Option<Result<Vec<Value>, Builtin>> {
    let model = message
        .response_metadata
        .get_str("model_name")
        .unwrap_or_default();
    if !model.to_lowercase().contains("claude") {
        return None;
    }
    Some(anthropic(message).map(|mut blocks| {
        add_missing_calls(&mut blocks, message);
        blocks
    }))
}

/// `model_provider` `anthropic`.
pub(super) fn anthropic(message: &AiMessage) -> Result<Vec<Value>, Builtin> {
    let items: Vec<Value> = match &message.content {
        Content::Text(text) => vec![json!({"type": "text", "text": text})],
        Content::Blocks(blocks) => blocks.clone(),
    };
    let mut blocks: Vec<Value> = items
        .iter()
        .filter_map(Value::as_object)
        .map(|b| item(b, message))
        .collect::<Result<_, _>>()?;
    let refused = message.response_metadata.get_str("stop_reason").as_deref() == Some("refusal");
    if refused && !blocks.iter().any(|b| kind(b) == Some("refusal")) {
        blocks.push(refusal_from_stop_details(
            &message.response_metadata.to_map(),
        ));
    }
    Ok(blocks)
}

fn kind(b: &Value) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

/// `block`'s keys outside `known` added to `out`'s `extras`.
fn add_extras(out: &mut Value, b: &Map<String, Value>, known: &[&str]) {
    for (k, v) in b {
        if !known.contains(&k.as_str()) {
            if out.get("extras").is_none() {
                out["extras"] = json!({});
            }
            out["extras"][k] = v.clone();
        }
    }
}

fn with_index(mut out: Value, b: &Map<String, Value>) -> Value {
    if let Some(index) = b.get("index") {
        out["index"] = index.clone();
    }
    out
}

/// A server tool's input: `input`, or the parsed `partial_json` when `input` is `{}`.
fn server_args(b: &Map<String, Value>) -> Value {
    let input = get_or(b, "input", json!({}));
    if b.get("input") == Some(&json!({}))
        && let Some(Value::String(partial)) = b.get("partial_json")
        && let Ok(parsed @ Value::Object(_)) = crate::py_json::loads(partial)
    {
        return parsed;
    }
    input
}

const SERVER_CALL_KNOWN: [&str; 6] = ["type", "name", "input", "partial_json", "id", "index"];

fn item(b: &Map<String, Value>, message: &AiMessage) -> Result<Value, Builtin> {
    let block_type = b.get("type").and_then(Value::as_str).unwrap_or_default();
    Ok(match block_type {
        "text" => {
            let out = match b.get("citations").filter(|c| truthy(c)) {
                Some(citations) => json!({
                    "type": "text",
                    "text": get_or(b, "text", json!("")),
                    "annotations": citations
                        .as_array()
                        .map(|list| list.iter().map(citation).collect::<Vec<_>>())
                        .unwrap_or_default(),
                }),
                None => plain_text(b)?,
            };
            with_index(out, b)
        }
        "refusal" => {
            let mut out = json!({"type": "refusal", "refusal": get_or(b, "refusal", json!(""))});
            if let Some(extras) = b.get("extras").filter(|e| truthy(e)) {
                out["extras"] = extras.clone();
            }
            with_index(out, b)
        }
        "thinking" => {
            let mut out = with_index(
                json!({"type": "reasoning", "reasoning": get_or(b, "thinking", json!(""))}),
                b,
            );
            add_extras(&mut out, b, &["type", "thinking", "index", "extras"]);
            out
        }
        "tool_use" => {
            let mut out = with_index(converse_tool_use(b, message), b);
            for key in ["caller", "toolset_name"] {
                if let Some(v) = b.get(key) {
                    if out.get("extras").is_none() {
                        out["extras"] = json!({});
                    }
                    out["extras"][key] = v.clone();
                }
            }
            out
        }
        "server_tool_use" => {
            let name = match b.get("name").and_then(Value::as_str) {
                Some("code_execution") => json!("code_interpreter"),
                _ => get_or(b, "name", json!("")),
            };
            let mut out = json!({
                "type": "server_tool_call",
                "name": name,
                "args": server_args(b),
                "id": get_or(b, "id", json!("")),
            });
            out = with_index(out, b);
            add_extras(&mut out, b, &SERVER_CALL_KNOWN);
            out
        }
        "mcp_tool_use" => {
            let mut out = json!({
                "type": "server_tool_call",
                "name": "remote_mcp",
                "args": server_args(b),
                "id": get_or(b, "id", json!("")),
            });
            if let Some(name) = b.get("name") {
                out["extras"] = json!({"tool_name": name});
            }
            add_extras(&mut out, b, &SERVER_CALL_KNOWN);
            with_index(out, b)
        }
        t if t.ends_with("_tool_result") => {
            let mut out = json!({
                "type": "server_tool_result",
                "tool_call_id": get_or(b, "tool_use_id", json!("")),
                "status": "success",
                "extras": {"block_type": t},
            });
            if let Some(output) = b.get("content").filter(|o| truthy(o)) {
                out["output"] = output.clone();
                if output.get("error_code").is_some_and(truthy) {
                    out["status"] = json!("error");
                }
            }
            if b.get("is_error").is_some_and(truthy) {
                out["status"] = json!("error");
            }
            out = with_index(out, b);
            add_extras(
                &mut out,
                b,
                &["type", "tool_use_id", "content", "is_error", "index"],
            );
            out
        }
        _ => {
            let mut value = b.clone();
            match value.remove("index") {
                Some(index) => json!({"type": "non_standard", "value": value, "index": index}),
                None => json!({"type": "non_standard", "value": b}),
            }
        }
    })
}

/// `_convert_citation_to_v1` of Anthropic's citation kinds.
fn citation(c: &Value) -> Value {
    let unknown = || json!({"type": "non_standard_annotation", "value": c});
    let Some(m) = c.as_object() else {
        return unknown();
    };
    let ty = m.get("type").and_then(Value::as_str).unwrap_or_default();
    let mut out = json!({"type": "citation"});
    let known: &[&str] = match ty {
        "web_search_result_location" => {
            let (Some(cited), Some(url)) = (m.get("cited_text"), m.get("url")) else {
                return unknown();
            };
            out["cited_text"] = cited.clone();
            out["url"] = url.clone();
            if let Some(title) = m.get("title").filter(|t| truthy(t)) {
                out["title"] = title.clone();
            }
            &["type", "cited_text", "url", "title", "index", "extras"]
        }
        "char_location" | "content_block_location" | "page_location" | "search_result_location" => {
            let Some(cited) = m.get("cited_text") else {
                return unknown();
            };
            out["cited_text"] = cited.clone();
            if let Some(title) = m.get("document_title") {
                out["title"] = title.clone();
            } else if let Some(title) = m.get("title").filter(|t| truthy(t)) {
                out["title"] = title.clone();
            }
            &[
                "type",
                "cited_text",
                "document_title",
                "title",
                "index",
                "extras",
            ]
        }
        _ => return unknown(),
    };
    add_extras(&mut out, m, known);
    out
}

/// The refusal block of a response Anthropic stopped for refusal.
fn refusal_from_stop_details(metadata: &Map<String, Value>) -> Value {
    let details = metadata
        .get("stop_details")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let text = details
        .get("explanation")
        .filter(|e| truthy(e))
        .cloned()
        .unwrap_or_else(|| json!(""));
    let mut out = json!({"type": "refusal", "refusal": text});
    if let Some(category) = details.get("category").filter(|c| truthy(c)) {
        out["extras"] = json!({"category": category});
    }
    out
}
