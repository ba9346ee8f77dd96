//! The run tracer: the core's run reports handed to `deepagents_rs._callbacks.RunTracer`,
//! which drives LangChain's callback managers. Every call runs with the GIL on the threads of
//! `super::python_calls`, never on a runtime worker; what it needs is copied out of the core first.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::agent_state::state_to_py;
use super::convert::{host_object, message_to_py};
use super::errors::PendingException;
use super::stream_payloads::delta_to_py;
use crate::events::{ModelInfo, TraceData, TraceHandle, Tracer, Update};
use crate::host::HostValue;
use crate::messages::{Message, ToolCall};
use crate::state::AgentState;

pub(crate) struct PyTracer {
    tracer: Arc<Py<PyAny>>,
}

impl PyTracer {
    pub fn new(tracer: Py<PyAny>) -> Self {
        PyTracer {
            tracer: Arc::new(tracer),
        }
    }
}

/// What a report carries, owned so it can cross to the Python-calling thread.
enum Owned {
    State(Box<AgentState>),
    Update(Option<Update>, bool),
    Message(Box<Message>, bool),
    Messages(Vec<Arc<Message>>),
    ToolCall(ToolCall),
    Error(PendingException),
}

fn owned(data: TraceData<'_>) -> Owned {
    match data {
        TraceData::State(s) => Owned::State(Box::new(s.clone())),
        TraceData::Update(u) => Owned::Update(u.cloned(), false),
        TraceData::ToolUpdate(u, command) => Owned::Update(Some(u.clone()), command),
        TraceData::Message(m) => Owned::Message(Box::new(m.clone()), false),
        TraceData::ToolResult(m, command) => Owned::Message(Box::new(m.clone()), command),
        TraceData::Messages(m) => Owned::Messages(m.to_vec()),
        TraceData::ToolCall(c) => Owned::ToolCall(c.clone()),
        // Taken apart without the GIL; made in the tracer's call: the host's exception is the
        // same object the caller gets.
        TraceData::Failure(e) => Owned::Error(PendingException::of(e)),
        TraceData::ToolFailure(e) => Owned::Error(PendingException::of_tool(e)),
    }
}

impl Owned {
    /// The Python value, and the kind of output it is (for `chain_end`).
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, &'static str, bool)> {
        Ok(match self {
            Owned::State(s) => (state_to_py(py, s)?.into_bound(py), "state", false),
            Owned::Update(None, c) => (py.None().into_bound(py), "none", *c),
            Owned::Update(Some(Update::Delta(d)), c) => {
                let dict = delta_to_py(py, d)?;
                if *c {
                    dict.set_item("__command__", true)?;
                }
                (dict.into_any(), "delta", *c)
            }
            Owned::Update(Some(Update::Writes(ws)), c) => {
                let list = PyList::empty(py);
                for w in ws {
                    let dict = delta_to_py(py, w)?;
                    if *c {
                        dict.set_item("__command__", true)?;
                    }
                    list.append(dict)?;
                }
                (list.into_any(), "writes", *c)
            }
            Owned::Update(Some(Update::Host(h)), c) => (
                host_object(py, h).unwrap_or_else(|| py.None().into_bound(py)),
                "host",
                *c,
            ),
            Owned::Message(m, c) => (message_to_py(py, m)?, "message", *c),
            Owned::Messages(ms) => {
                let list = PyList::empty(py);
                for m in ms {
                    list.append(message_to_py(py, m)?)?;
                }
                (list.into_any(), "messages", false)
            }
            Owned::ToolCall(c) => (pythonize::pythonize(py, c)?, "call", false),
            Owned::Error(e) => (e.make(py).value(py).clone().into_any(), "error", false),
        })
    }
}

/// A started run as the core keeps it: the run manager and the run's name.
fn handle(run: Bound<'_, PyAny>, name: &str) -> PyResult<TraceHandle> {
    let py = run.py();
    let t = PyTuple::new(py, [run, name.into_pyobject(py)?.into_any()])?;
    Ok(HostValue::new(t.into_any().unbind()))
}

/// The run manager of a handle (what LangChain models and tools are given as parent).
pub(crate) fn run_manager<'py>(py: Python<'py>, h: &TraceHandle) -> PyResult<Bound<'py, PyAny>> {
    Ok(unpack(py, h)?.0)
}

/// `(run manager, name)` of a handle.
fn unpack<'py>(py: Python<'py>, h: &TraceHandle) -> PyResult<(Bound<'py, PyAny>, String)> {
    let t =
        host_object(py, h).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("not a run"))?;
    t.extract()
}

impl PyTracer {
    /// Calls the tracer off the tokio workers (`super::python_calls`); a failing callback is reported, not raised.
    fn call<T, F>(&self, f: F) -> BoxFuture<'static, Option<T>>
    where
        T: Send + 'static,
        F: for<'py> FnOnce(Python<'py>, &Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    {
        let tracer = self.tracer.clone();
        Box::pin(async move {
            let joined = super::python_calls::call(move |py| match f(py, tracer.bind(py)) {
                Ok(v) => Some(v),
                Err(e) => {
                    e.write_unraisable(py, None);
                    None
                }
            })
            .await;
            joined.ok().flatten()
        })
    }
}

