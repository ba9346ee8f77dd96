//! Reading the Messages API's answers: a reply as the AI message langchain-anthropic makes of
//! it, usage in LangChain's form, and an error status as the classified provider error.

use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use super::{PROVIDER, reply_reader, sdk_dump};
use crate::compact_map::CompactMap;
use crate::messages::{AiMessage, Content, ToolCall, Usage};
use crate::providers::error::ProviderError;

/// An error status's body (`{"type": "error", "error": {"type", "message"}}`) as the
/// classified error; a body that is not Anthropic's (a proxy's page) is the message as is.
pub(super) fn read_error(
    provider: &'static str,
    status: u16,
    headers: &HeaderMap,
    body: &[u8],
) -> ProviderError {
    let parsed: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let error = parsed.get("error");
    let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str);
    let message = match field("message") {
        Some(m) => m.to_owned(),
        None => String::from_utf8_lossy(body).into_owned(),
    };
    let mut e = ProviderError::from_response(
        provider,
        status,
        Some(field("type").unwrap_or("api_error").to_owned()),
        None,
        message,
    );
    e.request_id = headers
        .get("request-id")
        .and_then(|v| v.to_str().ok())
        .or_else(|| parsed.get("request_id").and_then(Value::as_str))
        .map(Into::into);
    e
}

/// A Messages API response's body as the AI message langchain-anthropic makes of it: read
/// straight into the kept message when it has the common shape (`reply_reader`), else
/// parsed whole and made into it.
pub fn parse_reply(body: &[u8]) -> Result<AiMessage, ProviderError> {
    if let Some(message) = reply_reader::read(body) {
        return Ok(message);
    }
    let data: Value =
        serde_json::from_slice(body).map_err(|e| ProviderError::decode(PROVIDER, e.to_string()))?;
    parse_response(data)
}

/// A Messages API response as the AI message langchain-anthropic makes of it. The parsed
/// body's values are moved into the message, not copied: a conversation keeps every reply.
pub fn parse_response(data: Value) -> Result<AiMessage, ProviderError> {
    let decode = |message: &str| ProviderError::decode(PROVIDER, message);
    let Value::Object(mut data) = data else {
        return Err(decode("response is not a JSON object"));
    };
    let Some(Value::Array(mut blocks)) = data.shift_remove("content") else {
        return Err(decode("response has no content array"));
    };
    for block in &mut blocks {
        if let Value::Object(b) = block {
            *b = sdk_block(b);
        }
    }
    let usage = data.get("usage").map(usage_metadata);
    let model = data.get("model").cloned();
    data.shift_remove("role");
    data.shift_remove("type");
    // Kept without the SDK model's nulls, which reading puts back (`sdk_dump::REPLY_NULLS`).
    let mut response_metadata = sdk_dump::reply_metadata(data, false);
    if let Some(model) = model {
        response_metadata.entry("model_name").or_insert(model);
    }
    response_metadata.insert("model_provider".into(), json!(PROVIDER));

    let single_text = blocks.len() == 1
        && blocks[0].get("type").and_then(Value::as_str) == Some("text")
        && blocks[0]
            .get("citations")
            .is_none_or(|c| c.is_null() || c == &json!([]));
    // At its exact size: a conversation keeps every reply's calls.
    let mut tool_calls = Vec::with_capacity(
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            .count(),
    );
    for b in &blocks {
        if b.get("type").and_then(Value::as_str) == Some("tool_use") {
            tool_calls.push(ToolCall::new(
                b.get("name").and_then(Value::as_str).unwrap_or_default(),
                b.get("input").map(exact_copy).unwrap_or_else(|| json!({})),
                b.get("id").and_then(Value::as_str).unwrap_or_default(),
            ));
        }
    }
    let content = match blocks.pop() {
        Some(Value::Object(mut text)) if single_text => match text.shift_remove("text") {
            Some(Value::String(s)) => Content::Text(s),
            _ => Content::Text(String::new()),
        },
        last => {
            blocks.extend(last);
            // Parsed by pushing, the array keeps room for four 80-byte values: a tool-use
            // reply's one block held 240 bytes of spare room in every reply kept.
            blocks.shrink_to_fit();
            Content::Blocks(blocks)
        }
    };
    Ok(AiMessage {
        content,
        tool_calls,
        // The message id is LangChain's (`lc_run--...`), given by the loop; the API's id
        // stays in response_metadata["id"], as langchain-anthropic keeps it.
        id: None,
        usage_metadata: usage.map(Box::new),
        response_metadata: CompactMap::without_nulls(&response_metadata, &sdk_dump::REPLY_NULLS),
        ..Default::default()
    })
}

