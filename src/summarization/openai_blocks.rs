//! LangChain's OpenAI reader of an AI message's content (`model_provider` `openai`). A
//! string content is a Chat Completions reply: its text, its tool calls and its refusal. A
//! content list is read as Responses API output items, after the items a v0.3 `ChatOpenAI`
//! kept in `additional_kwargs` (reasoning, refusal, server tool outputs, function calls) are
//! put back into it in the Responses order.
//!
//! What it decides for the summarization: only an image the model generated
//! (`image_generation_call`) is inline media, so only it is uploaded; a Chat Completions
//! `image_url` item is `non_standard` (nothing uploaded); reasoning summaries become one
//! reasoning block each (shown in the history); server tool calls and their results show
//! with their ids.

use serde_json::{Map, Value, json};

use super::content_blocks::{extras_of, is_known_type};
use super::media::py_str;
use super::openai_server_tools::{
    code_interpreter, extras_from, file_search, mcp_call, mcp_list_tools, obj, put_extra, tagged,
    tool_search_call, tool_search_output, web_search,
};
use crate::error::Builtin;
use crate::messages::{AiMessage, Content};
use crate::pyrepr::{json_dumps, truthy, type_name};

/// The key under which `ChatOpenAI` v0.3 kept the function calls' item ids.
const FUNCTION_CALL_IDS: &str = "__openai_function_call_ids__";

/// `model_provider` `openai`; the exception LangChain's reader raises for a shape it
/// cannot read (it reads the whole content before returning, so any item fails it).
pub(super) fn openai(message: &AiMessage) -> Result<Vec<Value>, Builtin> {
    match &message.content {
        Content::Text(text) => Ok(chat_completions(message, text)),
        Content::Blocks(items) => {
            let items = from_v03(message, items)?.unwrap_or_else(|| items.clone());
            responses(message, &items)
        }
    }
}

/// What Python's `for x in value` walks: a list's items, a string's characters, a
/// mapping's keys; anything else is not iterable.
fn py_iter(value: &Value) -> Result<Vec<Value>, Builtin> {
    match value {
        Value::Array(items) => Ok(items.clone()),
        Value::String(s) => Ok(s.chars().map(|c| json!(c.to_string())).collect()),
        Value::Object(m) => Ok(m.keys().map(|k| json!(k)).collect()),
        other => Err(Builtin::Type(format!(
            "'{}' object is not iterable",
            type_name(other)
        ))),
    }
}

/// `value.get(...)`: only a mapping has it.
fn as_mapping(value: &Value) -> Result<&Map<String, Value>, Builtin> {
    value
        .as_object()
        .ok_or_else(|| Builtin::no_attribute(value, "get"))
}

/// A Chat Completions reply: the text, every tool call, the refusal.
fn chat_completions(message: &AiMessage, text: &str) -> Vec<Value> {
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    for call in &message.tool_calls {
        blocks.push(
            json!({"type": "tool_call", "name": call.name, "args": call.args, "id": call.id}),
        );
    }
    if let Some(refusal) = message
        .additional_kwargs
        .get("refusal")
        .filter(|r| truthy(r))
    {
        blocks.push(json!({"type": "refusal", "refusal": refusal}));
    }
    blocks
}

/// The Responses order v0.3 items are put back in; anything else goes after them.
const V03_ORDER: [&str; 10] = [
    "reasoning",
    "code_interpreter_call",
    "mcp_call",
    "image_generation_call",
    "text",
    "refusal",
    "function_call",
    "computer_call",
    "mcp_list_tools",
    "mcp_approval_request",
];