impl Tracer for PyTracer {
    fn chain_start(
        &self,
        parent: Option<TraceHandle>,
        name: &str,
        step: Option<u64>,
        namespace: &[String],
        inputs: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>> {
        let (name, inputs, namespace) = (name.to_owned(), owned(inputs), namespace.to_vec());
        self.call(move |py, tracer| {
            let parent = match &parent {
                Some(p) => unpack(py, p)?.0,
                None => py.None().into_bound(py),
            };
            let args = (parent, &name, step, inputs.to_py(py)?.0, namespace);
            let run = tracer.call_method1("chain_start", args)?;
            handle(run, &name)
        })
    }

    fn chain_end(&self, run: TraceHandle, outputs: TraceData<'_>) -> BoxFuture<'static, ()> {
        let root = matches!(outputs, TraceData::State(_));
        let outputs = owned(outputs);
        let done = self.call(move |py, tracer| {
            let (rm, name) = unpack(py, &run)?;
            let (value, kind, _) = outputs.to_py(py)?;
            // The invocation's own chain ends with the final state, shaped as a result.
            let kind = if root && rm.getattr("parent_run_id")?.is_none() {
                "root"
            } else {
                kind
            };
            tracer.call_method1("chain_end", (rm, name, value, kind))?;
            Ok(())
        });
        Box::pin(async move {
            done.await;
        })
    }

    fn chain_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()> {
        self.report(run, "chain_error", error)
    }

    fn tool_start(
        &self,
        node: TraceHandle,
        call: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>> {
        let call = owned(call);
        self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &node)?;
            let call_py = call.to_py(py)?.0;
            let name: String = call_py.get_item("name")?.extract()?;
            let run = tracer.call_method1("tool_start", (rm, call_py, ""))?;
            handle(run, &name)
        })
    }

    fn tool_end(&self, run: TraceHandle, output: TraceData<'_>) -> BoxFuture<'static, ()> {
        let output = owned(output);
        let done = self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &run)?;
            let (message, _, command) = output.to_py(py)?;
            tracer.call_method1("tool_end", (rm, message, command))?;
            Ok(())
        });
        Box::pin(async move {
            done.await;
        })
    }

    fn tool_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()> {
        self.report(run, "tool_error", error)
    }

    fn llm_start(
        &self,
        node: TraceHandle,
        model: &ModelInfo,
        messages: TraceData<'_>,
    ) -> BoxFuture<'static, Option<TraceHandle>> {
        let (params, messages) = (model.params.clone(), owned(messages));
        self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &node)?;
            let run = tracer.call_method1(
                "llm_start",
                (
                    rm,
                    pythonize::pythonize(py, &params)?,
                    messages.to_py(py)?.0,
                ),
            )?;
            handle(run, "llm")
        })
    }

    fn llm_end(&self, run: TraceHandle, message: TraceData<'_>) -> BoxFuture<'static, ()> {
        self.report(run, "llm_end", message)
    }

    fn llm_error(&self, run: TraceHandle, error: TraceData<'_>) -> BoxFuture<'static, ()> {
        self.report(run, "llm_error", error)
    }

    fn internal_call_start(
        &self,
        node: TraceHandle,
        model: Option<HostValue>,
        info: &ModelInfo,
        prompt: &str,
    ) -> BoxFuture<'static, Option<TraceHandle>> {
        let (params, prompt) = (info.params.clone(), prompt.to_owned());
        self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &node)?;
            let model = model
                .as_ref()
                .and_then(|m| host_object(py, m))
                .unwrap_or_else(|| py.None().into_bound(py));
            let params = pythonize::pythonize(py, &params)?;
            let run = tracer.call_method1("internal_call_start", (rm, model, params, prompt))?;
            handle(run, "")
        })
    }

    fn retry_attempt(
        &self,
        run: TraceHandle,
        attempt: u32,
    ) -> BoxFuture<'static, Option<TraceHandle>> {
        self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &run)?;
            let parent = tracer.call_method1("retry_attempt", (rm, attempt))?;
            handle(parent, "")
        })
    }
}

impl PyTracer {
    /// `tracer.<method>(run, value)`.
    fn report(
        &self,
        run: TraceHandle,
        method: &'static str,
        data: TraceData<'_>,
    ) -> BoxFuture<'static, ()> {
        let data = owned(data);
        let done = self.call(move |py, tracer| {
            let (rm, _) = unpack(py, &run)?;
            tracer.call_method1(method, (rm, data.to_py(py)?.0))?;
            Ok(())
        });
        Box::pin(async move {
            done.await;
        })
    }
}
