//! `stream` / `astream`: the run's events, carried from tokio to the Python thread that
//! iterates. The sink only queues what the core reports; every Python object is built by
//! the iterating thread (`__next__` / `__anext__`), never on a tokio worker.
//!
//! Each item is a raw tuple that `deepagents_rs._stream` shapes into LangGraph's chunks:
//! `(mode, ns, payload)`, and a last `("done", (), state)`.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::exceptions::{PyStopAsyncIteration, PyStopIteration};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use super::agent::{LateResumes, ResumeArg};
use super::convert::{host_object, message_to_py};
use crate::agent::{Agent, RunFailure};
use crate::events::{
    Event, EventKind, EventSink, MessagePayload, Namespace, Origin, Route, StepEmitter, Update,
};
use crate::host::HostValue;
use crate::model::TokenSink;
use crate::state::{AgentState, MessagesDelta, StateDelta};

/// What the stream queue carries.
pub(crate) enum Item {
    Event {
        ns: Namespace,
        agent_name: Option<Arc<str>>,
        step: u64,
        event: Box<Event>,
    },
    Done(Box<Result<AgentState, RunFailure>>),
}

/// The sink of one `stream()` call: the modes asked for, and whether subagents' events are
/// wanted (`subgraphs=True`).
pub(crate) struct QueueSink {
    modes: Vec<EventKind>,
    subgraphs: bool,
    tx: UnboundedSender<Item>,
}

impl QueueSink {
    pub fn new(modes: Vec<EventKind>, subgraphs: bool, tx: UnboundedSender<Item>) -> Self {
        QueueSink {
            modes,
            subgraphs,
            tx,
        }
    }
}

impl EventSink for QueueSink {
    fn wants(&self, ns: &[String], kind: EventKind) -> bool {
        if !self.modes.contains(&kind) {
            return false;
        }
        // The thread graph (it asks for routes) follows subagents as subgraphs of their
        // tasks whether or not the caller streams them; the caller's side drops what it
        // did not ask for.
        let follows = matches!(kind, EventKind::Updates | EventKind::Routes)
            && self.modes.contains(&EventKind::Routes);
        ns.is_empty() || self.subgraphs || follows
    }

    fn streams_tokens(&self) -> bool {
        self.modes.contains(&EventKind::Messages)
    }

    fn emit(&self, origin: &Origin<'_>, event: Event) {
        // A closed queue means the caller stopped iterating; the run is being dropped.
        let _ = self.tx.send(Item::Event {
            ns: origin.ns.clone(),
            agent_name: origin.agent_name.map(Arc::from),
            step: origin.step,
            event: Box::new(event),
        });
    }
}

pub(crate) fn parse_mode(mode: &str) -> Option<EventKind> {
    Some(match mode {
        "updates" => EventKind::Updates,
        "values" => EventKind::Values,
        "messages" => EventKind::Messages,
        "custom" => EventKind::Custom,
        // Internal: a compiled subagent's own parts (`deepagents_rs._subagent_parts`).
        "graph" => EventKind::Graph,
        // Internal: the thread graph's routing (`deepagents_rs._threads`).
        "routes" => EventKind::Routes,
        _ => return None,
    })
}

fn mode_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Updates => "updates",
        EventKind::Values => "values",
        EventKind::Messages => "messages",
        EventKind::Custom => "custom",
        EventKind::Graph => "graph",
        EventKind::Routes => "routes",
    }
}

/// A node's write as the dict LangGraph streams; `__remove_all__` marks a write that
/// replaced the whole list (shaped as `RemoveMessage(REMOVE_ALL)` first by the Python side).
pub(crate) fn delta_to_py<'py>(
    py: Python<'py>,
    delta: &StateDelta,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    if !delta.keys_first {
        messages_to_py(py, &out, delta)?;
    }
    if let Some(files) = &delta.files {
        out.set_item("files", super::convert::files_write_to_py(py, files)?)?;
    }
    if let Some(obj) = delta
        .structured_host
        .as_ref()
        .and_then(|h| host_object(py, h))
    {
        out.set_item("structured_response", obj)?;
    } else if let Some(sr) = &delta.structured_response {
        out.set_item("structured_response", pythonize::pythonize(py, sr)?)?;
    }
    for (k, v) in &delta.extra {
        out.set_item(k, super::convert::opaque_to_py(py, v)?)?;
    }
    if delta.keys_first {
        messages_to_py(py, &out, delta)?;
    }
    if let Some(jump) = delta.jump_to {
        let name = match jump {
            crate::state::Jump::Model => "model",
            crate::state::Jump::Tools => "tools",
            crate::state::Jump::End => "end",
        };
        out.set_item("jump_to", name)?;
    }
    Ok(out)
}

