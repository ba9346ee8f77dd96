//! An agent: a model, its tools, its system message and its hook chain. `run` walks
//! deepagents' graph (`graph/`); structured output is handled in the model step
//! (`structured.rs`), as LangChain's model node handles it.

mod graph;
pub use graph::task_note::set_task_note;
mod guard;
mod routing;
mod spawn;
mod stack;
#[cfg(test)]
mod step_copies;
mod structured;

use std::sync::Arc;

use crate::error::Error;
use crate::events::TraceData;
use crate::messages::SystemMessage;
use crate::middleware::{Chain, Middleware};

use crate::model::ChatModel;
use crate::state::AgentState;
use crate::structured::StructuredOutput;
use crate::tools::{Tool, ToolSet};
// `python/stream.rs` names these here.
pub use crate::run::{RunFailure, new_id};
use crate::run::{RunOptions, RunReport, StartTask};
pub use stack::{Recipe, StackKind, StackParts, build_stack};
pub(crate) use structured::answer_schema_calls;

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
    /// The state keys with a reducer and the host running them (see `state::Reducers`),
    /// set once the host knows the agent's graph, like `last_value_keys`; unset, every
    /// write replaces its key.
    pub reducers: Arc<std::sync::OnceLock<crate::state::Reducers>>,
    /// The keys of the agent's graph when it runs as a subagent and the host knows them:
    /// the only keys of its caller's state a run of it starts with.
    pub state_keys: Option<Arc<[String]>>,
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
            reducers: Arc::default(),
            state_keys: None,
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
            Err(error) => Err(RunFailure {
                error,
                state,
                files_dropped: false,
            }),
        }
    }
}
