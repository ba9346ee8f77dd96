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
    mut params: serde_json::Map<String, serde_json::Value>,
    order: &[&str],
) -> serde_json::Value {
    let mut body = serde_json::Map::new();
    for key in order {
        if let Some(v) = params.shift_remove(*key) {
            body.insert((*key).to_owned(), v);
        }
    }
    body.extend(params);
    serde_json::Value::Object(body)
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
pub(crate) fn to_bytes_writing(
    body: &serde_json::Value,
    key: &str,
    len: usize,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), crate::error::ModelError>,
) -> Result<Vec<u8>, crate::error::ModelError> {
    let serde_json::Value::Object(map) = body else {
        return to_bytes(body);
    };
    let mut out = Vec::with_capacity(len + 4096);
    let mut write = Some(write);
    out.push(b'{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, k).map_err(unserializable)?;
        out.push(b':');
        if k == key
            && let Some(write) = write.take()
        {
            write(&mut out)?;
        } else {
            serde_json::to_writer(&mut out, v).map_err(unserializable)?;
        }
    }
    out.push(b'}');
    Ok(out)
}