fn messages_to_py(py: Python<'_>, out: &Bound<'_, PyDict>, delta: &StateDelta) -> PyResult<()> {
    match &delta.messages {
        MessagesDelta::None => {}
        MessagesDelta::Append(m) => {
            out.set_item("messages", super::convert::message_list(py, m)?)?;
            if !delta.removed.is_empty() {
                // The write's `RemoveMessage`s, put in their places by the Python side.
                out.set_item("__removed__", delta.removed.clone())?;
            }
        }
        MessagesDelta::Replace(m) => {
            out.set_item("messages", super::convert::message_list(py, m)?)?;
            out.set_item("__remove_all__", true)?;
        }
    }
    Ok(())
}

/// LangGraph's metadata of a streamed message (the run config's metadata is merged in by
/// the Python side).
fn message_meta<'py>(
    py: Python<'py>,
    ns: &Namespace,
    agent_name: Option<&str>,
    step: u64,
    node: &str,
    model: Option<&crate::events::ModelInfo>,
) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    let task_ns = format!("{node}:{}", crate::agent::new_id());
    let mut path: Vec<String> = ns.to_vec();
    path.push(task_ns);
    let checkpoint_ns = path.join("|");
    meta.set_item("langgraph_step", step)?;
    meta.set_item("langgraph_node", node)?;
    meta.set_item("langgraph_checkpoint_ns", &checkpoint_ns)?;
    meta.set_item("lc_agent_name", agent_name)?;
    if let Some(model) = model {
        meta.set_item(
            "langgraph_triggers",
            PyTuple::new(py, [format!("branch:to:{node}")])?,
        )?;
        meta.set_item("langgraph_path", PyTuple::new(py, ["__pregel_pull", node])?)?;
        meta.set_item("checkpoint_ns", &path[0])?;
        meta.set_item("ls_integration", "langchain_chat_model")?;
        for (k, v) in &model.params {
            meta.set_item(k, pythonize::pythonize(py, v)?)?;
        }
    } else {
        meta.set_item("langgraph_triggers", PyTuple::new(py, ["__pregel_push"])?)?;
        let push = ("__pregel_push", 0, false);
        meta.set_item("langgraph_path", push)?;
        if !ns.is_empty() {
            meta.set_item("checkpoint_ns", &path[0])?;
            meta.set_item("ls_integration", "langchain_create_agent")?;
        }
    }
    Ok(meta)
}

