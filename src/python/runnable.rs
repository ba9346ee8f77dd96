//! A host runnable as a subagent (deepagents' CompiledSubAgent), through the adapter in
//! `deepagents_rs._subagents`, which calls `invoke`/`ainvoke` with LangChain messages and
//! returns the resulting state as plain dicts.

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::host::{PyHost, await_coroutine_then, call_in_context};
use crate::error::{Error, ModelError};
use crate::events::{Event, EventKind, StepEmitter};
use crate::host::HostValue;
use crate::messages::Message;
use crate::subagents::{ChildInput, ChildOutput, Runnable};
use crate::tools::HostContext;

pub(crate) struct PyRunnable {
    // Shared, so a call takes it without the GIL (on a tokio worker).
    adapter: std::sync::Arc<Py<PyAny>>,
}

impl PyRunnable {
    pub fn new(adapter: &Bound<'_, PyAny>) -> Self {
        PyRunnable {
            adapter: std::sync::Arc::new(adapter.clone().unbind()),
        }
    }
}

fn host_err(e: PyErr) -> Error {
    Error::Model(ModelError::host(Box::new(e)))
}

fn input_to_py<'py>(py: Python<'py>, input: &ChildInput) -> PyResult<Bound<'py, PyDict>> {
    let state = PyDict::new(py);
    state.set_item(
        "messages",
        super::convert::message_list(py, &input.messages.to_vec())?,
    )?;
    state.set_item(
        "files",
        super::convert::file_map_to_py(py, &input.files, &input.files_host)?,
    )?;
    Ok(state)
}

/// The runnable's state, or the command it sent its parent (`Err`: the `task` call's write,
/// as `Error::ParentCommand`).
fn output_from_py(out: &Bound<'_, PyAny>) -> PyResult<Result<ChildOutput, Error>> {
    let map = out
        .cast::<PyDict>()
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("a subagent must return a dict"))?;
    if let Some(command) = map.get_item("parent_command")? {
        let output = super::tools::output_from_py(&command)?;
        return Ok(Err(Error::ParentCommand(Box::new(output))));
    }
    let messages: Vec<Message> = match map.get_item("messages")? {
        Some(m) if !m.is_none() => super::convert::messages_from_py(&m)?,
        _ => Vec::new(),
    };
    let files = match map.get_item("files")? {
        Some(f) if f.is_instance_of::<PyDict>() => Some(super::convert::file_map_from_py(&f)?),
        _ => None,
    };
    let result = match map.get_item("result")? {
        Some(r) => r.extract::<String>().unwrap_or_default(),
        None => String::new(),
    };
    Ok(Ok(ChildOutput {
        messages,
        files,
        result,
    }))
}

/// Where a compiled subagent's own stream parts go while the caller streams its
/// subagents: each LangGraph chunk `(namespace, mode, payload)` into the run's stream, in
/// order with the rest, under the `task` call that runs it.
#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct GraphParts {
    events: StepEmitter,
    call_id: String,
}

#[pymethods]
impl GraphParts {
    fn __call__(&self, part: Py<PyAny>) {
        self.events.emit(Event::Graph {
            call_id: self.call_id.clone(),
            part: HostValue::new(part),
        });
    }
}

/// The writer of the runnable's own parts, or None when nobody streams them.
fn parts_arg<'py>(py: Python<'py>, input: &ChildInput) -> PyResult<Bound<'py, PyAny>> {
    match input.events.as_ref().filter(|e| e.wants(EventKind::Graph)) {
        Some(events) => Ok(Bound::new(
            py,
            GraphParts {
                events: events.clone(),
                call_id: input.call_id.clone(),
            },
        )?
        .into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

/// The `task` tool's run manager, when traced: the compiled subagent runs inside it.
fn parent_arg<'py>(py: Python<'py>, input: &ChildInput) -> PyResult<Bound<'py, PyAny>> {
    match &input.trace {
        Some(t) => super::tracer::run_manager(py, &t.run),
        None => Ok(py.None().into_bound(py)),
    }
}

impl Runnable for PyRunnable {
    fn invoke(
        &self,
        input: ChildInput,
        host: HostContext,
    ) -> BoxFuture<'static, Result<ChildOutput, Error>> {
        let adapter = self.adapter.clone();
        Box::pin(async move {
            let py_host = PyHost::from_context(&host);
            match py_host.filter(|h| h.is_async) {
                Some(h) => {
                    let run_host = host.clone();
                    await_coroutine_then(
                        h,
                        move |py| {
                            let config = PyHost::config_arg(PyHost::from_context(&run_host), py);
                            let parent = parent_arg(py, &input)?;
                            adapter.bind(py).call_method1(
                                "ainvoke",
                                (
                                    input_to_py(py, &input)?,
                                    config,
                                    parent,
                                    &input.call_id,
                                    parts_arg(py, &input)?,
                                    input.namespace.clone(),
                                    input.step,
                                    input.index,
                                ),
                            )
                        },
                        output_from_py,
                    )
                    .await
                    .map_err(host_err)?
                }
                None => super::python_calls::call(move |py| {
                    let host = PyHost::from_context(&host);
                    let args = vec![
                        input_to_py(py, &input)?.into_any(),
                        PyHost::config_arg(host, py),
                        parent_arg(py, &input)?,
                        input.call_id.as_str().into_pyobject(py)?.into_any(),
                        parts_arg(py, &input)?,
                        input.namespace.clone().into_pyobject(py)?.into_any(),
                        input.step.into_pyobject(py)?.into_any(),
                        input.index.into_pyobject(py)?.into_any(),
                    ];
                    let out = call_in_context(py, host, adapter.bind(py), "invoke", args)?;
                    output_from_py(&out)
                })
                .await
                .map_err(|e| Error::Model(ModelError::host(Box::new(e))))?
                .map_err(host_err)?,
            }
        })
    }
}
