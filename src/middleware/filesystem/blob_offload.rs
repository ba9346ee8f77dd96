//! deepagents' `offload_binary_content` (`FilesystemMiddleware`): the base64 payloads of
//! human messages and `read_file` results are stored on the backend by content hash, under
//! `{root}/blobs/<sha256>`, and the state keeps a reference block (`deepagents_blob`) in
//! their place, so checkpoints stay small. Every model request gets the payloads back,
//! from the run's cache (`_blob_payloads`, never checkpointed) or from the backend, checked
//! against their hash since the agent can write there too.
//!
//! Offloading is best-effort, as in deepagents: a payload the backend does not take stays
//! inline, and a blob that cannot be loaded becomes a text notice.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::texts;
use crate::files::Backend;
use crate::files::backend::FilesScope;
use crate::files::sha256_hex as digest_of;
use crate::history::History;
use crate::host::Opaque;
use crate::messages::{Content, Message};
use crate::state::Extra;

/// The private state key of the run's cache: digest to payload.
pub(crate) const PAYLOADS_KEY: &str = "_blob_payloads";
/// The block key holding an offloaded payload's digest.
const REF_KEY: &str = "deepagents_blob";

/// The run's payloads by digest, as the cache holds them.
pub(super) type Payloads = IndexMap<String, String>;

/// Python's `base64.b64decode(payload, validate=True)`: the standard alphabet only,
/// padding required, stray bits in the last character accepted.
const PYTHON_B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical)
        .with_decode_allow_trailing_bits(true),
);

fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn blocks(message: &Message) -> Option<&[Value]> {
    match message.content() {
        Content::Blocks(blocks) => Some(blocks),
        Content::Text(_) => None,
    }
}

/// The cache as the state holds it (written by an earlier model call of this run).
pub(super) fn cached(extra: &Extra) -> Payloads {
    match extra.get(PAYLOADS_KEY).and_then(Opaque::as_json) {
        Some(Value::Object(map)) => map
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect(),
        _ => Payloads::new(),
    }
}

/// The cache as a state write.
pub(super) fn to_state(payloads: &Payloads) -> Opaque {
    let map: Map<String, Value> = payloads
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    Opaque::Json(Value::Object(map))
}

/// Each distinct inline payload that decodes, with its digest, in order of appearance.
fn pending(messages: &[&Message]) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    for block in messages.iter().filter_map(|m| blocks(m)).flatten() {
        let Some(payload) = block.get("base64").and_then(Value::as_str) else {
            continue;
        };
        if out.contains_key(payload) {
            continue;
        }
        let valid = payload
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
        if let Some(raw) = valid.then(|| PYTHON_B64.decode(payload).ok()).flatten() {
            out.insert(payload.to_owned(), digest_of(&raw));
        }
    }
    out
}

/// The message with each stored payload replaced by its reference (`None`: unchanged).
fn stubbed(message: &Message, stored: &HashMap<&str, &str>) -> Option<Message> {
    let old = blocks(message)?;
    let mut changed = false;
    let new = old
        .iter()
        .map(|block| {
            let digest = block
                .get("base64")
                .and_then(Value::as_str)
                .and_then(|p| stored.get(p));
            match (block, digest) {
                (Value::Object(map), Some(digest)) => {
                    changed = true;
                    let mut map = map.clone();
                    map.shift_remove("base64");
                    map.insert(REF_KEY.into(), json!(digest));
                    Value::Object(map)
                }
                _ => block.clone(),
            }
        })
        .collect();
    changed.then(|| message.with_content(Content::Blocks(new)))
}

/// Uploads the inline payloads of `messages`; each message carrying references instead,
/// where it changed. Payloads the backend did not take stay inline; the stored ones join
/// `cache`.
pub(super) async fn offload(
    messages: &[&Message],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    cx: Arc<FilesScope>,
    cache: &mut Payloads,
) -> Vec<Option<Message>> {
    let pending = pending(messages);
    if pending.is_empty() {
        return vec![None; messages.len()];
    }
    let files = pending
        .iter()
        .map(|(payload, digest)| (format!("{prefix}/{digest}"), payload.clone()))
        .collect();
    let errors = match backend.upload_blobs(cx, files).await {
        Ok(Some(errors)) => errors,
        // The backend failed (the host logged it): everything stays inline.
        _ => return vec![None; messages.len()],
    };
    let mut stored = HashMap::new();
    for ((payload, digest), error) in pending.iter().zip(errors) {
        if error.is_none() {
            stored.insert(payload.as_str(), digest.as_str());
            cache.insert(digest.clone(), payload.clone());
        }
    }
    messages.iter().map(|m| stubbed(m, &stored)).collect()
}

