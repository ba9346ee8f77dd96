//! The state an agent run reads and returns: the message history plus the keys deepagents
//! keeps beside it.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::history::History;
use crate::host::HostValue;
use crate::messages::Message;

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
            files.shift_remove(&path);
        } else {
            files.insert(path, data);
        }
    }
}

/// How a node changes the messages, as deepagents' reducer applies a write.
#[derive(Clone, Debug, Default)]
pub enum MessagesDelta {
    #[default]
    None,
    /// New messages at the end (the common write).
    Append(Vec<Arc<Message>>),
    /// The whole list replaced (a write starting with `RemoveMessage(REMOVE_ALL)`, or one
    /// that replaced or removed messages by id, resolved by the host's reducer).
    Replace(Vec<Arc<Message>>),
}

/// Where a hook asks the graph to go next (LangChain's `jump_to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    Model,
    Tools,
    End,
}

impl Jump {
    pub fn parse(s: &str) -> Option<Jump> {
        match s {
            "model" => Some(Jump::Model),
            "tools" => Some(Jump::Tools),
            "end" => Some(Jump::End),
            _ => None,
        }
    }
}

/// One node's write.
#[derive(Clone, Debug, Default)]
pub struct StateDelta {
    pub messages: MessagesDelta,
    /// Merged into `files` (a `null` value deletes).
    pub files: Option<Map<String, Value>>,
    pub structured_response: Option<Value>,
    pub structured_rendered: Option<String>,
    pub structured_host: Option<HostValue>,
    /// Other keys, replacing their values.
    pub extra: Map<String, Value>,
    pub jump_to: Option<Jump>,
}

impl StateDelta {
    pub fn append(messages: Vec<Message>) -> Self {
        StateDelta {
            messages: MessagesDelta::Append(messages.into_iter().map(Arc::new).collect()),
            ..Default::default()
        }
    }

    /// Whether the write changes nothing (LangGraph streams such an update as `None`).
    pub fn is_empty(&self) -> bool {
        matches!(self.messages, MessagesDelta::None)
            && self.files.is_none()
            && self.structured_response.is_none()
            && self.extra.is_empty()
            && self.jump_to.is_none()
    }
}

impl AgentState {
    /// Applies a node's write.
    pub fn apply(&mut self, delta: &StateDelta) {
        match &delta.messages {
            MessagesDelta::None => {}
            MessagesDelta::Append(new) => {
                for m in new {
                    self.messages.push(m.clone());
                }
            }
            MessagesDelta::Replace(all) => {
                let mut h = History::new();
                for m in all {
                    h.push(m.clone());
                }
                self.messages = h;
            }
        }
        if let Some(files) = &delta.files {
            merge_files(&mut self.files, files.clone());
        }
        if delta.structured_response.is_some() {
            self.structured_response
                .clone_from(&delta.structured_response);
            self.structured_rendered
                .clone_from(&delta.structured_rendered);
            self.structured_host.clone_from(&delta.structured_host);
        }
        for (k, v) in &delta.extra {
            self.extra.insert(k.clone(), v.clone());
        }
    }
}
