//! User middleware (LangChain `AgentMiddleware` objects and the decorator forms), called back
//! from the hook chain through `deepagents_rs._middleware.MiddlewareAdapter`, which builds the
//! objects LangChain hands them (`ModelRequest`, `ToolCallRequest`, `Runtime`) and turns
//! what they return into plain dicts. `handler` arguments re-enter Rust
//! (`model_call_handler`, `tool_call_handler`).

use std::sync::Arc;

use futures::future::BoxFuture;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{call_to_py, extra_any_from_py, file_map_from_py, messages_from_py};
use super::host::{PyHost, call_adapter_then};
use super::model::{ObjectCache, message_objects};
use super::model_call_handler::{ModelNext, ModelNextPy, request_to_py};
use super::stream::StreamWriter;
use super::tool_call_handler::{ToolNext, ToolNextPy};
use super::tools::PyTool;
use crate::error::{BoxError, Error};
use crate::events::{EventKind, NodeTrace, StepEmitter, Update};
use crate::host::HostValue;
use crate::messages::Message;
use crate::middleware::{
    Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse, NodePlace,
    ToolCallRequest, ToolHandler,
};
use crate::model::ModelRequest;
use crate::state::{AgentState, Jump, MessagesDelta, StateDelta};
use crate::tools::{Tool, ToolError, ToolResult};

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

/// A tool wrapper's exception, told apart where it was raised (`Raised`): the core asks
/// whether it pauses the run on a tokio worker.
fn fatal(e: super::errors::Raised) -> ToolError {
    ToolError::Fatal(Box::new(e) as BoxError)
}

/// A message-object cache shared by a middleware's calls.
#[derive(Clone)]
pub(super) struct Objects {
    to_message: Arc<Py<PyAny>>,
    cache: Arc<Mutex<ObjectCache>>,
}

impl Objects {
    fn new(py: Python<'_>) -> PyResult<Self> {
        Ok(Objects {
            to_message: Arc::new(super::convert::convert_fn(py, "from_core")?.unbind()),
            cache: Arc::default(),
        })
    }

    pub(super) fn list<'py>(
        &self,
        py: Python<'py>,
        messages: &[Arc<Message>],
    ) -> PyResult<Bound<'py, PyList>> {
        message_objects(py, messages, &self.to_message, &self.cache)
    }

    /// The state as hooks see it: its messages as (cached) LangChain objects.
    pub(super) fn state<'py>(
        &self,
        py: Python<'py>,
        state: &AgentState,
    ) -> PyResult<Bound<'py, PyAny>> {
        let list = self.list(py, &state.messages.to_vec())?;
        super::agent_state::state_with_messages(py, state, list).map(|s| s.into_bound(py))
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
pub(super) fn place_arg<'py>(
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
            // A hook's exception reaches the caller as a model call's does, made where the
            // hook ran (`HostError for ModelError`).
            .map_err(Error::Model)
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
            // Made the model call's error where the hook ran (`HostError for ModelError`).
            .map_err(Error::Model)
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
                    let index = crate::tools::call_index(&request.state.messages, call_id);
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
