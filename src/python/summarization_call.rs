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

use super::backends::backend_from_py;
use super::convert::{
    extra_from_py, extra_to_py, file_map_from_py, files_write_to_py, message_from_py, message_list,
    message_to_py, messages_from_py,
};
use super::errors::{IntoPyErr, guard, to_py};
use super::host::{PyHost, call_adapter_then};
use super::summarization::summarization_entry;
use crate::error::Error;
use crate::files::backend::FilesScope;
use crate::messages::{Message, SystemMessage};
use crate::middleware::{Chain, Middleware, ModelBase, ModelResponse};
use crate::model::{ChatModel, ModelRequest};
use crate::state::{AgentState, FilesHost, FilesSnapshot};
use crate::summarization::Summarization;
use crate::tools::{HostContext, ToolSpec};

/// One `SummarizationMiddleware`'s entry (or a `SummarizationToolMiddleware`'s), built once
/// from the face's configuration.
#[pyclass(frozen, module = "deepagents_rs._core", name = "SummarizationCall")]
pub(crate) struct SummarizationCall {
    chain: Chain,
    /// The summarization whose settings the entry (or the compact tool) works with.
    summarization: Summarization,
    /// Its own model: it writes the summaries; a request carries it only because every
    /// core request names a model (the caller's handler makes the call itself).
    model: Arc<dyn ChatModel>,
}

