//! A Messages API reply of the common shape read from its bytes straight into the message a
//! conversation keeps: its blocks made at their sizes as they are read, its metadata and
//! usage details written as their compact text, with no `Value` tree of the whole reply in
//! between (read into a tree, moved and copied into the kept shapes, the reply was the
//! largest single cost of a step on the workers).
//!
//! The common shape is the reply's declared fields (no others), text, tool-use, thinking and
//! redacted-thinking blocks, and usage counts that are integers. Anything else (another
//! field or block type, a value of an unexpected type, a duplicate key, citations) makes
//! `read` give `None`, and the reply is read by `parse_response`, which reads every shape:
//! what this reading makes is what that one makes of the same bytes, field for field and in
//! the same order (`tests` holds the two to a corpus).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::{PROVIDER, response, sdk_dump};
use crate::compact_map::CompactMap;
use crate::messages::{AiMessage, Content, ToolCall, Usage};
use crate::providers::json_string::{is_plain_json_string, write_json_string};

/// The reply as read, before it is made into the message.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reply<'a> {
    #[serde(borrow)]
    id: Cow<'a, str>,
    // Dropped, whatever they hold, as the general path drops them.
    #[serde(rename = "type")]
    _kind: Option<IgnoredAny>,
    #[serde(rename = "role")]
    _role: Option<IgnoredAny>,
    #[serde(borrow)]
    model: Cow<'a, str>,
    #[serde(borrow)]
    content: Vec<Block<'a>>,
    // Null and absent are alike (a declared field's null is left out of what is kept); a
    // string with escapes is not borrowed, and goes to the general path.
    stop_reason: Option<&'a str>,
    stop_sequence: Option<&'a str>,
    #[serde(borrow)]
    usage: ReplyUsage<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplyUsage<'a> {
    cache_creation: Option<CacheCreation>,
    cache_creation_input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    inference_geo: Option<&'a str>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    #[serde(rename = "output_tokens_details")]
    _output_tokens_details: Option<Never>,
    #[serde(rename = "server_tool_use")]
    _server_tool_use: Option<Never>,
    service_tier: Option<&'a str>,
    #[serde(rename = "speed")]
    _speed: Option<Never>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheCreation {
    ephemeral_1h_input_tokens: Option<u64>,
    ephemeral_5m_input_tokens: Option<u64>,
}

/// A field this reading takes only as null (or absent): any other value is not the common
/// shape.
#[derive(Deserialize)]
enum Never {}

/// A block's fields, each `None` when absent, `Some(None)` when null: a field a block's type
/// does not declare is kept as sent, null included, so it must be absent here.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Block<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(default, deserialize_with = "present")]
    text: Option<Option<String>>,
    // Dropped when null, as langchain-anthropic drops them.
    #[serde(rename = "citations")]
    _citations: Option<Never>,
    #[serde(rename = "caller")]
    _caller: Option<Never>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    name: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    input: Option<Option<Exact>>,
    #[serde(default, deserialize_with = "present")]
    toolset_name: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    thinking: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    signature: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    data: Option<Option<String>>,
}

/// A field that is present: `Some(None)` when null.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// The reply in `body` as `parse_response` makes it, when it has the common shape.
pub(super) fn read(body: &[u8]) -> Option<AiMessage> {
    let reply: Reply = serde_json::from_slice(body).ok()?;
    let metadata = metadata_text(&reply);
    let usage = usage_metadata(&reply.usage);
    let single_text = matches!(&reply.content[..], [b] if b.kind == "text");
    let mut tool_calls = Vec::with_capacity(
        reply
            .content
            .iter()
            .filter(|b| b.kind == "tool_use")
            .count(),
    );
    let mut blocks = Vec::with_capacity(reply.content.len());
    let mut single = None;
    for block in reply.content {
        if single_text {
            // Its other fields are not kept (as the general path has it).
            single = Some(block.text.flatten().unwrap_or_default());
            break;
        }
        blocks.push(Value::Object(kept_block(block, &mut tool_calls)?));
    }
    let content = match single {
        Some(text) => Content::Text(text),
        None => Content::Blocks(blocks),
    };
    Some(AiMessage {
        content,
        tool_calls,
        id: None,
        usage_metadata: Some(Box::new(usage)),
        response_metadata: CompactMap::from_text(metadata, Some(&sdk_dump::REPLY_NULLS)),
        ..Default::default()
    })
}

