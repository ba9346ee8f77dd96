//! Python tools called back from tokio.
//!
//! Each tool arrives as an adapter object from `deepagents_rs._tools` that validates the
//! arguments and formats the result as LangChain's tool node would, returning
//! `(content, status, artifact, files)`. Whatever it raises is fatal and reaches the caller of
//! `invoke` unchanged.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::intern;
use pyo3::prelude::*;
use serde_json::Value;

use super::convert::{
    content_from_py, extra_from_py, file_map_from_py, host_object, messages_from_py,
};
use super::errors::Raised;
use super::host::{PyHost, await_coroutine_then, call_in_context};
use super::stream::StreamWriter;
use crate::error::BoxError;
use crate::events::EventKind;
use crate::host::HostValue;
use crate::messages::ToolStatus;
use crate::tools::{Tool, ToolContext, ToolError, ToolOutput, ToolSpec};
use pyo3::sync::PyOnceLock;

pub(crate) struct PyTool {
    spec: ToolSpec,
    /// Shared so a call takes it without the GIL (calls start on tokio workers).
    adapter: Arc<Py<PyAny>>,
    /// The tool has a native coroutine implementation (`async def`, or a BaseTool with its
    /// own `_arun`): awaited on the run's loop rather than run in a thread.
    has_async: bool,
    /// The tool has a synchronous implementation; `invoke` prefers it, as LangGraph does.
    has_sync: bool,
    executable: bool,
    return_direct: bool,
    /// The tool takes injected arguments (`ToolRuntime`, `InjectedState`): it is handed
    /// the run's state, as LangGraph's tool node hands it.
    injects_state: bool,
}

impl PyTool {
    pub fn from_adapter(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        let executable: bool = adapter.getattr("executable")?.extract()?;
        let spec = ToolSpec {
            name: adapter.getattr("name")?.extract()?,
            description: adapter.getattr("description")?.extract()?,
            parameters: super::value::from_py(&adapter.getattr("parameters")?)?,
            json_spec: !executable,
            json_dict: if executable {
                None
            } else {
                Some(super::value::from_py(&adapter.getattr("bindable")?)?)
            },
            defer_loading: adapter.getattr("defer_loading")?.extract()?,
            provider_definition: {
                let def = adapter.getattr("provider_definition")?;
                if def.is_none() {
                    None
                } else {
                    Some(super::value::from_py(&def)?)
                }
            },
        };
        Ok(PyTool {
            spec,
            has_async: adapter.getattr("has_async")?.extract()?,
            has_sync: adapter.getattr("has_sync")?.extract()?,
            executable,
            return_direct: adapter.getattr("return_direct")?.extract()?,
            injects_state: adapter.getattr("injects_state")?.extract()?,
            adapter: Arc::new(adapter.clone().unbind()),
        })
    }
}

/// The core's pause test (`crate::error::set_pause_test`): the host raised LangGraph's
/// `GraphInterrupt`. A tool's exception, sync or async, and a tool wrapper's were told apart
/// where they were raised (`Raised`), and so were a host model's (a subagent's, `model_error`):
/// asked on a tokio worker, this reads the flag. Only a bare `PyErr` made elsewhere takes the
/// GIL to be asked.
pub(crate) fn is_pause_error(error: &BoxError) -> bool {
    if let Some(raised) = error.downcast_ref::<Raised>() {
        return raised.pauses;
    }
    error
        .downcast_ref::<PyErr>()
        .is_some_and(|e| super::runtime_threads::attach(|py| is_graph_interrupt(py, e)))
}

/// Whether `e` is LangGraph's `GraphInterrupt` (false without LangGraph installed).
pub(super) fn is_graph_interrupt(py: Python<'_>, e: &PyErr) -> bool {
    static INTERRUPT: PyOnceLock<Option<Py<PyAny>>> = PyOnceLock::new();
    let class = INTERRUPT.get_or_init(py, || {
        py.import("langgraph.errors")
            .and_then(|m| m.getattr("GraphInterrupt"))
            .ok()
            .map(Bound::unbind)
    });
    class.as_ref().is_some_and(|c| {
        c.bind(py)
            .cast::<pyo3::types::PyType>()
            .is_ok_and(|t| e.is_instance(py, t))
    })
}

fn fatal(e: Raised) -> ToolError {
    ToolError::Fatal(Box::new(e) as BoxError)
}

