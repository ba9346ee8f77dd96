//! System messages on the Anthropic wire, as langchain-anthropic sends them: a run of
//! system messages counts as one; its content is narrowed to the blocks the API takes
//! (`text` anywhere, the tool-change blocks `tool_addition` / `tool_removal` only at the top
//! or on a `system` turn in the conversation), anything else dropped with a warning. A
//! system message after the first turn is sent in place as a `system` turn when the model's
//! profile takes mid-conversation system messages and it follows a user turn (or an
//! assistant turn ending in a server tool result), a run of them before an assistant turn or
//! at the end; otherwise it is moved into the top-level `system` field, with a warning, which
//! is an error when that field is already taken.

use serde_json::{Map, Value, json};

use crate::error::ModelError;
use crate::messages::Content;

const TOOL_CHANGES: [&str; 2] = ["tool_addition", "tool_removal"];

/// The beta a request needs when a `system` turn changes the tool set.
pub(super) const TOOL_CHANGES_BETA: &str = "mid-conversation-tool-changes-2026-07-01";
/// The beta a request needs when a `system` turn defines a tool (it covers the other).
pub(super) const INLINE_TOOLS_BETA: &str = "inline-tools-2026-09-15";

/// One block of a system message, narrowed once; what becomes of it depends on where the
/// message goes.
#[derive(Clone)]
pub(super) enum Block {
    Kept(Value),
    ToolChange(Value),
    /// Dropped with a warning naming its type (as Python's `repr` writes it).
    Unrecognized(String),
}

/// A system message's content as encoded once (`MessageCache`): a string goes as it is.
pub(super) enum SystemContent {
    Text(String),
    Blocks(Vec<Block>),
}

/// The message's content, narrowed.
pub(super) fn encode(content: &Content) -> SystemContent {
    match content {
        Content::Text(s) => SystemContent::Text(s.clone()),
        Content::Blocks(blocks) => SystemContent::Blocks(blocks.iter().map(narrow).collect()),
    }
}

fn narrow(raw: &Value) -> Block {
    let Value::Object(outer) = raw else {
        return Block::Kept(json!({"type": "text", "text": raw}));
    };
    // LangChain's `non_standard` wrapper is read through.
    let block = match (
        outer.get("type").and_then(Value::as_str),
        outer.get("value"),
    ) {
        (Some("non_standard"), Some(Value::Object(inner))) => inner,
        _ => outer,
    };
    match block.get("type") {
        Some(Value::String(t)) if t == "text" => Block::Kept(text_block(block)),
        Some(Value::String(t)) if TOOL_CHANGES.contains(&t.as_str()) => {
            Block::ToolChange(Value::Object(block.clone()))
        }
        Some(Value::String(t)) => Block::Unrecognized(format!("'{t}'")),
        None | Some(Value::Null) => Block::Unrecognized("None".into()),
        Some(other) => Block::Unrecognized(other.to_string()),
    }
}

