//! How a tool starts runs of an agent without knowing the agent's type.
//!
//! The agent runs tools, and some tools run agents: the `task` tool starts an isolated
//! subagent or a fork of its caller, and compaction calls the caller's model. When tools named
//! the concrete `Agent`, `tools`/`subagents` and `agent` imported each other, and every new
//! way to start a run had to be taught to the agent. Here the tools' side says what it needs
//! of an agent (run it, fork it, its private keys, its graph's nodes) and the agent implements
//! it (`agent/spawn.rs`), so a tool that spawns runs is just another tool.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::error::Error;
use crate::model::ChatModel;
use crate::run::{RunFailure, RunOptions, RunReport};
use crate::state::AgentState;
use crate::structured::StructuredOutput;
use crate::subagents::ForkSpec;

/// An agent as a tool sees it: the caller of a tool (`RunScope::agent`), or an isolated
/// subagent the `task` tool starts.
pub trait Spawner: Send + Sync {
    /// Runs the agent on `state` with `options` (a subagent's namespace, resume, recursion
    /// limit...): to its end, to a stop, or to a failure that keeps the state.
    fn run(
        &self,
        state: AgentState,
        options: RunOptions,
    ) -> BoxFuture<'_, Result<(AgentState, RunReport), RunFailure>>;

    /// State keys private to the agent: never handed to or taken from a subagent.
    fn private_keys(&self) -> Arc<[String]>;

    /// The agent's graph's node names, as a subgraph shows them.
    fn node_names(&self) -> Vec<String>;

    fn model(&self) -> Arc<dyn ChatModel>;

    /// Lets the agent's models drop what no run holds any more (see `Tool::release_unused`).
    fn release_unused(&self);

    /// The same agent answering in `format` (in text with `None`).
    fn answering_in(&self, format: Option<Arc<dyn StructuredOutput>>) -> Arc<dyn Spawner>;

    /// This agent run as the fork `spec` describes, under the subagent's `name`, answering in
    /// `format`.
    fn fork(
        &self,
        name: &str,
        spec: &ForkSpec,
        format: Option<Arc<dyn StructuredOutput>>,
    ) -> Result<Arc<dyn Spawner>, Error>;

    /// The node names of the fork `spec` (its chain alone, not its tools); `None` if the
    /// chain cannot be built.
    fn fork_nodes(&self, spec: &ForkSpec) -> Option<Vec<String>>;

    /// The agent's state keys with a reducer (see `state::Reducers`), once set.
    fn reducers(&self) -> Option<crate::state::Reducers>;

    /// The keys of the agent's graph, when known: what of a caller's state a subagent run of
    /// it takes.
    fn state_keys(&self) -> Option<Arc<[String]>>;
}