#[pymethods]
impl SummarizationCall {
    /// From `_core_config()` of a `SummarizationMiddleware` (`{"kind": "summarization"}`,
    /// whose `model` is never `None`) or of a `SummarizationToolMiddleware`.
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let tool = super::summarization::is_summarization_tool_config(config);
        let settings = if tool {
            config
                .cast::<PyDict>()?
                .get_item("summarization")?
                .ok_or_else(|| {
                    PyRuntimeError::new_err("compact tool config without summarization")
                })?
        } else {
            config.clone()
        };
        let model = settings
            .cast::<PyDict>()?
            .get_item("model")?
            .filter(|m| !m.is_none())
            .ok_or_else(|| PyRuntimeError::new_err("summarization config without a model"))?;
        let model = super::stack_parts::model_from_py(&model)?;
        let summarization = summarization_entry(&settings)?;
        let entry: Arc<dyn Middleware> = if tool {
            super::summarization::summarization_tool_from_py(config)?
        } else {
            Arc::new(summarization.clone())
        };
        let chain = Chain::new(vec![entry]).map_err(to_py)?;
        Ok(SummarizationCall {
            chain,
            summarization,
            model,
        })
    }

    /// `_determine_cutoff_index` of `messages` (dicts).
    fn cutoff(&self, py: Python<'_>, messages: &Bound<'_, PyAny>) -> PyResult<usize> {
        let messages = arcs(messages)?;
        let host = host_for(py, false, None)?;
        let fut = self.summarization.cutoff_of(&messages, &host);
        wait(py, fut)
    }

    /// `_create_summary` of `messages` (dicts): the summary text, awaitable when `is_async`.
    #[pyo3(signature = (messages, is_async, config=None))]
    fn summarize<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let messages = arcs(messages)?;
            let host = host_for(py, is_async, config)?;
            let (summarization, model) = (self.summarization.clone(), self.model.clone());
            let inner_host = host.clone();
            let fut = async move {
                summarization
                    .summary_of(&messages, model, inner_host, None)
                    .await
            };
            finish(py, &host, fut, |py, text: String| {
                Ok(text.into_pyobject(py)?.into_any())
            })
        })
    }

    /// `_offload_to_backend`: `messages` (dicts) appended to `session`'s history file on
    /// `backend` (a backend argument; `None` is the entry's own), a state backend reading
    /// `files`: `(path | None, files written | None)`, awaitable when `is_async`.
    #[pyo3(signature = (messages, session, backend, files, is_async, config=None))]
    #[allow(clippy::too_many_arguments)]
    fn offload<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        session: String,
        backend: Option<Bound<'py, PyAny>>,
        files: Option<Bound<'py, PyAny>>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let (messages, host, backend, scope) =
                step_inputs(py, messages, backend, files, is_async, config)?;
            let summarization = self.summarization.clone();
            let fut = async move {
                let path = summarization
                    .offload_history(&messages, &session, backend, scope.clone())
                    .await;
                Ok::<_, PyErr>((path, scope.take_update()))
            };
            finish(py, &host, fut, |py, (path, files)| {
                let files = written_to_py(py, files.as_ref())?;
                Ok((path, files).into_pyobject(py)?.into_any())
            })
        })
    }

    /// `_offload_inline_media`: `(messages as dicts | None when none had inline media,
    /// failed blocks, files written | None)`, awaitable when `is_async`; `backend` and
    /// `files` as for `offload`.
    #[pyo3(signature = (messages, backend, files, is_async, config=None))]
    fn offload_media<'py>(
        &self,
        py: Python<'py>,
        messages: &Bound<'py, PyAny>,
        backend: Option<Bound<'py, PyAny>>,
        files: Option<Bound<'py, PyAny>>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let (messages, host, backend, scope) =
                step_inputs(py, messages, backend, files, is_async, config)?;
            let summarization = self.summarization.clone();
            let fut = async move {
                let (out, failed) = summarization
                    .offload_media(&messages, backend, scope.clone())
                    .await
                    .map_err(Error::Builtin)?;
                // Media are always rewritten: all messages as they came means there were none.
                let same = out.iter().zip(&messages).all(|(a, b)| Arc::ptr_eq(a, b));
                Ok::<_, Error>(((!same).then_some(out), failed, scope.take_update()))
            };
            finish(py, &host, fut, |py, (out, failed, files)| {
                let out = match out {
                    Some(list) => message_list(py, &list)?.into_any(),
                    None => py.None().into_bound(py),
                };
                let files = written_to_py(py, files.as_ref())?;
                Ok((out, failed, files).into_pyobject(py)?.into_any())
            })
        })
    }

    /// `_count_tokens` with the built-in counter: `request` as for `run` (its system
    /// message, messages and tools).
    fn count_tokens(&self, py: Python<'_>, request: &Bound<'_, PyDict>) -> PyResult<f64> {
        let host = host_for(py, false, None)?;
        let request = request_from_py(request, self.model.clone(), host.clone())?;
        let fut = async move {
            self.summarization
                .count_request(request.parts_with(&request.messages), &request.host)
                .await
        };
        wait(py, fut)
    }

    /// `_is_eligible_for_compaction` for `count` messages whose last AI reply is `last_ai`
    /// (a dict, or `None`), against `clauses` (`[[(kind, value)]]`).
    fn compact_eligible(
        &self,
        clauses: &Bound<'_, PyAny>,
        count: usize,
        last_ai: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let clauses = super::summarization::clauses_from_py(clauses)?;
        let last_ai = last_ai
            .map(|m| message_from_py(&m).map(Arc::new))
            .transpose()?;
        Ok(self
            .summarization
            .compact_eligible(&clauses, count, last_ai))
    }

    /// Runs the entry on `request` (`{"system": dict | None, "messages": [dict],
    /// "tools": [(name, description, parameters, json_dict | None, defer_loading)], "model_settings":
    /// dict, "state": dict}`,
    /// `state` holding only the keys the entry reads: the event, the session id, `files`).
    /// The entry's inner call is `responder.call(system, messages)` (`acall` awaited when
    /// `is_async`), where a message the entry passes on unchanged is its index in
    /// `request["messages"]` and an unchanged system message is `True`; it answers the
    /// reply's messages as dicts. The outcome is
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
            let host = host_for(py, is_async, config)?;
            let request = request_from_py(request, self.model.clone(), host.clone())?;
            let base = responder_base(&request, Arc::new(responder.unbind()));
            let fut = self.chain.model_handler(base).call(request);
            finish(py, &host, fut, outcome_to_py)
        })
    }
}

pub(crate) fn host_for(
    py: Python<'_>,
    is_async: bool,
    config: Option<Py<PyAny>>,
) -> PyResult<HostContext> {
    if is_async {
        PyHost::for_async(py, config)
    } else {
        PyHost::for_sync(py, config)
    }
}

