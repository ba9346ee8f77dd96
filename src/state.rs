//! The state an agent run reads and returns: the message history plus the keys deepagents
//! keeps beside it.

use serde_json::{Map, Value};

use crate::history::History;

#[derive(Clone, Debug, Default)]
pub struct AgentState {
    pub messages: History,
    /// The StateBackend's files, `{path: FileData}`, as deepagents returns them.
    pub files: Map<String, Value>,
    pub structured_response: Option<Value>,
    /// Keys the caller passed that the harness does not interpret; returned unchanged.
    pub extra: Map<String, Value>,
}

impl AgentState {
    pub fn with_messages(messages: History) -> Self {
        AgentState {
            messages,
            ..Default::default()
        }
    }
}
