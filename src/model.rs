//! The chat-model interface the agent loop drives: one request in, one AI message out.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::error::ModelError;
use crate::messages::{AiMessage, Message, SystemMessage};
use crate::tools::{HostContext, ToolSpec};

/// One model call: the system message, the conversation, and the tools offered.
#[derive(Clone, Debug)]
pub struct ModelRequest {
    pub system: Arc<SystemMessage>,
    pub messages: Vec<Arc<Message>>,
    pub tools: Arc<[ToolSpec]>,
    /// `Some("any")` makes the model call a tool (structured output through a tool).
    pub tool_choice: Option<&'static str>,
}

pub trait ChatModel: Send + Sync {
    /// `provider:name`, as deepagents names models (used in errors and profiles).
    fn id(&self) -> String;

    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>>;

    /// Called when a run ends: drop whatever was kept for messages no longer in use.
    fn release_unused(&self) {}
}
