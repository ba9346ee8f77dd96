//! Very large human messages moved to the filesystem (deepagents' `FilesystemMiddleware`
//! `wrap_model_call`): when the conversation ends with a human message of more than
//! `4 * human_message_token_limit_before_evict` characters, its text is written to
//! `/conversation_history/<uuid>.md` and the message is tagged in the state
//! (`additional_kwargs["lc_evicted_to"]`, the content itself unchanged); every tagged message
//! is shown to the model as a stub with a preview, on this call and every later one.

use std::sync::Arc;

use serde_json::{Value, json};

use super::eviction::{preview, text_of, with_media};
use super::format::{CHARS_PER_TOKEN, char_len};
use super::texts;
use crate::files::Backend;
use crate::files::backend::FilesScope;
use crate::messages::{HumanMessage, Message};

const TAG: &str = "lc_evicted_to";

fn tag_of(m: &HumanMessage) -> Option<&str> {
    m.additional_kwargs
        .get(TAG)
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
}

/// What a model call needs done: the last message to evict, and whether any message is
/// already tagged. `None` on the common path (nothing to do), found without copying;
/// `marked`: whether any human message has keys of its own, without which none is tagged.
pub(super) fn needed(messages: &[Arc<Message>], limit: usize, marked: bool) -> Option<bool> {
    let evict_last = match messages.last().map(|m| &**m) {
        Some(Message::Human(h)) => {
            tag_of(h).is_none() && char_len(&text_of(&h.content)) > CHARS_PER_TOKEN * limit
        }
        _ => false,
    };
    let tagged = marked
        && messages
            .iter()
            .any(|m| matches!(&**m, Message::Human(h) if tag_of(h).is_some()));
    (evict_last || tagged).then_some(evict_last)
}

/// Writes the last message's text to the backend; the tagged copy for the state, or `None`
/// when the backend refused the write (the message then stays as it is, as in deepagents).
pub(super) async fn evict_last(
    messages: &[Arc<Message>],
    prefix: &str,
    backend: &Arc<dyn Backend>,
    cx: Arc<FilesScope>,
) -> Option<Message> {
    let Some(Message::Human(last)) = messages.last().map(|m| &**m) else {
        return None;
    };
    let path = format!("{prefix}/{}.md", uuid::Uuid::new_v4());
    let written = backend
        .write(cx, path.clone(), text_of(&last.content))
        .await
        .ok()?;
    if written.error.as_ref().is_some_and(|e| !e.is_empty()) {
        return None;
    }
    let mut tagged = last.clone();
    tagged
        .id
        .get_or_insert_with(|| uuid::Uuid::new_v4().to_string());
    tagged.additional_kwargs.insert(TAG.into(), json!(path));
    Some(Message::Human(tagged))
}

/// The messages the model sees: each tagged human message as its stub.
pub(super) fn truncated(messages: &[Arc<Message>]) -> Vec<Arc<Message>> {
    messages
        .iter()
        .map(|m| match &**m {
            Message::Human(h) if tag_of(h).is_some() => Arc::new(Message::Human(stub(h))),
            _ => m.clone(),
        })
        .collect()
}

/// `_build_truncated_human_message`.
fn stub(m: &HumanMessage) -> HumanMessage {
    let path = tag_of(m).unwrap_or_default();
    let (sample, note) = preview(&text_of(&m.content), "content");
    let text = texts::TOO_LARGE_HUMAN_MSG
        .replace("{file_path}", path)
        .replace("{preview_note}", &note)
        .replace("{content_sample}", &sample);
    HumanMessage {
        content: with_media(&m.content, text),
        ..m.clone()
    }
}