/// `fut`'s outcome as `convert` makes it (its error as `IntoPyErr` does): awaitable on the
/// caller's loop under an async host, made there on the loop's thread when `fut` is done
/// (`loop_future`), never on the tokio worker `fut` ended on; else waited for here (without
/// the GIL) and made on the calling thread.
pub(crate) fn finish<'py, T, E, F>(
    py: Python<'py>,
    host: &HostContext,
    fut: F,
    convert: fn(Python<'_>, T) -> PyResult<Bound<'_, PyAny>>,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    E: IntoPyErr,
    F: std::future::Future<Output = Result<T, E>> + Send + 'static,
{
    match PyHost::from_context(host).filter(|h| h.is_async) {
        Some(h) => super::loop_inbox::loop_future(
            py,
            &h.inbox,
            &h.locals.event_loop(py),
            fut,
            // Made inside the drain's pause of the collector (`loop_inbox`): `convert` may run
            // Python code, so it runs with the collector as the user left it.
            Box::new(move |py, out: Result<T, E>| {
                super::collector_pause::as_left(py, move || {
                    let out = out.map_err(IntoPyErr::into_py_err)?;
                    convert(py, out).map(Bound::unbind)
                })
            }),
        ),
        None => {
            let runtime = pyo3_async_runtimes::tokio::get_runtime();
            let out = super::exit_gate::detach(py, || runtime.block_on(fut))
                .map_err(IntoPyErr::into_py_err)?;
            convert(py, out)
        }
    }
}

/// The state keys the entry reads (`files` and the summarization keys) and, for the compact
/// tool, `messages` as dicts.
pub(crate) fn state_from_py(raw: &Bound<'_, PyDict>) -> PyResult<AgentState> {
    let s = raw.copy()?;
    let mut state = AgentState::default();
    if let Some(files) = s.get_item("files")?.filter(|f| !f.is_none()) {
        let (mut map, mut files_host) = (Arc::new(Map::new()), Arc::new(FilesHost::default()));
        file_map_from_py(&files)?.apply(&mut map, &mut files_host);
        state.files = map;
        state.files_host = files_host;
    }
    if let Some(messages) = s.get_item("messages")? {
        state.messages = messages_from_py(&messages)?.into_iter().collect();
    }
    s.del_item("files").ok();
    s.del_item("messages").ok();
    state.extra = extra_from_py(&s)?;
    Ok(state)
}

/// A request as a face hands it over (see `SummarizationCall.run`), for `model`.
pub(crate) fn request_from_py(
    raw: &Bound<'_, PyDict>,
    model: Arc<dyn ChatModel>,
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
            let (name, description, parameters, json_dict, defer_loading): (
                String,
                String,
                Bound<'_, PyAny>,
                Option<Bound<'_, PyAny>>,
                bool,
            ) = t?.extract()?;
            tools.push(ToolSpec {
                name,
                description,
                parameters: super::value::from_py(&parameters)?,
                provider_definition: None,
                json_spec: json_dict.is_some(),
                json_dict: json_dict.map(|d| super::value::from_py(&d)).transpose()?,
                defer_loading,
            });
        }
    }
    let model_settings: Map<String, Value> = match item("model_settings")? {
        Some(s) => super::value::from_py(&s)?,
        None => Map::new(),
    };
    let state = match item("state")? {
        Some(s) => state_from_py(s.cast::<PyDict>()?)?,
        None => AgentState::default(),
    };
    Ok(ModelRequest {
        model,
        system,
        messages: messages.into(),
        tools: tools.into(),
        schema_tools_at: None,
        tool_choice: None,
        response_format: None,
        format_override: None,
        model_settings,
        cache_control: None,
        state,
        tokens: None,
        host,
        trace: None,
        place: None,
    })
}