/// A v0.3 `ChatOpenAI` message's content with what it kept in `additional_kwargs` put back
/// as Responses items; `None` when the message is not one.
fn from_v03(message: &AiMessage, items: &[Value]) -> Result<Option<Vec<Value>>, Builtin> {
    let kwargs = &message.additional_kwargs;
    let starts = |v: Option<&str>, prefix: &str| v.is_some_and(|s| s.starts_with(prefix));
    let message_id = message.id.as_deref();
    let marked = ["reasoning", "tool_outputs", "refusal", FUNCTION_CALL_IDS]
        .iter()
        .any(|k| kwargs.contains_key(*k))
        || (starts(message_id, "msg_")
            && starts(message.response_metadata.get_str("id").as_deref(), "resp_"));
    if !items.iter().all(Value::is_object) || !marked {
        return Ok(None);
    }
    let mut buckets: Vec<Vec<Value>> = vec![Vec::new(); V03_ORDER.len()];
    let slot = |kind: &str| V03_ORDER.iter().position(|k| *k == kind);
    let mut unknown = Vec::new();
    if let Some(reasoning) = kwargs.get("reasoning").filter(|r| truthy(r)) {
        buckets[0].push(typed_reasoning(reasoning)?);
    }
    if let Some(refusal) = kwargs.get("refusal").filter(|r| truthy(r)) {
        buckets[5].push(json!({"type": "refusal", "refusal": refusal}));
    }
    for item in items {
        if item.get("type").and_then(Value::as_str) == Some("text") {
            let mut text = item.clone();
            if let Some(id) = message_id.filter(|id| id.starts_with("msg_")) {
                text["id"] = json!(id);
            }
            buckets[4].push(text);
        } else {
            unknown.push(item.clone());
        }
    }
    let item_ids = kwargs.get(FUNCTION_CALL_IDS).filter(|ids| !ids.is_null());
    for call in &message.tool_calls {
        let mut function_call = json!({
            "type": "function_call",
            "name": call.name,
            "arguments": json_dumps(&call.args, false),
            "call_id": call.id,
        });
        if let Some(ids) = item_ids {
            // `ids.get(call_id)` fails on anything but a mapping, whatever the call's id.
            let ids = as_mapping(ids)?;
            if let Some(item_id) = call
                .id
                .as_deref()
                .and_then(|id| ids.get(id))
                .filter(|i| truthy(i))
            {
                function_call["id"] = item_id.clone();
            }
        }
        buckets[6].push(function_call);
    }
    let outputs = match kwargs.get("tool_outputs") {
        Some(outputs) => py_iter(outputs)?,
        None => Vec::new(),
    };
    for output in &outputs {
        match output.get("type").and_then(Value::as_str).and_then(&slot) {
            Some(at) => buckets[at].push(output.clone()),
            None => unknown.push(output.clone()),
        }
    }
    let mut content: Vec<Value> = buckets.into_iter().flatten().collect();
    content.extend(unknown);
    Ok(Some(content))
}

/// `{**reasoning, "type": "reasoning"}` unless `"type" in reasoning`, with what Python
/// raises for a value that is neither a mapping nor holds `"type"`.
fn typed_reasoning(reasoning: &Value) -> Result<Value, Builtin> {
    let has_type = match reasoning {
        Value::Object(r) => r.contains_key("type"),
        Value::String(s) => s.contains("type"),
        Value::Array(items) => items.iter().any(|i| i.as_str() == Some("type")),
        other => {
            return Err(Builtin::Type(format!(
                "argument of type '{}' is not iterable",
                type_name(other)
            )));
        }
    };
    if has_type {
        return Ok(reasoning.clone());
    }
    let Value::Object(r) = reasoning else {
        return Err(Builtin::Type(format!(
            "'{}' object is not a mapping",
            type_name(reasoning)
        )));
    };
    let mut r = r.clone();
    r.insert("type".into(), json!("reasoning"));
    Ok(Value::Object(r))
}

/// The server tool items LangChain reads by their `id` (a `KeyError` without one).
fn needs_id(kind: &str, b: &Map<String, Value>) -> bool {
    match kind {
        "web_search_call"
        | "file_search_call"
        | "code_interpreter_call"
        | "mcp_call"
        | "mcp_list_tools" => true,
        "tool_search_call" | "tool_search_output" => server_executed(b),
        _ => false,
    }
}

