//! deepagents' answer to a provider refusing a request because of a file just read
//! (`_replace_rejected_file_content`): the media `read_file` returned since the model's last
//! reply (an image a text-only model cannot take, a PDF too large) is replaced by a note,
//! and the call is made once more.

use std::sync::Arc;

use serde_json::Value;

use super::texts;
use crate::messages::{Content, Message};

/// `_MULTIMODAL_BLOCK_TYPES`, and the provider forms LangChain reads as them.
const MEDIA: [&str; 5] = ["image", "video", "file", "audio", "image_url"];

fn has_media(content: &Content) -> bool {
    match content {
        Content::Text(_) => false,
        Content::Blocks(blocks) => blocks.iter().any(|b| {
            b.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| MEDIA.contains(&t))
        }),
    }
}

/// A `read_file` result carrying media, or the media message a video read adds.
fn replaceable(m: &Message) -> bool {
    match m {
        Message::Tool(t) => t.name.as_deref() == Some("read_file") && has_media(&t.content),
        Message::Human(h) => {
            h.additional_kwargs.get("read_file_media_result") == Some(&Value::Bool(true))
                && has_media(&h.content)
        }
        _ => false,
    }
}

fn since_last_reply(messages: &[Arc<Message>]) -> usize {
    messages
        .iter()
        .rposition(|m| matches!(&**m, Message::Ai(_)))
        .map_or(0, |i| i + 1)
}

/// Whether a refusal could be retried: media was read since the last reply. Looks only at
/// the messages after it.
pub(super) fn candidates(messages: &[Arc<Message>]) -> bool {
    messages[since_last_reply(messages)..]
        .iter()
        .any(|m| replaceable(m))
}

/// The messages with that media replaced, and the replaced messages (same ids) for the
/// state; `None` when there is nothing to replace.
pub(super) fn replace(messages: &[Arc<Message>]) -> Option<(Vec<Arc<Message>>, Vec<Message>)> {
    let start = since_last_reply(messages);
    let mut out = messages.to_vec();
    let mut replaced = Vec::new();
    for m in out.iter_mut().skip(start) {
        if !replaceable(m) {
            continue;
        }
        let note = Content::Text(texts::UNSUPPORTED_CONTENT_REPLACEMENT.to_owned());
        let new = match &**m {
            Message::Tool(t) => Message::Tool(crate::messages::ToolMessage {
                content: note,
                ..t.clone()
            }),
            Message::Human(h) => Message::Human(crate::messages::HumanMessage {
                content: note,
                ..h.clone()
            }),
            _ => continue,
        };
        replaced.push(new.clone());
        *m = Arc::new(new);
    }
    (!replaced.is_empty()).then_some((out, replaced))
}
