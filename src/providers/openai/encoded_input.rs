//! The conversation part of an OpenAI request (Chat Completions `messages`, Responses
//! `input`) assembled from each message's encoding, made once per client and message
//! (`MessageCache`), so a step does not re-encode the history it sent the step before.
//!
//! A Chat Completions message encodes alone. A Responses assistant message may depend on
//! the input before it (a text block joins an earlier item with its id; a tool call already
//! replayed is not added again); when any message looks up something an earlier one
//! provides, or was encoded under another `store` setting, the input is built whole as
//! before, so the result is always the same.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use super::OpenAiApi;
use super::additional_tools::{check_placement, check_system, warn_dropped};
use super::input::{chat_message, chat_system};
use super::responses_input::{
    responses_input, responses_items, responses_lookups, responses_provides, responses_system,
};
use crate::error::ModelError;
use crate::messages::{Message, SystemMessage};
use crate::providers::message_cache::MessageCache;

pub(super) struct Encoded {
    /// The message dict (Chat Completions), or its items comma-joined (Responses).
    json: String,
    /// The `store` setting the Responses items were made under.
    store: Option<bool>,
    /// Responses: what the message looks up before it, and what it provides after it.
    looks_up: (Vec<String>, Vec<String>),
    provides: (Vec<String>, Vec<String>),
    /// Responses: the types of the blocks dropped from a system message, warned of on each
    /// request.
    dropped: Vec<String>,
}

fn to_json(value: &Value) -> Result<String, ModelError> {
    serde_json::to_string(value)
        .map_err(|e| ModelError::Config(format!("unserializable request: {e}")))
}

fn joined(items: &[Value]) -> Result<String, ModelError> {
    let mut out = String::new();
    for item in items {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(&to_json(item)?);
    }
    Ok(out)
}

/// o-series models take the system prompt as a `developer` message.
fn as_developer(mut message: Value, o_series: bool) -> Value {
    if o_series && message.get("role").and_then(Value::as_str) == Some("system") {
        message["role"] = Value::from("developer");
    }
    message
}