/// The adapter's `(content, status, artifact, update)`: the artifact stays the tool's own
/// object; `update` is the state update of a tool that returned a LangGraph `Command`
/// (`files`, merged, and other keys, replaced).
/// A fifth item, when the tool returned a `Command` that writes more than its message (see
/// `command_write_from_py`).
pub(crate) fn output_from_py(result: &Bound<'_, PyAny>) -> PyResult<ToolOutput> {
    let items = result.cast::<pyo3::types::PyTuple>()?;
    let (write, answer) = match items.len() {
        5 => {
            let write = items.get_item(4)?;
            (
                command_write_from_py(&write)?,
                write.get_item("answer").ok(),
            )
        }
        _ => (crate::tools::CommandWrite::default(), None),
    };
    // The answer's own metadata, as the command gave it.
    let map = |key: &str| -> PyResult<serde_json::Map<String, Value>> {
        match answer.as_ref().map(|a| a.get_item(key)).transpose()? {
            Some(v) if !v.is_none() => match super::value::from_py(&v)? {
                Value::Object(m) => Ok(m),
                _ => Ok(Default::default()),
            },
            _ => Ok(Default::default()),
        }
    };
    let (response_metadata, additional_kwargs) =
        (map("response_metadata")?, map("additional_kwargs")?);
    let (content, status, artifact, files): (
        Bound<'_, PyAny>,
        String,
        Bound<'_, PyAny>,
        Bound<'_, PyAny>,
    ) = items.get_slice(0, 4).extract()?;
    let (content, content_origin) = content_from_py(&content)?;
    let artifact_host = (!artifact.is_none()).then(|| HostValue::new(artifact.unbind()));
    let mut command = false;
    let (files, extra) = if files.is_none() {
        (None, None)
    } else {
        let update = files
            .cast::<pyo3::types::PyDict>()
            .map_err(|_| pyo3::exceptions::PyTypeError::new_err("a state update must be a dict"))?
            .copy()?;
        // The adapter marks the update of a tool that answered with a `Command`
        // (`_tools.COMMAND_MARKER`): `wrap_tool_call` middleware then gets the command.
        if update.get_item(COMMAND_MARKER)?.is_some() {
            update.del_item(COMMAND_MARKER)?;
            command = true;
        }
        let files = match update.get_item("files")? {
            Some(f) if f.is_instance_of::<pyo3::types::PyDict>() => {
                update.del_item("files")?;
                Some(file_map_from_py(&f)?)
            }
            _ => None,
        };
        let extra = extra_from_py(&update)?;
        (files, (!extra.is_empty()).then_some(extra))
    };
    Ok(ToolOutput {
        content,
        content_origin,
        status: if status == "error" {
            ToolStatus::Error
        } else {
            ToolStatus::Success
        },
        artifact_host,
        files,
        extra,
        command,
        write,
        response_metadata,
        additional_kwargs,
        ..Default::default()
    })
}

/// The adapter's `{"before", "after", "unanswered", "goto"}` (`_tools.CommandWrite`): the
/// messages around the call's own, whether nothing answers the call, the nodes to go to.
pub(crate) fn command_write_from_py(
    write: &Bound<'_, PyAny>,
) -> PyResult<crate::tools::CommandWrite> {
    if write.is_none() {
        return Ok(Default::default());
    }
    Ok(crate::tools::CommandWrite {
        before: messages_from_py(&write.get_item("before")?)?,
        after: messages_from_py(&write.get_item("after")?)?,
        unanswered: write.get_item("unanswered")?.extract()?,
        removed: match write.get_item("removed") {
            Ok(removed) if !removed.is_none() => removed.extract()?,
            _ => Vec::new(),
        },
        goto: write.get_item("goto")?.extract()?,
        sends: match write.get_item("sends") {
            Ok(sends) if !sends.is_none() => sends
                .try_iter()?
                .map(|send| {
                    let (node, state): (String, Bound<'_, pyo3::types::PyDict>) =
                        send?.extract()?;
                    Ok(crate::tools::SendTarget {
                        node,
                        state: Arc::new(super::agent_state::state_from_py(&state)?),
                    })
                })
                .collect::<PyResult<_>>()?,
            _ => Vec::new(),
        },
        answer: match write.get_item("answer").ok().filter(|a| !a.is_none()) {
            Some(a) => Some(crate::tools::AnswerIdentity {
                id: a.get_item("id")?.extract()?,
                name: a.get_item("name")?.extract()?,
            }),
            None => None,
        },
        to_parent: match write.get_item("to_parent") {
            Ok(flag) => flag.extract()?,
            Err(_) => false,
        },
        sent: match write.get_item("sent") {
            Ok(sent) if !sent.is_none() => key_writes_from_py(&sent)?,
            _ => Vec::new(),
        },
    })
}

/// The adapter's `[(key, value), ...]`: each value kept as `extra_from_py` keeps a key's.
fn key_writes_from_py(list: &Bound<'_, PyAny>) -> PyResult<Vec<(String, crate::host::Opaque)>> {
    let py = list.py();
    let mut out = Vec::new();
    for item in list.try_iter()? {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        let one = pyo3::types::PyDict::new(py);
        one.set_item(key, value)?;
        out.extend(super::convert::extra_from_py(&one)?);
    }
    Ok(out)
}

/// See `output_from_py`.
const COMMAND_MARKER: &str = "__deepagents_rs_command__";

/// The run's files as of a tool call, converted only when the tool reads them: a
/// `StateBackend()` the tool makes itself reads and writes the agent's files through it, as
/// deepagents' tools do through LangGraph's channel reads; and the run's whole state, for a
/// tool reading another channel through its task's read function (`__pregel_read`).
#[pyclass(frozen, name = "RunFiles", module = "deepagents_rs._core")]
pub(crate) struct RunFiles {
    run: std::sync::Arc<crate::tools::RunScope>,
}

#[pymethods]
impl RunFiles {
    /// The files as a dict (the caller's own entry objects where the core holds them).
    fn read<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        super::convert::file_map_to_py(py, &self.run.files, &self.run.files_host)
    }

    /// The run's state as of the call (messages, files and the other keys), as a dict.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        run_state(py, &self.run)
    }
}

