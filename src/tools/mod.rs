//! Tools the model can call, and their dispatch for one model turn.

mod call_task;
pub mod invocation_error;
mod spawner;

use std::any::Any;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{BoxError, Error};
use crate::events::{NodeTrace, StepEmitter, TraceData};
use crate::host::{HostValue, Origin};
use crate::messages::{Content, Message, ToolCall, ToolMessage, ToolStatus, Usage};
use crate::state::Extra;
pub use call_task::{CallPlace, call_index, call_task_id, set_call_task_id};
pub use spawner::Spawner;

/// What the model is told about a tool. `parameters` is kept exactly as the tool defined it:
/// key order in the schema is part of the provider's cache prefix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
    /// A provider-side tool's own definition (Anthropic's web search, ...), sent as is
    /// instead of a function definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_definition: Option<Value>,
    /// Given as a JSON spec rather than a tool object: deepagents' prompt caching tags the
    /// last tool only when it is a tool object, and so do we.
    #[serde(skip)]
    pub json_spec: bool,
    /// The dict a JSON-spec tool was given as: LangChain's token counter counts it as it
    /// is, and a token counter of the user's is handed it.
    #[serde(skip)]
    pub json_dict: Option<Value>,
    /// The tool's schema is withheld until the model searches for it (a LangChain tool's
    /// `extras={"defer_loading": True}`); a skill listing it discloses it (see `skills`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

/// Opaque per-run data owned by the host (the Python binding keeps its event loop here). The
/// core only carries it from the entry point to tools and models.
pub type HostContext = Option<Arc<dyn Any + Send + Sync>>;

/// What a tool returns when it completes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    pub content: Content,
    /// The tool's own return value, when `content` is not an exact reading of it.
    pub content_origin: Option<Origin>,
    pub status: ToolStatus,
    pub artifact: Option<Value>,
    /// A host object as the artifact (what a Python tool returned, kept as is).
    pub artifact_host: Option<HostValue>,
    pub response_metadata: Map<String, Value>,
    /// Files to merge into the caller's state (a `null` value deletes), as a subagent
    /// hands back the files it wrote.
    pub files: Option<crate::state::FilesWrite>,
    /// Other state keys to write (a `Command` update's custom keys, a subagent's changed
    /// keys).
    pub extra: Option<Extra>,
    /// Model usage spent inside the tool (a subagent's calls), added to the run's totals.
    pub usage: Option<Usage>,
    /// The tool answered with a state update (LangGraph's `Command`), as deepagents' `task`
    /// does: `wrap_tool_call` middleware sees a `Command`, not a bare message.
    pub command: bool,
    /// The tool message's `additional_kwargs` (`read_file` marks media results there).
    pub additional_kwargs: Map<String, Value>,
    /// What a returned `Command` writes beyond the call's message, files and state keys.
    pub write: CommandWrite,
}

/// What a tool's `Command` writes besides its ToolMessage, files and other keys: LangGraph's
/// tool node applies the command's whole update as the call's write, and its `goto`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommandWrite {
    /// Messages the update lists before and after the call's ToolMessage, in its order.
    pub before: Vec<Message>,
    pub after: Vec<Message>,
    /// The update's `RemoveMessage`s, each `(index, id)` standing before the `index`-th
    /// message the call writes (`ToolResult::written_messages`); the messages reducer
    /// applies them (`StateDelta::reduce_write`).
    pub removed: Vec<(usize, String)>,
    /// The command has no update at all, so nothing answers the call: LangGraph's tool node
    /// looks for the ToolMessage only in an update.
    pub unanswered: bool,
    /// The nodes the command goes to (`goto`), by LangGraph's names (the end left out).
    pub goto: Vec<String>,
    /// The command's `Send`s: each runs its node in the next step on a state of its own.
    pub sends: Vec<SendTarget>,
    /// The answer's id and name as the command wrote them: LangGraph's tool node names an
    /// answer given as a message object after the tool, but not one given as a dict.
    pub answer: Option<AnswerIdentity>,
    /// `graph=Command.PARENT` from a subagent's tool: the subagent stops at this step and
    /// the command is written by the parent's `task` call instead of its answer.
    pub to_parent: bool,
    /// The call's earlier writes of state keys it wrote more than once (through its task's
    /// `__pregel_send`, then its returned update), in order; the result's `extra` holds
    /// each key's last. LangGraph applies every write of a task: a key with a reducer takes
    /// each of them (`ToolResult::key_writes`).
    pub sent: Vec<(String, crate::host::Opaque)>,
}

/// A LangGraph `Send` to a node of the agent: the node, by LangGraph's name, and the state it
/// runs on (its own, not the graph's).
#[derive(Clone, Debug)]
pub struct SendTarget {
    pub node: String,
    pub state: Arc<crate::state::AgentState>,
}