/// The Responses items of `items`, as standard blocks.
fn responses(message: &AiMessage, items: &[Value]) -> Result<Vec<Value>, Builtin> {
    let mut out = Vec::new();
    for item in items {
        let Value::Object(b) = item else { continue };
        let kind = b.get("type").and_then(Value::as_str).unwrap_or_default();
        if needs_id(kind, b) && !b.contains_key("id") {
            return Err(Builtin::Key("id".into()));
        }
        match kind {
            "text" => out.push(text(b)?),
            "refusal" => out.push(refusal(b)),
            "reasoning" => explode_reasoning(b.clone(), &mut out)?,
            "image_generation_call" if b.get("result").is_some_and(truthy) => {
                out.push(generated_image(b));
            }
            "function_call" => out.extend(function_call(b, message)),
            "web_search_call" => web_search(b, items, &mut out),
            "file_search_call" => file_search(b, &mut out),
            "code_interpreter_call" => code_interpreter(b, &mut out),
            "mcp_call" => mcp_call(b, &mut out),
            "mcp_list_tools" => mcp_list_tools(b, &mut out),
            "tool_search_call" if server_executed(b) => out.push(tool_search_call(b)),
            "tool_search_output" if server_executed(b) => out.push(tool_search_output(b)),
            k if is_known_type(k) => out.push(item.clone()),
            _ => {
                let mut value = b.clone();
                let index = value.shift_remove("index");
                let mut block = json!({"type": "non_standard", "value": value});
                if let Some(index) = index {
                    block["index"] = tagged("lc_ns_", &index);
                }
                out.push(block);
            }
        }
    }
    Ok(out)
}

fn server_executed(b: &Map<String, Value>) -> bool {
    b.get("execution").and_then(Value::as_str) == Some("server")
}

fn text(b: &Map<String, Value>) -> Result<Value, Builtin> {
    let mut block = b.clone();
    block.entry("text").or_insert_with(|| json!(""));
    if let Some(annotations) = block.get_mut("annotations") {
        let converted = py_iter(annotations)?
            .iter()
            .map(annotation)
            .collect::<Result<Vec<Value>, Builtin>>()?;
        *annotations = Value::Array(converted);
    }
    if let Some(index) = block.get_mut("index") {
        *index = tagged("lc_txt_", index);
    }
    Ok(Value::Object(block))
}

/// `_convert_annotation_to_v1`: URL and file citations as citations, the rest kept as
/// `non_standard_annotation`.
fn annotation(a: &Value) -> Result<Value, Builtin> {
    let m = as_mapping(a)?;
    let kind = m.get("type").and_then(Value::as_str);
    let mut out = Map::new();
    match kind {
        Some("url_citation") => {
            for field in ["end_index", "start_index", "title"] {
                if let Some(v) = m.get(field) {
                    out.insert(field.into(), v.clone());
                }
            }
            out.insert("type".into(), json!("citation"));
            let url = m.get("url").ok_or_else(|| Builtin::Key("url".into()))?;
            out.insert("url".into(), url.clone());
            let known = [
                "type",
                "url",
                "title",
                "cited_text",
                "start_index",
                "end_index",
            ];
            extras_from(&mut out, m, &known);
        }
        Some("file_citation") => {
            out.insert("type".into(), json!("citation"));
            if let Some(filename) = m.get("filename") {
                out.insert("title".into(), filename.clone());
            }
            let known = [
                "type",
                "title",
                "cited_text",
                "start_index",
                "end_index",
                "filename",
            ];
            extras_from(&mut out, m, &known);
        }
        _ => return Ok(json!({"type": "non_standard_annotation", "value": a})),
    }
    Ok(Value::Object(out))
}

