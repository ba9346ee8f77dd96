//! User middleware (LangChain `AgentMiddleware` objects and the decorator forms), called back
//! from the hook chain through `deepagents_rs._middleware.MiddlewareAdapter`, which builds the
//! objects LangChain hands them (`ModelRequest`, `ToolCallRequest`, `Runtime`) and turns
//! what they return into plain dicts. `handler` arguments re-enter Rust: `ModelNext` and
//! `ToolNext` run the rest of the chain, blocking under `invoke` and awaitable under
//! `ainvoke`.

use std::sync::Arc;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{
    call_from_py, call_to_py, extra_any_from_py, extra_to_py, file_map_from_py, files_write_to_py,
    host_object, message_from_py, message_to_py, messages_from_py,
};
use super::host::{PyHost, call_adapter_then};
use super::model::{ObjectCache, PyChatModel, message_objects};
use super::stream::StreamWriter;
use super::tools::PyTool;
use crate::error::{BoxError, Error};
use crate::events::{EventKind, NodeTrace, StepEmitter, Update};
use crate::host::{HostValue, Opaque};
use crate::messages::{Message, SystemMessage, ToolMessage};
use crate::middleware::{
    CommandWrite, Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse,
    NodePlace, Structured, ToolCallRequest, ToolHandler,
};
use crate::model::ModelRequest;
use crate::state::{AgentState, Extra, Jump, MessagesDelta, StateDelta};
use crate::tools::{HostContext, Tool, ToolError, ToolResult, ToolSpec};

pub(crate) struct PyMiddleware {
    name: String,
    adapter: Arc<Py<PyAny>>,
    /// The LangChain objects hooks see for the history, made once per message (LangGraph
    /// hands hooks the same objects every step).
    objects: Objects,
    hooks: Vec<Hook>,
    wraps_model: bool,
    /// The model classes its model wrapper acts on (`MiddlewareAdapter.acts_only_on`).
    acts_only_on: Option<Vec<String>>,
    wraps_tool: bool,
    tools: Vec<Arc<dyn Tool>>,
}

impl PyMiddleware {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        let hook_names: Vec<String> = adapter.getattr("hooks")?.extract()?;
        let hooks = Hook::ALL
            .into_iter()
            .filter(|h| hook_names.iter().any(|n| n == h.as_str()))
            .collect();
        let tools = adapter
            .getattr("tools")?
            .try_iter()?
            .map(|t| Ok(Arc::new(PyTool::from_adapter(&t?)?) as Arc<dyn Tool>))
            .collect::<PyResult<_>>()?;
        Ok(PyMiddleware {
            name: adapter.getattr("name")?.extract()?,
            hooks,
            wraps_model: adapter.getattr("wraps_model")?.extract()?,
            acts_only_on: adapter.getattr("acts_only_on")?.extract()?,
            wraps_tool: adapter.getattr("wraps_tool")?.extract()?,
            tools,
            adapter: Arc::new(adapter.clone().unbind()),
            objects: Objects::new(adapter.py())?,
        })
    }
}

fn host_err(e: PyErr) -> Error {
    Error::Model(super::errors::host_model_error(e))
}

fn fatal(e: PyErr) -> ToolError {
    ToolError::Fatal(Box::new(e) as BoxError)
}

/// A message-object cache shared by a middleware's calls.
#[derive(Clone)]
struct Objects {
    to_message: Arc<Py<PyAny>>,
    cache: Arc<Mutex<ObjectCache>>,
}

impl Objects {
    fn new(py: Python<'_>) -> PyResult<Self> {
        Ok(Objects {
            to_message: Arc::new(
                py.import("deepagents_rs._convert")?
                    .getattr("from_core")?
                    .unbind(),
            ),
            cache: Arc::default(),
        })
    }

    fn list<'py>(
        &self,
        py: Python<'py>,
        messages: &[Arc<Message>],
    ) -> PyResult<Bound<'py, PyList>> {
        message_objects(py, messages, &self.to_message, &self.cache)
    }

    /// The state as hooks see it: its messages as (cached) LangChain objects.
    fn state<'py>(&self, py: Python<'py>, state: &AgentState) -> PyResult<Bound<'py, PyAny>> {
        let list = self.list(py, &state.messages.to_vec())?;
        super::agent::state_with_messages(py, state, list).map(|s| s.into_bound(py))
    }

    fn purge(&self) {
        let evicted = self.cache.lock().purge();
        drop(evicted);
    }
}

