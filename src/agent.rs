//! The agent loop: call the model, run the tools it asks for, repeat until it answers
//! without tool calls.

use std::sync::Arc;

use crate::error::Error;
use crate::history::History;
use crate::messages::{Message, SystemMessage, Usage};
use crate::model::{ChatModel, ModelRequest};
use crate::state::AgentState;
use crate::tools::{HostContext, ToolSet};

/// deepagents configures its graph with this limit.
pub const DEFAULT_RECURSION_LIMIT: u64 = 9_999;

/// A configured agent. Cheap to share: runs take `&self`.
#[derive(Clone)]
pub struct Agent {
    pub model: Arc<dyn ChatModel>,
    pub tools: ToolSet,
    pub system: Arc<SystemMessage>,
    pub name: Option<String>,
}

pub struct RunOptions {
    /// LangGraph counts super-steps: the agent's entry node, each model call, each tool round,
    /// and the exit node. A run that would need more raises `RecursionLimit`.
    pub recursion_limit: u64,
    pub host: HostContext,
    /// Give messages without an id a fresh UUID, as LangGraph's message reducer does.
    pub assign_ids: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            host: None,
            assign_ids: true,
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
    pub model_calls: u64,
    pub usage: Usage,
}

struct StepCounter {
    steps: u64,
    limit: u64,
}

impl StepCounter {
    fn step(&mut self) -> Result<(), Error> {
        self.steps += 1;
        if self.steps > self.limit {
            return Err(Error::RecursionLimit { limit: self.limit });
        }
        Ok(())
    }
}

impl Agent {
    pub async fn run(
        &self,
        mut state: AgentState,
        options: RunOptions,
    ) -> Result<(AgentState, RunReport), RunFailure> {
        let mut report = RunReport::default();
        if options.assign_ids {
            state.messages = with_ids(&state.messages);
        }
        match self.run_loop(&mut state, &mut report, &options).await {
            Ok(()) => Ok((state, report)),
            Err(error) => Err(RunFailure { error, state }),
        }
    }

    async fn run_loop(
        &self,
        state: &mut AgentState,
        report: &mut RunReport,
        options: &RunOptions,
    ) -> Result<(), Error> {
        let mut counter = StepCounter {
            steps: 0,
            limit: options.recursion_limit,
        };
        // The entry node (deepagents' PatchToolCallsMiddleware.before_agent).
        counter.step()?;
        loop {
            counter.step()?;
            let request = ModelRequest {
                system: self.system.clone(),
                messages: state.messages.to_vec(),
                tools: self.tools.specs(),
            };
            let mut reply = self.model.invoke(request, options.host.clone()).await?;
            report.model_calls += 1;
            if let Some(usage) = &reply.usage_metadata {
                report.usage.add(usage);
            }
            if reply.name.is_none() {
                reply.name.clone_from(&self.name);
            }
            let calls = reply.tool_calls.clone();
            push(state, Message::Ai(reply), options);
            if calls.is_empty() {
                break;
            }
            counter.step()?;
            let results = self.tools.run_calls(&calls, &options.host).await?;
            for r in results {
                push(state, Message::Tool(r), options);
            }
        }
        // The exit node (deepagents' _ParentNotifierMiddleware.after_agent).
        counter.step()?;
        Ok(())
    }
}

fn push(state: &mut AgentState, mut message: Message, options: &RunOptions) {
    if options.assign_ids {
        message.set_id_if_missing(new_id);
    }
    state.messages.push(message);
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn with_ids(history: &History) -> History {
    if history.to_vec().iter().all(|m| m.id().is_some()) {
        return history.clone();
    }
    history
        .to_vec()
        .into_iter()
        .map(|m| {
            let mut m = Arc::unwrap_or_clone(m);
            m.set_id_if_missing(new_id);
            m
        })
        .collect()
}
