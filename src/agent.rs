//! The agent loop: call the model, run the tools it asks for, repeat until it answers
//! without tool calls.

use std::sync::Arc;

use crate::error::Error;
use crate::messages::{Message, SystemMessage, Usage};
use crate::model::{ChatModel, ModelRequest};
use crate::state::{AgentState, merge_files};
use crate::tools::{HostContext, RunScope, ToolSet};

/// deepagents configures its graph with this limit.
pub const DEFAULT_RECURSION_LIMIT: u64 = 9_999;

/// A configured agent. Cheap to clone and share: every field is behind an `Arc`.
#[derive(Clone)]
pub struct Agent {
    pub model: Arc<dyn ChatModel>,
    pub tools: ToolSet,
    pub system: Arc<SystemMessage>,
    pub name: Option<String>,
    /// When set, only these tools may be called; the model still sees the whole tool list.
    /// A fork narrows its tools this way so its requests keep the parent's cached prefix.
    pub allowed_tools: Option<Arc<[String]>>,
}

impl Agent {
    pub fn new(model: Arc<dyn ChatModel>, tools: ToolSet, system: SystemMessage) -> Self {
        Agent {
            model,
            tools,
            system: Arc::new(system),
            name: None,
            allowed_tools: None,
        }
    }
}

pub struct RunOptions {
    /// LangGraph counts super-steps: the agent's entry node, each model call, each tool round,
    /// and the exit node. A run that would need more raises `RecursionLimit`.
    pub recursion_limit: u64,
    pub host: HostContext,
    /// The run is a forked subagent (its `task` calls are refused).
    pub forked: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            host: None,
            forked: false,
        }
    }
}

/// A failed run: the error, and the state as it was when the error happened (every completed
/// step is in it), so nothing the run did is lost.
#[derive(Debug)]
pub struct RunFailure {
    pub error: Error,
    pub state: AgentState,
    pub report: RunReport,
}

/// What a run produced beyond the state.
#[derive(Debug, Default, Clone)]
pub struct RunReport {
    /// Model calls made by this agent itself.
    pub model_calls: u64,
    /// Usage of every model call of the run, subagents' included.
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
        match self.run_loop(&mut state, &mut report, &options).await {
            Ok(()) => Ok((state, report)),
            Err(error) => Err(RunFailure {
                error,
                state,
                report,
            }),
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
            // An agent's name wins over any name the model gave its reply, as in deepagents.
            if self.name.is_some() {
                reply.name.clone_from(&self.name);
            }
            // LangChain's id for a model reply: `lc_run--<run id>-<generation index>`.
            reply
                .id
                .get_or_insert_with(|| format!("lc_run--{}-0", new_id()));
            let calls = reply.tool_calls.clone();
            state.messages.push(Message::Ai(reply));
            if calls.is_empty() {
                break;
            }
            counter.step()?;
            let scope = Arc::new(RunScope {
                agent: self.clone(),
                history: state.messages.clone(),
                files: state.files.clone(),
                forked: options.forked,
                recursion_limit: options.recursion_limit,
            });
            let results = self
                .tools
                .run_calls(&calls, &options.host, &scope, self.allowed_tools.as_deref())
                .await?;
            for mut result in results {
                result.message.id.get_or_insert_with(new_id);
                state.messages.push(Message::Tool(result.message));
                if let Some(files) = result.files {
                    merge_files(&mut state.files, files);
                }
                if let Some(usage) = result.usage {
                    report.usage.add(&usage);
                }
            }
        }
        // The exit node (deepagents' _ParentNotifierMiddleware.after_agent), and the step in
        // which LangGraph finds nothing left to run: it counts too.
        counter.step()?;
        counter.step()?;
        Ok(())
    }
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
