//! deepagents' `PatchToolCallsMiddleware`: before the agent runs, every tool call in the
//! history that never got a result gets an error result right after its AI message, so the
//! provider accepts the conversation (an interrupted run, a hand-built history).

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::Value;

use super::{Hook, HookContext, HookOutput, Middleware};
use crate::error::Error;
use crate::history::{History, Mark};
use crate::message_memo::AddressMap;
use crate::messages::{Message, ToolMessage, ToolStatus};
use crate::state::{MessagesDelta, StateDelta};

#[derive(Default)]
pub struct PatchToolCalls {
    /// Histories found with nothing dangling, by their newest node. A fork's run starts on
    /// its caller's conversation, which was found so when the caller's run started: the
    /// fork's look walks its own new messages only, where it walked the whole conversation.
    clean: Mutex<CleanHistories>,
}

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
        // The common history has nothing dangling: found without copying it.
        let history = &cx.state.messages;
        let out = self
            .any_dangling(history)
            .then(|| patch(&history.to_vec()))
            .flatten()
            .map(|messages| HookOutput {
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

impl PatchToolCalls {
    /// Whether a call in `history` has no result in it. Its messages after its newest node
    /// known clean are looked at first: when each call among them has its result among
    /// them, nothing dangles (every call before was answered before); otherwise (a call
    /// answered earlier than it was made, or not at all) the whole history decides.
    pub fn any_dangling(&self, history: &History) -> bool {
        let mut newer = Calls::default();
        let mut known = false;
        {
            let clean = self.clean.lock();
            for (address, m) in history.iter_addressed_newest_first() {
                if clean.marks.contains_key(&address) {
                    known = true;
                    break;
                }
                newer.see(m);
            }
        }
        let dangling = newer.dangling()
            && (!known || {
                let mut all = Calls::default();
                history.iter_newest_first().for_each(|m| all.see(m));
                all.dangling()
            });
        if !dangling && let Some(mark) = history.mark() {
            self.clean.lock().keep(mark);
        }
        dangling
    }
}

#[derive(Default)]
struct CleanHistories {
    marks: AddressMap<Mark>,
    /// Marks kept after the last prune: dead ones are pruned when the map has doubled since.
    live_after_prune: usize,
}

impl CleanHistories {
    fn keep(&mut self, mark: Mark) {
        self.marks.entry(mark.address()).or_insert(mark);
        if self.marks.len() > 2 * self.live_after_prune + 16 {
            self.marks.retain(|_, m| m.alive());
            self.live_after_prune = self.marks.len();
        }
    }
}

/// The calls made and the results given in a run of messages.
#[derive(Default)]
struct Calls<'a> {
    answered: HashSet<&'a str>,
    asked: Vec<&'a str>,
}

impl<'a> Calls<'a> {
    fn see(&mut self, m: &'a Message) {
        match m {
            Message::Tool(t) => {
                self.answered.insert(t.tool_call_id.as_str());
            }
            Message::Ai(ai) => {
                self.asked
                    .extend(ai.tool_calls.iter().filter_map(|c| c.id.as_deref()));
                self.asked.extend(
                    ai.invalid_tool_calls
                        .iter()
                        .filter_map(|c| c.get("id").and_then(Value::as_str)),
                );
            }
            _ => {}
        }
    }

    /// Whether a call has no result among the messages seen.
    fn dangling(&self) -> bool {
        self.asked.iter().any(|id| !self.answered.contains(id))
    }
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
            out.push((i, ToolMessage::answer(id, name, content, ToolStatus::Error)));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, ToolCall};
    use serde_json::json;

    fn call(id: &str) -> Message {
        Message::Ai(AiMessage {
            tool_calls: vec![ToolCall::new("lookup", json!({}), id)],
            ..Default::default()
        })
    }

    fn result(id: &str) -> Message {
        serde_json::from_value(json!({
            "type": "tool", "content": "ok", "tool_call_id": id, "name": "lookup", "status": "success",
        }))
        .unwrap()
    }

    fn history(messages: Vec<Message>) -> History {
        messages.into_iter().collect()
    }

    fn fork_of(parent: &History, extra: Vec<Message>) -> History {
        let mut fork = parent.clone();
        extra.into_iter().for_each(|m| fork.push(m));
        fork
    }

    #[test]
    fn a_fork_of_a_clean_history_is_judged_by_its_new_messages() {
        let patch = PatchToolCalls::default();
        let parent = history(vec![Message::human("hi"), call("a"), result("a")]);
        assert!(!patch.any_dangling(&parent));
        assert_eq!(patch.clean.lock().marks.len(), 1);
        // Answered among its new messages: clean, and kept.
        let fork = fork_of(
            &parent,
            vec![call("b"), result("b"), Message::human("task")],
        );
        assert!(!patch.any_dangling(&fork));
        assert_eq!(patch.clean.lock().marks.len(), 2);
        // A new call without its result dangles.
        let dangling = fork_of(&parent, vec![call("c")]);
        assert!(patch.any_dangling(&dangling));
        assert_eq!(patch.clean.lock().marks.len(), 2);
    }

    #[test]
    fn a_new_call_answered_before_it_was_made_needs_the_whole_history() {
        let patch = PatchToolCalls::default();
        // `d` is answered in the clean part and called again after it: nothing dangles,
        // as the whole history's look says.
        let parent = history(vec![Message::human("hi"), result("d")]);
        assert!(!patch.any_dangling(&parent));
        let fork = fork_of(&parent, vec![call("d")]);
        assert!(!patch.any_dangling(&fork));
        // The same with no clean part known.
        assert!(!PatchToolCalls::default().any_dangling(&fork));
    }

    #[test]
    fn a_history_with_a_dangling_call_is_not_kept() {
        let patch = PatchToolCalls::default();
        let parent = history(vec![Message::human("hi"), call("e")]);
        assert!(patch.any_dangling(&parent));
        assert!(patch.clean.lock().marks.is_empty());
        // Its continuation answers it: clean, found by the whole look.
        let later = fork_of(&parent, vec![result("e")]);
        assert!(!patch.any_dangling(&later));
    }

    #[test]
    fn dead_histories_are_pruned() {
        let patch = PatchToolCalls::default();
        let live = history(vec![Message::human("kept")]);
        assert!(!patch.any_dangling(&live));
        for i in 0..100 {
            let gone = history(vec![Message::human(format!("m{i}"))]);
            assert!(!patch.any_dangling(&gone));
        }
        let clean = patch.clean.lock();
        assert!(clean.marks.len() <= 40, "{} kept", clean.marks.len());
        assert!(
            live.mark()
                .is_some_and(|m| clean.marks.contains_key(&m.address()))
        );
    }
}