fn writer_arg<'py>(py: Python<'py>, events: &Option<StepEmitter>) -> PyResult<Bound<'py, PyAny>> {
    match events.as_ref().filter(|e| e.wants(EventKind::Custom)) {
        Some(e) => Ok(Bound::new(py, StreamWriter::new(e.clone()))?.into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

/// Where the adapter's call runs, for the config of its task (`_task_config.NodePlace`):
/// the node's step, namespace and subagent, the run its callbacks go under, and for a
/// `wrap_tool_call` the call's index among its message's calls and its id. None where no
/// agent graph runs the call.
fn place_arg<'py>(
    py: Python<'py>,
    place: Option<&NodePlace>,
    trace: Option<&NodeTrace>,
    call: Option<(usize, &str)>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(place) = place else {
        return Ok(py.None().into_bound(py));
    };
    let d = PyDict::new(py);
    d.set_item("step", place.step)?;
    d.set_item("namespace", place.namespace.clone())?;
    d.set_item("subagent", place.subagent.as_deref())?;
    let parent = match trace {
        Some(t) => super::tracer::run_manager(py, &t.run)?,
        None => py.None().into_bound(py),
    };
    d.set_item("parent", parent)?;
    if let Some((index, call_id)) = call {
        d.set_item("index", index)?;
        d.set_item("call_id", call_id)?;
    }
    Ok(d.into_any())
}

/// The adapter's hook result `(reported, delta)` as a write.
fn hook_output(out: &Bound<'_, PyAny>) -> PyResult<Option<HookOutput>> {
    if out.is_none() {
        return Ok(None);
    }
    let (reported, delta): (Bound<'_, PyAny>, Bound<'_, PyDict>) = out.extract()?;
    let (d, jump_declared) = delta_from_py(&delta)?;
    let reported = (!reported.is_none()).then(|| Update::Host(HostValue::new(reported.unbind())));
    Ok(Some(HookOutput {
        delta: d,
        reported,
        jump_declared,
    }))
}

/// A write in the form the middleware adapter gives a hook's (`messages` in the core's form,
/// `replace`, `files`, `extra`, `jump_to`), and whether its jump was declared.
pub(crate) fn delta_from_py(delta: &Bound<'_, PyDict>) -> PyResult<(StateDelta, bool)> {
    let mut d = StateDelta::default();
    if let Some(messages) = delta.get_item("messages")? {
        let messages: Vec<Arc<Message>> = messages_from_py(&messages)?
            .into_iter()
            .map(Arc::new)
            .collect();
        let replace: bool = delta
            .get_item("replace")?
            .is_some_and(|r| r.is_truthy().unwrap_or(false));
        d.messages = if replace {
            MessagesDelta::Replace(messages)
        } else {
            MessagesDelta::Append(messages)
        };
    }
    if let Some(files) = delta.get_item("files")?.filter(|f| !f.is_none()) {
        d.files = Some(file_map_from_py(&files)?);
    }
    if let Some(extra) = delta.get_item("extra")? {
        d.extra = extra_any_from_py(&extra)?;
    }
    if let Some(jump) = delta.get_item("jump_to")?.filter(|j| !j.is_none()) {
        let jump: String = jump.extract()?;
        d.jump_to = Some(Jump::parse(&jump).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!("invalid jump_to destination {jump:?}"))
        })?);
    }
    let jump_declared = delta
        .get_item("jump_declared")?
        .is_some_and(|j| j.is_truthy().unwrap_or(false));
    Ok((d, jump_declared))
}

impl Middleware for PyMiddleware {
    fn name(&self) -> &str {
        &self.name
    }

    fn has_hook(&self, hook: Hook) -> bool {
        self.hooks.contains(&hook)
    }

    fn run_hook(
        &self,
        hook: Hook,
        cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        let adapter = self.adapter.clone();
        let objects = self.objects.clone();
        Box::pin(async move {
            let HookContext {
                state,
                host,
                events,
                place,
                trace,
            } = cx;
            let config_host = host.clone();
            call_adapter_then(
                adapter,
                host,
                "run_hook",
                move |py, _| {
                    Ok(vec![
                        hook.as_str().into_pyobject(py)?.into_any(),
                        objects.state(py, &state)?,
                        PyHost::config_arg(PyHost::from_context(&config_host), py),
                        writer_arg(py, &events)?,
                        place_arg(py, place.as_ref(), trace.as_ref(), None)?,
                    ])
                },
                hook_output,
            )
            .await
            .map_err(host_err)
        })
    }

    fn wraps_model_call(&self) -> bool {
        self.wraps_model
    }

