//! An AI message whose content is LangChain's v1 content blocks (`output_version: "v1"`:
//! what LangGraph's v3 stream makes every reply) read back as the OpenAI blocks the reply
//! was made of, so the next request sends the same bytes as when the reply kept them (the
//! prompt cache matches on the prefix). The readings are langchain-openai's
//! (`_convert_from_v1_to_responses`); where LangChain builds a block in another key order
//! than the streamed reply had, the streamed reply's order is kept.

use serde_json::{Map, Value, json};

use crate::messages::{AiMessage, ToolCall};
use crate::pyrepr::{json_dumps_compact, truthy};

fn str_of<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

fn extras(o: &Map<String, Value>) -> Option<&Map<String, Value>> {
    o.get("extras").and_then(Value::as_object)
}

fn extra<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    extras(o).and_then(|e| e.get(key))
}

/// Whether a v1 Chat Completions reply of this client: its text is the whole content the
/// reply had (Chat replies carry a string; their tool calls and refusal travel apart).
pub(super) fn chat_reply_text(m: &AiMessage, blocks: &[Value]) -> Option<String> {
    let meta = &m.response_metadata;
    let from_chat = meta.get_str("model_provider").as_deref() == Some("openai")
        && meta.get_str("object").as_deref() != Some("response");
    if !from_chat || !crate::providers::is_v1_reply(m) {
        return None;
    }
    let mut text = String::new();
    for b in blocks {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("reasoning" | "tool_call" | "invalid_tool_call" | "refusal") => {}
            _ => return None,
        }
    }
    Some(text)
}

/// A v1 citation as the Responses API annotation it was read from.
fn annotation(a: &Value) -> Value {
    let Value::Object(o) = a else {
        return a.clone();
    };
    match str_of(o, "type") {
        Some("citation") => {
            let mut out = Map::new();
            for key in ["end_index", "start_index"] {
                if let Some(v) = o.get(key) {
                    out.insert(key.into(), v.clone());
                }
            }
            let extra_fields = extras(o).filter(|e| !e.is_empty());
            if let Some(url) = o.get("url") {
                if let Some(t) = o.get("title") {
                    out.insert("title".into(), t.clone());
                }
                out.insert("type".into(), json!("url_citation"));
                out.insert("url".into(), url.clone());
                out.extend(
                    extra_fields
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.clone())),
                );
            } else {
                out.insert("type".into(), json!("file_citation"));
                out.extend(
                    extra_fields
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.clone())),
                );
                if let Some(t) = o.get("title") {
                    out.insert("filename".into(), t.clone());
                }
            }
            Value::Object(out)
        }
        Some("non_standard_annotation") => o.get("value").cloned().unwrap_or(Value::Null),
        _ => a.clone(),
    }
}