fn refusal(b: &Map<String, Value>) -> Value {
    let mut out = obj(json!({
        "type": "refusal",
        "refusal": b.get("refusal").cloned().unwrap_or_else(|| json!("")),
    }));
    for key in ["id", "index"] {
        if let Some(v) = b.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    let mut extras = match b.get("extras") {
        Some(Value::Object(given)) if !given.is_empty() => given.clone(),
        _ => Map::new(),
    };
    extras.extend(extras_of(
        b,
        &["type", "refusal", "id", "index", "extras"],
        true,
    ));
    if !extras.is_empty() {
        out.insert("extras".into(), Value::Object(extras));
    }
    Value::Object(out)
}

/// `lc_rs_` and the hex of the UTF-8 of `"{index}_{part}"`: one index per summary part.
fn reasoning_index(index: &Value, part: &Value) -> Value {
    let hex: String = format!("{}_{}", py_str(index), py_str(part))
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    json!(format!("lc_rs_{hex}"))
}

/// `_explode_reasoning`: a reasoning item with a `summary` gives one reasoning block per
/// summary part (the item's other fields on the first); without parts, one block with none.
fn explode_reasoning(mut b: Map<String, Value>, out: &mut Vec<Value>) -> Result<(), Builtin> {
    let Some(summary) = b.get("summary").cloned() else {
        out.push(Value::Object(b));
        return Ok(());
    };
    const KNOWN: [&str; 4] = ["type", "reasoning", "id", "index"];
    let unknown: Vec<String> = b
        .keys()
        .filter(|k| *k != "summary" && !KNOWN.contains(&k.as_str()))
        .cloned()
        .collect();
    if unknown.iter().any(|k| k == "extras") {
        // LangChain replaces `extras` with a new mapping, then moves the old one out of
        // the item while it moves the unknown fields: the next lookup of `extras` fails.
        return Err(Builtin::Key("extras".into()));
    }
    if !unknown.is_empty() {
        let mut extras = Map::new();
        for k in &unknown {
            if let Some(v) = b.shift_remove(k) {
                extras.insert(k.clone(), v);
            }
        }
        b.insert("extras".into(), Value::Object(extras));
    }
    if !truthy(&summary) {
        b.shift_remove("summary");
        if let Some(index) = b.get_mut("index") {
            *index = reasoning_index(index, &json!(0));
        }
        out.push(Value::Object(b));
        return Ok(());
    }
    let common: Map<String, Value> = b
        .iter()
        .filter(|(k, _)| KNOWN.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let first_only = b.shift_remove("extras").map(obj).unwrap_or_default();
    for (i, part) in py_iter(&summary)?.iter().enumerate() {
        let part = as_mapping(part)?;
        let mut block = common.clone();
        block.insert(
            "reasoning".into(),
            part.get("text").cloned().unwrap_or_else(|| json!("")),
        );
        if i == 0 {
            block.extend(first_only.clone());
        }
        if let Some(index) = block.get_mut("index") {
            let part_index = part.get("index").cloned().unwrap_or_else(|| json!(0));
            *index = reasoning_index(index, &part_index);
        }
        out.push(Value::Object(block));
    }
    Ok(())
}

/// An image the model generated, as an inline image block.
fn generated_image(b: &Map<String, Value>) -> Value {
    let mut out = obj(json!({"type": "image", "base64": b["result"]}));
    if let Some(format) = b.get("output_format").filter(|f| truthy(f)) {
        out.insert(
            "mime_type".into(),
            json!(format!("image/{}", py_str(format))),
        );
    }
    if let Some(id) = b.get("id") {
        out.insert("id".into(), id.clone());
    }
    if let Some(index) = b.get("index") {
        out.insert("index".into(), tagged("lc_img_", index));
    }
    for key in [
        "status",
        "background",
        "output_format",
        "quality",
        "revised_prompt",
        "size",
    ] {
        if let Some(v) = b.get(key) {
            put_extra(&mut out, key, v.clone());
        }
    }
    Value::Object(out)
}

/// A `function_call` item as the message's tool call (or invalid tool call) it names by
/// `call_id`; nothing when it names none.
fn function_call(b: &Map<String, Value>, message: &AiMessage) -> Option<Value> {
    let call_id = b.get("call_id").filter(|c| truthy(c))?;
    let found = message
        .tool_calls
        .iter()
        .find(|c| {
            c.id.as_deref()
                .is_some_and(|id| Some(id) == call_id.as_str())
        })
        .map(|c| json!({"type": "tool_call", "name": c.name, "args": c.args, "id": c.id}))
        .or_else(|| {
            message
                .invalid_tool_calls
                .iter()
                .find(|c| c.get("id") == Some(call_id))
                .cloned()
        })?;
    let mut out = obj(found);
    if let Some(id) = b.get("id") {
        put_extra(&mut out, "item_id", id.clone());
    }
    if let Some(index) = b.get("index") {
        out.insert("index".into(), tagged("lc_tc_", index));
    }
    for key in ["status", "namespace", "async"] {
        if let Some(v) = b.get(key) {
            put_extra(&mut out, key, v.clone());
        }
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_parts_are_indexed_by_hex() {
        assert_eq!(reasoning_index(&json!(0), &json!(1)), json!("lc_rs_305f31"));
        assert_eq!(
            reasoning_index(&json!("a"), &json!(0)),
            json!("lc_rs_615f30")
        );
    }
}
