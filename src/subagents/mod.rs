//! Sub-agent delegation: the `task` tool and the two context modes.
//!
//! - isolated: the subagent starts fresh, with only the task description;
//! - fork: the subagent continues the caller's conversation. Its first request repeats the
//!   caller's last one byte for byte up to the end of the shared history (same system
//!   prompt, same tools, same messages), so the provider's prompt cache serves all of it.

mod fork;
pub mod prompts;
mod task;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::history::History;
use crate::messages::Message;
use crate::model::ChatModel;
use crate::tools::{HostContext, Spawner, Tool};

pub use crate::run::{SubagentResume, SubagentResumes};
pub use fork::fork_history;
pub use task::TaskTool;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Isolated,
    Fork,
}

/// A subagent the `task` tool can start.
#[derive(Clone)]
pub struct Subagent {
    pub name: String,
    pub description: String,
    pub kind: SubagentKind,
}

impl Subagent {
    pub fn mode(&self) -> Mode {
        match &self.kind {
            SubagentKind::Isolated(_) => Mode::Isolated,
            SubagentKind::Fork(_) => Mode::Fork,
            SubagentKind::Compiled { mode, .. } => *mode,
        }
    }
}

#[derive(Clone)]
pub enum SubagentKind {
    /// A declarative isolated subagent: an agent of its own.
    Isolated(Arc<dyn Spawner>),
    /// A declarative fork: runs on the caller's agent.
    Fork(Box<ForkSpec>),
    /// A runnable the host provides (deepagents' CompiledSubAgent).
    Compiled {
        mode: Mode,
        runnable: Arc<dyn Runnable>,
    },
}

/// How a fork differs from the caller. Everything that would change the request prefix is
/// avoided unless asked for: instructions travel in the task message, and a narrower tool set
/// is enforced when tools are called rather than by changing the list the model sees.
#[derive(Clone, Default)]
pub struct ForkSpec {
    /// A different model (its cache is separate anyway).
    pub model: Option<Arc<dyn ChatModel>>,
    /// The spec's own system prompt, given to the fork in its task message.
    pub instructions: Option<String>,
    /// The caller's tools the fork may call, when narrower than the caller's (its chain's
    /// tools stay callable).
    pub allowed_tools: Option<Arc<[String]>>,
    /// Tools the caller does not have: the fork then gets its own list, the caller's `task`
    /// (which refuses) plus these, and loses the cache of the tool definitions, as in
    /// deepagents.
    pub extra_tools: Option<Vec<Arc<dyn Tool>>>,
    /// The spec's own middleware, merged over the caller's chain by name.
    pub middleware: Vec<Arc<dyn crate::middleware::Middleware>>,
    /// Entries of the caller's chain the fork runs without, by name: the caller's
    /// human-in-the-loop gate when the spec's own `interrupt_on` makes none.
    pub without: Vec<String>,
    /// The private state keys of the spec's own middleware (its own human-in-the-loop
    /// gate's): kept from the caller, as the caller's own are.
    pub private_keys: Vec<String>,
    /// The spec's own `response_format`: the fork answers in it (its schema tool joins the
    /// tool list, as in deepagents, so the tool definitions leave the caller's cache).
    pub response_format: Option<Arc<dyn crate::structured::StructuredOutput>>,
    /// The fork's own stack parts, when a harness profile (the fork's or the caller's) has a
    /// part in it: the caller's chain is rebuilt with them (`Recipe::for_fork`).
    pub stack: Option<ForkStack>,
    /// The caller's tools as the fork's profile describes them (replacing them by name).
    pub described_tools: Vec<Arc<dyn Tool>>,
}

/// What a fork's stack has in place of its caller's: its harness profile's part, and the
/// user middleware (the caller's merged with the spec's, less what the profile excludes).
#[derive(Clone, Default)]
pub struct ForkStack {
    pub profile: crate::middleware::ProfileLayer,
    pub user: Vec<Arc<dyn crate::middleware::Middleware>>,
}

/// What a host runnable starts from.
pub struct ChildInput {
    /// The `task` call that starts it (the host finds the call's task by it).
    pub call_id: String,
    /// The namespace of the tasks the runnable runs in: the caller's, then the `task` call's
    /// `tools:<id>` (an error leaving the runnable is noted with them).
    pub namespace: Vec<String>,
    /// The caller's step and the call's place among its reply's calls (`CallPlace`): the
    /// host builds the call's task config from them.
    pub step: u64,
    pub index: usize,
    pub messages: History,
    pub files: Arc<Map<String, Value>>,
    pub files_host: Arc<crate::state::FilesHost>,
    /// The `task` tool's run, when the caller is traced: the child's runs nest under it.
    pub trace: Option<crate::events::NodeTrace>,
    /// The `task` call's step emitter, when the caller streams: the runnable's own parts
    /// go there (`Event::Graph`).
    pub events: Option<crate::events::StepEmitter>,
}

/// What a host runnable returns.
pub struct ChildOutput {
    pub messages: Vec<Message>,
    pub files: Option<crate::state::FilesWrite>,
    /// The task result, chosen and rendered by the host (its structured response as its
    /// own types render, or its final text by its own message types).
    pub result: String,
}

pub trait Runnable: Send + Sync {
    fn invoke(
        &self,
        input: ChildInput,
        host: HostContext,
    ) -> BoxFuture<'static, Result<ChildOutput, Error>>;
}