/// A v1 tool call (or one whose arguments did not parse) as the reply's `function_call`
/// block, in the streamed reply's key order.
fn function_call(o: &Map<String, Value>, tool_calls: &[ToolCall]) -> Value {
    let id = o.get("id").cloned().unwrap_or(Value::Null);
    let call = tool_calls
        .iter()
        .find(|c| c.id.as_deref() == id.as_str() && id.is_string());
    let name = o
        .get("name")
        .cloned()
        .or_else(|| call.map(|c| json!(c.name)));
    let arguments = match (extra(o, "arguments"), str_of(o, "type")) {
        (Some(a), _) => Some(a.clone()),
        // An invalid call keeps the text that did not parse.
        (None, Some("invalid_tool_call")) => o.get("args").cloned(),
        (None, _) => call.map(|c| json!(json_dumps_compact(&c.args))),
    };
    let mut out = Map::new();
    out.insert("type".into(), json!("function_call"));
    if let Some(n) = name {
        out.insert("name".into(), n);
    }
    if let Some(a) = arguments {
        out.insert("arguments".into(), a);
    }
    out.insert("call_id".into(), id);
    if let Some(item) = extra(o, "item_id") {
        out.insert("id".into(), item.clone());
    }
    for key in ["status", "namespace", "async"] {
        if let Some(v) = extra(o, key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// One v1 block as the Responses block it stands for (`None`: nothing is sent for it).
fn responses_block(block: &Value, tool_calls: &[ToolCall]) -> Option<Value> {
    let Value::Object(o) = block else {
        return Some(block.clone());
    };
    let kind = str_of(o, "type")?;
    Some(match kind {
        "text" => match o.get("annotations").and_then(Value::as_array) {
            Some(list) => {
                let mut b = o.clone();
                b.insert(
                    "annotations".into(),
                    Value::Array(list.iter().map(annotation).collect()),
                );
                Value::Object(b)
            }
            None => block.clone(),
        },
        // A refusal without text (another provider's) has nothing to send.
        "refusal" => {
            let refusal = o.get("refusal").filter(|r| truthy(r))?;
            let mut b = Map::new();
            b.insert("type".into(), json!("refusal"));
            b.insert("refusal".into(), refusal.clone());
            if let Some(id) = o.get("id") {
                b.insert("id".into(), id.clone());
            }
            if let Some(p) = o.get("phase").or_else(|| extra(o, "phase")) {
                b.insert("phase".into(), p.clone());
            }
            Value::Object(b)
        }
        "tool_call" | "invalid_tool_call" => function_call(o, tool_calls),
        "server_tool_call" if str_of(o, "name") == Some("tool_search") => {
            let mut b = Map::new();
            b.insert("id".into(), o.get("id").cloned().unwrap_or(Value::Null));
            if let Some(s) = extra(o, "status").filter(|s| truthy(s)) {
                b.insert("status".into(), s.clone());
            }
            b.insert("type".into(), json!("tool_search_call"));
            if let Some(a) = o.get("args") {
                b.insert("arguments".into(), a.clone());
            }
            if let Some(e) = extra(o, "execution").filter(|e| truthy(e)) {
                b.insert("execution".into(), e.clone());
            }
            Value::Object(b)
        }
        "server_tool_result" if extra(o, "name").and_then(Value::as_str) == Some("tool_search") => {
            let mut b = Map::new();
            b.insert(
                "id".into(),
                o.get("tool_call_id").cloned().unwrap_or_else(|| json!("")),
            );
            if let Some(s) = o.get("status").filter(|s| truthy(s)) {
                let status = match s.as_str() {
                    Some("success") => json!("completed"),
                    Some("error") => json!("failed"),
                    _ => s.clone(),
                };
                b.insert("status".into(), status);
            }
            b.insert("type".into(), json!("tool_search_output"));
            b.insert("execution".into(), json!("server"));
            if let Some(tools) = o.get("output").and_then(|out| out.get("tools")) {
                b.insert("tools".into(), tools.clone());
            }
            Value::Object(b)
        }
        // A generated image: the `image_generation_call` item it was read from.
        "image"
            if o.contains_key("base64")
                && str_of(o, "id").is_some_and(|id| id.starts_with("ig_")) =>
        {
            let mut b = Map::new();
            b.insert("type".into(), json!("image_generation_call"));
            b.insert("result".into(), o["base64"].clone());
            for key in ["id", "status"] {
                if let Some(v) = o.get(key).or_else(|| extra(o, key)) {
                    b.insert(key.into(), v.clone());
                }
            }
            Value::Object(b)
        }
        "non_standard" if o.contains_key("value") => o["value"].clone(),
        _ => block.clone(),
    })
}

fn same_item(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.contains_key("id") == b.contains_key("id") && a.get("id") == b.get("id")
}

/// Consecutive reasoning parts of one item as that item, its summary parts in order, in
/// the streamed reply's key order (`id`, `summary`, `type`, then the item's other fields).
fn implode_reasoning(blocks: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(blocks.len());
    let mut iter = blocks.into_iter().peekable();
    while let Some(block) = iter.next() {
        let Some(o) = block
            .as_object()
            .filter(|o| str_of(o, "type") == Some("reasoning") && !o.contains_key("summary"))
        else {
            out.push(block);
            continue;
        };
        let mut summary = Vec::new();
        if o.contains_key("reasoning") {
            summary.push(json!({"type": "summary_text", "text": o["reasoning"]}));
            while let Some(next) = iter.peek().and_then(Value::as_object) {
                if str_of(next, "type") == Some("reasoning")
                    && next.contains_key("reasoning")
                    && same_item(o, next)
                {
                    summary.push(json!({"type": "summary_text", "text": next["reasoning"]}));
                    iter.next();
                } else {
                    break;
                }
            }
        }
        let mut item = Map::new();
        if let Some(id) = o.get("id") {
            item.insert("id".into(), id.clone());
        }
        item.insert("summary".into(), Value::Array(summary));
        item.insert("type".into(), json!("reasoning"));
        for (k, v) in o {
            if !matches!(k.as_str(), "id" | "type" | "reasoning" | "extras" | "index") {
                item.insert(k.clone(), v.clone());
            }
        }
        if let Some(e) = extras(o) {
            item.extend(e.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        out.push(Value::Object(item));
    }
    out
}

/// A v1 server tool result's status as the item's.
fn item_status(result: &Map<String, Value>) -> Option<Value> {
    match result.get("status") {
        Some(s) if truthy(s) => Some(match s.as_str() {
            Some("success") => json!("completed"),
            Some("error") => json!("failed"),
            _ => return None,
        }),
        _ => extra(result, "status").filter(|s| truthy(s)).cloned(),
    }
}

/// A server tool's call and its result as the one output item they were read from.
fn server_item(call: &Map<String, Value>, result: &Map<String, Value>) -> Option<Value> {
    let mut b = Map::new();
    b.insert("id".into(), call.get("id").cloned().unwrap_or(Value::Null));
    let args = call.get("args");
    let call_extras = extras(call);
    let result_extra = |k: &str| extra(result, k).filter(|v| truthy(v));
    match str_of(call, "name") {
        Some("web_search") => {
            if let Some(a) = args {
                b.insert("action".into(), a.clone());
            }
            if let Some(s) = item_status(result) {
                b.insert("status".into(), s);
            }
            b.insert("type".into(), json!("web_search_call"));
        }
        Some("file_search") => {
            if let Some(q) = args.and_then(|a| a.get("queries")) {
                b.insert("queries".into(), q.clone());
            }
            if let Some(o) = result.get("output") {
                b.insert("results".into(), o.clone());
            }
            if let Some(s) = item_status(result) {
                b.insert("status".into(), s);
            }
            b.insert("type".into(), json!("file_search_call"));
        }
        Some("code_interpreter") => {
            if let Some(c) = args.and_then(|a| a.get("code")) {
                b.insert("code".into(), c.clone());
            }
            if let Some(c) = call
                .get("container_id")
                .or_else(|| extra(call, "container_id"))
            {
                b.insert("container_id".into(), c.clone());
            }
            if let Some(o) = result.get("output") {
                b.insert("outputs".into(), o.clone());
            }
            if let Some(s) = item_status(result) {
                b.insert("status".into(), s);
            }
            b.insert("type".into(), json!("code_interpreter_call"));
        }
        Some("remote_mcp") => {
            if let Some(a) = args {
                b.insert("arguments".into(), json!(json_dumps_compact(a)));
            } else if let Some(a) = extra(call, "arguments") {
                b.insert("arguments".into(), a.clone());
            }
            if let Some(t) = extra(call, "tool_name").filter(|v| truthy(v)) {
                b.insert("name".into(), t.clone());
            }
            if let Some(s) = extra(call, "server_label").filter(|v| truthy(v)) {
                b.insert("server_label".into(), s.clone());
            }
            b.insert("type".into(), json!("mcp_call"));
            if let Some(a) = extra(call, "approval_request_id").filter(|v| truthy(v)) {
                b.insert("approval_request_id".into(), a.clone());
            }
            if let Some(e) = result_extra("error") {
                b.insert("error".into(), e.clone());
            }
            if let Some(o) = result.get("output") {
                b.insert("output".into(), o.clone());
            }
            for (k, v) in call_extras.into_iter().flatten() {
                if !matches!(
                    k.as_str(),
                    "server_label" | "arguments" | "tool_name" | "error"
                ) {
                    b.insert(k.clone(), v.clone());
                }
            }
        }
        Some("mcp_list_tools") => {
            if let Some(s) = extra(call, "server_label").filter(|v| truthy(v)) {
                b.insert("server_label".into(), s.clone());
            }
            if let Some(o) = result.get("output") {
                b.insert("tools".into(), o.clone());
            }
            b.insert("type".into(), json!("mcp_list_tools"));
            if let Some(e) = result_extra("error") {
                b.insert("error".into(), e.clone());
            }
            for (k, v) in call_extras.into_iter().flatten() {
                if !matches!(k.as_str(), "server_label" | "error") {
                    b.insert(k.clone(), v.clone());
                }
            }
        }
        _ => return None,
    }
    Some(Value::Object(b))
}

/// Each server tool call followed by its result as the one item they were read from; any
/// other block as it is.
fn consolidate_calls(blocks: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(blocks.len());
    let mut iter = blocks.into_iter();
    while let Some(current) = iter.next() {
        let is_call = current.get("type").and_then(Value::as_str) == Some("server_tool_call");
        if !is_call {
            out.push(current);
            continue;
        }
        let Some(next) = iter.next() else {
            out.push(current);
            break;
        };
        let merged = match (current.as_object(), next.as_object()) {
            (Some(c), Some(n))
                if str_of(n, "type") == Some("server_tool_result")
                    && n.get("tool_call_id") == c.get("id") =>
            {
                server_item(c, n)
            }
            _ => None,
        };
        match merged {
            Some(item) => out.push(item),
            None => {
                out.push(current);
                out.push(next);
            }
        }
    }
    out
}

/// The Responses blocks a v1 reply's content stands for.
pub(super) fn responses_blocks(m: &AiMessage, blocks: &[Value]) -> Vec<Value> {
    let read = blocks
        .iter()
        .filter_map(|b| responses_block(b, &m.tool_calls))
        .collect();
    consolidate_calls(implode_reasoning(read))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_parts_of_one_item_make_one_item_with_its_encrypted_content() {
        let blocks = vec![
            json!({"id": "rs_1", "type": "reasoning", "index": "lc_rs_30", "reasoning": "a",
                   "extras": {"encrypted_content": "E"}}),
            json!({"id": "rs_1", "type": "reasoning", "index": "lc_rs_31", "reasoning": "b"}),
            json!({"type": "text", "text": "t", "id": "msg_1",
                   "annotations": [{"type": "citation", "url": "u", "title": "T",
                                    "start_index": 0, "end_index": 1}]}),
        ];
        let read = responses_blocks(&AiMessage::default(), &blocks);
        assert_eq!(
            serde_json::to_string(&read).ok(),
            serde_json::to_string(&json!([
                {"id": "rs_1", "summary": [{"type": "summary_text", "text": "a"},
                                           {"type": "summary_text", "text": "b"}],
                 "type": "reasoning", "encrypted_content": "E"},
                {"type": "text", "text": "t", "id": "msg_1",
                 "annotations": [{"end_index": 1, "start_index": 0, "title": "T",
                                  "type": "url_citation", "url": "u"}]},
            ]))
            .ok()
        );
    }
}
