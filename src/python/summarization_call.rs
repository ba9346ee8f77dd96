//! The core's `SummarizationMiddleware` entry run around a caller's own `handler`: what the
//! Python face's `wrap_model_call` / `awrap_model_call` do when the middleware is used
//! outside a deepagents_rs agent (in LangChain's `create_agent`, or called directly). The
//! entry does all the work (event, counts, cutoff, history file, summary, overflow
//! recovery); the face only converts the request and hands the reply back.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Map, Value};

use super::convert::{
    extra_from_py, extra_to_py, file_map_from_py, files_write_to_py, message_from_py,
    message_to_py, messages_from_py,
};
use super::errors::{guard, host_model_error, to_py};
use super::host::{PyHost, call_adapter};
use crate::error::Error;
use crate::messages::{Message, SystemMessage};
use crate::middleware::{Chain, ModelBase, ModelResponse};
use crate::model::{ChatModel, ModelRequest};
use crate::state::{AgentState, FilesHost};
use crate::tools::{HostContext, ToolSpec};

/// One `SummarizationMiddleware`'s entry, built once from the face's configuration.
#[pyclass(frozen, module = "deepagents_rs._core", name = "SummarizationCall")]
pub(crate) struct SummarizationCall {
    chain: Chain,
    /// The entry's own model: it writes the summaries; the request carries it only because
    /// every core request names a model (the caller's handler makes the call itself).
    model: Arc<dyn ChatModel>,
}

#[pymethods]
impl SummarizationCall {
    /// From `SummarizationMiddleware._core_config()` (whose `model` is never `None`).
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let dict = config.cast::<PyDict>()?;
        let model = dict
            .get_item("model")?
            .filter(|m| !m.is_none())
            .ok_or_else(|| PyRuntimeError::new_err("summarization config without a model"))?;
        let model = super::stack_parts::model_from_py(&model)?;
        let entry = super::summarization::summarization_from_py(config)?;
        let chain = Chain::new(vec![entry]).map_err(to_py)?;
        Ok(SummarizationCall { chain, model })
    }

    /// Runs the entry on `request` (`{"system": dict | None, "messages": [dict],
    /// "tools": [(name, description, parameters)], "model_settings": dict, "state": dict}`,
    /// `state` holding only the keys the entry reads: the event, the session id, `files`).
    /// The entry's inner call is `responder.call(system, messages)` (`acall` awaited when
    /// `is_async`), where a message the entry passes on unchanged is its index in
    /// `request["messages"]`; it answers the reply's messages as dicts. The outcome is
    /// `{"commands": [{"messages", "extra", "files"}], "files": dict | None}`, awaitable when
    /// `is_async`.
    #[pyo3(signature = (request, responder, is_async, config=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyDict>,
        responder: Bound<'py, PyAny>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let host = if is_async {
                PyHost::for_async(py, config)?
            } else {
                PyHost::for_sync(py, config)?
            };
            let request = self.request_from_py(request, host.clone())?;
            let base = responder_base(&request.messages, Arc::new(responder.unbind()));
            let fut = self.chain.model_handler(base).call(request);
            if is_async {
                let locals = PyHost::from_context(&host)
                    .map(|h| h.locals.clone())
                    .ok_or_else(|| PyRuntimeError::new_err("no event loop"))?;
                pyo3_async_runtimes::tokio::future_into_py_with_locals(py, locals, async move {
                    let response = fut.await.map_err(to_py)?;
                    Python::attach(|py| outcome_to_py(py, &response).map(Bound::unbind))
                })
            } else {
                let runtime = pyo3_async_runtimes::tokio::get_runtime();
                let response = py.detach(|| runtime.block_on(fut)).map_err(to_py)?;
                outcome_to_py(py, &response).map(Bound::into_any)
            }
        })
    }
}

