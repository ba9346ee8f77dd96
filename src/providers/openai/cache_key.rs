//! A `prompt_cache_key` per conversation family. OpenAI routes a request to a cache machine
//! by its prefix and this key, so requests that share a prefix should share a key, and
//! unrelated conversations should not crowd one key (above about 15 requests a minute per
//! prefix and key, requests spill to machines without the cache).
//!
//! The key is derived from the conversation's first message: every turn of a conversation,
//! and every fork of it (a fork's history starts with its parent's), has the same one, with
//! nothing to carry between runs; an isolated subagent, whose conversation starts with its
//! task, gets its own. deepagents sends no key at all; this is a deliberate addition.

use sha2::{Digest, Sha256};

use crate::messages::Message;
use crate::model::ModelRequest;

pub(super) fn for_request(request: &ModelRequest) -> Option<String> {
    let first = request
        .messages
        .iter()
        .find(|m| !matches!(&***m, Message::System(_)))?;
    let content = serde_json::to_vec(first.content()).ok()?;
    let digest = Sha256::digest(&content);
    let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("deepagents-{hex}"))
}