    fn wrap_model_call(
        &self,
        request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        // A wrapper that would only call the handler for this model: the request need not
        // become Python objects.
        if !super::model::acts_on(self.acts_only_on.as_deref(), request.model.as_ref()) {
            return next.call(request);
        }
        let adapter = self.adapter.clone();
        let objects = self.objects.clone();
        Box::pin(async move {
            let host = request.host.clone();
            let is_async = PyHost::from_context(&host).is_some_and(|h| h.is_async);
            let next = Arc::new(ModelNext {
                handler: next,
                template: request.clone(),
                host: host.clone(),
                is_async,
                last: Mutex::new(None),
                inner: Mutex::new((Vec::new(), None)),
                objects,
            });
            let config_host = host.clone();
            let call_next = next.clone();
            call_adapter_then(
                adapter,
                host,
                "wrap_model_call",
                move |py, _| {
                    Ok(vec![
                        request_to_py(py, &request, &call_next.objects)?.into_any(),
                        Bound::new(py, ModelNextPy(call_next))?.into_any(),
                        PyHost::config_arg(PyHost::from_context(&config_host), py),
                        place_arg(py, request.place.as_ref(), request.trace.as_ref(), None)?,
                    ])
                },
                move |out| next.response_from_py(out),
            )
            .await
            .map_err(host_err)
        })
    }

    fn wraps_tool_call(&self) -> bool {
        self.wraps_tool
    }

    fn wrap_tool_call(
        &self,
        request: ToolCallRequest,
        next: ToolHandler,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        let adapter = self.adapter.clone();
        let objects = self.objects.clone();
        Box::pin(async move {
            let host = request.host.clone();
            let is_async = PyHost::from_context(&host).is_some_and(|h| h.is_async);
            let next = Arc::new(ToolNext {
                handler: next,
                template: request.clone(),
                is_async,
                last: Mutex::new(None),
            });
            let config_host = host.clone();
            let call_next = next.clone();
            call_adapter_then(
                adapter,
                host,
                "wrap_tool_call",
                move |py, _| {
                    let call_id = request.call.id.as_deref().unwrap_or_default();
                    let index = super::tools::call_index(&request.state.messages, call_id);
                    Ok(vec![
                        call_to_py(py, &request.call)?,
                        objects.state(py, &request.state)?,
                        Bound::new(py, ToolNextPy(call_next))?.into_any(),
                        PyHost::config_arg(PyHost::from_context(&config_host), py),
                        place_arg(
                            py,
                            request.place.as_ref(),
                            request.trace.as_ref(),
                            Some((index, call_id)),
                        )?,
                    ])
                },
                move |out| next.result_from_py(out),
            )
            .await
            .map_err(fatal)
        })
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    fn release_unused(&self) {
        super::runtime_threads::attach(|_| self.objects.purge());
    }
}

/// The request as the adapter's dict.
fn request_to_py<'py>(
    py: Python<'py>,
    request: &ModelRequest,
    objects: &Objects,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match &request.system {
        Some(s) => d.set_item(
            "system",
            message_to_py(py, &Message::System(s.as_ref().clone()))?,
        )?,
        None => d.set_item("system", py.None())?,
    }
    d.set_item(
        "model_settings",
        pythonize::pythonize(py, &request.model_settings)?,
    )?;
    d.set_item("messages", objects.list(py, &request.messages)?)?;
    d.set_item("tools", pythonize::pythonize(py, request.tools.as_ref())?)?;
    d.set_item("tool_choice", request.tool_choice.as_deref())?;
    d.set_item("state", objects.state(py, &request.state)?)?;
    let model = request
        .model
        .host_handle()
        .and_then(|h| host_object(py, &h).map(Bound::unbind));
    d.set_item("model", model)?;
    d.set_item("model_id", request.model.id())?;
    Ok(d)
}

/// An inner response's commands and backend writes, carried past a wrapper.
type Carried = (Vec<CommandWrite>, Option<crate::state::FilesWrite>);

struct ModelNext {
    handler: ModelHandler,
    template: ModelRequest,
    host: HostContext,
    is_async: bool,
    /// The structured response of the last inner call, to hand back the same value when the
    /// wrapper returns the same object.
    last: Mutex<Option<Structured>>,
    /// The last inner call's commands and backend writes: LangChain carries an inner
    /// `ExtendedModelResponse`'s commands past the wrappers around it.
    inner: Mutex<Carried>,
    /// The middleware's message objects: messages the wrapper passes on unchanged are
    /// recognized and keep their core message (and the model's cached objects).
    objects: Objects,
}

