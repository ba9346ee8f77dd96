//! LangChain messages as Anthropic Messages API turns, as langchain-anthropic formats them
//! (`_format_messages`): tool results become user turns, consecutive user turns merge, the
//! standard content blocks (images, ...) become Anthropic's, and blocks the API refuses are
//! dropped.

use serde_json::{Map, Value, json};

use super::plain_blocks;
use super::system_turns::{self, SystemContent};
use super::v1_blocks;
use crate::error::ModelError;
use crate::messages::{
    AiMessage, Content, HumanMessage, Message, ToolCall, ToolMessage, ToolStatus,
};
use crate::providers::json_string::write_json_string;

#[derive(PartialEq, Clone, Copy)]
pub(super) enum Role {
    User,
    Assistant,
}

/// One message as the request carries it, encoded once (`MessageCache`): its content's JSON
/// as a turn of its own, and as the blocks it adds to a merged user turn.
pub(super) struct Encoded {
    pub(super) part: Part,
    /// The content as sent when the message is a turn alone.
    json: Json,
    /// The content as the comma-joined blocks it contributes to a merged user turn.
    blocks: Blocks,
    /// An assistant turn the API refuses unless it is the final prefill.
    pub(super) empty: bool,
    /// Content whose last block is a server tool's result (a system turn may follow it).
    pub(super) server_result_last: bool,
}

/// A content's JSON.
enum Json {
    /// Written once, and kept while the encoding is (the client's cache keeps encodings).
    Kept(Box<str>),
    /// A text content, escaped straight from the message into the request as its turn is
    /// written (`encode_for_request`): a request's own encodings hold no copy of the texts
    /// (a run's first request encodes its whole history: at 2,000 messages 0.4 MB escaped
    /// into a buffer a message, then copied into the body).
    Text,
}

/// What a message adds to a merged user turn.
enum Blocks {
    /// The text block `{"type": "text", "text": s}` a string content serializes to, written
    /// around `json` (the string escaped once) when a merge needs it: most messages of a
    /// long history are text, and most are never merged.
    Text,
    /// The comma-joined blocks (none for an empty list).
    Joined(Box<str>),
    /// A list's blocks: `json` without its brackets (compact JSON writes a list as its
    /// items' comma-joined JSON in brackets), not kept twice.
    Listed,
}

impl Encoded {
    /// Appends the content's JSON, that of `message`, the message encoded.
    pub(super) fn write_json(&self, message: &Message, out: &mut Vec<u8>) {
        match &self.json {
            Json::Kept(json) => out.extend_from_slice(json.as_bytes()),
            Json::Text => write_json_string(out, text_of(message)),
        }
    }

    /// About how many bytes `write_json` appends (exactly, unless a text has escapes).
    pub(super) fn json_len(&self, message: &Message) -> usize {
        match &self.json {
            Json::Kept(json) => json.len(),
            Json::Text => text_of(message).len() + 2,
        }
    }