/// The optional fields a block holds, a bit each (`Block::held`): a block of each type may
/// hold only its type's declared fields (`kept_block`).
const TEXT: u8 = 1;
const ID: u8 = 1 << 1;
const NAME: u8 = 1 << 2;
const INPUT: u8 = 1 << 3;
const TOOLSET_NAME: u8 = 1 << 4;
const THINKING: u8 = 1 << 5;
const SIGNATURE: u8 = 1 << 6;
const DATA: u8 = 1 << 7;

impl Block<'_> {
    /// Which of the optional fields the block holds (null included).
    fn held(&self) -> u8 {
        [
            (self.text.is_some(), TEXT),
            (self.id.is_some(), ID),
            (self.name.is_some(), NAME),
            (self.input.is_some(), INPUT),
            (self.toolset_name.is_some(), TOOLSET_NAME),
            (self.thinking.is_some(), THINKING),
            (self.signature.is_some(), SIGNATURE),
            (self.data.is_some(), DATA),
        ]
        .iter()
        .filter(|(held, _)| *held)
        .fold(0, |all, (_, bit)| all | bit)
    }
}

/// A block as `response::sdk_block` keeps it (its type's declared fields in the SDK's
/// order, a missing one as null), its tool call pushed to `calls`; `None` for a block of
/// another shape.
fn kept_block(b: Block<'_>, calls: &mut Vec<ToolCall>) -> Option<Map<String, Value>> {
    let string = |v: Option<String>| v.map_or(Value::Null, Value::String);
    let or_null = |v: Option<Option<String>>| string(v.flatten());
    let declared = match b.kind {
        "text" => TEXT,
        "tool_use" => ID | NAME | INPUT | TOOLSET_NAME,
        "thinking" => THINKING | SIGNATURE,
        "redacted_thinking" => DATA,
        _ => return None,
    };
    if b.held() & !declared != 0 {
        return None;
    }
    let mut out;
    match b.kind {
        "tool_use" => {
            // Without an id, a name or an input, the call is made otherwise.
            let (Some(Some(id)), Some(Some(name)), Some(input)) = (b.id, b.name, b.input) else {
                return None;
            };
            let input = input.map_or(Value::Null, |Exact(v)| v);
            calls.push(ToolCall::new(&name, response::exact_copy(&input), &id));
            out = Map::with_capacity(5);
            out.insert("id".into(), Value::String(id));
            out.insert("input".into(), input);
            out.insert("name".into(), Value::String(name));
            out.insert("type".into(), Value::String(b.kind.to_owned()));
            out.insert("toolset_name".into(), or_null(b.toolset_name));
            return Some(out);
        }
        "text" => {
            out = Map::with_capacity(2);
            out.insert("text".into(), or_null(b.text));
        }
        "thinking" => {
            out = Map::with_capacity(3);
            out.insert("signature".into(), or_null(b.signature));
            out.insert("thinking".into(), or_null(b.thinking));
        }
        _ => {
            out = Map::with_capacity(2);
            out.insert("data".into(), or_null(b.data));
        }
    }
    out.insert("type".into(), Value::String(b.kind.to_owned()));
    Some(out)
}

/// `response::usage_metadata` of this usage.
fn usage_metadata(u: &ReplyUsage) -> Usage {
    let uncached = u.input_tokens.unwrap_or(0);
    let cache_read = u.cache_read_input_tokens;
    let mut cache_creation = u.cache_creation_input_tokens;
    // The counts by time to live, in the order `usage_metadata` gives them.
    let ttl = u.cache_creation.as_ref().map(|cc| {
        [
            ("ephemeral_5m_input_tokens", cc.ephemeral_5m_input_tokens),
            ("ephemeral_1h_input_tokens", cc.ephemeral_1h_input_tokens),
        ]
    });
    let by_ttl: u64 = ttl.iter().flatten().filter_map(|(_, v)| *v).sum();
    if by_ttl > 0 {
        cache_creation = Some(0);
    }
    let mut details = Text::with_capacity(128);
    details.count("cache_read", cache_read);
    details.count("cache_creation", cache_creation);
    for (key, v) in ttl.iter().flatten() {
        details.count(key, *v);
    }
    let written = if by_ttl > 0 {
        by_ttl
    } else {
        cache_creation.unwrap_or(0)
    };
    let input = uncached + cache_read.unwrap_or(0) + written;
    let output = u.output_tokens.unwrap_or(0);
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        input_token_details: Some(CompactMap::from_text(details.close(), None)),
        output_token_details: None,
    }
}

