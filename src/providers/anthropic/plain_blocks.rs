//! The content blocks of the two messages nearly every step adds, written straight as JSON:
//! a tool's text result, and a reply of tool calls (with its text blocks). The general
//! encoding (`messages::encode_message`'s own) builds a `serde_json::Value` of the content
//! first, an ordered map per block whose every key is hashed, then serializes it: with the
//! blocks serialized a second time for a merged user turn, about 35K instructions for these
//! two messages, most of a step's request encoding. Written here, they are the same bytes
//! (`plain_blocks_match_the_general_encoding` compares them) for a few thousand.
//!
//! Anything else (other content, a reply in LangChain's v1 blocks, a tool_use block with no
//! call of its id) answers `None` and takes the general path.

use serde_json::Value;

use crate::messages::{AiMessage, Content, ToolCall, ToolMessage, ToolStatus};
use crate::providers::json_string::write_json_string;

/// A text tool result as the list of its one `tool_result` block (`{"type", "content", "tool_use_id",
/// "is_error"}`, the general path's key order).
pub(super) fn tool_result(m: &ToolMessage) -> Option<String> {
    let Content::Text(text) = &m.content else {
        return None;
    };
    let mut out = Vec::with_capacity(text.len() + m.tool_call_id.len() + 74);
    out.extend_from_slice(br#"[{"type":"tool_result","content":"#);
    write_json_string(&mut out, text);
    out.extend_from_slice(br#","tool_use_id":"#);
    write_json_string(&mut out, &m.tool_call_id);
    out.extend_from_slice(match m.status {
        ToolStatus::Error => br#","is_error":true}]"#,
        _ => br#","is_error":false}]"#,
    });
    String::from_utf8(out).ok()
}

/// A reply with tool calls as the list of its blocks: its text blocks as the API takes them
/// and a `tool_use` block per call. `None` for any block other than a text block or a
/// `tool_use` block whose id one of the calls has.
pub(super) fn tool_calls_reply(m: &AiMessage) -> Option<String> {
    if m.tool_calls.is_empty() {
        return None;
    }
    let mut out = vec![b'['];
    let mut present: Vec<&str> = Vec::new();
    match &m.content {
        Content::Text(s) if s.is_empty() => {}
        Content::Text(s) => {
            out.extend_from_slice(br#"{"type":"text","text":"#);
            write_json_string(&mut out, s);
            out.push(b'}');
        }
        Content::Blocks(blocks) => {
            // v1 blocks are read back through `v1_blocks`; the check reads the reply's
            // metadata, so it is made only for a reply of blocks.
            if crate::providers::is_v1_reply(m) {
                return None;
            }
            for block in blocks {
                let Value::Object(o) = block else {
                    return None;
                };
                match o.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = o.get("text").and_then(Value::as_str).unwrap_or("");
                        // Whitespace-only text blocks are rejected by the API.
                        if text.trim().is_empty() {
                            continue;
                        }
                        comma(&mut out);
                        out.push(b'{');
                        let mut first = true;
                        for (k, v) in o {
                            if !matches!(
                                k.as_str(),
                                "type" | "text" | "cache_control" | "citations"
                            ) {
                                continue;
                            }
                            if !first {
                                out.push(b',');
                            }
                            first = false;
                            write_json_string(&mut out, k);
                            out.push(b':');
                            serde_json::to_writer(&mut out, v).ok()?;
                        }
                        out.push(b'}');
                    }
                    Some("tool_use") => {
                        // A call of the block's id wins over the block; a block without
                        // one (or without an id) is the general path's.
                        let id = o.get("id").and_then(Value::as_str)?;
                        let call = m.tool_calls.iter().find(|c| c.id.as_deref() == Some(id))?;
                        comma(&mut out);
                        tool_use(&mut out, call, id)?;
                        present.push(id);
                    }
                    _ => return None,
                }
            }
        }
    }
    // The calls no block showed follow, in order.
    for call in &m.tool_calls {
        let id = call.id.as_deref();
        if id.is_some_and(|id| present.contains(&id)) {
            continue;
        }
        comma(&mut out);
        tool_use(&mut out, call, id.unwrap_or_default())?;
    }
    out.push(b']');
    String::from_utf8(out).ok()
}

/// A comma unless the list is still empty (`[`).
fn comma(out: &mut Vec<u8>) {
    if out.len() > 1 {
        out.push(b',');
    }
}

/// `{"type":"tool_use","name","input","id"}`, as the general path orders them.
fn tool_use(out: &mut Vec<u8>, call: &ToolCall, id: &str) -> Option<()> {
    out.extend_from_slice(br#"{"type":"tool_use","name":"#);
    write_json_string(out, &call.name);
    out.extend_from_slice(br#","input":"#);
    serde_json::to_writer(&mut *out, &call.args).ok()?;
    out.extend_from_slice(br#","id":"#);
    write_json_string(out, id);
    out.push(b'}');
    Some(())
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::messages::{
        Encoded, Role, assistant_content, encode_content, encode_message, tool_result,
    };
    use crate::compact_map::CompactMap;
    use crate::messages::{AiMessage, Content, Message, ToolCall, ToolMessage, ToolStatus};

    fn parts(e: &Encoded, m: &Message) -> (String, Option<String>, bool, bool) {
        let mut blocks = Vec::new();
        let some = e.write_blocks(m, &mut blocks);
        let blocks = some.then(|| String::from_utf8(blocks).unwrap());
        let mut json = Vec::new();
        e.write_json(m, &mut json);
        let json = String::from_utf8(json).unwrap();
        (json, blocks, e.empty, e.server_result_last)
    }

    fn reply(content: Content, calls: Vec<ToolCall>, metadata: Value) -> AiMessage {
        let Value::Object(metadata) = metadata else {
            unreachable!()
        };
        AiMessage {
            content,
            tool_calls: calls,
            response_metadata: CompactMap::from_map(&metadata),
            ..Default::default()
        }
    }

    #[test]
    fn plain_blocks_match_the_general_encoding() {
        let call = |name: &str, args: Value, id: &str| ToolCall::new(name, args, id);
        let calls = vec![
            call(
                "echo",
                json!({"text": "step \"1\"\n", "n": [1, 2.5, null]}),
                "toolu_1",
            ),
            call("ls", json!({}), "toolu_2"),
        ];
        let anthropic = json!({"model_provider": "anthropic", "model_name": "claude"});
        let use_block = |id: &str| json!({"type": "tool_use", "id": id, "name": "x", "input": {}});
        let text = |t: &str| json!({"type": "text", "text": t});
        let replies = [
            reply(Content::Text(String::new()), calls.clone(), json!({})),
            reply(
                Content::Text("Looking \u{1} é".into()),
                calls.clone(),
                json!({}),
            ),
            reply(
                Content::Blocks(vec![use_block("toolu_1")]),
                calls.clone(),
                anthropic.clone(),
            ),
            reply(
                Content::Blocks(vec![
                    json!({"text": "first", "citations": null, "type": "text", "index": 0}),
                    text("  \n"),
                    use_block("toolu_2"),
                    use_block("toolu_1"),
                ]),
                calls.clone(),
                anthropic.clone(),
            ),
            // Falls back: a block with no call of its id, a reasoning block, v1 blocks.
            reply(
                Content::Blocks(vec![use_block("toolu_9")]),
                calls.clone(),
                anthropic.clone(),
            ),
            reply(
                Content::Blocks(vec![json!({"type": "reasoning", "reasoning": "r"})]),
                calls.clone(),
                json!({}),
            ),
            reply(
                Content::Blocks(vec![text("a")]),
                calls.clone(),
                json!({"output_version": "v1"}),
            ),
            // A call without an id is sent with an empty one.
            reply(
                Content::Blocks(vec![text("b")]),
                vec![ToolCall {
                    id: None,
                    ..call("echo", json!({"a": 1}), "")
                }],
                json!({}),
            ),
        ];
        let mut plain = 0;
        for m in replies {
            plain += usize::from(super::tool_calls_reply(&m).is_some());
            let general = encode_content(Role::Assistant, assistant_content(&m)).unwrap();
            let message = Message::Ai(m.clone());
            let fast = encode_message(&message).unwrap();
            assert_eq!(parts(&fast, &message), parts(&general, &message), "{m:?}");
        }
        assert_eq!(plain, 5, "the replies written here");
        for (content, status) in [
            (
                Content::Text("out\t\"q\"\u{7f}".into()),
                ToolStatus::Success,
            ),
            (Content::Text(String::new()), ToolStatus::Error),
            (Content::Blocks(vec![text("block")]), ToolStatus::Success),
        ] {
            let m = ToolMessage::answer("toolu_\"1", "echo", content, status);
            let general = encode_content(Role::User, tool_result(&m)).unwrap();
            let message = Message::Tool(m);
            let fast = encode_message(&message).unwrap();
            assert_eq!(parts(&fast, &message), parts(&general, &message));
        }
    }
}