/// The config a sync tool's job hands the adapter's `call_in_run`: a `PlainCall` (made here,
/// nothing built: the adapter makes a plain call's config itself) when the run's plain calls
/// can take that path, else the run's config with LangGraph's runtime in it
/// (`_stream.full_config`), so `get_stream_writer()` works inside the tool (a no-op unless
/// the caller streams `custom`).
fn tool_config<'py>(
    py: Python<'py>,
    host: Option<&PyHost>,
    ctx: &ToolContext,
) -> PyResult<Bound<'py, PyAny>> {
    let args = tool_config_args(py, host, ctx)?;
    if let Some(call) = super::plain_calls::plain_call(&args)? {
        return Ok(call);
    }
    static STREAM: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let stream =
        STREAM.get_or_try_init(py, || py.import("deepagents_rs._stream").map(Bound::unbind))?;
    // Looked up at each call, not kept: the parity tests count the general path's calls.
    stream
        .bind(py)
        .getattr(intern!(py, "full_config"))?
        .call1(args)
}

/// `_stream.full_config`'s arguments for the call `ctx` describes.
fn tool_config_args<'py>(
    py: Python<'py>,
    host: Option<&PyHost>,
    ctx: &ToolContext,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let config = PyHost::config_arg(host, py);
    // Also when only pushed tasks' parts are streamed (`StreamWriter.part`): the Python side
    // then keeps it out of the tool's runtime.
    let writer = match ctx
        .events
        .as_ref()
        .filter(|e| e.wants(EventKind::Custom) || e.wants(EventKind::Graph))
    {
        Some(events) => Bound::new(py, StreamWriter::new(events.clone()))?.into_any(),
        None => py.None().into_bound(py),
    };
    // Traced: the tool raises its callbacks under its node's run, as LangGraph's tool node
    // hands it.
    let parent = match &ctx.trace {
        Some(t) => super::tracer::run_manager(py, &t.run)?,
        None => py.None().into_bound(py),
    };
    let files = Bound::new(
        py,
        RunFiles {
            run: ctx.run.clone(),
        },
    )?;
    (
        config,
        writer,
        parent,
        files,
        ctx.run.step,
        crate::tools::call_index(&ctx.run.history, &ctx.tool_call_id),
        ctx.tool_call_id.as_str(),
        ctx.run.namespace.clone(),
        ctx.run.subagent.clone(),
        host.is_some_and(|h| h.is_async),
    )
        .into_pyobject(py)
}

/// A subagent's call on a checkpointed thread waits for the graph following the subagent to
/// start its step before it takes a worker of the executor: that graph starts only once its
/// `task` call's task has a thread, which the step's other subagents give back only when their
/// own calls, needing workers, are answered. Waiting while holding a worker could leave none.
async fn wait_for_graph(ctx: &ToolContext) -> Result<(), ToolError> {
    let (host_ctx, run) = (ctx.host.clone(), ctx.run.clone());
    super::python_calls::call(move |py| {
        let wait = || -> PyResult<()> {
            static WAIT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            let wait = WAIT.import(py, "deepagents_rs._task_config", "wait_for_graph")?;
            let config = PyHost::config_arg(PyHost::from_context(&host_ctx), py);
            wait.call1((config, run.step, run.namespace.clone()))?;
            Ok(())
        };
        // Told apart here, holding the GIL (`Raised`).
        wait().map_err(|e| fatal(Raised::new(py, e)))
    })
    .await
    .map_err(|e| ToolError::Fatal(Box::new(e)))?
}

