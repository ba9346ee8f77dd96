//! Tools given in the middle of the conversation, as langchain-openai carries them: an
//! `additional_tools` block of a system message becomes a Responses input item of its own
//! where the message stands. Anywhere else the block cannot work, and langchain-openai
//! refuses the request rather than drop it: on a user or tool message (the item is a
//! `developer` one), or on a system message sent through Chat Completions (no such item).
//! Other blocks a system message's Responses item has no place for are dropped with a
//! warning, as there.

use serde_json::Value;

use super::OpenAiApi;
use crate::error::ModelError;
use crate::messages::{Content, Message};

pub(super) const ADDITIONAL_TOOLS: &str = "additional_tools";

/// Whether `content` holds an `additional_tools` block, LangChain's `non_standard` wrapper
/// read through.
fn carries_additional_tools(content: &Content) -> bool {
    let Content::Blocks(blocks) = content else {
        return false;
    };
    blocks.iter().any(|b| {
        let inner = match (b.get("type").and_then(Value::as_str), b.get("value")) {
            (Some("non_standard"), Some(v @ Value::Object(_))) => v,
            _ => b,
        };
        inner.get("type").and_then(Value::as_str) == Some(ADDITIONAL_TOOLS)
    })
}

/// langchain-openai's refusal of an `additional_tools` block where it cannot be sent
/// (an assistant message's content is replayed output, never refused).
pub(super) fn check_placement(m: &Message, api: OpenAiApi) -> Result<(), ModelError> {
    match m {
        Message::Human(h) if carries_additional_tools(&h.content) => refused(PLACED_OFF_SYSTEM),
        Message::Tool(t) if carries_additional_tools(&t.content) => refused(PLACED_OFF_SYSTEM),
        Message::System(s) => check_system(&s.content, api),
        _ => Ok(()),
    }
}

/// The same for a system message's content (the agent's prompt included).
pub(super) fn check_system(content: &Content, api: OpenAiApi) -> Result<(), ModelError> {
    if api == OpenAiApi::ChatCompletions && carries_additional_tools(content) {
        return refused(
            "requires the Responses API and cannot be sent via Chat Completions. \
             Set `use_responses_api=True`.",
        );
    }
    Ok(())
}

fn refused(reason: &str) -> Result<(), ModelError> {
    Err(ModelError::Config(format!("`{ADDITIONAL_TOOLS}` {reason}")))
}

const PLACED_OFF_SYSTEM: &str = "must be carried on a `SystemMessage`. OpenAI restricts the input \
     item to `role: \"developer\"`, so it cannot be sent on any other message.";

/// Warns of each block a system message's Responses item dropped (`kinds`, each as Python's
/// `repr` writes the block's type), on every request, as langchain-openai does.
pub(super) fn warn_dropped(kinds: &[String]) -> Result<(), ModelError> {
    for kind in kinds {
        crate::error::warn(&format!(
            "Content block {kind} was dropped from a system message: the Responses API has no \
             input item of that type, so it cannot be placed in the request."
        ))
        .map_err(ModelError::host)?;
    }
    Ok(())
}

/// A dropped block's type as Python's `repr` writes it.
pub(super) fn kind_repr(block: &Value) -> String {
    match block.get("type") {
        Some(Value::String(t)) if t.contains('\'') && !t.contains('"') => format!("\"{t}\""),
        Some(Value::String(t)) => format!("'{}'", t.replace('\'', "\\'")),
        Some(Value::Null) | None => "None".into(),
        Some(Value::Bool(true)) => "True".into(),
        Some(Value::Bool(false)) => "False".into(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::messages::SystemMessage;

    fn blocks(v: Value) -> Content {
        Content::Blocks(v.as_array().cloned().unwrap_or_default())
    }

    #[test]
    fn only_a_system_message_on_the_responses_api_may_carry_tools() {
        let tools = json!([{"type": "additional_tools", "role": "developer", "tools": []}]);
        let wrapped = json!([{"type": "non_standard", "value": tools[0].clone()}]);
        let system = Message::System(SystemMessage {
            content: blocks(tools.clone()),
            ..Default::default()
        });
        assert!(check_placement(&system, OpenAiApi::Responses).is_ok());
        let err = check_placement(&system, OpenAiApi::ChatCompletions).unwrap_err();
        assert!(err.to_string().contains("requires the Responses API"));
        let mut human = Message::human("x");
        if let Message::Human(h) = &mut human {
            h.content = blocks(wrapped);
        }
        let err = check_placement(&human, OpenAiApi::Responses).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("`additional_tools` must be carried")
        );
    }

    #[test]
    fn kinds_are_written_as_python_writes_them() {
        assert_eq!(kind_repr(&json!({"type": "image"})), "'image'");
        assert_eq!(kind_repr(&json!({"type": "it's"})), "\"it's\"");
        assert_eq!(kind_repr(&json!({"type": null})), "None");
        assert_eq!(kind_repr(&json!({"type": 3})), "3");
    }
}
