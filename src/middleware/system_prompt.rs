//! Edits of the system message that several entries make, as deepagents' and
//! langchain-anthropic's helpers make them.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use serde_json::{Value, json};

use crate::messages::{Content, SystemMessage};

fn with_blocks(blocks: Vec<Value>) -> Arc<SystemMessage> {
    Arc::new(SystemMessage {
        content: Content::Blocks(blocks),
        id: None,
        additional_kwargs: Default::default(),
        response_metadata: Default::default(),
        origin: None,
    })
}

/// deepagents' `append_to_system_message`: the text as a new block, after a blank line when
/// the message has content.
pub fn append_to_system(system: Option<Arc<SystemMessage>>, text: &str) -> Arc<SystemMessage> {
    let mut blocks: Vec<Value> = match system.as_deref().map(|s| &s.content) {
        None => Vec::new(),
        Some(Content::Text(t)) if t.is_empty() => Vec::new(),
        Some(Content::Text(t)) => vec![json!({"type": "text", "text": t})],
        Some(Content::Blocks(b)) => b.clone(),
    };
    let text = if blocks.is_empty() {
        text.to_owned()
    } else {
        format!("\n\n{text}")
    };
    blocks.push(json!({"type": "text", "text": text}));
    with_blocks(blocks)
}

/// An entry's last edit of the system message and what it gave: every step hands the agent's
/// one system message (the same `Arc`) through the same edits, so the same message (by its
/// allocation) with the same `key` is given the same result, the same `Arc`, without copying
/// the prompt into new blocks again; the next entry's memo then finds its input unchanged.
#[derive(Default)]
pub struct SystemMemo<K> {
    last: Mutex<Option<Edited<K>>>,
}

/// An edit: the message given (the `Weak` keeps its allocation, so no other message can come
/// at its address), the key, and the message made.
type Edited<K> = (Weak<SystemMessage>, K, Arc<SystemMessage>);

impl<K: PartialEq> SystemMemo<K> {
    /// `edit(system, &key)`, or what it gave for this message and key last time.
    pub fn edit(
        &self,
        system: Arc<SystemMessage>,
        key: K,
        edit: impl FnOnce(Arc<SystemMessage>, &K) -> Arc<SystemMessage>,
    ) -> Arc<SystemMessage> {
        if let Some((from, last_key, to)) = &*self.last.lock()
            && std::ptr::eq(from.as_ptr(), Arc::as_ptr(&system))
            && *last_key == key
        {
            return to.clone();
        }
        let from = Arc::downgrade(&system);
        let to = edit(system, &key);
        *self.last.lock() = Some((from, key, to.clone()));
        to
    }
}

/// langchain-anthropic's `_tag_system_message`: `cache_control` on the message's last block
/// (a string prompt becomes one text block). An empty prompt is left as it is, and a last
/// block that is not an object is replaced by the marker alone, as there.
pub fn tag_last_block(
    system: Option<Arc<SystemMessage>>,
    cache_control: &Value,
) -> Option<Arc<SystemMessage>> {
    system.map(|message| tag_message(message, cache_control))
}

/// `tag_last_block` on a message there is.
pub fn tag_message(message: Arc<SystemMessage>, cache_control: &Value) -> Arc<SystemMessage> {
    let mut blocks = match &message.content {
        Content::Text(t) if t.is_empty() => return message,
        Content::Text(t) => vec![json!({"type": "text", "text": t})],
        Content::Blocks(b) if b.is_empty() => return message,
        Content::Blocks(b) => b.clone(),
    };
    if let Some(last) = blocks.last_mut() {
        if !last.is_object() {
            *last = json!({});
        }
        last["cache_control"] = cache_control.clone();
    }
    with_blocks(blocks)
}

/// A prompt section appended to the request's system message, as memory and skills add
/// theirs: `section` is the rendered text, or the error that stops the call.
pub fn append_section(
    request: &mut crate::model::ModelRequest,
    section: Result<String, crate::error::Error>,
) -> Result<(), crate::error::Error> {
    let text = section?;
    request.system = Some(append_to_system(request.system.take(), &text));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> Option<Arc<SystemMessage>> {
        Some(Arc::new(SystemMessage {
            content: Content::Text(t.into()),
            ..Default::default()
        }))
    }

    #[test]
    fn appends_after_a_blank_line_only_when_there_is_content() {
        assert_eq!(
            append_to_system(text(""), "X").content,
            Content::Blocks(vec![json!({"type": "text", "text": "X"})])
        );
        assert_eq!(
            append_to_system(text("hi"), "X").content,
            Content::Blocks(vec![
                json!({"type": "text", "text": "hi"}),
                json!({"type": "text", "text": "\n\nX"})
            ])
        );
    }

    #[test]
    fn a_memo_hands_on_its_last_result_for_the_same_message_and_key() {
        let memo = SystemMemo::default();
        let base = text("base").unwrap();
        let append = |s, p: &String| append_to_system(Some(s), p);
        let first = memo.edit(base.clone(), "X".to_owned(), append);
        assert_eq!(first, append_to_system(Some(base.clone()), "X"));
        let again = memo.edit(base.clone(), "X".to_owned(), append);
        assert!(Arc::ptr_eq(&first, &again), "the same Arc, not a new copy");
        // A new key, or an equal message elsewhere (an entry before changed it), is edited.
        let other = memo.edit(base.clone(), "Y".to_owned(), append);
        assert_eq!(other, append_to_system(Some(base.clone()), "Y"));
        let equal = text("base").unwrap();
        let fresh = memo.edit(equal, "Y".to_owned(), append);
        assert!(!Arc::ptr_eq(&other, &fresh));
        assert_eq!(other, fresh);
    }

    #[test]
    fn tags_the_last_block_and_leaves_an_empty_prompt() {
        let cc = json!({"type": "ephemeral"});
        assert_eq!(tag_last_block(text(""), &cc), text(""));
        assert!(tag_last_block(None, &cc).is_none());
        let tagged = tag_last_block(text("a"), &cc).unwrap();
        assert_eq!(
            tagged.content,
            Content::Blocks(vec![
                json!({"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}})
            ])
        );
    }
}
