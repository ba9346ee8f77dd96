//! deepagents' `PatchToolCallsMiddleware`: before the agent runs, every tool call in the
//! history that never got a result gets an error result right after its AI message, so the
//! provider accepts the conversation (an interrupted run, a hand-built history).

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::{Hook, HookContext, HookOutput, Middleware};
use crate::run::new_id;
use crate::error::Error;
use crate::messages::{Message, ToolMessage, ToolStatus};
use crate::state::{MessagesDelta, StateDelta};

pub struct PatchToolCalls;

impl Middleware for PatchToolCalls {
    fn name(&self) -> &str {
        "PatchToolCallsMiddleware"
    }

    fn has_hook(&self, hook: Hook) -> bool {
        hook == Hook::BeforeAgent
    }

    fn run_hook(
        &self,
        _hook: Hook,
        cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        // The common history has nothing dangling: found in one pass over the shared list,
        // without copying it (a fork's hook runs on its caller's whole conversation).
        let history = &cx.state.messages;
        let dangling = any_dangling(history.iter_newest_first());
        let out = dangling.then(|| patch(&history.to_vec())).flatten().map(|messages| HookOutput {
            delta: StateDelta {
                messages: MessagesDelta::Replace(messages),
                ..Default::default()
            },
            reported: None,
            jump_declared: false,
        });
        Box::pin(async move { Ok(out) })
    }
}

/// Whether a call in `messages` has no result among them.
fn any_dangling<'a>(messages: impl Iterator<Item = &'a Arc<Message>>) -> bool {
    let mut answered: HashSet<&str> = HashSet::new();
    let mut asked: Vec<&str> = Vec::new();
    for m in messages {
        match m.as_ref() {
            Message::Tool(t) => {
                answered.insert(t.tool_call_id.as_str());
            }
            Message::Ai(ai) => {
                asked.extend(ai.tool_calls.iter().filter_map(|c| c.id.as_deref()));
                asked.extend(
                    ai.invalid_tool_calls
                        .iter()
                        .filter_map(|c| c.get("id").and_then(Value::as_str)),
                );
            }
            _ => {}
        }
    }
    asked.iter().any(|id| !answered.contains(id))
}

/// `(name, id, invalid)` of every call an AI message makes, valid ones first.
fn calls(message: &Message) -> Vec<(Option<String>, Option<String>, bool)> {
    let Some(ai) = message.as_ai() else {
        return Vec::new();
    };
    let valid = ai
        .tool_calls
        .iter()
        .map(|c| (Some(c.name.clone()), c.id.clone(), false));
    let invalid = ai.invalid_tool_calls.iter().map(|c| {
        let text = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_owned);
        (text("name"), text("id"), true)
    });
    valid.chain(invalid).collect()
}

/// The patched history, or `None` when no call is dangling.
fn patch(messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
    let mut results = dangling_results(messages)?.into_iter().peekable();
    let mut out = Vec::with_capacity(messages.len() + 1);
    for (i, m) in messages.iter().enumerate() {
        out.push(m.clone());
        while let Some((_, result)) = results.next_if(|(after, _)| *after == i) {
            out.push(Arc::new(Message::Tool(result)));
        }
    }
    Some(out)
}

/// The error results the dangling calls get, each with the index of the AI message it
/// follows, in history order; `None` when no call is dangling.
pub fn dangling_results(messages: &[Arc<Message>]) -> Option<Vec<(usize, ToolMessage)>> {
    let answered: HashSet<&str> = messages
        .iter()
        .filter_map(|m| match m.as_ref() {
            Message::Tool(t) => Some(t.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let dangling = |id: &Option<String>| id.as_deref().is_some_and(|id| !answered.contains(id));
    if !messages
        .iter()
        .any(|m| calls(m).iter().any(|(_, id, _)| dangling(id)))
    {
        return None;
    }
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for (name, id, invalid) in calls(m) {
            if !dangling(&id) {
                continue;
            }
            let id = id.unwrap_or_default();
            let name = name.filter(|n| !n.is_empty()).unwrap_or("unknown".into());
            let content = if invalid {
                format!(
                    "Tool call {name} with id {id} could not be executed - arguments were malformed or truncated."
                )
            } else {
                format!(
                    "Tool call {name} with id {id} did not complete - no result was recorded. It may have been cancelled or interrupted."
                )
            };
            out.push((
                i,
                ToolMessage {
                content: content.into(),
                tool_call_id: id,
                name: Some(name),
                status: ToolStatus::Error,
                // The reducer gives a message without an id a fresh one.
                id: Some(new_id()),
                artifact: None,
                artifact_host: None,
                response_metadata: Default::default(),
                additional_kwargs: Default::default(),
                origin: None,
                content_origin: None,
                },
            ));
        }
    }
    Some(out)
}