impl PartialEq for SendTarget {
    /// The same `Send`: a state is not compared by value (it holds the host's objects).
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node && Arc::ptr_eq(&self.state, &other.state)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnswerIdentity {
    pub id: Option<String>,
    pub name: Option<String>,
}

impl ToolOutput {
    pub fn text(s: impl Into<String>) -> Self {
        ToolOutput {
            content: Content::Text(s.into()),
            ..Default::default()
        }
    }

    pub fn error(s: impl Into<String>) -> Self {
        ToolOutput {
            content: Content::Text(s.into()),
            status: ToolStatus::Error,
            ..Default::default()
        }
    }
}

/// How a tool can fail. `Fatal` ends the run and reaches the caller, as an exception raised by
/// a deepagents tool does; every other failure is reported to the model as an error result.
#[derive(Debug)]
pub enum ToolError {
    Fatal(BoxError),
}

pub struct ToolContext {
    pub tool_call_id: String,
    /// The host's own arguments object, when the core's reading of it is not exact: a host
    /// tool is handed this instead of the reading.
    pub args_origin: Option<Origin>,
    pub host: HostContext,
    /// The run that made the call: its agent and its state as of the call.
    pub run: Arc<RunScope>,
    /// The run's listener, for custom payloads and a subagent's own events.
    pub events: Option<StepEmitter>,
    /// The run enclosing the call (the node's for a host tool, the tool's own for a core
    /// tool), when the run is traced.
    pub trace: Option<NodeTrace>,
}

/// What a tool may know of the run calling it. Cheap to build: every field is shared.
pub struct RunScope {
    pub agent: Arc<dyn Spawner>,
    /// The history including the AI message that made the call.
    pub history: crate::history::History,
    pub files: Arc<Map<String, Value>>,
    /// The host's objects beside `files`.
    pub files_host: Arc<crate::state::FilesHost>,
    /// The run's other state keys (what a subagent inherits besides messages and files).
    pub extra: Extra,
    /// The run is a forked subagent: it must not delegate further.
    pub forked: bool,
    /// A response format the caller asks subagents to answer in.
    pub subagent_response_format: Option<Arc<dyn crate::structured::StructuredOutput>>,
    /// The step the calls run in, as LangGraph numbers a thread's steps.
    pub step: u64,
    /// See `RunOptions::namespace` and `RunOptions::subagent`.
    pub namespace: Vec<String>,
    pub subagent: Option<String>,
    /// See `RunOptions::resume_subagents`.
    pub resume_subagents: crate::run::SubagentResumes,
    /// See `RunOptions::max_concurrency` (a subagent's run inherits it, as a subgraph's config).
    pub max_concurrency: Option<usize>,
}

/// One tool call's outcome, with what it hands back to the caller's state.
pub struct ToolResult {
    pub message: ToolMessage,
    pub files: Option<crate::state::FilesWrite>,
    /// Other state keys the tool wrote (a `Command` update, a subagent's custom keys).
    pub extra: Option<Extra>,
    pub usage: Option<Usage>,
    /// See `ToolOutput::command`.
    pub command: bool,
    /// See `ToolOutput::write`.
    pub write: CommandWrite,
}

impl ToolResult {
    /// The call's write to `messages`, in the order it lands in the state.
    pub fn written_messages(&self) -> Vec<Arc<Message>> {
        let mut out: Vec<Arc<Message>> = self.write.before.iter().cloned().map(Arc::new).collect();
        if !self.write.unanswered {
            out.push(Arc::new(Message::Tool(self.message.clone())));
        }
        out.extend(self.write.after.iter().cloned().map(Arc::new));
        out
    }

    /// `written_messages`, moved out of the result.
    pub fn into_written_messages(self) -> Vec<Arc<Message>> {
        let write = self.write;
        let mut out: Vec<Arc<Message>> = write.before.into_iter().map(Arc::new).collect();
        if !write.unanswered {
            out.push(Arc::new(Message::Tool(self.message)));
        }
        out.extend(write.after.into_iter().map(Arc::new));
        out
    }

    /// The call's writes of state keys other than `messages` and `files`, in the order
    /// LangGraph applies them: the earlier writes of keys written twice, then `extra`.
    pub fn key_writes(&self) -> impl Iterator<Item = (&String, &crate::host::Opaque)> {
        let sent = self.write.sent.iter().map(|(k, v)| (k, v));
        sent.chain(self.extra.iter().flat_map(|e| e.iter()))
    }