/// Anthropic usage in LangChain's form: `input_tokens` adds the cached and cache-written
/// tokens back, since Anthropic's own count excludes them.
pub(crate) fn usage_metadata(u: &Value) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    let uncached = n(u.get("input_tokens")).unwrap_or(0);
    let cache_read = n(u.get("cache_read_input_tokens"));
    let mut cache_creation = n(u.get("cache_creation_input_tokens"));
    let mut details = Map::new();
    let mut by_ttl = 0;
    if let Some(cc) = u.get("cache_creation").filter(|c| c.is_object()) {
        for key in ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"] {
            let v = n(cc.get(key));
            by_ttl += v.unwrap_or(0);
            if let Some(v) = v {
                details.insert(key.into(), json!(v));
            }
        }
        if by_ttl > 0 {
            cache_creation = Some(0);
        }
    }
    let mut ordered = Map::new();
    if let Some(r) = cache_read {
        ordered.insert("cache_read".into(), json!(r));
    }
    if let Some(c) = cache_creation {
        ordered.insert("cache_creation".into(), json!(c));
    }
    ordered.extend(details);
    let written = if by_ttl > 0 {
        by_ttl
    } else {
        cache_creation.unwrap_or(0)
    };
    let input = uncached + cache_read.unwrap_or(0) + written;
    let output = n(u.get("output_tokens")).unwrap_or(0);
    let reasoning = u
        .get("output_tokens_details")
        .and_then(|d| n(d.get("thinking_tokens")));
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
        input_token_details: Some(ordered.into()),
        output_token_details: reasoning.map(|r| {
            let mut m = Map::new();
            m.insert("reasoning".into(), json!(r));
            m.into()
        }),
    }
}

/// A content block as langchain-anthropic keeps it: the SDK model's `model_dump` (its
/// fields in the model's order, absent ones as null), less the nulls it drops (`citations`,
/// `caller`, `encrypted_content`). The key order is replayed in later requests.
pub(super) fn sdk_block(block: &Map<String, Value>) -> Map<String, Value> {
    let fields: &[&str] = match block.get("type").and_then(Value::as_str) {
        Some("text") => &["citations", "text", "type"],
        Some("tool_use") => &["id", "caller", "input", "name", "type", "toolset_name"],
        Some("server_tool_use") => &["id", "caller", "input", "name", "type"],
        Some("thinking") => &["signature", "thinking", "type"],
        Some("redacted_thinking") => &["data", "type"],
        // Stream deltas are SDK models too.
        Some("text_delta") => &["text", "type"],
        Some("citations_delta") => &["citation", "type"],
        Some("thinking_delta") => &["thinking", "type"],
        Some("signature_delta") => &["signature", "type"],
        Some("input_json_delta") => &["partial_json", "type"],
        _ => &[],
    };
    // The fields in the model's order, then the block's others; the nulls langchain-anthropic
    // drops are left out, and the map is made at its final size.
    let dropped = |k: &str, v: &Value| {
        v.is_null() && matches!(k, "citations" | "caller" | "encrypted_content")
    };
    let null = Value::Null;
    let entries: Vec<(&str, &Value)> = fields
        .iter()
        .map(|k| (*k, block.get(*k).unwrap_or(&null)))
        .chain(
            block
                .iter()
                .filter(|(k, _)| !fields.contains(&k.as_str()))
                .map(|(k, v)| (k.as_str(), v)),
        )
        .filter(|(k, v)| !dropped(k, v))
        .collect();
    let mut out = Map::with_capacity(entries.len());
    for (k, v) in entries {
        out.insert(k.to_owned(), exact_copy(v));
    }
    out
}