/// The reply's metadata as `sdk_dump::reply_metadata(.., false)` writes it, then
/// `model_name` and `model_provider`.
fn metadata_text(reply: &Reply) -> String {
    // The constant keys' share of the text (~350 bytes) and its strings: written into one
    // buffer made big enough at once, not one grown from empty (six reallocations a reply).
    let mut t = Text::with_capacity(384 + reply.id.len() + 2 * reply.model.len());
    t.string("id", Some(&reply.id));
    t.string("model", Some(&reply.model));
    t.string("stop_reason", reply.stop_reason);
    t.string("stop_sequence", reply.stop_sequence);
    let u = &reply.usage;
    let mut usage = Text::with_capacity(256);
    if let Some(cc) = &u.cache_creation {
        let mut by_ttl = Text::with_capacity(128);
        by_ttl.count("ephemeral_1h_input_tokens", cc.ephemeral_1h_input_tokens);
        by_ttl.count("ephemeral_5m_input_tokens", cc.ephemeral_5m_input_tokens);
        usage.object("cache_creation", by_ttl);
    }
    usage.count("cache_creation_input_tokens", u.cache_creation_input_tokens);
    usage.count("cache_read_input_tokens", u.cache_read_input_tokens);
    usage.string("inference_geo", u.inference_geo);
    usage.count("input_tokens", u.input_tokens);
    usage.count("output_tokens", u.output_tokens);
    usage.string("service_tier", u.service_tier);
    t.object("usage", usage);
    t.string("model_name", Some(&reply.model));
    t.string("model_provider", Some(PROVIDER));
    t.close()
}

/// An object's compact text as `serde_json` writes it, written field by field (a field
/// without a value left out).
struct Text(Vec<u8>);

impl Text {
    /// An empty text with room for `bytes` (every reply writes the same keys, so each
    /// text's size is known to within its strings and counts).
    fn with_capacity(bytes: usize) -> Self {
        Text(Vec::with_capacity(bytes))
    }

    /// The key as literal bytes: every key is one of this module's constant field names,
    /// none with a byte JSON escapes, so passing it through `write_json_string` on every
    /// reply only re-proved that (most of the instructions spent on counts and strings).
    fn key(&mut self, key: &'static str) {
        debug_assert!(is_plain_json_string(key), "{key:?} needs escaping");
        self.0.push(if self.0.is_empty() { b'{' } else { b',' });
        self.0.push(b'"');
        self.0.extend_from_slice(key.as_bytes());
        self.0.extend_from_slice(b"\":");
    }

    fn string(&mut self, key: &'static str, value: Option<&str>) {
        if let Some(value) = value {
            self.key(key);
            write_json_string(&mut self.0, value);
        }
    }

    fn count(&mut self, key: &'static str, value: Option<u64>) {
        if let Some(n) = value {
            self.key(key);
            write_u64(&mut self.0, n);
        }
    }

    /// An object's text (`{}` when it has no fields).
    fn object(&mut self, key: &'static str, value: Text) {
        self.key(key);
        let inner = value.close();
        self.0.extend_from_slice(if inner.is_empty() {
            b"{}"
        } else {
            inner.as_bytes()
        });
    }

    /// The text, empty for an object with no fields (as `CompactMap` holds `{}`).
    fn close(mut self) -> String {
        if !self.0.is_empty() {
            self.0.push(b'}');
        }
        // Only whole strings and ASCII were written.
        String::from_utf8(self.0).unwrap_or_default()
    }
}

/// `n`'s decimal digits, as `serde_json` writes an integer.
fn write_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// A JSON value whose objects and arrays are made at their sizes as they are read: a
/// conversation keeps every tool call's input, and a map grown by inserting keeps room for
/// entries it never gets (`response::exact_copy` makes the same from a parsed value).
struct Exact(Value);

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ExactVisitor).map(Exact)
    }
}

struct ExactVisitor;

