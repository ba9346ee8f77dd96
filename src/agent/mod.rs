//! An agent: a model, its tools, its system message and its hook chain. `run` walks
//! deepagents' graph (`graph/`); structured output is handled in the model step
//! (`structured.rs`), as LangChain's model node handles it.

mod graph;
mod guard;
mod routing;
mod stack;
mod structured;

use std::sync::Arc;

use crate::error::Error;
use crate::events::{Emitter, TraceContext, TraceData};
use crate::messages::{SystemMessage, Usage};
use crate::middleware::{Chain, Middleware};

use crate::model::ChatModel;
use crate::state::{AgentState, StateDelta};
use crate::structured::StructuredOutput;
use crate::tools::{HostContext, Tool, ToolSet};
pub use stack::{ProfileLayer, Recipe, StackKind, StackParts, build_stack};
pub(crate) use structured::answer_schema_calls;

/// deepagents configures its graph with this limit.
pub const DEFAULT_RECURSION_LIMIT: u64 = 9_999;

/// A configured agent. Cheap to clone and share: every field is behind an `Arc`.
#[derive(Clone)]
pub struct Agent {
    pub model: Arc<dyn ChatModel>,
    /// The chain's tools, then the user's, in the order the model sees them.
    pub tools: ToolSet,
    pub system: Arc<SystemMessage>,
    pub name: Option<String>,
    /// When set, only these tools may be called; the model still sees the whole tool list.
    /// A fork narrows its tools this way so its requests keep the parent's cached prefix.
    pub allowed_tools: Option<Arc<[String]>>,
    pub chain: Chain,
    /// State keys private to the agent (LangChain's `PrivateStateAttr`): never handed to
    /// or taken from a subagent.
    pub private_keys: Arc<[String]>,
    /// State keys that take one write per step (LangGraph's `LastValue` channels: no
    /// reducer): two calls of one tools step writing one raise `InvalidUpdate`, as
    /// LangGraph's channel does. Set once the host knows the agent's graph (shared by the
    /// agent's copies: a fork made before it is set sees it too).
    pub last_value_keys: Arc<std::sync::OnceLock<Arc<[String]>>>,
    /// Structured output, set with `with_response_format`.
    response_format: Option<Arc<dyn StructuredOutput>>,
    /// The parts the chain was built from (`from_parts`), for forks with a harness profile
    /// of their own.
    pub recipe: Option<Arc<Recipe>>,
}

impl Agent {
    /// An agent with deepagents' subagent stack (no files, no summarization) and `tools`.
    pub fn new(model: Arc<dyn ChatModel>, tools: ToolSet, system: SystemMessage) -> Self {
        Agent {
            model,
            tools,
            system: Arc::new(system),
            name: None,
            allowed_tools: None,
            chain: Chain::builtin(build_stack(StackKind::Subagent, StackParts::default())),
            private_keys: Arc::from(Vec::new()),
            last_value_keys: Arc::default(),
            response_format: None,
            recipe: None,
        }
    }

    /// An agent running deepagents' `kind` stack built from `parts`, with `user_tools` after
    /// the chain's; the parts are kept (see `Recipe`).
    pub fn from_parts(
        kind: StackKind,
        parts: StackParts,
        model: Arc<dyn ChatModel>,
        user_tools: Vec<Arc<dyn Tool>>,
        system: SystemMessage,
    ) -> Result<Self, Error> {
        let chain = build_stack(kind, parts.clone());
        let mut agent = Agent::assemble(model, chain, user_tools.clone(), system)?;
        agent.recipe = Some(Arc::new(Recipe {
            kind,
            parts,
            user_tools,
        }));
        Ok(agent)
    }

    /// An agent running `middleware` (in chain order); the model sees the chain's tools
    /// first, then `user_tools`.
    pub fn assemble(
        model: Arc<dyn ChatModel>,
        middleware: Vec<Arc<dyn Middleware>>,
        user_tools: Vec<Arc<dyn Tool>>,
        system: SystemMessage,
    ) -> Result<Self, Error> {
        let chain = Chain::new(middleware)?;
        let mut tools: Vec<Arc<dyn Tool>> =
            chain.entries().iter().flat_map(|m| m.tools()).collect();
        tools.extend(user_tools);
        let mut agent = Agent::new(model, ToolSet::new(tools)?, system);
        agent.chain = chain;
        Ok(agent)
    }

    /// Lets the models of this agent and of its subagents drop what they kept for messages
    /// no run holds any more. The host calls it once a run's result is handed over.
    pub fn release_unused(&self) {
        self.model.release_unused();
        self.tools.release_unused();
        for m in self.chain.entries() {
            m.release_unused();
        }
    }

    /// The agent with structured output through `parser`'s strategy.
    pub fn with_response_format(mut self, parser: Option<Arc<dyn StructuredOutput>>) -> Self {
        self.response_format = parser;
        self
    }
}

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
    pub resume_subagents: crate::subagents::SubagentResumes,
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
}

/// What a run produced beyond the state.
#[derive(Debug, Default, Clone)]
pub struct RunReport {
    /// Model calls made by this agent itself.
    pub model_calls: u64,
    /// Usage of every model call of the run, subagents' included.
    pub usage: Usage,
}

impl Agent {
    pub async fn run(
        &self,
        mut state: AgentState,
        options: RunOptions,
    ) -> Result<(AgentState, RunReport), RunFailure> {
        let report = Arc::new(parking_lot::Mutex::new(RunReport::default()));
        // The invocation's own chain run, named as LangGraph names the graph.
        let root = match &options.trace {
            Some(t) => {
                let name = self.name.as_deref().unwrap_or("LangGraph");
                t.tracer
                    .chain_start(
                        t.parent.clone(),
                        name,
                        None,
                        &options.namespace,
                        TraceData::State(&state),
                    )
                    .await
            }
            None => None,
        };
        let outcome = self
            .run_graph(&mut state, &report, &options, root.clone())
            .await;
        if let (Some(t), Some(root)) = (&options.trace, root) {
            match &outcome {
                Ok(()) => t.tracer.chain_end(root, TraceData::State(&state)).await,
                Err(e) => t.tracer.chain_error(root, TraceData::Failure(e)).await,
            }
        }
        let report = report.lock().clone();
        match outcome {
            Ok(()) => Ok((state, report)),
            Err(error) => Err(RunFailure { error, state }),
        }
    }
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `n` fresh uuid4 ids from one read of the system's random source (a read per id was a
/// visible share of a long input's conversion); empty if the source fails, and the caller
/// falls back to `new_id`.
pub fn new_ids(n: usize) -> Vec<String> {
    let mut bytes = vec![0u8; 16 * n];
    if getrandom::fill(&mut bytes).is_err() {
        bytes.clear();
    }
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            uuid::Builder::from_random_bytes(b).into_uuid().to_string()
        })
        .collect()
}