/// A call's arguments for the adapter: the model's own object when there is one.
fn tool_args<'py>(py: Python<'py>, args: &Value, ctx: &ToolContext) -> PyResult<Bound<'py, PyAny>> {
    match ctx
        .args_origin
        .as_ref()
        .and_then(|o| host_object(py, o.object()))
    {
        Some(obj) => Ok(obj),
        None => Ok(pythonize::pythonize(py, args)?),
    }
}

/// The run's state for a tool that takes it injected (only those get it: building it costs
/// a conversion of the history).
fn tool_state<'py>(py: Python<'py>, ctx: &ToolContext) -> PyResult<Bound<'py, PyAny>> {
    run_state(py, &ctx.run)
}

/// The state of the run that made a call, as of the call.
fn run_state<'py>(py: Python<'py>, run: &crate::tools::RunScope) -> PyResult<Bound<'py, PyAny>> {
    let state = crate::state::AgentState {
        messages: run.history.clone(),
        files: run.files.clone(),
        files_host: run.files_host.clone(),
        extra: run.extra.clone(),
        ..Default::default()
    };
    Ok(super::agent_state::state_to_py(py, &state)?.into_bound(py))
}

impl Tool for PyTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn executable(&self) -> bool {
        self.executable
    }

    fn return_direct(&self) -> bool {
        self.return_direct
    }

    /// LangGraph's `GraphInterrupt` (a tool calling `interrupt()`) pauses the run.
    fn pauses(&self, error: &BoxError) -> bool {
        is_pause_error(error)
    }

    fn traces_itself(&self) -> bool {
        true
    }

    fn call(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let adapter = self.adapter.clone();
        let (has_async, has_sync, injects) = (self.has_async, self.has_sync, self.injects_state);
        Box::pin(async move {
            // Its own handle: `ctx` moves into the call.
            let host_ctx = ctx.host.clone();
            let host = PyHost::from_context(&host_ctx);
            // LangGraph's choice: ainvoke awaits a tool's coroutine when it has one, invoke
            // calls its sync function. A tool with only a coroutine is awaited under invoke
            // too (on the private loop), where deepagents would raise.
            let use_async = host.is_some_and(|h| has_async && (h.is_async || !has_sync));
            let executor = host.and_then(|h| h.executor.clone());
            match host {
                Some(host) if use_async => await_coroutine_then(
                    host,
                    move |py| {
                        static PLACED: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
                        let placed =
                            PLACED.import(py, "deepagents_rs._task_config", "acall_placed")?;
                        let host = PyHost::from_context(&ctx.host);
                        // The config is made in the coroutine, once the graph following
                        // the run has the call's step: on the loop it cannot be waited for.
                        let mut call_args = vec![
                            adapter.bind(py).clone(),
                            tool_args(py, &args, &ctx)?,
                            ctx.tool_call_id.as_str().into_pyobject(py)?.into_any(),
                            tool_config_args(py, host, &ctx)?.into_any(),
                        ];
                        if injects {
                            call_args.push(tool_state(py, &ctx)?);
                        }
                        placed.call1(pyo3::types::PyTuple::new(py, call_args)?)
                    },
                    output_from_py,
                )
                .await
                // Told apart on the loop's thread (`Raised`).
                .map_err(fatal),
                _ => {
                    if !ctx.run.namespace.is_empty() && host.is_some() {
                        wait_for_graph(&ctx).await?;
                    }
                    // A worker of the executor first, as LangGraph's tool calls wait for
                    // one (the loop's default executor under `ainvoke`, the run's own under
                    // `invoke`).
                    let _worker = match &executor {
                        Some(slots) => slots.acquire().await.ok(),
                        None => None,
                    };
                    let job = move |py: Python<'_>| -> PyResult<ToolOutput> {
                        let host = PyHost::from_context(&ctx.host);
                        let mut args = vec![
                            tool_args(py, &args, &ctx)?,
                            ctx.tool_call_id.as_str().into_pyobject(py)?.into_any(),
                            tool_config(py, host, &ctx)?,
                        ];
                        if injects {
                            args.push(tool_state(py, &ctx)?);
                        }
                        // Under `ainvoke` deepagents' middleware runs its async hooks, whose
                        // errors name themselves so (`_tools.ASYNC_RUN`).
                        let method = if host.is_some_and(|h| h.is_async) {
                            "call_in_async_run"
                        } else {
                            "call_in_run"
                        };
                        let result = call_in_context(py, host, adapter.bind(py), method, args)?;
                        output_from_py(&result)
                    };
                    super::python_calls::call(move |py| {
                        // Told apart here, holding the GIL (`Raised`).
                        job(py).map_err(|e| fatal(Raised::new(py, e)))
                    })
                    .await
                    .map_err(|e| ToolError::Fatal(Box::new(e)))?
                }
            }
        })
    }
}
