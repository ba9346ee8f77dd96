//! The `handler` a user middleware's `wrap_tool_call` is given: `ToolNextPy` runs the rest
//! of the tool-call chain from Python (blocking under `invoke`, awaitable under `ainvoke`),
//! and reads the tool message or `Command` the wrapper returns.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::agent_state::state_to_py;
use super::convert::{
    call_from_py, extra_any_from_py, extra_to_py, file_map_from_py, files_write_to_py,
    message_from_py, message_to_py,
};
use super::host::PyHost;
use crate::messages::{Message, ToolMessage};
use crate::middleware::{ToolCallRequest, ToolHandler};
use crate::tools::{ToolError, ToolResult};

pub(super) struct ToolNext {
    pub(super) handler: ToolHandler,
    pub(super) template: ToolCallRequest,
    pub(super) is_async: bool,
    /// The last inner result, whose files and usage go with a message the wrapper returns.
    pub(super) last: Mutex<Option<ToolResult>>,
}

impl ToolNext {
    fn result_to_py<'py>(
        &self,
        py: Python<'py>,
        result: ToolResult,
    ) -> PyResult<Bound<'py, PyAny>> {
        let message = message_to_py(py, &Message::Tool(result.message.clone()))?;
        let out = PyDict::new(py);
        out.set_item("message", message)?;
        out.set_item("command", result.command)?;
        if let Some(files) = &result.files {
            out.set_item("files", files_write_to_py(py, files)?)?;
        }
        if let Some(extra) = &result.extra {
            out.set_item("extra", extra_to_py(py, extra)?)?;
        }
        if result.write != Default::default() {
            let write = PyDict::new(py);
            let list = |messages: &[Message]| -> PyResult<Bound<'py, PyList>> {
                let items = messages
                    .iter()
                    .map(|m| message_to_py(py, m))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)
            };
            write.set_item("before", list(&result.write.before)?)?;
            write.set_item("after", list(&result.write.after)?)?;
            write.set_item("unanswered", result.write.unanswered)?;
            write.set_item("removed", result.write.removed.clone())?;
            write.set_item("goto", result.write.goto.clone())?;
            let sends = result
                .write
                .sends
                .iter()
                .map(|s| Ok((s.node.as_str(), state_to_py(py, &s.state)?)))
                .collect::<PyResult<Vec<_>>>()?;
            write.set_item("sends", sends)?;
            write.set_item("to_parent", result.write.to_parent)?;
            let sent = result
                .write
                .sent
                .iter()
                .map(|(k, v)| Ok((k.as_str(), super::convert::opaque_to_py(py, v)?)))
                .collect::<PyResult<Vec<_>>>()?;
            write.set_item("sent", sent)?;
            // The message itself carries its id and name.
            write.set_item("answer", py.None())?;
            out.set_item("write", write)?;
        }
        *self.last.lock() = Some(result);
        Ok(out.into_any())
    }

    /// The adapter returns `(tool message dict, files, other keys, command write)`.
    pub(super) fn result_from_py(&self, out: &Bound<'_, PyAny>) -> PyResult<ToolResult> {
        let (message, files, extra, write): (
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
        ) = out.extract()?;
        let mut message: ToolMessage = match message_from_py(&message)? {
            Message::Tool(t) => t,
            _ => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "wrap_tool_call must return a ToolMessage or a Command",
                ));
            }
        };
        let last = self.last.lock().take();
        if let Some(last) = &last
            && last.message.tool_call_id == message.tool_call_id
            && message.artifact.is_none()
        {
            message.artifact_host = last.message.artifact_host.clone();
        }
        let files = if files.is_none() {
            last.as_ref().and_then(|l| l.files.clone())
        } else {
            Some(file_map_from_py(&files)?)
        };
        let extra = if extra.is_none() {
            last.as_ref().and_then(|l| l.extra.clone())
        } else {
            Some(extra_any_from_py(&extra)?)
        };
        // What the returned `Command` writes besides the message, as the adapter read it.
        let write = super::tools::command_write_from_py(&write)?;
        Ok(ToolResult {
            message,
            files,
            extra,
            command: last.as_ref().is_some_and(|l| l.command),
            usage: last.and_then(|l| l.usage),
            write,
        })
    }
}

/// `handler` of `wrap_tool_call`.
#[pyclass(frozen, module = "deepagents_rs._core", name = "ToolNext")]
pub(crate) struct ToolNextPy(pub(super) Arc<ToolNext>);

#[pymethods]
impl ToolNextPy {
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        call: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::errors::guard(|| {
            let next = self.0.clone();
            let mut request = next.template.clone();
            request.call = call_from_py(call)?;
            let fut = next.handler.call(request);
            // The tool's own exception, or a core error from inside it (a subagent's) mapped
            // as the run would map it: a subagent's interrupt stays LangGraph's.
            let to_err = |ToolError::Fatal(e)| super::errors::from_tool(e);
            if next.is_async {
                let locals = PyHost::from_context(&next.template.host)
                    .map(|h| h.locals.clone())
                    .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("no event loop"))?;
                pyo3_async_runtimes::tokio::future_into_py_with_locals(
                    py,
                    locals,
                    super::exit_gate::gated(async move {
                        let result = fut.await.map_err(to_err)?;
                        Ok(super::runtime_threads::later(move |py| {
                            next.result_to_py(py, result)
                        }))
                    }),
                )
            } else {
                let runtime = pyo3_async_runtimes::tokio::get_runtime();
                let result =
                    super::exit_gate::detach(py, || runtime.block_on(fut)).map_err(to_err)?;
                next.result_to_py(py, result)
            }
        })
    }
}