    /// Gives each message the call writes an id, as the messages reducer does.
    pub fn set_ids(&mut self, new_id: fn() -> String) {
        self.message.id.get_or_insert_with(new_id);
        for m in self.write.before.iter_mut().chain(&mut self.write.after) {
            m.set_id_if_missing(new_id);
        }
    }
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;
    /// False for a tool that is only shown to the model (a provider-side tool given as a
    /// JSON spec): a call to it is answered like a call to an unknown tool.
    fn executable(&self) -> bool {
        true
    }
    /// LangChain's `return_direct`: a round of calls to such tools ends the run.
    fn return_direct(&self) -> bool {
        false
    }
    /// Whether the tool raises its own callbacks (a LangChain tool given its node's run).
    fn traces_itself(&self) -> bool {
        false
    }
    /// See `Agent::release_unused` (a tool that runs agents passes it on).
    fn release_unused(&self) {}
    /// Whether `error`, raised by this tool, pauses the run rather than failing it (the
    /// host's interrupt, LangGraph's `interrupt()`): the step's other calls then finish
    /// before the run stops, as LangGraph lets a superstep's other tasks finish.
    fn pauses(&self, _error: &BoxError) -> bool {
        false
    }
    fn call(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;
}

/// The tools of one agent, in the order the model sees them.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
    specs: Arc<[ToolSpec]>,
}

impl ToolSet {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Result<Self, Error> {
        let mut seen = std::collections::HashSet::new();
        for t in &tools {
            if !seen.insert(t.spec().name.clone()) {
                return Err(Error::InvalidInput(format!(
                    "duplicate tool name '{}': tool names must be unique",
                    t.spec().name
                )));
            }
        }
        let specs = tools.iter().map(|t| t.spec().clone()).collect();
        Ok(ToolSet { tools, specs })
    }

    /// The same tools, with those named like one of `replacements` swapped for it (a fork's
    /// own file tools, under its own permissions, in its parent's places).
    pub fn with_replaced(&self, replacements: &[Arc<dyn Tool>]) -> ToolSet {
        if replacements.is_empty() {
            return self.clone();
        }
        let tools: Vec<Arc<dyn Tool>> = self
            .tools
            .iter()
            .map(|t| {
                replacements
                    .iter()
                    .find(|r| r.spec().name == t.spec().name)
                    .unwrap_or(t)
                    .clone()
            })
            .collect();
        let specs = tools.iter().map(|t| t.spec().clone()).collect();
        ToolSet { tools, specs }
    }

    pub fn specs(&self) -> Arc<[ToolSpec]> {
        self.specs.clone()
    }

    pub fn release_unused(&self) {
        for t in &self.tools {
            t.release_unused();
        }
    }

    /// Whether `error` from the call of `name` pauses the run (see `Tool::pauses`).
    pub fn pauses(&self, name: &str, error: &BoxError) -> bool {
        self.get(name).is_some_and(|t| t.pauses(error))
    }

    pub fn returns_directly(&self, name: &str) -> bool {
        self.get(name).is_some_and(|t| t.return_direct())
    }

    /// The executable tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools
            .iter()
            .find(|t| t.executable() && t.spec().name == name)
    }

