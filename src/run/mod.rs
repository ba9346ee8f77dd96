//! What starting a run takes and gives back: its options, the tasks it starts at, its
//! stops, its report and failure, and the ids runs give messages. Plain types, here rather
//! than in `agent`, so that the tools and subagents that start runs (through
//! `tools::Spawner`) and the agent that runs them share them without importing each other.

mod random_ids;
mod resumes;

use std::sync::Arc;

use crate::error::Error;
use crate::events::{Emitter, TraceContext};
use crate::state::{AgentState, StateDelta};
use crate::structured::StructuredOutput;
use crate::tools::HostContext;
use crate::usage_sum::UsageSum;
pub use random_ids::{new_id, new_id_between, new_ids, now_v7};
pub use resumes::{SubagentResume, SubagentResumes};

/// deepagents configures its graph with this limit.
pub const DEFAULT_RECURSION_LIMIT: u64 = 9_999;

pub struct RunOptions {
    /// LangGraph counts super-steps: every node run, and the step in which it finds
    /// nothing left to run. A run that would need more raises `RecursionLimit`.
    pub recursion_limit: u64,
    pub host: HostContext,
    /// The run is a forked subagent (its `task` calls are refused).
    pub forked: bool,
    /// A response format the caller asks subagents to answer in (deepagents'
    /// `configurable["__deepagents_subagent_response_format"]`).
    pub subagent_response_format: Option<Arc<dyn StructuredOutput>>,
    /// Where the run reports its steps, when somebody listens.
    pub events: Option<Emitter>,
    /// Where the run reports its runs (LangChain callbacks), when somebody traces.
    pub trace: Option<TraceContext>,
    /// Steps the thread ran before this run: LangGraph numbers a thread's steps across its
    /// runs, so the steps this run reports continue from them. The recursion limit counts
    /// this run's steps only.
    pub steps_before: u64,
    /// The tasks of the step to start at: a run resumed or replayed from a checkpoint whose
    /// next step they are (one node, or several side by side). Empty: the graph's first node.
    pub start: Vec<StartTask>,
    /// Nodes the run stops before or after (LangGraph's `interrupt_before`/`_after`).
    pub stops: Stops,
    /// Calls of the step the run resumes that had finished before it stopped (their answers
    /// are in the state it starts from): the step's answers are ordered by call, theirs
    /// among the rest, as LangGraph applies a superstep's writes in task order.
    pub resumed_calls: Vec<String>,
    /// The run's place among nested runs: the namespaces of the tasks above it (LangGraph's
    /// `checkpoint_ns` parts, `tools:<id>` for a subagent), and the subagent it is, if any.
    pub namespace: Vec<String>,
    pub subagent: Option<String>,
    /// Subagents of the step the run resumes that stopped inside (see `SubagentResume`).
    pub resume_subagents: SubagentResumes,
    /// LangChain's `max_concurrency`: at most this many tool calls of a step run at once
    /// (LangGraph's bound on a step's tasks), in call order as places free up.
    pub max_concurrency: Option<usize>,
}

/// A task of the step a resumed or replayed run starts at, as the checkpoint holds it: a
/// node by LangGraph's name (`model`, `tools`, `<Middleware>.<hook>`), and, for a task a
/// `Send` gave a state of its own, that state. A `tools` task with no state of its own runs
/// the model's pending calls (LangChain's sends of them), or with `whole` the tool node on the
/// step's state (a tool's `goto="tools"`). `done`: the write of a task that had finished
/// before the step stopped (an `interrupt()` in another of its tasks), which LangGraph keeps
/// and does not run again.
#[derive(Clone, Debug)]
pub struct StartTask {
    pub node: String,
    pub own: Option<AgentState>,
    pub whole: bool,
    pub done: Option<StateDelta>,
}

impl StartTask {
    /// The step's one task, a node on the step's state.
    pub fn named(node: impl Into<String>) -> StartTask {
        StartTask {
            node: node.into(),
            own: None,
            whole: false,
            done: None,
        }
    }
}

/// LangGraph's `interrupt_before` and `interrupt_after`: node names, or every node (`"*"`);
/// and its run control's drain.
#[derive(Clone, Debug, Default)]
pub struct Stops {
    pub before: Vec<String>,
    pub after: Vec<String>,
    pub drain: Option<Drain>,
}

/// LangGraph's `RunControl` (`control=`): asked at each node boundary whether a drain was
/// requested (from any thread, at any time); the run then ends at that boundary, where
/// LangGraph's loop stops too, and is resumed from its checkpoint like any stopped run.
#[derive(Clone)]
pub struct Drain(pub Arc<dyn Fn() -> futures::future::BoxFuture<'static, bool> + Send + Sync>);

impl Drain {
    pub async fn requested(&self) -> bool {
        (self.0)().await
    }
}

impl std::fmt::Debug for Drain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Drain")
    }
}

impl Stops {
    fn matches(list: &[String], node: &str) -> bool {
        list.iter().any(|n| n == "*" || n == node)
    }

    /// Whether any node is stopped at (before or after it): a run without breakpoints does
    /// not name its nodes for them.
    pub fn at_nodes(&self) -> bool {
        !self.before.is_empty() || !self.after.is_empty()
    }

    pub fn before(&self, node: &str) -> bool {
        Self::matches(&self.before, node)
    }

    pub fn after(&self, node: &str) -> bool {
        Self::matches(&self.after, node)
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            host: None,
            forked: false,
            subagent_response_format: None,
            events: None,
            trace: None,
            steps_before: 0,
            start: Vec::new(),
            stops: Stops::default(),
            resumed_calls: Vec::new(),
            namespace: Vec::new(),
            subagent: None,
            resume_subagents: Default::default(),
            max_concurrency: None,
        }
    }
}

/// A failed run: the error, and the state as it was when the error happened (every completed
/// step is in it), so nothing the run did is lost.
#[derive(Debug)]
pub struct RunFailure {
    pub error: Error,
    pub state: AgentState,
    /// A panic's failure (`Agent::run_guarded`): `state` is the run's input without its files,
    /// which the caller still holds. Keeping them would share the files map with the run, so
    /// its first file write would copy every file (13 ms at 10,000 files).
    pub files_dropped: bool,
}

/// What a run produced beyond the state.
#[derive(Debug, Default, Clone)]
pub struct RunReport {
    /// Model calls made by this agent itself.
    pub model_calls: u64,
    /// Usage of every model call of the run, subagents' included.
    pub usage: UsageSum,
}
