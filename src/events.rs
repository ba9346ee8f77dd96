//! The event sink: what a run reports while it goes (each step's update, the whole state
//! after a step, model and tool messages, model tokens, custom payloads). `stream()` is one
//! listener; callbacks and checkpoints are others. A run without a listener carries `None`
//! and pays one branch per step.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::host::HostValue;
use crate::messages::Message;
use crate::state::{AgentState, StateDelta};

/// The path of a (sub)agent from the root run: empty for the root, `["tools:<id>"]` for a
/// subagent started by the `task` call `<id>`, as LangGraph names subgraph namespaces.
pub type Namespace = Arc<[String]>;

/// The kinds a listener can ask for: LangGraph's stream modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Updates,
    Values,
    Messages,
    Custom,
    /// What a host graph a tool runs (a compiled subagent) streams of its own.
    Graph,
    /// Where the loop goes after each node (not a LangGraph stream mode: what a checkpoint
    /// writer needs to route its own graph as the core went).
    Routes,
}

/// One thing a run reports.
pub enum Event {
    /// A node finished. `update` is what it wrote (`None`: nothing), in the node's own form.
    Update {
        node: Arc<str>,
        update: Option<Update>,
    },
    /// The whole state after a step that wrote something, and after the input.
    Values(AgentState),
    /// A message a node produced: a model reply, whole or as a chunk, or a tool result.
    Message(MessageEvent),
    /// A payload a tool wrote through LangGraph's stream writer.
    Custom(HostValue),
    /// A part a host graph streamed while the `task` call `call_id` ran it (a compiled
    /// subagent): LangGraph's own `(namespace, mode, payload)` chunk, passed on as it is.
    Graph { call_id: String, part: HostValue },
    /// Where the loop goes after `node`, decided before the next node runs.
    Route { node: Arc<str>, next: Route },
    /// A subagent starts (reported under its own namespace, with the routes): the `task`
    /// call that started it, the state it starts from and its graph's node names, so a
    /// checkpoint writer can follow it as a subgraph of that call's task.
    SubagentStart {
        call_id: String,
        input: Box<AgentState>,
        nodes: Vec<String>,
    },
    /// A subagent stopped for the host's interrupt (reported under its own namespace, with
    /// the routes): that interrupt, as the host raised it, so the graph following the
    /// subagent stops with its own, when several subagents of one step stop at once.
    SubagentPaused {
        call_id: String,
        error: Arc<crate::error::Error>,
    },
    /// A task of a step of several starts (reported with the routes): its place among the
    /// step's tasks of `node`, in LangGraph's task order. A checkpoint writer matches the
    /// node's next write to that task by it, since a task stopped by an interrupt writes
    /// nothing and a resumed step's finished tasks do not run again.
    TaskPlace { node: Arc<str>, place: usize },
    /// Where the `tools` task of the model's call `call_id` goes (reported with the routes,
    /// before the call's write): LangGraph routes each task of a step on its own, so a
    /// checkpoint writer's task need not wait for the step's other calls (`Route` after
    /// `tools` comes once every call is answered).
    CallRoute { call_id: String, next: Route },
}

/// The loop's next position after a node, as LangGraph routes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// A node of the graph, by LangGraph's name.
    Node(Arc<str>),
    /// One `tools` task per call, in the message's order (LangChain's `Send`s).
    Calls(Vec<crate::messages::ToolCall>),
    /// A node run on a state of its own (a tool command's `Send`).
    Send(crate::tools::SendTarget),
    /// Several of the above, run side by side in the next step (a tool command's `goto`
    /// beside the edge's destination).
    Branches(Vec<Route>),
    End,
}

/// A node's write as streamed.
#[derive(Clone)]
pub enum Update {
    /// Written by the core: the changed keys.
    Delta(Arc<StateDelta>),
    /// Written by a host hook: its own return value, reported as it was returned.
    Host(HostValue),
    /// Several writes of one node, in order (LangGraph streams them as a list).
    Writes(Vec<Arc<StateDelta>>),
}

pub struct MessageEvent {
    /// The node that produced it: `model`, `tools`, or a hook node.
    pub node: Arc<str>,
    pub payload: MessagePayload,
    /// The model's tracing parameters (`ls_provider`, ...) for a model message.
    pub model: Option<Arc<ModelInfo>>,
}

pub enum MessagePayload {
    Whole(Arc<Message>),
    /// A chunk in the host's own form (a LangChain `AIMessageChunk`).
    HostChunk(HostValue),
    /// A chunk the core made from a native provider's stream: LangChain `AIMessageChunk`
    /// fields.
    NativeChunk(serde_json::Map<String, serde_json::Value>),
}

/// What LangChain's `_get_ls_params()` says of a model, for message metadata.
#[derive(Clone, Debug, Default)]
pub struct ModelInfo {
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Where an event comes from.
pub struct Origin<'a> {
    pub ns: &'a Namespace,
    /// The agent's name (`lc_agent_name`): a subagent's spec name, the root's `name=`.
    pub agent_name: Option<&'a str>,
    /// LangGraph's super-step number of the node (1 for the first node of a run).
    pub step: u64,
}