    /// Runs one call with `tool` (the request's: the agent's tool of that name, or one
    /// middleware attached). A call to a tool outside `allowed` (a subagent's narrower tool
    /// set) gets an error result, as does a call with no tool.
    #[allow(clippy::too_many_arguments)]
    pub fn run_one(
        &self,
        call: ToolCall,
        tool: Option<Arc<dyn Tool>>,
        host: HostContext,
        run: Arc<RunScope>,
        allowed: Option<&[String]>,
        events: Option<StepEmitter>,
        trace: Option<NodeTrace>,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        // A tool a wrapper attached under another name (it rewrote the call) does not run it.
        let tool = tool
            .filter(|t| t.spec().name == call.name)
            .or_else(|| self.get(&call.name).cloned());
        let registered = self.get(&call.name).is_some();
        let refusal = match &tool {
            None => {
                let names: Vec<&str> = self
                    .tools
                    .iter()
                    .filter(|t| t.executable())
                    .map(|t| t.spec().name.as_str())
                    .collect();
                // LangGraph's INVALID_TOOL_NAME_ERROR_TEMPLATE, which models have learned to read.
                Some(format!(
                    "Error: {} is not a valid tool, try one of [{}].",
                    call.name,
                    names.join(", ")
                ))
            }
            Some(_) => match allowed {
                Some(allowed) if registered && !allowed.iter().any(|a| a == &call.name) => {
                    Some(format!(
                        "Error: {} is not available to this subagent; it may use only: {}.",
                        call.name,
                        allowed.join(", ")
                    ))
                }
                _ => None,
            },
        };
        let tool = match (refusal, tool) {
            (None, Some(tool)) => tool,
            (refusal, _) => {
                let text = refusal.unwrap_or_default();
                let (call_id, name) = (call.id.unwrap_or_default(), call.name);
                return Box::pin(
                    async move { Ok(to_result(ToolOutput::error(text), call_id, name)) },
                );
            }
        };
        let args_origin = call.args_origin.clone().filter(|o| o.matches(&call.args));
        // A tool that does not report itself (the core's own, `task`) gets a tool run here,
        // which is handed the call; otherwise the call's arguments move to the tool uncopied.
        let (args, call_id, name, traced_call) = if trace.is_some() && !tool.traces_itself() {
            let (id, name) = (call.id.clone().unwrap_or_default(), call.name.clone());
            (call.args.clone(), id, name, Some(call))
        } else {
            (call.args, call.id.unwrap_or_default(), call.name, None)
        };
        Box::pin(async move {
            // A host tool is handed its node's run and reports itself. The traced call (a
            // copy of the arguments) is let go once its run is started, not kept to the end.
            let (trace, own_run) = match (trace, traced_call) {
                (Some(t), Some(traced_call)) => {
                    let run = t
                        .tracer
                        .tool_start(t.run.clone(), TraceData::ToolCall(&traced_call))
                        .await
                        .map(|run| NodeTrace {
                            tracer: t.tracer.clone(),
                            run,
                        });
                    (run.clone(), run)
                }
                (other, _) => (other, None),
            };
            let ctx = ToolContext {
                tool_call_id: call_id.clone(),
                host,
                run,
                events,
                trace,
                args_origin,
            };
            let outcome = tool.call(args, ctx).await;
            match outcome {
                Ok(output) => {
                    let result = to_result(output, call_id, name);
                    if let Some(r) = own_run {
                        let message = Message::Tool(result.message.clone());
                        r.tracer
                            .tool_end(r.run, TraceData::ToolResult(&message, result.command))
                            .await;
                    }
                    Ok(result)
                }
                Err(e) => {
                    if let Some(r) = own_run {
                        r.tracer.tool_error(r.run, TraceData::ToolFailure(&e)).await;
                    }
                    Err(e)
                }
            }
        })
    }
}

/// The result of `call` answered without running its tool (a middleware's refusal).
pub fn result_for(output: ToolOutput, call: &ToolCall) -> ToolResult {
    to_result(
        output,
        call.id.clone().unwrap_or_default(),
        call.name.clone(),
    )
}

/// `result_for` with the content as the tool returned it: for a tool a host's own tool
/// node runs, which converts the content itself (a tool called directly keeps it).
pub fn result_as_returned(mut output: ToolOutput, call: &ToolCall) -> ToolResult {
    // A command's content is never converted.
    let command = std::mem::replace(&mut output.command, true);
    let mut result = result_for(output, call);
    result.command = command;
    result
}

/// `langchain_core.tools.base.TOOL_MESSAGE_BLOCK_TYPES`.
const TOOL_MESSAGE_BLOCK_TYPES: [&str; 8] = [
    "text",
    "image_url",
    "image",
    "json",
    "search_result",
    "custom_tool_call_output",
    "document",
    "file",
];

/// LangGraph's `msg_content_output`, which its tool node applies to every tool's message: a
/// list of anything but tool-message blocks (audio, video, plain strings) goes as its JSON
/// text. `None`: the content stays as it is.
fn as_tool_message_content(content: &Content) -> Option<Content> {
    let Content::Blocks(items) = content else {
        return None;
    };
    let valid = items.iter().all(|b| {
        b.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| TOOL_MESSAGE_BLOCK_TYPES.contains(&t))
    });
    (!valid).then(|| {
        Content::Text(crate::pyrepr::json_dumps(
            &Value::Array(items.clone()),
            false,
        ))
    })
}

fn to_result(mut output: ToolOutput, tool_call_id: String, name: String) -> ToolResult {
    if !output.command
        && let Some(content) = as_tool_message_content(&output.content)
    {
        output.content = content;
        output.content_origin = None;
    }
    let (id, name) = match output.write.answer.take() {
        Some(answer) => (answer.id, answer.name),
        None => (None, Some(name)),
    };
    ToolResult {
        message: ToolMessage {
            content: output.content,
            tool_call_id,
            name,
            status: output.status,
            id,
            artifact: output.artifact.map(Box::new),
            artifact_host: output.artifact_host,
            response_metadata: output.response_metadata.into(),
            additional_kwargs: output.additional_kwargs.into(),
            origin: None,
            content_origin: output.content_origin,
        },
        files: output.files,
        extra: output.extra,
        usage: output.usage,
        command: output.command,
        write: output.write,
    }
}