/// `_offload_history_messages`: `written` (the messages this call already writes to the
/// state) plus the state's human messages and `read_file` results with their payloads
/// offloaded, each replacing its message by id. Only the messages that change are copied.
pub(super) async fn offload_history(
    state: &History,
    written: Vec<Message>,
    backend: &Arc<dyn Backend>,
    prefix: &str,
    cx: Arc<FilesScope>,
    cache: &mut Payloads,
) -> Vec<Message> {
    let history = state.to_vec();
    let candidates: Vec<&Message> = history
        .iter()
        .filter_map(|m| {
            let id = m.id()?;
            // A message this call rewrites is offloaded as rewritten.
            let m = written.iter().find(|w| w.id() == Some(id)).unwrap_or(&**m);
            let eligible = match m {
                Message::Human(_) => true,
                Message::Tool(t) => t.name.as_deref() == Some("read_file"),
                _ => false,
            };
            eligible.then_some(m)
        })
        .collect();
    let replaced: Vec<Message> = offload(&candidates, backend, prefix, cx, cache)
        .await
        .into_iter()
        .flatten()
        .collect();
    let mut out: Vec<Message> = written
        .into_iter()
        .filter(|w| {
            !replaced
                .iter()
                .any(|r| r.id().is_some() && r.id() == w.id())
        })
        .collect();
    out.extend(replaced);
    out
}

fn has_refs(message: &Message) -> bool {
    blocks(message).is_some_and(|b| b.iter().any(|block| block.get(REF_KEY).is_some()))
}

/// Puts the payloads back into every message of the request that references one: from
/// `cache`, else from the backend (kept only when the bytes match their digest, and added
/// to `cache`); a blob that cannot be had becomes deepagents' text notice.
pub(super) async fn hydrate(
    messages: &mut [Arc<Message>],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    cx: Arc<FilesScope>,
    cache: &mut Payloads,
) {
    if !messages.iter().any(|m| has_refs(m)) {
        return;
    }
    let mut referenced: Vec<&str> = Vec::new();
    for block in messages.iter().filter_map(|m| blocks(m)).flatten() {
        if let Some(r) = block.get(REF_KEY).and_then(Value::as_str)
            && is_digest(r)
            && !referenced.contains(&r)
        {
            referenced.push(r);
        }
    }
    let mut payloads: HashMap<String, String> = HashMap::new();
    let mut missing: Vec<String> = Vec::new();
    for digest in referenced {
        match cache.get(digest) {
            Some(payload) => {
                payloads.insert(digest.to_owned(), payload.clone());
            }
            None => missing.push(digest.to_owned()),
        }
    }
    if !missing.is_empty() {
        let paths = missing.iter().map(|d| format!("{prefix}/{d}")).collect();
        let downloads = match backend.download_blobs(cx, paths).await {
            Ok(Some(downloads)) => downloads,
            _ => Vec::new(),
        };
        for (digest, payload) in missing.into_iter().zip(downloads) {
            let Some(payload) = payload else { continue };
            let raw = base64::engine::general_purpose::STANDARD.decode(&payload);
            if raw.is_ok_and(|raw| digest_of(&raw) == digest) {
                cache.insert(digest.clone(), payload.clone());
                payloads.insert(digest, payload);
            }
        }
    }
    for message in messages.iter_mut() {
        if !has_refs(message) {
            continue;
        }
        let restored = blocks(message)
            .unwrap_or_default()
            .iter()
            .map(|block| match (block, block.get(REF_KEY)) {
                (Value::Object(map), Some(reference)) => {
                    let payload = reference.as_str().and_then(|r| payloads.get(r));
                    match payload {
                        Some(payload) => {
                            let mut map = map.clone();
                            map.shift_remove(REF_KEY);
                            map.insert("base64".into(), json!(payload));
                            Value::Object(map)
                        }
                        None => json!({"type": "text", "text": texts::MISSING_BLOB_TEXT}),
                    }
                }
                _ => block.clone(),
            })
            .collect();
        *message = Arc::new(message.with_content(Content::Blocks(restored)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(payload: &str) -> Value {
        json!({"type": "image", "base64": payload, "mime_type": "image/png"})
    }

    #[test]
    fn payloads_decode_as_python_decodes_them() {
        let messages = [&Message::human(Content::Blocks(vec![
            image("aGk="),
            image("aGk="),
            image("aGk"),
            image("a-Gk="),
            image(""),
            json!({"type": "text", "text": "x"}),
        ]))];
        let found = pending(&messages);
        // A repeat is one payload; missing padding and a character outside the alphabet
        // are not base64 to Python; the empty payload is (no bytes).
        assert_eq!(found.keys().collect::<Vec<_>>(), ["aGk=", ""]);
        assert_eq!(found["aGk="], digest_of(b"hi"));
    }

    #[test]
    fn a_stub_keeps_the_other_keys_and_ends_with_the_reference() {
        let message = Message::human(Content::Blocks(vec![image("aGk="), image("b2s=")]));
        let stored = HashMap::from([("aGk=", "d1")]);
        let Some(stub) = stubbed(&message, &stored) else {
            panic!("changed")
        };
        let blocks = blocks(&stub).unwrap_or_default();
        assert_eq!(
            serde_json::to_string(&blocks[0]).unwrap_or_default(),
            r#"{"type":"image","mime_type":"image/png","deepagents_blob":"d1"}"#
        );
        assert_eq!(blocks[1], image("b2s="));
        assert!(stubbed(&message, &HashMap::new()).is_none());
    }
}