impl<'de> Visitor<'de> for ExactVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Exact(item)) = seq.next_element()? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Exact(value) = map.next_value()?;
            entries.push((key, value));
        }
        let mut out = Map::with_capacity(entries.len());
        // A repeated key keeps its first place and its last value, as a parsed `Map` has it.
        out.extend(entries);
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap_count::held_by;
    use crate::providers::anthropic::response::parse_response;
    use serde_json::json;

    /// Only to say why a reply was not read here, in a test's message.
    fn why_not(body: &[u8]) -> String {
        match serde_json::from_slice::<Reply>(body) {
            Err(e) => e.to_string(),
            Ok(_) => "read as a Reply; a block of another shape".into(),
        }
    }

    /// The message the general path makes of `body`, and what it holds of the heap.
    fn general(body: &[u8]) -> (AiMessage, usize) {
        held_by(|| parse_response(serde_json::from_slice(body).unwrap()).unwrap())
    }

    /// Everything of a message that is kept or shown: the message as JSON (its metadata and
    /// usage details read back whole), the texts kept, the blocks' room.
    fn kept(m: &AiMessage) -> (String, String, Option<String>, Option<usize>) {
        let details = m
            .usage_metadata
            .as_ref()
            .and_then(|u| u.input_token_details.as_ref());
        let room = match &m.content {
            Content::Blocks(b) => Some(b.capacity()),
            Content::Text(_) => None,
        };
        (
            serde_json::to_string(m).unwrap(),
            m.response_metadata.text().to_owned(),
            details.map(|d| d.text().to_owned()),
            room,
        )
    }

    fn body(reply: &Value) -> Vec<u8> {
        serde_json::to_vec(reply).unwrap()
    }

    fn usage() -> Value {
        json!({"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
    }

    fn reply(content: Value, usage: Value) -> Value {
        json!({"id": "msg_01", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": content, "stop_reason": "tool_use",
               "stop_sequence": null, "usage": usage})
    }

    fn with(mut reply: Value, key: &str, value: Value) -> Value {
        reply[key] = value;
        reply
    }

    fn without(mut reply: Value, key: &str) -> Value {
        reply.as_object_mut().unwrap().shift_remove(key);
        reply
    }

    /// Replies of the common shape: every one read here, and what is made of each is what
    /// the general path makes, byte for byte, and holds no more of the heap.
    #[test]
    fn a_common_reply_is_read_as_the_general_path_reads_it() {
        let tool = json!({"type": "tool_use", "id": "toolu_01", "name": "echo", "input": {"text": "step 1"}});
        let nested = json!({"type": "tool_use", "id": "toolu_\u{e9}\"2", "name": "write_file", "caller": null,
            "input": {"path": "/a b/\u{1F600}.txt", "content": "line\n\t\"q\" \\ \u{0001}",
                      "opts": {"n": -3, "f": 1.5e-7, "big": 18446744073709551615u64, "e": [], "o": {},
                               "deep": [[1, [2, {"x": null, "y": true}]], false]}}});
        let text =
            json!({"type": "text", "text": "Done: \u{e9}\u{4e2d}\n\"ok\"", "citations": null});
        let thinking = json!({"type": "thinking", "thinking": "hmm", "signature": "sig=="});
        let cases = [
            reply(json!([tool]), usage()),
            reply(json!([text]), usage()),
            reply(
                json!([{"type": "text", "text": "only"}]),
                json!({"input_tokens": 1, "output_tokens": 2}),
            ),
            reply(json!([thinking, text, tool, nested]), usage()),
            reply(
                json!([{"type": "redacted_thinking", "data": "xyz"}, {"type": "thinking"}, {"type": "text", "text": null}]),
                usage(),
            ),
            reply(
                json!([{"type": "tool_use", "id": "t", "name": "n", "input": null, "toolset_name": "kit"}]),
                usage(),
            ),
            reply(
                json!([{"type": "tool_use", "id": "t", "name": "n", "input": {"a": 1, "a": 2, "b": [1, 1.0, -0.0]}}]),
                usage(),
            ),
            reply(json!([]), usage()),
            reply(json!([text]), json!({})),
            reply(
                json!([tool]),
                json!({"output_tokens": 3, "input_tokens": null, "server_tool_use": null, "speed": null, "output_tokens_details": null}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 5, "output_tokens": 1, "cache_creation_input_tokens": 7, "cache_read_input_tokens": 3,
                "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": 2}, "service_tier": "standard", "inference_geo": "us"}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 5, "output_tokens": 1, "cache_creation_input_tokens": 7,
                "cache_creation": {"ephemeral_5m_input_tokens": 0}, "service_tier": null}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 5, "output_tokens": 1, "cache_creation": {}}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 5, "cache_creation": null}),
            ),
            with(reply(json!([text]), usage()), "stop_reason", Value::Null),
            with(reply(json!([text]), usage()), "stop_sequence", json!("END")),
            with(reply(json!([text]), usage()), "id", json!("msg_\u{e9}\\\"")),
            without(without(reply(json!([tool]), usage()), "type"), "role"),
            without(reply(json!([tool]), usage()), "stop_reason"),
        ];
        for case in &cases {
            let body = body(case);
            let (fast, fast_held) = held_by(|| read(&body));
            let Some(fast) = fast else {
                panic!("not read here ({}): {case}", why_not(&body))
            };
            let (slow, slow_held) = general(&body);
            assert_eq!(kept(&fast), kept(&slow), "{case}");
            assert_eq!(fast.tool_calls.capacity(), slow.tool_calls.capacity());
            assert!(fast_held <= slow_held, "{fast_held} > {slow_held}: {case}");
        }
    }

    /// A reply's metadata text is written into the buffer made for it, never grown (each
    /// growth was a reallocation a step, and under 1,000 concurrent runs realloc was a
    /// visible share of the workers' CPU): the fullest usage the API sends still fits.
    #[test]
    fn the_metadata_text_fits_its_first_buffer() {
        let full = json!({"input_tokens": 123456, "output_tokens": 65432,
            "cache_creation_input_tokens": 1234567, "cache_read_input_tokens": 7654321,
            "cache_creation": {"ephemeral_5m_input_tokens": 1234567, "ephemeral_1h_input_tokens": 7654321},
            "service_tier": "standard", "inference_geo": "not_available"});
        let tool = json!([{"type": "tool_use", "id": "t", "name": "n", "input": {}}]);
        for case in [reply(tool.clone(), usage()), reply(tool, full)] {
            let body = body(&case);
            let parsed: Reply = serde_json::from_slice(&body).unwrap();
            let room = 384 + parsed.id.len() + 2 * parsed.model.len();
            let text = metadata_text(&parsed);
            assert!(text.len() <= room, "{} > {room}: {text}", text.len());
            assert_eq!(text.capacity(), room, "{text}");
        }
    }

    /// Replies of other shapes are left to the general path (which reads them all).
    #[test]
    fn another_shape_is_left_to_the_general_path() {
        let tool = json!({"type": "tool_use", "id": "t", "name": "n", "input": {}});
        let cases = [
            reply(
                json!([{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}]),
                usage(),
            ),
            reply(
                json!([{"type": "web_search_tool_result", "tool_use_id": "s", "content": []}]),
                usage(),
            ),
            reply(
                json!([{"type": "text", "text": "a", "citations": []}]),
                usage(),
            ),
            reply(
                json!([{"type": "text", "text": "a", "citations": [{"type": "char_location"}]}, tool]),
                usage(),
            ),
            reply(
                json!([{"type": "text", "text": "a", "id": null}, tool]),
                usage(),
            ),
            reply(
                json!([{"type": "tool_use", "id": "t", "name": "n"}]),
                usage(),
            ),
            reply(
                json!([{"type": "tool_use", "id": null, "name": "n", "input": {}}]),
                usage(),
            ),
            reply(
                json!([{"type": "tool_use", "id": "t", "name": "n", "input": {}, "caller": {"type": "direct"}}]),
                usage(),
            ),
            reply(
                json!([{"type": "thinking", "thinking": "x", "text": "y"}]),
                usage(),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 1.0, "output_tokens": 1}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": -1, "output_tokens": 1}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 1, "output_tokens_details": {"thinking_tokens": 5}}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 1, "server_tool_use": {"web_search_requests": 1}}),
            ),
            reply(
                json!([tool]),
                json!({"input_tokens": 1, "cache_creation": {"ephemeral_5m_input_tokens": 1, "other": 2}}),
            ),
            reply(json!([tool]), json!({"input_tokens": 1, "extra": 0})),
            reply(json!([tool]), Value::Null),
            without(reply(json!([tool]), usage()), "usage"),
            with(
                reply(json!([tool]), usage()),
                "container",
                json!({"id": "c", "expires_at": "2025-06-01T12:00:00Z"}),
            ),
            with(reply(json!([tool]), usage()), "extra_top", json!(1)),
            with(reply(json!([tool]), usage()), "model", Value::Null),
            with(
                reply(json!([tool]), usage()),
                "stop_sequence",
                json!("\n\nHuman:"),
            ),
            without(reply(json!([tool]), usage()), "model"),
        ];
        for case in &cases {
            let body = body(case);
            assert!(read(&body).is_none(), "read here: {case}");
            // The general path reads it, and what the whole path gives is that.
            let (slow, _) = general(&body);
            assert_eq!(kept(&response::parse_reply(&body).unwrap()), kept(&slow));
        }
        // A key twice: serde's reading refuses it; the general path keeps the last value.
        let twice = br#"{"id":"a","id":"b","model":"m","content":[],"usage":{}}"#;
        assert!(read(twice).is_none());
        assert_eq!(
            general(twice).0.response_metadata.get_str("id").as_deref(),
            Some("b")
        );
        // Not JSON: the decoding error, as the transport's parse gave it.
        let e = response::parse_reply(b"{\"id\": ").unwrap_err();
        assert!(e.to_string().contains("EOF while parsing"), "{e}");
    }
}
