//! An AI message whose content is LangChain's v1 content blocks (`output_version: "v1"`:
//! what LangGraph's v3 stream makes every reply) read back as the Messages API blocks the
//! reply was made of, so the next request sends the same bytes as when the reply kept the
//! provider's own blocks (the prompt cache's prefix depends on it).

use serde_json::{Map, Value, json};

use crate::pyrepr::truthy;

fn str_of<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

fn extra<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get("extras").and_then(|e| e.get(key))
}

/// The Messages API block a v1 block stands for (`None`: nothing is sent for it). Blocks
/// with no Anthropic reading stay as they are; `from_anthropic` is whether the reply came
/// from Anthropic (only then do reasoning and provider blocks have one).
pub(super) fn to_anthropic(block: &Value, from_anthropic: bool) -> Option<Value> {
    let Value::Object(o) = block else {
        return Some(block.clone());
    };
    let kind = str_of(o, "type").unwrap_or_default();
    Some(match kind {
        // The reply's text blocks: text first, as the provider's block has it.
        "text" => {
            let mut out = Map::new();
            out.insert("text".into(), json!(str_of(o, "text").unwrap_or_default()));
            out.insert("type".into(), json!("text"));
            // A reply's citations, read back as the Messages API's.
            if from_anthropic && let Some(list) = o.get("annotations").and_then(Value::as_array) {
                out.insert(
                    "citations".into(),
                    Value::Array(list.iter().map(citation).collect()),
                );
            }
            Value::Object(out)
        }
        // The Messages API takes no refusal.
        "refusal" => return None,
        // Read as the provider's `tool_use` block (the message's tool call of that id wins).
        "tool_call" => {
            let mut out = json!({
                "type": "tool_use",
                "name": o.get("name").cloned().unwrap_or_else(|| json!("")),
                "input": o.get("args").cloned().unwrap_or_else(|| json!({})),
                "id": o.get("id").cloned().unwrap_or_else(|| json!("")),
            });
            for key in ["caller", "toolset_name"] {
                if let (Some(v), Value::Object(m)) = (extra(o, key), &mut out) {
                    m.insert(key.into(), v.clone());
                }
            }
            out
        }
        "tool_call_chunk" => {
            let input = match o.get("args") {
                Some(Value::String(s)) => {
                    serde_json::from_str::<Value>(if s.is_empty() { "{}" } else { s })
                        .unwrap_or_else(|_| json!({}))
                }
                Some(v) if !v.is_null() => v.clone(),
                _ => json!({}),
            };
            json!({
                "type": "tool_use",
                "name": o.get("name").cloned().unwrap_or_else(|| json!("")),
                "input": input,
                "id": o.get("id").cloned().unwrap_or_else(|| json!("")),
            })
        }
        // A call whose arguments did not parse: the provider's block streamed no input.
        "invalid_tool_call" => {
            let id = str_of(o, "id").filter(|s| !s.is_empty());
            let name = str_of(o, "name").filter(|s| !s.is_empty());
            match (id, name, from_anthropic) {
                (Some(id), Some(name), true) => {
                    json!({"type": "tool_use", "name": name, "input": {}, "id": id})
                }
                _ => return None,
            }
        }
        "reasoning" if from_anthropic => {
            let mut out = Map::new();
            if let Some(r) = o.get("reasoning") {
                out.insert("thinking".into(), r.clone());
            }
            out.insert("type".into(), json!("thinking"));
            if let Some(sig) = extra(o, "signature").filter(|s| truthy(s)) {
                out.insert("signature".into(), sig.clone());
            }
            Value::Object(out)
        }
        "server_tool_call" if from_anthropic => server_tool_use(o),
        "server_tool_result" if from_anthropic => server_tool_result(o),
        // A provider block LangChain has no standard block for, kept whole.
        "non_standard" if from_anthropic && o.contains_key("value") => o["value"].clone(),
        _ => block.clone(),
    })
}

/// A server tool's call as the `server_tool_use` (`mcp_tool_use`) block it was read from,
/// in the key order the API streams it (LangChain writes the SDK's; the next request's
/// bytes then match the native client's own reply).
fn server_tool_use(o: &Map<String, Value>) -> Value {
    let name = str_of(o, "name");
    let mut out = Map::new();
    let kind = if name == Some("remote_mcp") {
        "mcp_tool_use"
    } else {
        "server_tool_use"
    };
    out.insert("type".into(), json!(kind));
    if let Some(id) = o.get("id") {
        out.insert("id".into(), id.clone());
    }
    match name {
        Some("code_interpreter") => {
            out.insert("name".into(), json!("code_execution"));
        }
        Some("remote_mcp") => {
            for (from, to) in [("tool_name", "name"), ("server_name", "server_name")] {
                if let Some(v) = extra(o, from) {
                    out.insert(to.into(), v.clone());
                }
            }
        }
        _ => {
            out.insert(
                "name".into(),
                o.get("name").cloned().unwrap_or_else(|| json!("")),
            );
        }
    }
    match extra(o, "partial_json").filter(|p| truthy(p)) {
        Some(partial) => {
            out.insert("input".into(), json!({}));
            out.insert("partial_json".into(), partial.clone());
        }
        None => {
            out.insert(
                "input".into(),
                o.get("args").cloned().unwrap_or_else(|| json!({})),
            );
        }
    }
    Value::Object(out)
}

/// A server tool's result as the result block it was read from (its type kept in extras),
/// in the API's key order.
fn server_tool_result(o: &Map<String, Value>) -> Value {
    let kind = extra(o, "block_type").and_then(Value::as_str).unwrap_or("");
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    if let Some(id) = o.get("tool_call_id") {
        out.insert("tool_use_id".into(), id.clone());
    }
    if let Some(output) = o.get("output") {
        out.insert("content".into(), output.clone());
    }
    if kind == "mcp_tool_result" {
        out.insert(
            "is_error".into(),
            json!(str_of(o, "status") == Some("error")),
        );
    }
    Value::Object(out)
}

