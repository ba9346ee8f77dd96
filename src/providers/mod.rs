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
    sort_in_sdk_order(&mut fields, order);
    fields
}

/// `fields` sorted by their keys' places in `order`, the keys it does not name after its
/// own in the order they came (the sort is stable).
pub(crate) fn sort_in_sdk_order<K: AsRef<str>, V>(fields: &mut [(K, V)], order: &[&str]) {
    fields.sort_by_key(|(k, _)| {
        order
            .iter()
            .position(|o| *o == k.as_ref())
            .unwrap_or(order.len())
    });
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

/// A field of a body written in pieces (`to_pieces_spliced`).
pub(crate) enum BodyField<'a> {
    /// A value serialized here.
    Value(std::borrow::Cow<'a, serde_json::Value>),
    /// A string, quoted here (the model's name: not copied into a `Value` first).
    Str(&'a str),
    /// A value already written (a kept system prompt or tool list), sent as it is.
    Piece(bytes::Bytes),
    /// A value already written in pieces (a conversation's kept turns), sent as they are.
    Pieces(Vec<bytes::Bytes>),
}

/// Room for the fields a body writes itself (the Messages API's: its size, model, marker
/// and flag, about 150 bytes): more is grown into.
const WRITTEN_FIELDS: usize = 256;

/// A request body, its fields in the order given, as the pieces of a `Payload`: the values
/// already written (the turns of a long conversation, the system prompt and the tools) are
/// sent as they are, not copied into the body; the fields between them are written here.
///
/// Everything written here goes into one buffer, cut into the pieces between the kept ones:
/// one allocation for them all (each piece grown from a byte of its own was about a dozen
/// allocations a request).
pub(crate) fn to_pieces_spliced(
    body: Vec<(&str, BodyField<'_>)>,
) -> Result<payload::Payload, crate::error::ModelError> {
    /// A piece as made: kept, or written up to an offset of the buffer.
    enum Piece {
        Kept(bytes::Bytes),
        WrittenTo(usize),
    }
    let kept = |f: &BodyField| match f {
        BodyField::Piece(_) => 1,
        BodyField::Pieces(p) => p.len(),
        _ => 0,
    };
    let mut pieces = Vec::with_capacity(body.iter().map(|(_, f)| 1 + kept(f)).sum::<usize>() + 1);
    let mut written = Vec::with_capacity(WRITTEN_FIELDS);
    written.push(b'{');
    for (i, (k, v)) in body.into_iter().enumerate() {
        if i > 0 {
            written.push(b',');
        }
        json_string::write_json_string(&mut written, k);
        written.push(b':');
        let cut = Piece::WrittenTo(written.len());
        match v {
            BodyField::Value(v) => {
                serde_json::to_writer(&mut written, &*v).map_err(unserializable)?;
            }
            BodyField::Str(s) => json_string::write_json_string(&mut written, s),
            BodyField::Piece(bytes) => pieces.extend([cut, Piece::Kept(bytes)]),
            BodyField::Pieces(all) => {
                pieces.push(cut);
                pieces.extend(all.into_iter().map(Piece::Kept));
            }
        }
    }
    written.push(b'}');
    pieces.push(Piece::WrittenTo(written.len()));
    let written = bytes::Bytes::from(written);
    let mut start = 0;
    let pieces = pieces
        .into_iter()
        .map(|p| match p {
            Piece::Kept(bytes) => bytes,
            Piece::WrittenTo(end) => {
                let piece = written.slice(start..end);
                start = end;
                piece
            }
        })
        .collect();
    Ok(payload::Payload::new(pieces))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_body_of_pieces_is_the_body_written_whole_its_own_fields_in_one_buffer() {
        use super::BodyField;
        use std::borrow::Cow;
        let tools = json!([{"name": "t"}]);
        let turns = [&b"[\"a\""[..], b",\"b\"", b"]"].map(bytes::Bytes::from_static);
        let system = bytes::Bytes::from_static(b"\"s\"");
        let body = vec![
            ("max_tokens", BodyField::Value(Cow::Owned(json!(10)))),
            ("messages", BodyField::Pieces(turns.to_vec())),
            // Strings with bytes to escape, in a key and in a value.
            ("model", BodyField::Str("m\"\u{1}é")),
            ("system", BodyField::Piece(system.clone())),
            ("tools", BodyField::Value(Cow::Borrowed(&tools))),
            ("x\ny", BodyField::Value(Cow::Owned(json!(true)))),
        ];
        let payload = super::to_pieces_spliced(body).unwrap();
        let whole = json!({
            "max_tokens": 10,
            "messages": ["a", "b"],
            "model": "m\"\u{1}é",
            "system": "s",
            "tools": [{"name": "t"}],
            "x\ny": true,
        });
        assert_eq!(payload.to_vec(), serde_json::to_vec(&whole).unwrap());
        // The kept pieces are sent as they are; the fields written around them are cut from
        // one buffer, each following the one before.
        let pieces = payload.pieces();
        assert_eq!(pieces.len(), 7);
        assert_eq!(pieces[1..4], turns);
        assert_eq!(pieces[1].as_ptr(), turns[0].as_ptr());
        assert_eq!(pieces[5].as_ptr(), system.as_ptr());
        let written = [&pieces[0], &pieces[4], &pieces[6]];
        for pair in written.windows(2) {
            assert_eq!(
                pair[1].as_ptr(),
                pair[0].as_ptr().wrapping_add(pair[0].len())
            );
        }
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
