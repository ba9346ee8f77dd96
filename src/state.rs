//! The state an agent run reads and returns: the message history plus the keys deepagents
//! keeps beside it.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::history::History;
use crate::host::HostValue;

#[derive(Clone, Debug, Default)]
pub struct AgentState {
    pub messages: History,
    /// The StateBackend's files, `{path: FileData}`, as deepagents returns them.
    /// Shared, not copied: subagents start from the caller's files.
    pub files: Arc<Map<String, Value>>,
    pub structured_response: Option<Value>,
    /// The structured response rendered for a `task` result, when the host rendered it.
    pub structured_rendered: Option<String>,
    /// The structured response as the host's own object, when the host parsed it.
    pub structured_host: Option<HostValue>,
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

/// Merges a files update into `files` as deepagents' reducer does: a `null` value deletes.
pub fn merge_files(files: &mut Arc<Map<String, Value>>, update: Map<String, Value>) {
    let files = Arc::make_mut(files);
    for (path, data) in update {
        if data.is_null() {
            files.remove(&path);
        } else {
            files.insert(path, data);
        }
    }
}
