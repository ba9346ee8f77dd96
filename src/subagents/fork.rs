//! The conversation a fork continues.

use crate::history::History;
use crate::messages::{HumanMessage, Message};
use crate::run::new_id;

use super::prompts::FORK_TASK_PREAMBLE;

/// The caller's history without its trailing tool-calling turn (the `task` call itself and any
/// calls made beside it), then the task as a user message behind the fork preamble. O(1) in
/// the history's length: the history is shared, not copied.
pub fn fork_history(parent: &History, description: &str, instructions: Option<&str>) -> History {
    let delegating_turn = parent
        .last()
        .and_then(|m| m.as_ai())
        .is_some_and(|ai| !ai.tool_calls.is_empty());
    let mut history = if delegating_turn {
        parent.without_last()
    } else {
        parent.clone()
    };
    let mut text = String::from(FORK_TASK_PREAMBLE);
    if let Some(instructions) = instructions.filter(|i| !i.is_empty()) {
        text.push_str(instructions);
        text.push_str("\n\n");
    }
    text.push_str(description);
    history.push(Message::Human(HumanMessage {
        content: text.into(),
        id: Some(new_id()),
        ..Default::default()
    }));
    history
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, ToolCall};
    use serde_json::json;

    #[test]
    fn drops_the_delegating_turn_and_appends_the_task() {
        let mut parent = History::new();
        parent.push(Message::human("hi"));
        parent.push(Message::Ai(AiMessage {
            tool_calls: vec![ToolCall::new("task", json!({}), "t1")],
            ..Default::default()
        }));
        let fork = fork_history(&parent, "do it", Some("Be brief."));
        let msgs = fork.to_vec();
        assert_eq!(msgs.len(), 2);
        assert_eq!(msgs[0].content().text(), "hi");
        let task = msgs[1].content().text();
        assert!(task.starts_with(FORK_TASK_PREAMBLE));
        assert!(task.ends_with("Be brief.\n\ndo it"));
        // The parent's history is untouched and shared.
        assert_eq!(parent.len(), 2);
        assert!(std::sync::Arc::ptr_eq(&parent.to_vec()[0], &msgs[0]));
    }
}
