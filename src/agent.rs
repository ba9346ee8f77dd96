//! The agent loop: call the model, run the tools it asks for, repeat until it answers
//! without tool calls.

use std::sync::Arc;

use crate::error::Error;
use crate::messages::{Message, SystemMessage, ToolMessage, ToolStatus, Usage};
use crate::model::{ChatModel, ModelRequest};
use crate::state::{AgentState, merge_files};
use crate::structured::{ParseError, StructuredOutput};
use crate::tools::{HostContext, RunScope, ToolSet, ToolSpec};

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
    /// Structured output: set with `with_response_format`, which also prepares the tool
    /// list the model is sent.
    response_format: Option<ResponseFormat>,
}

#[derive(Clone)]
struct ResponseFormat {
    parser: Arc<dyn StructuredOutput>,
    /// The agent's tools followed by the schema tool.
    request_tools: Arc<[ToolSpec]>,
}

impl Agent {
    pub fn new(model: Arc<dyn ChatModel>, tools: ToolSet, system: SystemMessage) -> Self {
        Agent {
            model,
            tools,
            system: Arc::new(system),
            name: None,
            allowed_tools: None,
            response_format: None,
        }
    }

    /// Lets the models of this agent and of its subagents drop what they kept for messages
    /// no run holds any more. The host calls it once a run's result is handed over.
    pub fn release_unused(&self) {
        self.model.release_unused();
        self.tools.release_unused();
    }

    /// The agent with structured output through `parser`'s schema tool.
    pub fn with_response_format(mut self, parser: Option<Arc<dyn StructuredOutput>>) -> Self {
        self.response_format = parser.map(|parser| {
            let mut specs: Vec<ToolSpec> = self.tools.specs().to_vec();
            specs.push(parser.spec().clone());
            ResponseFormat {
                parser,
                request_tools: specs.into(),
            }
        });
        self
    }
}

pub struct RunOptions {
    /// LangGraph counts super-steps: the agent's entry node, each model call, each tool round,
    /// and the exit node. A run that would need more raises `RecursionLimit`.
    pub recursion_limit: u64,
    pub host: HostContext,
    /// The run is a forked subagent (its `task` calls are refused).
    pub forked: bool,
    /// A response format the caller asks subagents to answer in (deepagents'
    /// `configurable["__deepagents_subagent_response_format"]`).
    pub subagent_response_format: Option<Arc<dyn StructuredOutput>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            host: None,
            forked: false,
            subagent_response_format: None,
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
        let outcome = self.run_loop(&mut state, &mut report, &options).await;
        match outcome {
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
                tools: match &self.response_format {
                    Some(rf) => rf.request_tools.clone(),
                    None => self.tools.specs(),
                },
                // LangChain forces a tool call while a structured response is expected.
                tool_choice: self.response_format.as_ref().map(|_| "any"),
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
            let mut calls = reply.tool_calls.clone();
            state.messages.push(Message::Ai(reply));
            // LangGraph's routing after a tool round: end when a structured response was
            // handled in this turn, or when every tool called returns directly.
            let mut end_after_tools = false;
            if let Some(rf) = &self.response_format {
                let step = self.structured_reply(rf, &calls, state, options)?;
                if let StructuredStep::Done(schema) | StructuredStep::Retry(schema) = &step {
                    calls.retain(|c| &c.name != schema);
                    if calls.is_empty() {
                        match step {
                            StructuredStep::Done(_) => break,
                            // Only the schema tool was called, and it must be called again.
                            _ => continue,
                        }
                    }
                    end_after_tools = true;
                }
            }
            if calls.is_empty() {
                break;
            }
            end_after_tools |= calls.iter().all(|c| self.tools.returns_directly(&c.name));
            counter.step()?;
            let scope = Arc::new(RunScope {
                agent: self.clone(),
                history: state.messages.clone(),
                files: state.files.clone(),
                forked: options.forked,
                subagent_response_format: options.subagent_response_format.clone(),
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
            if end_after_tools {
                break;
            }
        }
        // The exit node (deepagents' _ParentNotifierMiddleware.after_agent), and the step in
        // which LangGraph finds nothing left to run: it counts too.
        counter.step()?;
        counter.step()?;
        Ok(())
    }
}

enum StructuredStep {
    /// No schema tool call in the reply.
    NotAsked,
    /// The structured response is set (the schema tool's name): the run ends.
    Done(String),
    /// The schema call failed; its error is in the history and the model tries again.
    Retry(String),
}

impl Agent {
    /// LangChain's handling of a reply under `ToolStrategy`.
    fn structured_reply(
        &self,
        rf: &ResponseFormat,
        calls: &[crate::messages::ToolCall],
        state: &mut AgentState,
        options: &RunOptions,
    ) -> Result<StructuredStep, Error> {
        let name = rf.parser.spec().name.as_str();
        let schema_calls: Vec<_> = calls.iter().filter(|c| c.name == name).collect();
        let tool_message = |content: String, call: &crate::messages::ToolCall| {
            Message::Tool(ToolMessage {
                content: content.into(),
                tool_call_id: call.id.clone().unwrap_or_default(),
                name: Some(call.name.clone()),
                status: ToolStatus::Success,
                id: Some(new_id()),
                artifact: None,
                artifact_host: None,
                response_metadata: Default::default(),
                additional_kwargs: Default::default(),
            })
        };
        match schema_calls.as_slice() {
            [] => Ok(StructuredStep::NotAsked),
            [call] => match rf.parser.parse(&call.args, &options.host) {
                Ok(parsed) => {
                    state.messages.push(tool_message(parsed.tool_message, call));
                    state.structured_response = Some(parsed.value);
                    state.structured_rendered = Some(parsed.rendered);
                    state.structured_host = parsed.host_value;
                    Ok(StructuredStep::Done(name.to_owned()))
                }
                Err(ParseError::Retry(text)) => {
                    state.messages.push(tool_message(text, call));
                    Ok(StructuredStep::Retry(name.to_owned()))
                }
                Err(ParseError::Fatal(source)) => Err(Error::Tool {
                    tool: name.to_owned(),
                    source,
                }),
            },
            several => {
                let names: Vec<&str> = several.iter().map(|c| c.name.as_str()).collect();
                let text = match rf.parser.multiple(&names, &options.host) {
                    Ok(text) => text,
                    Err(ParseError::Retry(text)) => text,
                    Err(ParseError::Fatal(source)) => {
                        return Err(Error::Tool {
                            tool: name.to_owned(),
                            source,
                        });
                    }
                };
                for call in several {
                    state.messages.push(tool_message(text.clone(), call));
                }
                Ok(StructuredStep::Retry(name.to_owned()))
            }
        }
    }
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
