//! The task a tool call runs in: LangGraph runs each call of a model's reply in a `tools`
//! task of its own (`tools:<task id>`), and a subagent the call starts runs inside it. The
//! host names those tasks for the code it runs (the config, the callbacks, the checkpoints
//! and the error notes of the call), so the core asks the host for the call's task id, and
//! a subagent's namespace carries the same id as every other place. Without an id from the
//! host (none set, or a task the host cannot name yet), one of the core's own.

use std::sync::OnceLock;

use futures::future::BoxFuture;

use crate::history::History;
use crate::messages::Message;
use crate::tools::HostContext;

/// Where a tool call runs: the namespace of its run's graph, the step, the call, and its
/// place among the calls of the reply that made it (LangGraph's `Send` index).
pub struct CallPlace<'a> {
    pub namespace: &'a [String],
    pub step: u64,
    pub call_id: &'a str,
    pub index: usize,
}

/// The host's id of the task running the call at `place`; `None` when it has none to give.
pub type CallTaskId =
    fn(&HostContext, &CallPlace<'_>) -> Option<BoxFuture<'static, Option<String>>>;

static CALL_TASK_ID: OnceLock<CallTaskId> = OnceLock::new();

/// Sets the host's namer (once; later calls are ignored).
pub fn set_call_task_id(namer: CallTaskId) {
    let _ = CALL_TASK_ID.set(namer);
}

/// The id of the task running the call at `place`: the host's, else a new one.
pub async fn call_task_id(host: &HostContext, place: &CallPlace<'_>) -> String {
    let named = match CALL_TASK_ID.get().and_then(|namer| namer(host, place)) {
        Some(named) => named.await,
        None => None,
    };
    named.unwrap_or_else(crate::run::new_id)
}

/// The call's place among the calls of the newest AI message of `history` (the reply that
/// made it): its task's index in LangGraph's `langgraph_path`, the model's edge sending one
/// task per call, in order.
pub fn call_index(history: &History, call_id: &str) -> usize {
    history
        .iter_newest_first()
        .find_map(|m| match m.as_ref() {
            Message::Ai(ai) => Some(ai),
            _ => None,
        })
        .and_then(|ai| {
            ai.tool_calls
                .iter()
                .position(|c| c.id.as_deref() == Some(call_id))
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, HumanMessage, ToolCall};

    #[test]
    fn a_calls_index_is_its_place_in_the_newest_reply() {
        let reply = |ids: &[&str]| {
            Message::Ai(AiMessage {
                tool_calls: ids
                    .iter()
                    .map(|id| ToolCall::new("task", serde_json::json!({}), *id))
                    .collect(),
                ..Default::default()
            })
        };
        let history: History = [
            Message::Human(HumanMessage::default()),
            reply(&["old", "a"]),
            reply(&["b", "a"]),
        ]
        .into_iter()
        .collect();
        assert_eq!(call_index(&history, "a"), 1);
        assert_eq!(call_index(&history, "b"), 0);
        // Not in the newest reply: the first place.
        assert_eq!(call_index(&history, "old"), 0);
    }

    #[tokio::test]
    async fn without_the_hosts_id_each_call_gets_a_new_one() {
        let namespace = ["tools:x".to_owned()];
        let place = CallPlace {
            namespace: &namespace,
            step: 1,
            call_id: "c1",
            index: 0,
        };
        let (a, b) = (
            call_task_id(&None, &place).await,
            call_task_id(&None, &place).await,
        );
        assert_ne!(a, b);
        assert!(uuid::Uuid::parse_str(&a).is_ok());
    }
}