/// The entry's inner call: the caller's handler, through `responder`.
pub(crate) fn responder_base(original: &ModelRequest, responder: Arc<Py<PyAny>>) -> ModelBase {
    let given = &original.messages;
    let system = original.system.clone();
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
    let given = original.messages.clone();
    let tools = original.tools.clone();
    Arc::new(move |request: ModelRequest| {
        let (responder, index, given) = (responder.clone(), index.clone(), given.clone());
        let unchanged = match (&request.system, &system) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        let tools_unchanged = Arc::ptr_eq(&request.tools, &tools);
        Box::pin(async move {
            let host = request.host.clone();
            // The reply read, or the handler's exception made the model call's error, where
            // the handler ran: no GIL on the tokio worker awaiting it.
            let call = call_adapter_then(
                responder,
                host,
                "call",
                move |py, _| {
                    let _ = &given;
                    // `True`: the caller's own system message, as it was.
                    let system = match &request.system {
                        _ if unchanged => pyo3::types::PyBool::new(py, true).to_owned().into_any(),
                        Some(s) => message_to_py(py, &Message::System(s.as_ref().clone()))?,
                        None => py.None().into_bound(py),
                    };
                    let list = PyList::empty(py);
                    for m in request.messages.iter() {
                        match index.get(&(Arc::as_ptr(m) as usize)) {
                            Some(i) => list.append(i)?,
                            None => list.append(message_to_py(py, m)?)?,
                        }
                    }
                    // The tools, when the entry changed them (skills disclosing skill tools, the
                    // filesystem hiding some and redescribing grep and execute):
                    // `(name, defer_loading, description)` each, for the face to give back as
                    // its tools.
                    let tools = if tools_unchanged {
                        py.None().into_bound(py)
                    } else {
                        let tools: Vec<(&str, bool, &str)> = request
                            .tools
                            .iter()
                            .map(|t| (t.name.as_str(), t.defer_loading, t.description.as_str()))
                            .collect();
                        tools.into_pyobject(py)?.into_any()
                    };
                    Ok(vec![system, list.into_any(), tools])
                },
                messages_from_py,
            );
            let messages = call.await.map_err(Error::Model)?;
            Ok(ModelResponse {
                messages,
                ..Default::default()
            })
        })
    })
}

/// The entry's state writes, as the face turns them into LangChain's `Command`.
pub(crate) fn outcome_to_py(py: Python<'_>, response: ModelResponse) -> PyResult<Bound<'_, PyAny>> {
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
    Ok(out.into_any())
}

/// Messages (dicts) as the core holds them.
fn arcs(messages: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<Message>>> {
    Ok(messages_from_py(messages)?
        .into_iter()
        .map(Arc::new)
        .collect())
}

/// What a step over a backend works with: its messages, host, backend (`None`: the entry's
/// own) and the scope its state-backend writes go to.
type StepInputs = (
    Vec<Arc<Message>>,
    HostContext,
    Option<Arc<dyn crate::files::backend::Backend>>,
    Arc<FilesScope>,
);

fn step_inputs(
    py: Python<'_>,
    messages: &Bound<'_, PyAny>,
    backend: Option<Bound<'_, PyAny>>,
    files: Option<Bound<'_, PyAny>>,
    is_async: bool,
    config: Option<Py<PyAny>>,
) -> PyResult<StepInputs> {
    let messages = arcs(messages)?;
    let host = host_for(py, is_async, config)?;
    let backend = backend.map(|b| backend_from_py(&b)).transpose()?;
    let scope = files_scope(files, host.clone())?;
    Ok((messages, host, backend, scope))
}

/// A step's state-backend writes, `None` when there were none.
pub(crate) fn written_to_py<'py>(
    py: Python<'py>,
    files: Option<&crate::state::FilesWrite>,
) -> PyResult<Bound<'py, PyAny>> {
    match files {
        Some(f) => files_write_to_py(py, f),
        None => Ok(py.None().into_bound(py)),
    }
}

/// Where a step's state-backend writes go, over the state's `files` (`None`: none yet).
fn files_scope(files: Option<Bound<'_, PyAny>>, host: HostContext) -> PyResult<Arc<FilesScope>> {
    Ok(FilesScope::new(files_snapshot(files.as_ref())?, host))
}

/// The state's `files` (`None`: none yet) as the core reads them.
pub(crate) fn files_snapshot(files: Option<&Bound<'_, PyAny>>) -> PyResult<FilesSnapshot> {
    let (mut map, mut files_host) = (Arc::new(Map::new()), Arc::new(FilesHost::default()));
    if let Some(files) = files.filter(|f| !f.is_none()) {
        file_map_from_py(files)?.apply(&mut map, &mut files_host);
    }
    Ok((map, files_host))
}

/// A step that never calls the host's loop, waited for here without the GIL.
fn wait<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    T: Send,
    F: std::future::Future<Output = Result<T, crate::error::ModelError>> + Send,
{
    let runtime = pyo3_async_runtimes::tokio::get_runtime();
    super::exit_gate::detach(py, || runtime.block_on(fut)).map_err(|e| to_py(Error::Model(e)))
}