fn event_to_py(
    py: Python<'_>,
    ns: &Namespace,
    agent_name: Option<&str>,
    step: u64,
    event: Event,
    state_to_py: fn(Python<'_>, &AgentState) -> PyResult<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ns_py = PyTuple::new(py, ns.iter())?;
    let (kind, payload): (EventKind, Bound<'_, PyAny>) = match event {
        Event::Update { node, update } => {
            // The flag tells a core write (message dicts to shape) from a hook's own value.
            let (payload, core) = match update {
                None => (py.None().into_bound(py), false),
                Some(Update::Delta(delta)) => (delta_to_py(py, &delta)?.into_any(), true),
                Some(Update::Writes(writes)) => {
                    let list = PyList::empty(py);
                    for w in &writes {
                        list.append(delta_to_py(py, w)?)?;
                    }
                    (list.into_any(), true)
                }
                Some(Update::Host(value)) => (
                    host_object(py, &value).unwrap_or_else(|| py.None().into_bound(py)),
                    false,
                ),
            };
            (
                EventKind::Updates,
                (node.as_ref(), payload, core).into_pyobject(py)?.into_any(),
            )
        }
        Event::Values(state) => (EventKind::Values, state_to_py(py, &state)?.into_bound(py)),
        Event::Message(m) => {
            let message = match &m.payload {
                MessagePayload::Whole(message) => message_to_py(py, message)?,
                MessagePayload::HostChunk(chunk) => {
                    host_object(py, chunk).unwrap_or_else(|| py.None().into_bound(py))
                }
                MessagePayload::NativeChunk(fields) => py
                    .import("deepagents_rs._stream")?
                    .getattr("native_chunk")?
                    .call1((pythonize::pythonize(py, fields)?,))?,
            };
            let meta = message_meta(py, ns, agent_name, step, &m.node, m.model.as_deref())?;
            let is_chunk = !matches!(m.payload, MessagePayload::Whole(_));
            (
                EventKind::Messages,
                (message, meta, is_chunk).into_pyobject(py)?.into_any(),
            )
        }
        Event::Custom(value) => (
            EventKind::Custom,
            host_object(py, &value).unwrap_or_else(|| py.None().into_bound(py)),
        ),
        // `(call id, (namespace, mode, payload))`.
        Event::Graph { call_id, part } => (
            EventKind::Graph,
            (
                call_id,
                host_object(py, &part).unwrap_or_else(|| py.None().into_bound(py)),
            )
                .into_pyobject(py)?
                .into_any(),
        ),
        // `(node, "node", name)`, `(node, "calls", [tool call, ...])` or `(node, "end", None)`.
        Event::Route { node, next } => {
            let route = route_to_py(py, &next)?;
            let (kind, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = route.extract()?;
            (
                EventKind::Routes,
                (node.as_ref(), kind, value).into_pyobject(py)?.into_any(),
            )
        }
        // `("__end__", "paused", (call id, exception))`.
        Event::SubagentPaused { call_id, error } => {
            let exc = super::errors::shared_to_py(&error).into_value(py);
            (
                EventKind::Routes,
                ("__end__", "paused", (call_id, exc))
                    .into_pyobject(py)?
                    .into_any(),
            )
        }
        // `(node, "place", place)`.
        Event::TaskPlace { node, place } => (
            EventKind::Routes,
            (node.as_ref(), "place", place)
                .into_pyobject(py)?
                .into_any(),
        ),
        // `("__start__", "subagent", (call id, state, node names))`.
        Event::SubagentStart {
            call_id,
            input,
            nodes,
        } => {
            let start = (call_id, state_to_py(py, &input)?, nodes);
            (
                EventKind::Routes,
                ("__start__", "subagent", start)
                    .into_pyobject(py)?
                    .into_any(),
            )
        }
    };
    Ok((mode_name(kind), ns_py, payload)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// A route as `(kind, value)`: `("node", name)`, `("calls", [tool call, ...])`,
/// `("send", (name, state))`, `("branches", [route, ...])` or `("end", None)`.
pub(crate) fn route_to_py<'py>(py: Python<'py>, route: &Route) -> PyResult<Bound<'py, PyAny>> {
    let (kind, value) = match route {
        Route::Node(name) => ("node", name.as_ref().into_pyobject(py)?.into_any()),
        Route::Calls(calls) => {
            let list = PyList::empty(py);
            for call in calls {
                list.append(super::convert::call_to_py(py, call)?)?;
            }
            ("calls", list.into_any())
        }
        Route::Send(send) => (
            "send",
            (
                send.node.as_str(),
                super::agent::state_to_py(py, &send.state)?,
            )
                .into_pyobject(py)?
                .into_any(),
        ),
        Route::Branches(routes) => {
            let list = PyList::empty(py);
            for route in routes {
                list.append(route_to_py(py, route)?)?;
            }
            ("branches", list.into_any())
        }
        Route::End => ("end", py.None().into_bound(py)),
    };
    Ok((kind, value).into_pyobject(py)?.into_any())
}

/// The run behind a stream: its queue, and the task, cancelled when the stream is dropped
/// before the run ends (LangGraph cancels a run whose stream is closed).
pub(crate) struct StreamState {
    rx: UnboundedReceiver<Item>,
    task: Option<JoinHandle<()>>,
    agent: Agent,
    finished: bool,
    state_to_py: fn(Python<'_>, &AgentState) -> PyResult<Py<PyAny>>,
    failure_to_py: fn(RunFailure) -> PyErr,
}

impl StreamState {
    pub fn new(
        rx: UnboundedReceiver<Item>,
        task: JoinHandle<()>,
        agent: Agent,
        state_to_py: fn(Python<'_>, &AgentState) -> PyResult<Py<PyAny>>,
        failure_to_py: fn(RunFailure) -> PyErr,
    ) -> Self {
        StreamState {
            rx,
            task: Some(task),
            agent,
            finished: false,
            state_to_py,
            failure_to_py,
        }
    }

    /// The Python form of an item; `None` once the stream is over.
    fn convert(&mut self, py: Python<'_>, item: Option<Item>) -> PyResult<Option<Py<PyAny>>> {
        match item {
            Some(Item::Event {
                ns,
                agent_name,
                step,
                event,
            }) => event_to_py(
                py,
                &ns,
                agent_name.as_deref(),
                step,
                *event,
                self.state_to_py,
            )
            .map(Some),
            Some(Item::Done(outcome)) => {
                self.finished = true;
                self.task = None;
                let state = (*outcome).map_err(self.failure_to_py)?;
                let out = (self.state_to_py)(py, &state)?;
                drop(state);
                self.agent.release_unused();
                let ns = PyTuple::empty(py);
                Ok(Some(
                    ("done", ns, out).into_pyobject(py)?.into_any().unbind(),
                ))
            }
            None => {
                self.finished = true;
                Ok(None)
            }
        }
    }
}

impl Drop for StreamState {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The iterator `stream()` reads: each `__next__` waits for the next item with the GIL
/// released, in short slices so Ctrl-C reaches the caller.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct EventStream {
    state: Arc<Mutex<StreamState>>,
    late: LateResumes,
}

impl EventStream {
    pub fn new(state: StreamState, late: LateResumes) -> Self {
        EventStream {
            state: Arc::new(Mutex::new(state)),
            late,
        }
    }
}

#[pymethods]
impl EventStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        super::errors::guard(|| {
            let runtime = pyo3_async_runtimes::tokio::get_runtime();
            let state = self.state.clone();
            if state.lock().finished {
                return Err(PyStopIteration::new_err(()));
            }
            let item = super::blocking::wait_for(py, |limit| {
                let mut guard = state.lock();
                runtime.block_on(async {
                    match limit {
                        Some(limit) => tokio::time::timeout(limit, guard.rx.recv()).await.ok(),
                        None => Some(guard.rx.recv().await),
                    }
                })
            })?;
            match state
                .lock()
                .convert(py, item)
                .map_err(super::errors::out_of_generator)?
            {
                Some(obj) => Ok(obj),
                None => Err(PyStopIteration::new_err(())),
            }
        })
    }

    /// Hands the run a subagent it awaits (see `SubagentResumes`): ``(task call id, its
    /// state, the node it stopped in, the steps it had run, its task's config, the calls of
    /// that step that had finished)``.
    fn resume_subagent(&self, py: Python<'_>, subagent: ResumeArg<'_>) -> PyResult<()> {
        self.late.arrive(py, subagent)
    }

    /// Stops the run (the caller closed the stream early).
    fn close(&self) {
        let mut state = self.state.lock();
        if let Some(task) = state.task.take() {
            task.abort();
        }
        state.finished = true;
    }
}

/// The async iterator `astream()` reads.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct AsyncEventStream {
    state: Arc<tokio::sync::Mutex<StreamState>>,
    late: LateResumes,
}

impl AsyncEventStream {
    pub fn new(state: StreamState, late: LateResumes) -> Self {
        AsyncEventStream {
            state: Arc::new(tokio::sync::Mutex::new(state)),
            late,
        }
    }
}

#[pymethods]
impl AsyncEventStream {
    fn __aiter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        super::errors::guard(|| {
            let state = self.state.clone();
            pyo3_async_runtimes::tokio::future_into_py(py, async move {
                let mut guard = state.lock_owned().await;
                if guard.finished {
                    return Err(PyStopAsyncIteration::new_err(()));
                }
                let item = guard.rx.recv().await;
                Ok(Received { guard, item })
            })
        })
    }

    /// `EventStream.resume_subagent`.
    fn resume_subagent(&self, py: Python<'_>, subagent: ResumeArg<'_>) -> PyResult<()> {
        self.late.arrive(py, subagent)
    }

    /// Stops the run (the caller closed the stream early).
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state.clone();
        pyo3_async_runtimes::tokio::future_into_py(py, async move {
            let mut guard = state.lock().await;
            if let Some(task) = guard.task.take() {
                task.abort();
            }
            guard.finished = true;
            Ok(())
        })
    }
}