/// A v1 annotation as the Messages API citation it was read from, by the fields only that
/// kind of citation has.
fn citation(a: &Value) -> Value {
    let Value::Object(o) = a else {
        return a.clone();
    };
    match str_of(o, "type") {
        Some("non_standard_annotation") => return o.get("value").cloned().unwrap_or(Value::Null),
        Some("citation") => {}
        _ => return a.clone(),
    }
    let extras: Vec<(&String, &Value)> = o
        .get("extras")
        .and_then(Value::as_object)
        .map(|e| e.iter().collect())
        .unwrap_or_default();
    let has = |k: &str| extras.iter().any(|(key, _)| key.as_str() == k);
    let cited = o.get("cited_text").filter(|c| truthy(c));
    let title = o.get("title");
    let mut out = Map::new();
    let put_extras = |out: &mut Map<String, Value>, keep_first: bool| {
        for (k, v) in &extras {
            if !(keep_first && out.contains_key(k.as_str())) {
                out.insert((*k).clone(), (*v).clone());
            }
        }
    };
    if o.contains_key("url") {
        if let Some(c) = cited {
            out.insert("cited_text".into(), c.clone());
        }
        if let Some(e) = extra(o, "encrypted_index") {
            out.insert("encrypted_index".into(), e.clone());
        }
        if let Some(t) = title {
            out.insert("title".into(), t.clone());
        }
        out.insert("type".into(), json!("web_search_result_location"));
        out.insert("url".into(), o["url"].clone());
        put_extras(&mut out, true);
    } else if has("start_char_index") {
        out.insert("type".into(), json!("char_location"));
        if let Some(c) = cited {
            out.insert("cited_text".into(), c.clone());
        }
        if let Some(t) = title.filter(|t| truthy(t)) {
            out.insert("document_title".into(), t.clone());
        }
        put_extras(&mut out, false);
        out.sort_keys();
    } else if has("search_result_index") {
        out.insert("type".into(), json!("search_result_location"));
        if let Some(c) = cited {
            out.insert("cited_text".into(), c.clone());
        }
        if let Some(t) = title.filter(|t| truthy(t)) {
            out.insert("title".into(), t.clone());
        }
        put_extras(&mut out, false);
    } else if has("start_block_index") {
        if let Some(c) = cited {
            out.insert("cited_text".into(), c.clone());
        }
        if let Some(d) = extra(o, "document_index") {
            out.insert("document_index".into(), d.clone());
        }
        if let Some(t) = title {
            out.insert("document_title".into(), t.clone());
        }
        put_extras(&mut out, true);
        out.insert("type".into(), json!("content_block_location"));
    } else if has("start_page_number") {
        out.insert("type".into(), json!("page_location"));
        if let Some(c) = cited {
            out.insert("cited_text".into(), c.clone());
        }
        if let Some(t) = title.filter(|t| truthy(t)) {
            out.insert("document_title".into(), t.clone());
        }
        put_extras(&mut out, false);
    } else {
        return a.clone();
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::super::messages::assistant_content;
    use super::*;
    use crate::messages::{AiMessage, Content, ToolCall};

    fn message(content: Value, v1: bool) -> AiMessage {
        let mut meta = Map::new();
        meta.insert("model_provider".into(), json!("anthropic"));
        if v1 {
            meta.insert("output_version".into(), json!("v1"));
        }
        let Value::Array(blocks) = content else {
            unreachable!("blocks")
        };
        AiMessage {
            content: Content::Blocks(blocks),
            tool_calls: vec![ToolCall::new("add", json!({"a": 2}), "t1")],
            response_metadata: meta.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_v1_reply_reads_back_as_the_provider_blocks_it_was_made_of() {
        let native = message(
            json!([
                {"thinking": "hm", "type": "thinking", "index": 0, "signature": "s"},
                {"type": "redacted_thinking", "data": "x", "index": 1},
                {"text": "Adding.", "type": "text", "index": 2},
                {"id": "t1", "input": {}, "name": "add", "type": "tool_use", "index": 3,
                 "partial_json": "{\"a\": 2}"},
                {"id": "t2", "input": {}, "name": "bad", "type": "tool_use", "index": 4,
                 "partial_json": "{"},
            ]),
            false,
        );
        let v1 = message(
            json!([
                {"type": "reasoning", "reasoning": "hm", "index": 0, "extras": {"signature": "s"}},
                {"type": "non_standard", "value": {"type": "redacted_thinking", "data": "x", "index": 1}},
                {"type": "text", "text": "Adding.", "index": 2},
                {"type": "tool_call", "id": "t1", "name": "add", "args": {"a": 2}, "extras": {}},
                {"type": "invalid_tool_call", "id": "t2", "name": "bad", "args": "{", "error": null},
                {"type": "refusal", "refusal": "no"},
            ]),
            true,
        );
        let sent = assistant_content(&native);
        assert_eq!(
            serde_json::to_string(&assistant_content(&v1)).ok(),
            serde_json::to_string(&sent).ok()
        );
        assert_eq!(
            sent,
            json!([
                {"thinking": "hm", "type": "thinking", "signature": "s"},
                {"type": "redacted_thinking", "data": "x"},
                {"text": "Adding.", "type": "text"},
                {"type": "tool_use", "name": "add", "input": {"a": 2}, "id": "t1"},
                {"type": "tool_use", "name": "bad", "input": {}, "id": "t2"},
            ])
        );
    }
}