/// Chat Completions `messages` (a JSON array): the system prompt, then the conversation.
pub(super) fn chat_messages_json(
    system: Option<&SystemMessage>,
    messages: &[Arc<Message>],
    o_series: bool,
    cache: &MessageCache<Encoded>,
) -> Result<String, ModelError> {
    let mut parts = Vec::with_capacity(messages.len() + 1);
    if let Some(s) = system {
        check_system(&s.content, OpenAiApi::ChatCompletions)?;
        parts.push(to_json(&as_developer(chat_system(s), o_series))?);
    }
    let encoded = cache.encode_all(messages, |m| {
        check_placement(m, OpenAiApi::ChatCompletions)?;
        Ok::<_, ModelError>(Encoded {
            json: to_json(&as_developer(chat_message(m), o_series))?,
            store: None,
            looks_up: Default::default(),
            provides: Default::default(),
            dropped: Vec::new(),
        })
    })?;
    let mut out =
        String::with_capacity(encoded.iter().map(|e| e.json.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (i, part) in parts
        .iter()
        .map(String::as_str)
        .chain(encoded.iter().map(|e| e.json.as_str()))
        .enumerate()
    {
        if i > 0 {
            out.push(',');
        }
        out.push_str(part);
    }
    out.push(']');
    Ok(out)
}

/// Responses `input` (a JSON array): the system prompt's items, then the conversation's.
pub(super) fn responses_input_json(
    system: Option<&SystemMessage>,
    messages: &[Arc<Message>],
    store: Option<bool>,
    cache: &MessageCache<Encoded>,
) -> Result<String, ModelError> {
    let (head, head_dropped) = system.map(responses_system).unwrap_or_default();
    let encoded = cache.encode_all(messages, |m| {
        check_placement(m, OpenAiApi::Responses)?;
        let (items, dropped) = responses_items(m, store);
        Ok::<_, ModelError>(Encoded {
            json: joined(&items)?,
            store,
            looks_up: responses_lookups(m),
            provides: responses_provides(&items),
            dropped,
        })
    })?;
    warn_dropped(&head_dropped)?;
    for e in &encoded {
        warn_dropped(&e.dropped)?;
    }
    let (mut ids, mut call_ids): (HashSet<&str>, HashSet<&str>) = Default::default();
    let (head_ids, head_calls) = responses_provides(&head);
    ids.extend(head_ids.iter().map(String::as_str));
    call_ids.extend(head_calls.iter().map(String::as_str));
    for e in &encoded {
        let depends = e.looks_up.0.iter().any(|id| ids.contains(id.as_str()))
            || e.looks_up.1.iter().any(|id| call_ids.contains(id.as_str()));
        if depends || e.store != store {
            return to_json(&Value::Array(responses_input(system, messages, store)));
        }
        ids.extend(e.provides.0.iter().map(String::as_str));
        call_ids.extend(e.provides.1.iter().map(String::as_str));
    }
    let mut out = String::from("[");
    out.push_str(&joined(&head)?);
    for e in &encoded {
        if e.json.is_empty() {
            continue;
        }
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&e.json);
    }
    out.push(']');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::messages::Content;
    use crate::providers::openai::responses_input::tests::ai;

    /// Whether or not a message depends on earlier ones, the input is the one built whole.
    #[test]
    fn responses_input_from_encodings_is_the_input_built_whole() {
        let cache = MessageCache::default();
        let system = SystemMessage {
            content: "sys".into(),
            ..Default::default()
        };
        let independent = vec![
            Arc::new(Message::human("go")),
            ai(
                json!([{"type": "text", "text": "a", "id": "msg_1"}]),
                &["c1"],
            ),
            ai(
                json!([{"type": "text", "text": "b", "id": "msg_2"}]),
                &["c2"],
            ),
        ];
        let mut dependent = independent.clone();
        // Joins msg_1's item and replays c1, which an earlier message provides.
        dependent.push(ai(
            json!([{"type": "text", "text": "c", "id": "msg_1"}]),
            &["c1", "c3"],
        ));
        for messages in [&independent, &dependent, &independent] {
            for store in [None, Some(false)] {
                let built = responses_input_json(Some(&system), messages, store, &cache).unwrap();
                let whole = Value::Array(responses_input(Some(&system), messages, store));
                assert_eq!(serde_json::from_str::<Value>(&built).unwrap(), whole);
            }
        }
    }

    /// A system message's `additional_tools` block is an item of its own, taken from the
    /// cache as built whole; a dropped block is warned of again on a request that reads the
    /// message from the cache.
    #[test]
    fn tools_given_mid_conversation_are_items_of_their_own_from_the_cache_too() {
        let cache = MessageCache::default();
        let tools = json!({"type": "additional_tools", "role": "developer", "tools": []});
        let late = Arc::new(Message::System(SystemMessage {
            content: Content::Blocks(vec![
                json!({"type": "text", "text": "note"}),
                tools.clone(),
                json!({"type": "tool_removal", "tool_name": "ls"}),
            ]),
            ..Default::default()
        }));
        let messages = vec![Arc::new(Message::human("go")), late];
        for _ in 0..2 {
            let built = responses_input_json(None, &messages, None, &cache).unwrap();
            let built: Value = serde_json::from_str(&built).unwrap();
            assert_eq!(built, Value::Array(responses_input(None, &messages, None)));
            assert_eq!(built[1], tools);
            assert_eq!(
                built[2],
                json!({"content": [{"type": "input_text", "text": "note"}], "role": "system", "type": "message"})
            );
            let dropped = cache
                .encode_all(&messages, |_| -> Result<Encoded, ModelError> {
                    unreachable!("encoded by the request before")
                })
                .unwrap();
            assert_eq!(dropped[1].dropped, ["'tool_removal'"]);
        }
        let err = chat_messages_json(None, &messages, false, &MessageCache::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot be sent via Chat Completions")
        );
    }

    #[test]
    fn chat_messages_from_encodings_rename_the_system_role_for_o_series() {
        let cache = MessageCache::default();
        let system = SystemMessage {
            content: "sys".into(),
            ..Default::default()
        };
        let messages = vec![Arc::new(Message::human("go"))];
        let built = chat_messages_json(Some(&system), &messages, true, &cache).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&built).unwrap(),
            json!([{"content": "sys", "role": "developer"}, {"content": "go", "role": "user"}])
        );
    }
}