    /// Appends the blocks `message` (the message encoded) adds to a merged user turn;
    /// `false` when it adds none.
    pub(super) fn write_blocks(&self, message: &Message, out: &mut Vec<u8>) -> bool {
        match &self.blocks {
            Blocks::Text => {
                out.extend_from_slice(br#"{"type":"text","text":"#);
                self.write_json(message, out);
                out.push(b'}');
            }
            Blocks::Joined(blocks) if blocks.is_empty() => return false,
            Blocks::Joined(blocks) => out.extend_from_slice(blocks.as_bytes()),
            Blocks::Listed => match self
                .kept_json()
                .strip_prefix('[')
                .and_then(|j| j.strip_suffix(']'))
            {
                Some("") | None => return false,
                Some(blocks) => out.extend_from_slice(blocks.as_bytes()),
            },
        }
        true
    }

    /// The JSON kept (a list's is always kept; a text escaped when written has none).
    fn kept_json(&self) -> &str {
        match &self.json {
            Json::Kept(json) => json,
            Json::Text => "",
        }
    }

    /// The encoding of a list of content blocks written as JSON already (`[...]`): neither a
    /// server tool's result nor empty unless there are none.
    fn listed(role: Role, json: String) -> Encoded {
        Encoded {
            part: Part::Turn(role),
            empty: json == "[]",
            json: Json::Kept(json.into()),
            blocks: Blocks::Listed,
            server_result_last: false,
        }
    }

    /// A string content's encoding, escaped straight from the string, or (`later`) when it
    /// is written.
    fn text(role: Role, text: &str, later: bool) -> Encoded {
        let json = match later {
            true => Json::Text,
            false => Json::Kept(crate::providers::json_string::json_string(text).into()),
        };
        Encoded {
            part: Part::Turn(role),
            json,
            blocks: Blocks::Text,
            empty: text.is_empty(),
            server_result_last: false,
        }
    }
}

/// The text of a message whose content `Json::Text` escapes as it is written: a human
/// message's or a reply's text (empty for any other, which `encode_for_request` never
/// encodes so).
fn text_of(message: &Message) -> &str {
    match message {
        Message::Human(HumanMessage {
            content: Content::Text(text),
            ..
        })
        | Message::Ai(AiMessage {
            content: Content::Text(text),
            ..
        }) => text,
        _ => "",
    }
}

pub(super) enum Part {
    /// A system message's content (see `system_turns` for where it goes).
    System(SystemContent),
    Turn(Role),
}

pub(super) fn to_json(value: &Value) -> Result<String, ModelError> {
    serde_json::to_string(value)
        .map_err(|e| ModelError::Config(format!("unserializable request: {e}")))
}

/// One message's encoding, independent of its neighbours (merging and the final turn's
/// trimming happen when the turns are assembled).
pub(super) fn encode_message(message: &Message) -> Result<Encoded, ModelError> {
    encode(message, false)
}

/// `encode_message` for one request alone, which writes the turns with the very messages
/// encoded: a text content is escaped as its turn is written (`Json::Text`), not first
/// into a string of its own.
pub(super) fn encode_for_request(message: &Message) -> Result<Encoded, ModelError> {
    encode(message, true)
}

fn encode(message: &Message, text_later: bool) -> Result<Encoded, ModelError> {
    let (role, content) = match message {
        Message::System(m) => {
            return Ok(Encoded {
                part: Part::System(system_turns::encode(&m.content)),
                json: Json::Kept("".into()),
                blocks: Blocks::Joined("".into()),
                empty: false,
                server_result_last: false,
            });
        }
        // A text content goes as the string itself (`user_content`, `assistant_content`).
        Message::Human(m) => match &m.content {
            Content::Text(text) => return Ok(Encoded::text(Role::User, text, text_later)),
            content => (Role::User, user_content(content)),
        },
        Message::Tool(m) => match plain_blocks::tool_result(m) {
            Some(block) => return Ok(Encoded::listed(Role::User, block)),
            None => (Role::User, tool_result(m)),
        },
        Message::Ai(m) => match &m.content {
            Content::Text(text) if m.tool_calls.is_empty() => {
                return Ok(Encoded::text(Role::Assistant, text, text_later));
            }
            _ => match plain_blocks::tool_calls_reply(m) {
                Some(blocks) => return Ok(Encoded::listed(Role::Assistant, blocks)),
                None => (Role::Assistant, assistant_content(m)),
            },
        },
    };
    encode_content(role, content)
}

/// A tool message's content: its one `tool_result` block.
pub(super) fn tool_result(m: &ToolMessage) -> Value {
    let block = json!({
        "type": "tool_result",
        "content": tool_result_content(&m.content),
        "tool_use_id": m.tool_call_id,
        "is_error": m.status == ToolStatus::Error,
    });
    Value::Array(vec![block])
}

/// A content built as a `Value`, encoded: the path of every message `plain_blocks` does not
/// write itself.
pub(super) fn encode_content(role: Role, content: Value) -> Result<Encoded, ModelError> {
    let json = to_json(&content)?;
    let blocks = match &content {
        Value::String(_) => Blocks::Text,
        Value::Array(_) => Blocks::Listed,
        other => Blocks::Joined(to_json(other)?.into()),
    };
    Ok(Encoded {
        part: Part::Turn(role),
        json: Json::Kept(json.into()),
        blocks,
        empty: is_empty(&content),
        server_result_last: content
            .as_array()
            .and_then(|blocks| blocks.last())
            .and_then(|b| b.get("type"))
            .and_then(Value::as_str)
            .is_some_and(|t| t.ends_with("_tool_result")),
    })
}

/// The conversation as turns, each message encoded afresh (the request path goes through
/// the client's cache).
#[cfg(test)]
pub(super) fn format_messages(
    messages: &[std::sync::Arc<Message>],
) -> Result<(Vec<Value>, Vec<Value>), ModelError> {
    let encoded = messages
        .iter()
        .map(|m| encode_message(m).map(std::sync::Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let placement = super::turns::Placement {
        model: "claude-test",
        in_place: false,
        has_system: true,
    };
    let formatted = super::turns::format_turns(messages, &encoded, &placement)?;
    Ok((
        serde_json::from_str(&formatted.turns()).unwrap(),
        formatted.leading,
    ))
}

fn is_empty(content: &Value) -> bool {
    match content {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

pub(super) fn rstrip_last_text(content: &mut Value) {
    match content {
        Value::String(s) => *s = s.trim_end().to_owned(),
        Value::Array(blocks) => {
            if let Some(Value::Object(b)) = blocks.last_mut()
                && b.get("type").and_then(Value::as_str) == Some("text")
                && let Some(Value::String(t)) = b.get_mut("text")
            {
                *t = t.trim_end().to_owned();
            }
        }
        _ => {}
    }
}

/// A system message's content as text blocks.
pub(super) fn system_blocks(content: &Content) -> Vec<Value> {
    match content {
        Content::Text(s) if s.is_empty() => vec![],
        Content::Text(s) => vec![json!({"type": "text", "text": s})],
        Content::Blocks(b) => b
            .iter()
            .map(|blk| match blk {
                Value::String(s) => json!({"type": "text", "text": s}),
                other => other.clone(),
            })
            .collect(),
    }
}

/// Where a block sits: reasoning and function-call blocks survive only in Anthropic's own
/// replies.
#[derive(Clone, Copy)]
enum Origin {
    Anthropic,
    Other,
}

fn format_block(block: &Value, origin: Origin) -> Option<Value> {
    let o = match block {
        Value::String(s) => return Some(json!({"type": "text", "text": s})),
        Value::Object(o) => o,
        other => return Some(other.clone()),
    };
    match o.get("type").and_then(Value::as_str) {
        Some("text") => {
            let text = o.get("text").and_then(Value::as_str).unwrap_or("");
            // Whitespace-only text blocks are rejected by the API.
            if text.trim().is_empty() {
                return None;
            }
            Some(pick(o, &["type", "text", "cache_control", "citations"]))
        }
        Some("reasoning" | "function_call") if matches!(origin, Origin::Other) => None,
        // The streamed reply's `index` is not part of the API's blocks.
        Some("thinking") => {
            let mut out = pick(o, &["type", "thinking", "cache_control", "signature"]);
            if let Value::Object(m) = &mut out
                && m.contains_key("signature")
                && !m.contains_key("thinking")
            {
                m.insert("thinking".into(), json!(""));
            }
            Some(out)
        }
        Some("redacted_thinking") => Some(pick(o, &["type", "cache_control", "data"])),
        // The Messages API has no refusal input block.
        Some("refusal") => None,
        Some("image_url") => {
            let url = o
                .get("image_url")
                .and_then(|u| u.get("url").or(Some(u)))
                .and_then(Value::as_str)
                .unwrap_or_default();
            Some(json!({"type": "image", "source": image_source(url)}))
        }
        Some(kind @ ("image" | "file")) if is_data_block(o) => Some(data_block(kind, o)),
        _ => Some(block.clone()),
    }
}

fn pick(o: &Map<String, Value>, keys: &[&str]) -> Value {
    Value::Object(
        o.iter()
            .filter(|(k, _)| keys.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// LangChain's standard data block: `{"type": "image", "base64" | "url" | "file_id", ...}`.
fn is_data_block(o: &Map<String, Value>) -> bool {
    ["base64", "url", "file_id", "source_type"]
        .iter()
        .any(|k| o.contains_key(*k))
        && !o.contains_key("source")
}

/// A data URI as a base64 source, anything else as a URL source.
fn image_source(url: &str) -> Value {
    if let Some(rest) = url.strip_prefix("data:")
        && let Some((mime, data)) = rest.split_once(";base64,")
    {
        return json!({"type": "base64", "media_type": mime, "data": data});
    }
    json!({"type": "url", "url": url})
}

fn data_block(kind: &str, o: &Map<String, Value>) -> Value {
    let str_of = |k: &str| o.get(k).and_then(Value::as_str);
    let source = if let Some(url) = str_of("url") {
        if url.starts_with("data:") {
            image_source(url)
        } else {
            json!({"type": "url", "url": url})
        }
    } else if let Some(id) = str_of("file_id").or_else(|| str_of("id")) {
        json!({"type": "file", "file_id": id})
    } else {
        json!({
            "type": "base64",
            "media_type": str_of("mime_type").unwrap_or_default(),
            "data": str_of("base64").or_else(|| str_of("data")).unwrap_or_default(),
        })
    };
    let anthropic_type = if kind == "image" { "image" } else { "document" };
    let mut out = json!({"type": anthropic_type, "source": source});
    if let Some(cc) = o.get("cache_control") {
        out["cache_control"] = cc.clone();
    }
    out
}

fn user_content(content: &Content) -> Value {
    match content {
        Content::Text(s) => json!(s),
        Content::Blocks(b) => Value::Array(
            b.iter()
                .filter_map(|blk| format_block(blk, Origin::Other))
                .collect(),
        ),
    }
}

fn tool_result_content(content: &Content) -> Value {
    match content {
        Content::Text(s) => json!(s),
        Content::Blocks(b) => Value::Array(
            b.iter()
                .filter_map(|blk| format_block(blk, Origin::Other))
                .map(|mut blk| {
                    // The API refuses cache_control inside tool_result content.
                    if let Value::Object(o) = &mut blk {
                        o.shift_remove("cache_control");
                    }
                    blk
                })
                .collect(),
        ),
    }
}

fn tool_use(call: &ToolCall) -> Value {
    json!({
        "type": "tool_use",
        "name": call.name,
        "input": call.args,
        "id": call.id.clone().unwrap_or_default(),
    })
}

pub(super) fn assistant_content(m: &AiMessage) -> Value {
    let origin = match m.response_metadata.get_str("model_provider").as_deref() {
        Some("anthropic") => Origin::Anthropic,
        _ => Origin::Other,
    };
    let mut blocks: Vec<Value> = match &m.content {
        Content::Text(s) if m.tool_calls.is_empty() => return json!(s),
        Content::Text(s) if s.is_empty() => vec![],
        Content::Text(s) => vec![json!({"type": "text", "text": s})],
        Content::Blocks(b) => {
            let mut out = Vec::with_capacity(b.len());
            let v1 = crate::providers::is_v1_reply(m);
            let read: Vec<Value>;
            let b = if v1 {
                let from_anthropic = matches!(origin, Origin::Anthropic);
                read = b
                    .iter()
                    .filter_map(|blk| v1_blocks::to_anthropic(blk, from_anthropic))
                    .collect();
                &read
            } else {
                b
            };
            for block in b {
                let is_tool_use = block.get("type").and_then(Value::as_str) == Some("tool_use");
                if !is_tool_use {
                    out.extend(format_block(block, origin));
                    continue;
                }
                // A tool_call with the block's id wins over the block itself.
                let id = block.get("id").and_then(Value::as_str);
                match m.tool_calls.iter().find(|c| c.id.as_deref() == id) {
                    Some(call) => out.push(tool_use(call)),
                    None => out.push(json!({
                        "type": "tool_use",
                        "name": block.get("name").cloned().unwrap_or(Value::Null),
                        "input": block.get("input").cloned().unwrap_or_else(|| json!({})),
                        "id": id.unwrap_or_default(),
                    })),
                }
            }
            out
        }
    };
    let present: Vec<String> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect();
    for call in &m.tool_calls {
        if !present
            .iter()
            .any(|id| Some(id.as_str()) == call.id.as_deref())
        {
            blocks.push(tool_use(call));
        }
    }
    Value::Array(blocks)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::messages::{HumanMessage, SystemMessage, ToolMessage};

    fn arc(messages: Vec<Message>) -> Vec<Arc<Message>> {
        messages.into_iter().map(Arc::new).collect()
    }

    #[test]
    fn tool_results_and_user_text_merge_into_one_user_turn() {
        let ai = AiMessage {
            content: Content::Text("Looking.".into()),
            tool_calls: vec![ToolCall::new("lookup", json!({"k": 1}), "t1")],
            ..Default::default()
        };
        let tool = ToolMessage {
            id: None,
            ..ToolMessage::answer("t1", "lookup", "found", ToolStatus::Error)
        };
        let (turns, system) = format_messages(&arc(vec![
            Message::System(SystemMessage {
                content: "extra".into(),
                ..Default::default()
            }),
            Message::human("hi"),
            Message::Ai(ai),
            Message::Tool(tool),
            Message::human("and?"),
        ]))
        .unwrap();
        assert_eq!(system, vec![json!({"type": "text", "text": "extra"})]);
        assert_eq!(
            turns,
            vec![
                json!({"role": "user", "content": "hi"}),
                json!({"role": "assistant", "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "name": "lookup", "input": {"k": 1}, "id": "t1"},
                ]}),
                json!({"role": "user", "content": [
                    {"type": "tool_result", "content": "found", "tool_use_id": "t1", "is_error": true},
                    {"type": "text", "text": "and?"},
                ]}),
            ]
        );
    }

    #[test]
    fn a_late_system_message_is_an_error() {
        let late = Message::System(SystemMessage::default());
        let err = format_messages(&arc(vec![Message::human("hi"), late])).unwrap_err();
        assert!(err.to_string().contains("non-consecutive system messages"));
    }

    #[test]
    fn images_become_anthropic_sources_and_refusals_are_dropped() {
        let human = Message::Human(HumanMessage {
            content: Content::Blocks(vec![
                json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}}),
                json!({"type": "image", "url": "https://x/y.jpg"}),
                json!({"type": "refusal", "refusal": "no"}),
                json!({"type": "text", "text": "  "}),
            ]),
            ..Default::default()
        });
        let (turns, _) = format_messages(&arc(vec![human])).unwrap();
        assert_eq!(
            turns[0]["content"],
            json!([
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}},
                {"type": "image", "source": {"type": "url", "url": "https://x/y.jpg"}},
            ])
        );
    }

    #[test]
    fn turns_from_cached_encodings_match_fresh_ones_wherever_a_message_sits() {
        use crate::providers::message_cache::MessageCache;
        let cache = MessageCache::default();
        let through_cache = |messages: &[Arc<Message>]| {
            let encoded = cache.encode_all(messages, encode_message).unwrap();
            let placement = crate::providers::anthropic::turns::Placement {
                model: "claude-test",
                in_place: false,
                has_system: true,
            };
            crate::providers::anthropic::turns::format_turns(messages, &encoded, &placement)
                .unwrap()
                .turns()
        };
        let fresh = |messages: &[Arc<Message>]| {
            let (turns, _) = format_messages(messages).unwrap();
            serde_json::to_string(&turns).unwrap()
        };
        let empty_ai = Message::Ai(AiMessage::default());
        let trailing = Message::Ai(AiMessage {
            content: Content::Text("Done.  \n".into()),
            ..Default::default()
        });
        let blocks = Message::Human(HumanMessage {
            content: Content::Blocks(vec![json!({"type": "text", "text": "b"})]),
            ..Default::default()
        });
        let no_blocks = Message::Human(HumanMessage {
            content: Content::Blocks(vec![]),
            ..Default::default()
        });
        let mut history = arc(vec![empty_ai, Message::human("a"), blocks, no_blocks]);
        history.push(Arc::new(trailing));
        // The final assistant turn is trimmed; the same message before a user turn is not.
        let first = through_cache(&history);
        assert_eq!(first, fresh(&history));
        assert!(first.contains(r#""content":"Done.""#), "{first}");
        history.push(Arc::new(Message::human("more")));
        history.push(Arc::new(Message::Ai(AiMessage::default())));
        let second = through_cache(&history);
        assert_eq!(second, fresh(&history));
        assert!(second.contains(r#""content":"Done.  \n""#), "{second}");
        // The leading empty assistant turn is dropped, the final empty one kept as a prefill.
        let turns: Vec<Value> = serde_json::from_str(&second).unwrap();
        assert_eq!(
            turns[0],
            json!({"role": "user", "content": [
                {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
            ]})
        );
        assert_eq!(
            turns.last().unwrap(),
            &json!({"role": "assistant", "content": ""})
        );
    }
}