/// A text block with the fields the API takes; a citation's null `file_id` is left out.
fn text_block(block: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (k, v) in block {
        if !["type", "text", "cache_control", "citations"].contains(&k.as_str()) {
            continue;
        }
        let v = match (k.as_str(), v) {
            ("citations", Value::Array(citations)) if !citations.is_empty() => Value::Array(
                citations
                    .iter()
                    .map(|c| match c {
                        Value::Object(c) => Value::Object(
                            c.iter()
                                .filter(|(k, v)| !(k.as_str() == "file_id" && v.is_null()))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect(),
                        ),
                        other => other.clone(),
                    })
                    .collect(),
            ),
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

/// A run of consecutive system messages as the one message langchain-anthropic merges them
/// into: one alone keeps its content; several join as blocks, a string becoming a text block.
pub(super) fn merged<'a>(run: impl Iterator<Item = &'a SystemContent>) -> SystemContent {
    let run: Vec<&SystemContent> = run.collect();
    if let [SystemContent::Text(s)] = run.as_slice() {
        return SystemContent::Text(s.clone());
    }
    let mut blocks = Vec::new();
    for content in run {
        match content {
            SystemContent::Text(s) => blocks.push(Block::Kept(json!({"type": "text", "text": s}))),
            SystemContent::Blocks(b) => blocks.extend(b.iter().cloned()),
        }
    }
    SystemContent::Blocks(blocks)
}

fn warn(text: String) -> Result<(), ModelError> {
    crate::error::warn(&text).map_err(ModelError::host)
}

impl SystemContent {
    /// The content as sent where tool-change blocks are taken (`keep_tool_changes`: the top
    /// of the conversation or a `system` turn) or not (moved into `system`), warning of each
    /// block dropped.
    pub(super) fn formatted(
        &self,
        keep_tool_changes: bool,
        model: &str,
    ) -> Result<Value, ModelError> {
        let blocks = match self {
            SystemContent::Text(s) => return Ok(json!(s)),
            SystemContent::Blocks(blocks) => blocks,
        };
        let mut out = Vec::with_capacity(blocks.len());
        for block in blocks {
            match block {
                Block::Kept(b) => out.push(b.clone()),
                Block::ToolChange(b) if keep_tool_changes => out.push(b.clone()),
                Block::ToolChange(b) => warn(format!(
                    "Tool-change block '{}' was dropped: it is only valid on a `SystemMessage` sent in place, \
                     and this one was hoisted into the top-level `system` field. Use a model whose profile sets \
                     `mid_conversation_system_messages` and place the message after a human or tool message, \
                     either last or before an AI message (model: '{model}').",
                    b.get("type").and_then(Value::as_str).unwrap_or_default()
                ))?,
                Block::Unrecognized(kind) => warn(format!(
                    "Unrecognized system content block {kind} was dropped. Anthropic accepts `text` in any \
                     system message, plus `tool_addition` and `tool_removal` on a mid-conversation one."
                ))?,
            }
        }
        Ok(Value::Array(out))
    }
}

/// The warning for a system message moved into the top-level `system` field.
pub(super) fn warn_hoisted(model: &str) -> Result<(), ModelError> {
    warn(format!(
        "A non-leading `SystemMessage` was moved to the top-level `system` field and now applies to the \
         entire conversation. To send it in place, use a model whose profile sets \
         `mid_conversation_system_messages` and place it after a human or tool message, either last or \
         before an AI message (model: '{model}')."
    ))
}

/// The beta the `system` turns' content needs, if any.
pub(super) fn tool_change_beta(turns: &[Value]) -> Option<&'static str> {
    let blocks = || {
        turns
            .iter()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_object)
    };
    let kind = |b: &Map<String, Value>| b.get("type").and_then(Value::as_str).map(str::to_owned);
    if blocks().any(|b| {
        kind(b).as_deref() == Some("tool_addition")
            && b.get("tool")
                .and_then(|t| t.get("type"))
                .and_then(Value::as_str)
                == Some("tool_definition")
    }) {
        return Some(INLINE_TOOLS_BETA);
    }
    blocks()
        .any(|b| kind(b).is_some_and(|k| TOOL_CHANGES.contains(&k.as_str())))
        .then_some(TOOL_CHANGES_BETA)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value, json};

    use super::super::messages::encode_message;
    use super::super::turns::{Placement, format_turns};
    use crate::messages::{AiMessage, Content, Message, SystemMessage};

    fn system(content: Content) -> Message {
        Message::System(SystemMessage {
            content,
            ..Default::default()
        })
    }

    /// What `format_turns` made: the turns parsed, the hoisted message, the beta.
    struct Shown {
        turns: Vec<Value>,
        hoisted: Option<Value>,
        beta: Option<&'static str>,
    }

    fn format(messages: Vec<Message>, in_place: bool, has_system: bool) -> Shown {
        let messages: Vec<Arc<Message>> = messages.into_iter().map(Arc::new).collect();
        let encoded: Vec<_> = messages
            .iter()
            .map(|m| Arc::new(encode_message(m).unwrap()))
            .collect();
        let placement = Placement {
            model: "claude-test",
            in_place,
            has_system,
        };
        let f = format_turns(&messages, &encoded, &placement).unwrap();
        Shown {
            turns: serde_json::from_str(&f.turns()).unwrap(),
            hoisted: f.hoisted,
            beta: f.beta,
        }
    }

    fn turns(f: &Shown) -> Vec<Value> {
        f.turns.clone()
    }

    #[test]
    fn a_system_message_after_a_server_tool_result_stays_in_place() {
        let ai = Message::Ai(AiMessage {
            content: Content::Blocks(vec![
                json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}),
                json!({"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}),
            ]),
            ..Default::default()
        });
        let removal = json!({"type": "tool_removal", "tool_name": "ls"});
        let f = format(
            vec![
                Message::human("hi"),
                ai,
                system(Content::Blocks(vec![removal.clone()])),
            ],
            true,
            true,
        );
        let turns = turns(&f);
        assert_eq!(turns[2], json!({"role": "system", "content": [removal]}));
        // A removal alone needs the tool-change beta, not the inline-tools one.
        assert_eq!(f.beta, Some(super::TOOL_CHANGES_BETA));
    }

    #[test]
    fn without_the_agents_prompt_a_late_system_message_is_hoisted_without_tool_changes() {
        let addition = json!({"type": "tool_addition", "tool": {"type": "tool_definition"}});
        let late = system(Content::Blocks(vec![
            json!("note"),
            addition,
            json!({"type": "image", "url": "u"}),
        ]));
        let f = format(vec![Message::human("hi"), late], false, false);
        assert_eq!(f.hoisted, Some(json!([{"type": "text", "text": "note"}])));
        assert_eq!(turns(&f), vec![json!({"role": "user", "content": "hi"})]);
        assert_eq!(f.beta, None);
    }

    #[test]
    fn a_system_turn_narrowed_to_nothing_is_not_sent() {
        let empty = system(Content::Blocks(vec![json!({"type": "image", "url": "u"})]));
        let f = format(vec![Message::human("hi"), empty], true, true);
        assert_eq!(turns(&f), vec![json!({"role": "user", "content": "hi"})]);
    }
}