impl ModelNext {
    /// The wrapper's messages as core messages: the objects it was given come back as the
    /// messages they were made for; others (new or changed) are converted.
    fn messages_from_py(&self, list: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<Message>>> {
        let py = list.py();
        let given = self.objects.list(py, &self.template.messages)?;
        let known: std::collections::HashMap<usize, &Arc<Message>> = given
            .iter()
            .zip(self.template.messages.iter())
            .map(|(o, m)| (o.as_ptr() as usize, m))
            .collect();
        let to_core = py.import("deepagents_rs._convert")?.getattr("to_core")?;
        list.try_iter()?
            .map(|item| {
                let item = item?;
                if let Some(m) = known.get(&(item.as_ptr() as usize)) {
                    return Ok((*m).clone());
                }
                let dict = if item.is_instance_of::<PyDict>() {
                    item
                } else {
                    to_core.call1((item,))?
                };
                Ok(Arc::new(message_from_py(&dict)?))
            })
            .collect()
    }

    /// The adapter's request dict as a core request, based on the one this wrapper got.
    fn request_from_py(&self, raw: &Bound<'_, PyDict>) -> PyResult<ModelRequest> {
        let mut request = self.template.clone();
        if let Some(system) = raw.get_item("system")? {
            request.system = if system.is_none() {
                None
            } else {
                Some(Arc::new(match message_from_py(&system)? {
                    Message::System(s) => s,
                    other => SystemMessage {
                        content: other.content().clone(),
                        ..Default::default()
                    },
                }))
            };
        }
        if let Some(settings) = raw.get_item("model_settings")?.filter(|s| !s.is_none()) {
            request.model_settings = super::value::from_py(&settings)?;
        }
        if let Some(messages) = raw.get_item("messages")? {
            request.messages = self.messages_from_py(&messages)?;
        }
        if let Some(tools) = raw.get_item("tools")? {
            let mut specs: Vec<ToolSpec> = Vec::new();
            for t in tools.try_iter()? {
                let t = t?;
                // A name, or `(name, description)`: one of the request's tools, offered with
                // the description the middleware gave it.
                let named = t
                    .extract::<String>()
                    .map(|n| (n, None))
                    .or_else(|_| t.extract::<(String, String)>().map(|(n, d)| (n, Some(d))));
                if let Ok((name, description)) = named {
                    match self.template.tools.iter().find(|s| s.name == name) {
                        Some(spec) => {
                            let mut spec = spec.clone();
                            if let Some(d) = description {
                                spec.description = d;
                            }
                            specs.push(spec);
                        }
                        None => {
                            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                                "Middleware returned unknown tool name: {name}"
                            )));
                        }
                    }
                } else {
                    let adapter = PyTool::from_adapter(&t)?;
                    specs.push(adapter.spec().clone());
                }
            }
            request.tools = specs.into();
        }
        if let Some(choice) = raw.get_item("tool_choice")? {
            request.tool_choice = choice.extract()?;
        }
        if let Some(model) = raw.get_item("model_adapter")?.filter(|m| !m.is_none()) {
            request.model = Arc::new(PyChatModel::new(&model)?);
        }
        // The middleware's own structured output (an adapter, or `None` for none).
        if let Some(format) = raw.get_item("response_format")? {
            request.format_override = Some(super::stack_parts::response_format_from_py(
                (!format.is_none()).then_some(format),
            )?);
        }
        Ok(request)
    }

    fn response_to_py<'py>(
        &self,
        py: Python<'py>,
        response: &ModelResponse,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let messages = PyList::empty(py);
        for m in &response.messages {
            messages.append(message_to_py(py, m)?)?;
        }
        d.set_item("messages", messages)?;
        let structured = match &response.structured {
            Some(s) => match s.host.as_ref().and_then(|h| host_object(py, h)) {
                Some(obj) => obj,
                None => pythonize::pythonize(py, &s.value)?,
            },
            None => py.None().into_bound(py),
        };
        d.set_item("structured_response", structured)?;
        *self.last.lock() = response.structured.clone();
        *self.inner.lock() = (response.commands.clone(), response.files_before.clone());
        Ok(d)
    }

    fn response_from_py(&self, out: &Bound<'_, PyAny>) -> PyResult<ModelResponse> {
        let d = out.cast::<PyDict>()?;
        let messages = match d.get_item("messages")? {
            Some(m) => messages_from_py(&m)?,
            None => Vec::new(),
        };
        let structured = match d.get_item("structured_response")?.filter(|s| !s.is_none()) {
            None => None,
            Some(obj) => {
                let last = self.last.lock().clone();
                let same = last.as_ref().and_then(|l| {
                    let host = l.host.as_ref().and_then(|h| host_object(obj.py(), h));
                    host.filter(|h| h.is(&obj)).map(|_| l.clone())
                });
                match same {
                    Some(s) => Some(s),
                    None => Some(Structured {
                        value: super::value::read(&obj)?.0,
                        rendered: None,
                        host: Some(HostValue::new(obj.unbind())),
                    }),
                }
            }
        };
        // The inner calls' commands first, then this middleware's own (an
        // `ExtendedModelResponse`), as LangChain composes them.
        let (mut commands, mut files_before) = std::mem::take(&mut *self.inner.lock());
        // What a `StateBackend` wrote during the wrapper, after the inner calls' writes.
        if let Some(own) = d.get_item("files_before")? {
            files_before
                .get_or_insert_with(Default::default)
                .extend(&file_map_from_py(&own)?);
        }
        if let Some(list) = d.get_item("commands")? {
            for c in list.try_iter()? {
                let c = c?;
                let c = c.cast::<PyDict>()?;
                let messages = match c.get_item("messages")? {
                    Some(m) => messages_from_py(&m)?,
                    None => Vec::new(),
                };
                let mut extra = match c.get_item("extra")? {
                    Some(e) if !e.is_none() => extra_any_from_py(&e)?,
                    _ => Extra::new(),
                };
                let files = match extra.shift_remove("files") {
                    Some(Opaque::Host(h)) => match host_object(c.py(), &h) {
                        Some(f) if f.is_instance_of::<PyDict>() => Some(file_map_from_py(&f)?),
                        _ => {
                            extra.insert("files".into(), Opaque::Host(h));
                            None
                        }
                    },
                    Some(other) => {
                        extra.insert("files".into(), other);
                        None
                    }
                    None => None,
                };
                commands.push(CommandWrite {
                    messages,
                    files,
                    extra,
                });
            }
        }
        Ok(ModelResponse {
            messages,
            structured,
            commands,
            files_before,
        })
    }
}

