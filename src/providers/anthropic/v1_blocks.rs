//! An AI message whose content is LangChain's v1 content blocks (`output_version: "v1"`:
//! what LangGraph's v3 stream makes every reply) read back as the Messages API blocks the
//! reply was made of, so the next request sends the same bytes as when the reply kept the
//! provider's own blocks (the prompt cache's prefix depends on it).

use serde_json::{Map, Value, json};

use crate::messages::AiMessage;

/// Whether the message's content is v1 blocks.
pub(super) fn is_v1(m: &AiMessage) -> bool {
    m.response_metadata
        .get("output_version")
        .and_then(Value::as_str)
        == Some("v1")
}

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
        "text" => json!({"text": str_of(o, "text").unwrap_or_default(), "type": "text"}),
        // The Messages API takes no refusal.
        "refusal" => return None,
        // Read as the provider's `tool_use` block (the message's tool call of that id wins).
        "tool_call" => json!({
            "type": "tool_use",
            "name": o.get("name").cloned().unwrap_or_else(|| json!("")),
            "input": o.get("args").cloned().unwrap_or_else(|| json!({})),
            "id": o.get("id").cloned().unwrap_or_else(|| json!("")),
        }),
        "tool_call_chunk" => {
            let input = match o.get("args") {
                Some(Value::String(s)) => serde_json::from_str::<Value>(if s.is_empty() {
                    "{}"
                } else {
                    s
                })
                .unwrap_or_else(|_| json!({})),
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
            if let Some(sig) = extra(o, "signature").filter(|s| is_truthy(s)) {
                out.insert("signature".into(), sig.clone());
            }
            Value::Object(out)
        }
        // A provider block LangChain has no standard block for, kept whole.
        "non_standard" if from_anthropic && o.contains_key("value") => o["value"].clone(),
        _ => block.clone(),
    })
}

fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::messages::assistant_content;
    use super::*;
    use crate::messages::{Content, ToolCall};

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
            response_metadata: meta,
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
