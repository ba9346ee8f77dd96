//! Native model providers speaking the vendors' HTTP APIs, in layers: the transport (HTTP,
//! timeouts, the retry policy), one SSE parser, one classified error, LangChain's chunk
//! arithmetic, and an adapter per provider that alone knows its wire format.

pub mod anthropic;
mod chunks;
pub mod error;
mod json_string;
mod message_cache;
pub mod native;
pub mod openai;
pub mod payload;
mod sse;
pub mod transport;

pub use error::{ErrorKind, ProviderError};
// benches/micro.rs measures the parser.
#[cfg_attr(dead_code_check, allow(unused_imports))]
pub use sse::SseParser;

/// Whether an AI message's content is LangChain's v1 content blocks (`output_version:
/// "v1"`: what LangGraph's v3 stream makes every reply); each provider reads them back as
/// the blocks the reply was made of.
pub(crate) fn is_v1_reply(m: &crate::messages::AiMessage) -> bool {
    m.response_metadata.get_str("output_version").as_deref() == Some("v1")
}

/// A request body with its keys in the order the official SDK writes them (its `create`
/// method's body literal), then keys it does not know, as its `extra_body` adds them. The
/// parity tests compare bodies as serialized, keys in order.
pub(crate) fn sdk_order(
    params: serde_json::Map<String, serde_json::Value>,
    order: &[&str],
) -> serde_json::Value {
    serde_json::Value::Object(sdk_fields(params, order).into_iter().collect())
}

/// `sdk_order`'s fields as a list, for a body written field by field: sorted, not moved key
/// by key into a new map (each move hashed the key twice; about 10K instructions a request).
/// The sort is stable, so the keys the SDK does not know keep their order after its own.
pub(crate) fn sdk_fields(
    params: serde_json::Map<String, serde_json::Value>,
    order: &[&str],
) -> Vec<(String, serde_json::Value)> {
    let mut fields: Vec<_> = params.into_iter().collect();
    fields.sort_by_key(|(k, _)| order.iter().position(|o| o == k).unwrap_or(order.len()));
    fields
}

/// A request body's bytes.
pub(crate) fn to_bytes(body: &serde_json::Value) -> Result<Vec<u8>, crate::error::ModelError> {
    serde_json::to_vec(body).map_err(unserializable)
}

fn unserializable(e: serde_json::Error) -> crate::error::ModelError {
    crate::error::ModelError::Config(format!("unserializable request: {e}"))
}

/// A request body's bytes with the value under `key` (a placeholder in `body`) written as the
/// already encoded JSON `raw`.
pub(crate) fn to_bytes_with(
    body: &serde_json::Value,
    key: &str,
    raw: &str,
) -> Result<Vec<u8>, crate::error::ModelError> {
    to_bytes_writing(body, key, raw.len(), |out| {
        out.extend_from_slice(raw.as_bytes());
        Ok(())
    })
}

/// A request body's bytes with the value under `key` (a placeholder in `body`) written in
/// place by `write` (about `len` bytes): a long conversation's turns go straight into the
/// body, not into a string of their own first and then copied.
///
/// The fields around the turns are written first (after them come the system prompt and the
/// tools, tens of kilobytes), so the body is allocated once at its size: grown past a
/// guess, it was reallocated, a copy of the whole history's turns at a step whenever the
/// allocator could not remap it.
pub(crate) fn to_bytes_writing(
    body: &serde_json::Value,
    key: &str,
    len: usize,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), crate::error::ModelError>,
) -> Result<Vec<u8>, crate::error::ModelError> {
    let serde_json::Value::Object(map) = body else {
        return to_bytes(body);
    };
    let Some(at) = map.keys().position(|k| k == key) else {
        return to_bytes(body);
    };
    let mut head = vec![b'{'];
    for (i, (k, v)) in map.iter().take(at).enumerate() {
        write_field(i, k, Some(v), &mut head)?;
    }
    write_field(at, key, None, &mut head)?;
    let mut tail = Vec::new();
    for (k, v) in map.iter().skip(at + 1) {
        write_field(1, k, Some(v), &mut tail)?;
    }
    tail.push(b'}');
    let mut out = Vec::with_capacity(head.len() + len + tail.len());
    out.extend_from_slice(&head);
    write(&mut out)?;
    out.extend_from_slice(&tail);
    Ok(out)
}

