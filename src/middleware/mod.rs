//! The hook chain. Every feature of an agent, built in or the user's, is an entry here, run
//! at deepagents' hooks in deepagents' order (LangChain's `create_agent` semantics):
//!
//! - `before_agent`, `before_model`, `after_model`, `after_agent` are graph nodes: each runs
//!   as a step of its own, sees the state and returns a write (and maybe a `jump_to`).
//!   `before_*` run in chain order, `after_*` in reverse.
//! - `wrap_model_call` and `wrap_tool_call` wrap the model call and each tool call; the
//!   first entry is the outermost, and `next` runs the rest of the chain.
//! - `tools` are offered to the model before the user's tools, in chain order.

mod builtin;
mod chain;
pub mod filesystem;
mod format_slots;
mod memory;
pub mod patch_tool_calls;
mod profile_layer;
pub(crate) mod py_text;
mod skills;
pub(crate) mod system_prompt;
mod tool_exclusion;
mod unsupported_content;

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::error::Error;
use crate::events::{StepEmitter, Update};
use crate::messages::{Message, ToolCall};
use crate::model::ModelRequest;
use crate::state::{AgentState, StateDelta};
use crate::tools::{HostContext, Tool, ToolError, ToolResult};

pub use builtin::{AnthropicPromptCaching, ParentNotifier, ToolProvider};
pub use chain::{Chain, ModelBase, ModelHandler, Slot, ToolBase, ToolHandler, with_custom};
pub use memory::{
    MEMORY_CONTENTS_KEY, MEMORY_SYSTEM_PROMPT, Memory, check_template as check_memory_template,
    format_memory,
};
pub use patch_tool_calls::PatchToolCalls;
pub use profile_layer::ProfileLayer;
pub use skills::{
    FrontmatterReader, MAX_SKILL_COMPATIBILITY_LENGTH, MAX_SKILL_DESCRIPTION_LENGTH,
    MAX_SKILL_FILE_SIZE, MAX_SKILL_NAME_LENGTH,
    MAX_WARNING_LENGTH as MAX_SKILL_LOAD_WARNING_LENGTH, MAX_WARNINGS as MAX_SKILLS_LOAD_WARNINGS,
    ReadView, ResolvedTools, SKILLS_SYSTEM_PROMPT, SkillToolResolver, Skills,
    Source as SkillSource, check_template as check_skills_template,
    derive_label as derive_skill_label, parts as skill_parts,
};
pub use tool_exclusion::{TOOL_NOT_AVAILABLE, ToolExclusion};
pub use unsupported_content::UnsupportedContent;

/// The node hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hook {
    BeforeAgent,
    BeforeModel,
    AfterModel,
    AfterAgent,
}

impl Hook {
    pub const ALL: [Hook; 4] = [
        Hook::BeforeAgent,
        Hook::BeforeModel,
        Hook::AfterModel,
        Hook::AfterAgent,
    ];

    /// The method name, which is also the node name's suffix (`<Middleware>.before_model`).
    pub fn as_str(self) -> &'static str {
        match self {
            Hook::BeforeAgent => "before_agent",
            Hook::BeforeModel => "before_model",
            Hook::AfterModel => "after_model",
            Hook::AfterAgent => "after_agent",
        }
    }
}

/// Where a node runs among LangGraph's tasks: the super-step, the namespaces of the tasks
/// above the run (a subagent's `tools:<id>`) and the subagent the run is, if any. A host
/// builds from it the config LangGraph hands the node's task (its `checkpoint_ns`,
/// `langgraph_step`, ...); `None` where no agent graph runs the node (an entry called on its
/// own).
#[derive(Clone, Debug, Default)]
pub struct NodePlace {
    pub step: u64,
    pub namespace: Vec<String>,
    pub subagent: Option<String>,
}

/// What a node hook sees.
pub struct HookContext {
    pub state: AgentState,
    pub host: HostContext,
    pub events: Option<StepEmitter>,
    /// See `NodePlace`.
    pub place: Option<NodePlace>,
    /// The hook's node run, when the run is traced.
    pub trace: Option<crate::events::NodeTrace>,
}

/// What a node hook wrote.
pub struct HookOutput {
    pub delta: StateDelta,
    /// How the write is streamed when it is not the delta itself (a host hook's own dict).
    pub reported: Option<Update>,
    /// The hook declared its `jump_to` destinations (LangChain's `can_jump_to`); an
    /// undeclared jump is honoured only on the edge after the model's last `after_model`.
    pub jump_declared: bool,
}

/// What a model call returns through the chain: the messages the model step adds (the
/// reply, and the structured-output tool message when there is one) and the structured
/// response.
#[derive(Clone, Debug, Default)]
pub struct ModelResponse {
    pub messages: Vec<Message>,
    pub structured: Option<Structured>,
    /// State writes that go with the reply, in order (a middleware's
    /// `ExtendedModelResponse` command); LangGraph streams each as its own update after the
    /// reply's.
    pub commands: Vec<CommandWrite>,
    /// Files a backend wrote during the call (a `StateBackend`), streamed before the reply.
    pub files_before: Option<crate::state::FilesWrite>,
}

/// One command's write of the state: messages (by `add_messages`), files, other keys.
#[derive(Clone, Debug, Default)]
pub struct CommandWrite {
    pub messages: Vec<Message>,
    pub files: Option<crate::state::FilesWrite>,
    pub extra: crate::state::Extra,
}

#[derive(Clone, Debug)]
pub struct Structured {
    pub value: serde_json::Value,
    pub rendered: Option<String>,
    pub host: Option<crate::host::HostValue>,
}

/// One tool call as `wrap_tool_call` sees it.
#[derive(Clone)]
pub struct ToolCallRequest {
    pub call: ToolCall,
    /// The state the tool step started from.
    pub state: AgentState,
    pub host: HostContext,
    /// The call's `tools` chain run, when the run is traced.
    pub trace: Option<crate::events::NodeTrace>,
    /// The call's `tools` task's place (see `NodePlace`).
    pub place: Option<NodePlace>,
    /// LangChain's `request.tool`: the agent's tool of the call's name, or one a wrapper
    /// attached for a name the agent has no tool for (a disclosed skill tool); `None`
    /// makes the call fail as an unknown tool.
    pub tool: Option<Arc<dyn Tool>>,
}

pub trait Middleware: Send + Sync {
    /// The entry's name: node names are `<name>.<hook>`, and names are unique in a chain.
    fn name(&self) -> &str;

    fn has_hook(&self, _hook: Hook) -> bool {
        false
    }

    fn run_hook(
        &self,
        hook: Hook,
        _cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        let name = format!("{}.{}", self.name(), hook.as_str());
        Box::pin(async move { Err(Error::InvalidInput(format!("{name} is not a hook"))) })
    }

    fn wraps_model_call(&self) -> bool {
        false
    }

    fn wrap_model_call(
        &self,
        request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        next.call(request)
    }

    fn wraps_tool_call(&self) -> bool {
        false
    }

    fn wrap_tool_call(
        &self,
        request: ToolCallRequest,
        next: ToolHandler,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        next.call(request)
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    /// Whether subagents that inherit the caller's chain (forks) keep this entry.
    fn inherited_by_subagents(&self) -> bool {
        true
    }

    /// See `Agent::release_unused`.
    fn release_unused(&self) {}
}