/// A deep copy with no spare room. A conversation keeps every reply, and a map grown by
/// parsing (or cloned from one) reserves entries for its whole hash index: a one-entry
/// `input` map keeps three 112-byte entries. Made at their sizes, a tool-use reply's
/// block and call hold about 450 bytes less.
pub(super) fn exact_copy(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                out.insert(k.clone(), exact_copy(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(exact_copy).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool-use reply as the Messages API sends it (as `benches/sim_async.py` does).
    fn reply() -> Value {
        json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_01", "name": "echo", "input": {"text": "step 1"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
        })
    }

    #[test]
    fn a_reply_keeps_langchain_anthropics_metadata_in_order() {
        let m = parse_response(reply()).unwrap();
        assert_eq!(
            serde_json::to_string(&m.response_metadata).unwrap(),
            r#"{"id":"msg_01","container":null,"diagnostics":null,"model":"claude-sonnet-4-5","stop_details":null,"stop_reason":"tool_use","stop_sequence":null,"usage":{"cache_creation":null,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"inference_geo":null,"input_tokens":100,"output_tokens":10,"output_tokens_details":null,"server_tool_use":null,"service_tier":null,"speed":null},"model_name":"claude-sonnet-4-5","model_provider":"anthropic"}"#
        );
        assert_eq!(
            m.response_metadata.get_str("model_provider").as_deref(),
            Some("anthropic")
        );
        let usage = m.usage_metadata.unwrap();
        assert_eq!(
            serde_json::to_string(&usage.input_token_details).unwrap(),
            r#"{"cache_read":0,"cache_creation":0}"#
        );
    }

    /// A conversation keeps every reply: no spare capacity in what it keeps, and the rarely
    /// read metadata as one string rather than a map of maps (about 2 KB of heap).
    #[test]
    fn a_reply_is_stored_compactly() {
        let m = parse_response(reply()).unwrap();
        assert_eq!(m.tool_calls.capacity(), m.tool_calls.len());
        // A message is stored as a `Message`, whose size the largest kind sets (see
        // `messages::tests`).
        assert!(size_of::<AiMessage>() <= 176, "{}", size_of::<AiMessage>());
    }

    /// The content array as parsed keeps room for four blocks; the message holds it at its
    /// length, and the whole reply what its parts made at their sizes hold.
    #[test]
    fn a_tool_use_replys_blocks_are_held_at_their_length() {
        use crate::heap_count::held_by;
        let body = serde_json::to_vec(&reply()).unwrap();
        let (m, held) = held_by(|| parse_response(serde_json::from_slice(&body).unwrap()).unwrap());
        let Content::Blocks(blocks) = &m.content else {
            panic!("a tool-use reply's content is its blocks")
        };
        assert_eq!((blocks.len(), blocks.capacity()), (1, 1));
        eprintln!("a parsed tool-use reply holds {held} bytes");
    }

    /// The tool-use block's `input` and the call's `args` hold what a copy made at its size
    /// holds: parsed or cloned, a one-entry map keeps room for three (224 bytes more).
    #[test]
    fn a_tool_use_reply_keeps_its_maps_at_their_sizes() {
        use crate::heap_count::{freed_by, held_by};
        let m = parse_response(reply()).unwrap();
        let Content::Blocks(mut blocks) = m.content else {
            panic!("a tool-use reply's content is its blocks")
        };
        let input = blocks[0]["input"].take();
        let args = m.tool_calls.into_iter().next().unwrap().args;
        for kept in [input, args] {
            let (copy, exact) = held_by(|| exact_copy(&kept));
            assert_eq!(copy, kept);
            assert_eq!(copy.to_string(), r#"{"text":"step 1"}"#);
            assert_eq!(freed_by(|| drop(kept)), exact);
        }
    }
}