pub trait EventSink: Send + Sync {
    /// Whether events of `kind` from `ns` are wanted at all: nothing is built for the rest.
    fn wants(&self, ns: &[String], kind: EventKind) -> bool;
    fn emit(&self, origin: &Origin<'_>, event: Event);

    /// Whether models should stream their replies (LangGraph streams from the provider
    /// whenever `messages` is asked for, subagents' calls included, even when their chunks
    /// are not shown).
    fn streams_tokens(&self) -> bool {
        false
    }
}

/// A sink as seen from one (sub)agent run: where its events go and what they are tagged with.
#[derive(Clone)]
pub struct Emitter {
    sink: Arc<dyn EventSink>,
    ns: Namespace,
    agent_name: Option<Arc<str>>,
}

impl Emitter {
    pub fn new(sink: Arc<dyn EventSink>, agent_name: Option<&str>) -> Self {
        Emitter {
            sink,
            ns: Arc::from(Vec::new()),
            agent_name: agent_name.map(Arc::from),
        }
    }

    /// The emitter of a subagent started by the tool call `segment` (`tools:<id>`).
    pub fn child(&self, segment: String, agent_name: Option<&str>) -> Self {
        let mut ns: Vec<String> = self.ns.to_vec();
        ns.push(segment);
        Emitter {
            sink: self.sink.clone(),
            ns: ns.into(),
            agent_name: agent_name.map(Arc::from),
        }
    }

    pub fn wants(&self, kind: EventKind) -> bool {
        self.sink.wants(&self.ns, kind)
    }

    /// The namespace of the run it reports for.
    pub fn namespace(&self) -> &Namespace {
        &self.ns
    }

    pub fn streams_tokens(&self) -> bool {
        self.sink.streams_tokens()
    }

    pub fn emit(&self, step: u64, event: Event) {
        let origin = Origin {
            ns: &self.ns,
            agent_name: self.agent_name.as_deref(),
            step,
        };
        self.sink.emit(&origin, event);
    }
}

/// An emitter bound to one step: what tools and models are handed.
#[derive(Clone)]
pub struct StepEmitter {
    pub emitter: Emitter,
    pub step: u64,
}

impl StepEmitter {
    pub fn wants(&self, kind: EventKind) -> bool {
        self.emitter.wants(kind)
    }

    pub fn emit(&self, event: Event) {
        self.emitter.emit(self.step, event);
    }
}

/// A run the tracer started (the host's own run object), and the parent of what runs inside
/// it.
pub type TraceHandle = HostValue;

/// What the tracer is told a run started with or produced.
pub enum TraceData<'a> {
    State(&'a AgentState),
    Update(Option<&'a Update>),
    Message(&'a Message),
    Messages(&'a [Arc<Message>]),
    ToolCall(&'a crate::messages::ToolCall),
    /// A tool's result message, and whether the tool answered with a `Command`.
    ToolResult(&'a Message, bool),
    /// A `tools` node's write, and whether its tool answered with a `Command`.
    ToolUpdate(&'a Update, bool),
    Failure(&'a crate::error::Error),
    ToolFailure(&'a crate::tools::ToolError),
}

/// LangChain's callbacks, as LangGraph raises them: a chain run for the invocation and for
/// each node, the model and tool runs inside them. Each call may call the host, so each
/// returns a future the loop awaits (the host's work never runs on a runtime worker).
pub trait Tracer: Send + Sync {
    /// Starts a chain: the invocation (`parent` None, or a subagent under its `task` tool
    /// run) or a node (`step` set). `namespace`: the run's (the namespaces of the tasks
    /// above it), which names the node's task as LangGraph derives it.
    fn chain_start(
        &self,
        parent: Option<TraceHandle>,
        name: &str,
        step: Option<u64>,
        namespace: &[String],
        inputs: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>>;
    fn chain_end(&self, run: TraceHandle, outputs: TraceData<'_>) -> BoxFuture<'static, ()>;
    fn chain_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()>;
    /// A tool run the core itself executes (`task`), inside a node.
    fn tool_start(
        &self,
        node: TraceHandle,
        call: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>>;
    fn tool_end(&self, run: TraceHandle, output: TraceData<'_>) -> BoxFuture<'static, ()>;
    fn tool_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()>;
    /// A model call of a model that does not report itself (a native client).
    fn llm_start(
        &self,
        node: TraceHandle,
        model: &ModelInfo,
        messages: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>>;
    fn llm_end(&self, run: TraceHandle, message: TraceData<'_>) -> BoxFuture<'static, ()>;
    fn llm_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()>;
    /// A model call middleware makes inside a node (the summary), as LangChain's
    /// `with_retry` makes it: one chain run named after the model (`model` is its host
    /// object, if any), tagged `nostream` and marked as an internal call, started with the
    /// prompt; the attempts run inside it (`retry_attempt`). Ended by `chain_end` with the
    /// reply, or `chain_error`.
    fn internal_call_start(
        &self,
        node: TraceHandle,
        model: Option<HostValue>,
        info: &ModelInfo,
        prompt: &str,
    ) -> BoxFuture<'static, Option<TraceHandle>>;
    /// The parent of attempt `attempt` (from 1) inside an `internal_call_start` run.
    fn retry_attempt(
        &self,
        run: TraceHandle,
        attempt: u32,
    ) -> BoxFuture<'static, Option<TraceHandle>>;
}

/// Where a run reports to its tracer: the tracer, and the run that encloses this one (the
/// caller's `task` tool run for a subagent).
#[derive(Clone)]
pub struct TraceContext {
    pub tracer: Arc<dyn Tracer>,
    pub parent: Option<TraceHandle>,
}

/// The run that encloses a model or tool call (its node's, or a tool run's), with the tracer.
#[derive(Clone)]
pub struct NodeTrace {
    pub tracer: Arc<dyn Tracer>,
    pub run: TraceHandle,
}