impl SummarizationCall {
    fn request_from_py(
        &self,
        raw: &Bound<'_, PyDict>,
        host: HostContext,
    ) -> PyResult<ModelRequest> {
        let item = |k: &str| raw.get_item(k).map(|v| v.filter(|v| !v.is_none()));
        let system = match item("system")? {
            Some(s) => Some(Arc::new(match message_from_py(&s)? {
                Message::System(s) => s,
                other => SystemMessage {
                    content: other.content().clone(),
                    ..Default::default()
                },
            })),
            None => None,
        };
        let messages = match item("messages")? {
            Some(m) => messages_from_py(&m)?.into_iter().map(Arc::new).collect(),
            None => Vec::new(),
        };
        let mut tools = Vec::new();
        if let Some(list) = item("tools")? {
            for t in list.try_iter()? {
                let (name, description, parameters): (String, String, Bound<'_, PyAny>) =
                    t?.extract()?;
                tools.push(ToolSpec {
                    name,
                    description,
                    parameters: super::value::from_py(&parameters)?,
                    provider_definition: None,
                    json_spec: false,
                    defer_loading: false,
                });
            }
        }
        let model_settings: Map<String, Value> = match item("model_settings")? {
            Some(s) => super::value::from_py(&s)?,
            None => Map::new(),
        };
        let mut state = AgentState::default();
        if let Some(s) = item("state")? {
            let s = s.cast::<PyDict>()?.copy()?;
            if let Some(files) = s.get_item("files")?.filter(|f| !f.is_none()) {
                let (mut map, mut files_host) =
                    (Arc::new(Map::new()), Arc::new(FilesHost::default()));
                file_map_from_py(&files)?.apply(&mut map, &mut files_host);
                state.files = map;
                state.files_host = files_host;
            }
            s.del_item("files").ok();
            state.extra = extra_from_py(&s)?;
        }
        Ok(ModelRequest {
            model: self.model.clone(),
            system,
            messages,
            tools: tools.into(),
            schema_tools_at: None,
            tool_choice: None,
            response_format: None,
            model_settings,
            cache_control: None,
            state,
            tokens: None,
            host,
            trace: None,
        })
    }
}

/// The entry's inner call: the caller's handler, through `responder`.
fn responder_base(given: &[Arc<Message>], responder: Arc<Py<PyAny>>) -> ModelBase {
    // A message the entry passes on as it got it goes back as its index, so the handler
    // sees the caller's own object.
    let index: Arc<HashMap<usize, usize>> = Arc::new(
        given
            .iter()
            .enumerate()
            .map(|(i, m)| (Arc::as_ptr(m) as usize, i))
            .collect(),
    );
    // Kept alive so that an address in `index` cannot be reused by another message.
    let given: Arc<[Arc<Message>]> = given.into();
    Arc::new(move |request: ModelRequest| {
        let (responder, index, given) = (responder.clone(), index.clone(), given.clone());
        Box::pin(async move {
            let host = request.host.clone();
            let out = call_adapter(responder, host, "call", move |py, _| {
                let _ = &given;
                let system = match &request.system {
                    Some(s) => message_to_py(py, &Message::System(s.as_ref().clone()))?,
                    None => py.None().into_bound(py),
                };
                let list = PyList::empty(py);
                for m in &request.messages {
                    match index.get(&(Arc::as_ptr(m) as usize)) {
                        Some(i) => list.append(i)?,
                        None => list.append(message_to_py(py, m)?)?,
                    }
                }
                Ok(vec![system, list.into_any()])
            })
            .await
            .map_err(|e| Error::Model(host_model_error(e)))?;
            let messages = Python::attach(|py| messages_from_py(out.bind(py)))
                .map_err(|e| Error::Model(host_model_error(e)))?;
            Ok(ModelResponse {
                messages,
                ..Default::default()
            })
        })
    })
}

/// The entry's state writes, as the face turns them into LangChain's `Command`.
fn outcome_to_py<'py>(py: Python<'py>, response: &ModelResponse) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let commands = PyList::empty(py);
    for c in &response.commands {
        let d = PyDict::new(py);
        let messages = PyList::empty(py);
        for m in &c.messages {
            messages.append(message_to_py(py, m)?)?;
        }
        d.set_item("messages", messages)?;
        d.set_item("extra", extra_to_py(py, &c.extra)?)?;
        match &c.files {
            Some(f) => d.set_item("files", files_write_to_py(py, f)?)?,
            None => d.set_item("files", py.None())?,
        }
        commands.append(d)?;
    }
    out.set_item("commands", commands)?;
    match &response.files_before {
        Some(f) => out.set_item("files", files_write_to_py(py, f)?)?,
        None => out.set_item("files", py.None())?,
    }
    Ok(out)
}
