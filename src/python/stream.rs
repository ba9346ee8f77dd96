//! `stream` / `astream`: the run's events, carried from tokio to the Python thread that
//! iterates. The sink only queues what the core reports; every Python object is built by
//! the iterating thread (`__next__` / `__anext__`), never on a tokio worker.
//!
//! Each item is a raw tuple that `deepagents_rs._stream` shapes into LangGraph's chunks:
//! `(mode, ns, payload)` (built in `stream_payloads`), and a last `("done", (), state)`.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::exceptions::{PyStopAsyncIteration, PyStopIteration};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;

use super::agent::{LateResumes, ResumeArg};
use super::input_messages::GivenObjects;
use super::stream_payloads::event_to_py;
use crate::agent::{Agent, RunFailure};
use crate::events::{Event, EventKind, EventSink, Namespace, Origin, StepEmitter};
use crate::host::HostValue;
use crate::model::TokenSink;
use crate::state::AgentState;

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

/// A failed run's exception (it carries the run's input files, given back after a panic).
pub(crate) type FailureToPy = Box<dyn Fn(RunFailure) -> PyErr + Send + Sync>;

/// The run behind a stream: its queue, and the task, cancelled when the stream is dropped
/// before the run ends (LangGraph cancels a run whose stream is closed).
pub(crate) struct StreamState {
    rx: UnboundedReceiver<Item>,
    task: Option<JoinHandle<()>>,
    agent: Agent,
    finished: bool,
    state_to_py: StateToPy,
    /// The caller's message objects among the run's input: the root's states show them.
    given: GivenObjects,
    failure_to_py: FailureToPy,
}

/// A state as the stream hands it over, with the caller's objects its messages may show.
pub(crate) type StateToPy = fn(Python<'_>, &AgentState, &GivenObjects) -> PyResult<Py<PyAny>>;

impl StreamState {
    pub fn new(
        rx: UnboundedReceiver<Item>,
        task: JoinHandle<()>,
        agent: Agent,
        (state_to_py, given): (StateToPy, GivenObjects),
        failure_to_py: FailureToPy,
    ) -> Self {
        StreamState {
            rx,
            task: Some(task),
            agent,
            finished: false,
            state_to_py,
            given,
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
                &self.given,
            )
            .map(Some),
            Some(Item::Done(outcome)) => {
                self.finished = true;
                self.task = None;
                let state = (*outcome).map_err(&self.failure_to_py)?;
                let out = (self.state_to_py)(py, &state, &self.given)?;
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

    /// The Python form of the next item if one is queued already, without waiting; `None`
    /// when a read would wait (or the stream is over: `__next__` ends it).
    fn take_queued(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.finished {
            return Ok(None);
        }
        match self.rx.try_recv() {
            Ok(item) => self
                .convert(py, Some(item))
                .map_err(super::errors::out_of_generator),
            Err(_) => Ok(None),
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
            // Inside Python until the chunk is made (it runs Python code): the exit waits.
            let _inside = super::exit_gate::enter_holding(py);
            let state = self.state.clone();
            let queued = {
                let mut guard = state.lock();
                if guard.finished {
                    return Err(PyStopIteration::new_err(()));
                }
                // The core usually runs ahead of the reader (the thread graph follows it a
                // node behind), so the next item is often queued already: taken here, the
                // read costs no GIL release and retake, no entry into the runtime and no
                // timer, which a wait costs even when it finds an item at once.
                guard.rx.try_recv().ok()
            };
            let item = match queued {
                Some(item) => Some(item),
                // Waited for on this thread, not in the runtime (see `park_on`).
                None => super::blocking::wait_for(py, |limit| {
                    let mut guard = state.lock();
                    super::blocking::park_on(std::pin::pin!(guard.rx.recv()), limit)
                })?,
            };
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

    /// The next item if the core has queued it already, else ``None`` (nothing waited
    /// for): the thread graph's feed reads so without giving up its own lock (see
    /// `_thread_feed.Feed._pull`). Raises as `__next__` does for the run's failure.
    fn try_next(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        super::errors::guard(|| self.state.lock().take_queued(py))
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
            let next = super::exit_gate::gated(async move {
                let mut guard = state.lock_owned().await;
                if guard.finished {
                    return Err(PyStopAsyncIteration::new_err(()));
                }
                let item = guard.rx.recv().await;
                Ok(Received { guard, item })
            });
            pyo3_async_runtimes::tokio::future_into_py(py, next)
        })
    }

    /// `EventStream.try_next`, on the caller's thread: a queued item without an awaitable
    /// (a future and a task on the runtime each, which `__anext__` costs even when the item
    /// is there); ``None`` also while another reader holds the stream.
    fn try_next(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        super::errors::guard(|| match self.state.try_lock() {
            Ok(mut guard) => guard.take_queued(py),
            Err(_) => Ok(None),
        })
    }

    /// `EventStream.resume_subagent`.
    fn resume_subagent(&self, py: Python<'_>, subagent: ResumeArg<'_>) -> PyResult<()> {
        self.late.arrive(py, subagent)
    }

    /// Stops the run (the caller closed the stream early).
    fn aclose<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.state.clone();
        pyo3_async_runtimes::tokio::future_into_py(
            py,
            super::exit_gate::gated(async move {
                let mut guard = state.lock().await;
                if let Some(task) = guard.task.take() {
                    task.abort();
                }
                guard.finished = true;
                Ok(())
            }),
        )
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

/// LangGraph's stream writer for one step (`get_stream_writer()` inside a tool), and the
/// writer of the parts LangGraph's loop streams of a task the step's tool pushes (a
/// functional-API `@task` call: its `tasks` start and result, its `updates`), which the
/// core, running the tool without that loop, gets from `deepagents_rs._task_calls`.
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

    /// Whether the caller streams `custom` (else the tool's writer is LangGraph's no-op).
    #[getter]
    fn custom(&self) -> bool {
        self.events.wants(EventKind::Custom)
    }

    /// Whether the caller takes pushed tasks' parts (`part`).
    #[getter]
    fn parts(&self) -> bool {
        self.events.wants(EventKind::Graph)
    }

    /// The namespace of the run whose step this is.
    #[getter]
    fn namespace(&self) -> Vec<String> {
        self.events.emitter.namespace().to_vec()
    }

    /// A part of a pushed task, LangGraph's `(namespace, mode, payload)` chunk, into the
    /// run's stream in order with the step's own events (no `task` call carries it: an
    /// empty call id).
    fn part(&self, part: Py<PyAny>) {
        if self.events.wants(EventKind::Graph) {
            self.events.emit(Event::Graph {
                call_id: String::new(),
                part: HostValue::new(part),
            });
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