/// The `i`th field of an object: its comma (none before the first), its key, and its
/// value, or only the colon when the caller writes the value itself.
fn write_field(
    i: usize,
    key: &str,
    value: Option<&serde_json::Value>,
    out: &mut Vec<u8>,
) -> Result<(), crate::error::ModelError> {
    if i > 0 {
        out.push(b',');
    }
    serde_json::to_writer(&mut *out, key).map_err(unserializable)?;
    out.push(b':');
    match value {
        Some(v) => serde_json::to_writer(&mut *out, v).map_err(unserializable),
        None => Ok(()),
    }
}

/// A request body as the pieces of a `Payload`: the value under each key of `raw` (a
/// placeholder in `body`) is the piece kept for it, and the value under `key` is `value`'s
/// pieces, all sent as they are (the turns of a long conversation, the system prompt and
/// the tools are not copied into the body); the fields between them are written here.
pub(crate) fn to_pieces_spliced(
    body: &[(String, serde_json::Value)],
    raw: &[(&str, bytes::Bytes)],
    key: &str,
    value: Vec<bytes::Bytes>,
) -> Result<payload::Payload, crate::error::ModelError> {
    let mut pieces = Vec::new();
    let mut value = Some(value);
    let mut fields = vec![b'{'];
    for (i, (k, v)) in body.iter().enumerate() {
        let kept = if k == key {
            value.take().unwrap_or_default()
        } else if let Some((_, bytes)) = raw.iter().find(|(r, _)| r == k) {
            vec![bytes.clone()]
        } else {
            write_field(i, k, Some(v), &mut fields)?;
            continue;
        };
        write_field(i, k, None, &mut fields)?;
        pieces.push(std::mem::take(&mut fields).into());
        pieces.extend(kept);
    }
    fields.push(b'}');
    pieces.push(fields.into());
    Ok(payload::Payload::new(pieces))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_body_of_pieces_is_the_body_written_whole() {
        let body = json!({
            "max_tokens": 10,
            "messages": null,
            "model": "m",
            "system": null,
            "tools": [{"name": "t"}],
        });
        let turns = [&b"[\"a\""[..], b",\"b\"", b"]"].map(bytes::Bytes::from_static);
        let system = bytes::Bytes::from_static(b"\"s\"");
        let serde_json::Value::Object(map) = body.clone() else {
            unreachable!()
        };
        let fields = super::sdk_fields(map, &["max_tokens", "messages", "model"]);
        let payload =
            super::to_pieces_spliced(&fields, &[("system", system)], "messages", turns.to_vec())
                .unwrap();
        let mut whole = body.clone();
        whole["messages"] = json!(["a", "b"]);
        whole["system"] = json!("s");
        assert_eq!(payload.to_vec(), serde_json::to_vec(&whole).unwrap());
    }

    #[test]
    fn a_body_takes_the_sdk_order_then_the_other_keys_as_given() {
        let serde_json::Value::Object(map) =
            json!({"z_extra": 1, "model": "m", "a_extra": 2, "max_tokens": 3, "stream": true})
        else {
            unreachable!()
        };
        let order = ["max_tokens", "messages", "model", "stream"];
        let keys: Vec<String> = super::sdk_fields(map.clone(), &order)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            ["max_tokens", "model", "stream", "z_extra", "a_extra"]
        );
        let body = super::sdk_order(map, &order);
        assert_eq!(
            body.as_object().unwrap().keys().collect::<Vec<_>>(),
            keys.iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_body_written_around_its_turns_is_allocated_once_at_its_size() {
        let turns = format!("[{}]", vec!["\"turn\""; 1000].join(","));
        // Fields after the turns far longer than any fixed allowance (a system prompt, tools).
        let body = json!({
            "max_tokens": 10,
            "messages": null,
            "model": "m",
            "system": "s".repeat(20_000),
            "tools": [{"name": "t", "description": "d".repeat(10_000)}],
        });
        let bytes = super::to_bytes_writing(&body, "messages", turns.len(), |out| {
            out.extend_from_slice(turns.as_bytes());
            Ok(())
        })
        .unwrap();
        let mut whole = body.clone();
        whole["messages"] = serde_json::from_str(&turns).unwrap();
        assert_eq!(bytes, serde_json::to_vec(&whole).unwrap());
        assert_eq!(bytes.capacity(), bytes.len(), "grown past its allocation");
        // The key first, or absent.
        let first = json!({"messages": null, "model": "m"});
        let bytes = super::to_bytes_with(&first, "messages", "[]").unwrap();
        assert_eq!(bytes, br#"{"messages":[],"model":"m"}"#);
        let bytes = super::to_bytes_with(&json!({"model": "m"}), "messages", "[]").unwrap();
        assert_eq!(bytes, br#"{"model":"m"}"#);
    }
}