/// `handler` of `wrap_model_call`.
#[pyclass(frozen, module = "deepagents_rs._core", name = "ModelNext")]
pub(crate) struct ModelNextPy(Arc<ModelNext>);

#[pymethods]
impl ModelNextPy {
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        raw: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::errors::guard(|| {
            let next = self.0.clone();
            let mut request = next.request_from_py(raw)?;
            request.host = PyHost::with_current_context(&request.host, py)?;
            let fut = next.handler.call(request);
            if next.is_async {
                let locals = PyHost::from_context(&next.host)
                    .map(|h| h.locals.clone())
                    .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("no event loop"))?;
                pyo3_async_runtimes::tokio::future_into_py_with_locals(py, locals, async move {
                    let response = fut.await.map_err(super::errors::to_py)?;
                    Ok(super::runtime_threads::later(move |py| {
                        next.response_to_py(py, &response).map(Bound::into_any)
                    }))
                })
            } else {
                let runtime = pyo3_async_runtimes::tokio::get_runtime();
                let response = py
                    .detach(|| runtime.block_on(fut))
                    .map_err(super::errors::to_py)?;
                next.response_to_py(py, &response).map(Bound::into_any)
            }
        })
    }
}

struct ToolNext {
    handler: ToolHandler,
    template: ToolCallRequest,
    is_async: bool,
    /// The last inner result, whose files and usage go with a message the wrapper returns.
    last: Mutex<Option<ToolResult>>,
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
                .map(|s| Ok((s.node.as_str(), super::agent::state_to_py(py, &s.state)?)))
                .collect::<PyResult<Vec<_>>>()?;
            write.set_item("sends", sends)?;
            write.set_item("to_parent", result.write.to_parent)?;
            // The message itself carries its id and name.
            write.set_item("answer", py.None())?;
            out.set_item("write", write)?;
        }
        *self.last.lock() = Some(result);
        Ok(out.into_any())
    }

    /// The adapter returns `(tool message dict, files, other keys, command write)`.
    fn result_from_py(&self, out: &Bound<'_, PyAny>) -> PyResult<ToolResult> {
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
pub(crate) struct ToolNextPy(Arc<ToolNext>);

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
                pyo3_async_runtimes::tokio::future_into_py_with_locals(py, locals, async move {
                    let result = fut.await.map_err(to_err)?;
                    Ok(super::runtime_threads::later(move |py| {
                        next.result_to_py(py, result)
                    }))
                })
            } else {
                let runtime = pyo3_async_runtimes::tokio::get_runtime();
                let result = py.detach(|| runtime.block_on(fut)).map_err(to_err)?;
                next.result_to_py(py, result)
            }
        })
    }
}
