//! The `handler` a user middleware's `wrap_model_call` is given: `ModelNextPy` runs the rest
//! of the model-call chain from Python (blocking under `invoke`, awaitable under `ainvoke`),
//! and reads the request the wrapper passes in and the response it returns.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{
    extra_any_from_py, file_map_from_py, host_object, message_from_py, message_to_py,
    messages_from_py,
};
use super::host::PyHost;
use super::middleware::Objects;
use super::model::PyChatModel;
use super::tools::PyTool;
use crate::host::{HostValue, Opaque};
use crate::messages::{Message, SystemMessage};
use crate::middleware::{CommandWrite, ModelHandler, ModelResponse, Structured};
use crate::model::ModelRequest;
use crate::state::Extra;
use crate::tools::{HostContext, Tool, ToolSpec};

/// The request as the adapter's dict.
pub(super) fn request_to_py<'py>(
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
pub(super) type Carried = (Vec<CommandWrite>, Option<crate::state::FilesWrite>);

pub(super) struct ModelNext {
    pub(super) handler: ModelHandler,
    pub(super) template: ModelRequest,
    pub(super) host: HostContext,
    pub(super) is_async: bool,
    /// The structured response of the last inner call, to hand back the same value when the
    /// wrapper returns the same object.
    pub(super) last: Mutex<Option<Structured>>,
    /// The last inner call's commands and backend writes: LangChain carries an inner
    /// `ExtendedModelResponse`'s commands past the wrappers around it.
    pub(super) inner: Mutex<Carried>,
    /// The middleware's message objects: messages the wrapper passes on unchanged are
    /// recognized and keep their core message (and the model's cached objects).
    pub(super) objects: Objects,
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
        let to_core = super::convert::convert_fn(py, "to_core")?;
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
            request.messages = self.messages_from_py(&messages)?.into();
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

    pub(super) fn response_from_py(&self, out: &Bound<'_, PyAny>) -> PyResult<ModelResponse> {
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
pub(crate) struct ModelNextPy(pub(super) Arc<ModelNext>);

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
                pyo3_async_runtimes::tokio::future_into_py_with_locals(
                    py,
                    locals,
                    super::exit_gate::gated(async move {
                        let response = fut.await.map_err(super::errors::to_py)?;
                        Ok(super::runtime_threads::later(move |py| {
                            next.response_to_py(py, &response).map(Bound::into_any)
                        }))
                    }),
                )
            } else {
                let runtime = pyo3_async_runtimes::tokio::get_runtime();
                let response = super::exit_gate::detach(py, || runtime.block_on(fut))
                    .map_err(super::errors::to_py)?;
                next.response_to_py(py, &response).map(Bound::into_any)
            }
        })
    }
}