/// An item `__anext__` received, converted to Python where pyo3-async-runtimes hands the
/// result to the loop: on a blocking thread with the GIL, not on the tokio worker that
/// received it.
struct Received {
    guard: tokio::sync::OwnedMutexGuard<StreamState>,
    item: Option<Item>,
}

impl<'py> IntoPyObject<'py> for Received {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.guard.convert(py, self.item.take())? {
            Some(obj) => Ok(obj.into_bound(py)),
            None => Err(PyStopAsyncIteration::new_err(())),
        }
    }
}

/// LangGraph's stream writer for one step (`get_stream_writer()` inside a tool).
#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct StreamWriter {
    events: StepEmitter,
}

impl StreamWriter {
    pub fn new(events: StepEmitter) -> Self {
        StreamWriter { events }
    }
}

#[pymethods]
impl StreamWriter {
    fn __call__(&self, value: Py<PyAny>) {
        if self.events.wants(EventKind::Custom) {
            self.events.emit(Event::Custom(HostValue::new(value)));
        }
    }
}

/// Receives a LangChain model's chunks while it streams.
#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct ChunkCallback {
    sink: TokenSink,
}

impl ChunkCallback {
    pub fn new(sink: TokenSink) -> Self {
        ChunkCallback { sink }
    }
}

#[pymethods]
impl ChunkCallback {
    fn __call__(&self, chunk: Py<PyAny>) {
        self.sink.host_chunk(HostValue::new(chunk));
    }
}
