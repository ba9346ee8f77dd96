//! The core's `MemoryMiddleware` / `SkillsMiddleware` / `FilesystemMiddleware` entries run
//! outside a deepagents_rs agent: what their Python faces' hooks, `wrap_model_call`, tools
//! and `wrap_tool_call` do in LangChain's `create_agent`, or when called directly. The entry
//! does the work (loading through the backend, the system-prompt section, the file tools);
//! the face only converts.

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::backends::filesystem_from_py;
use super::convert::{call_from_py, extra_to_py, is_core_config, message_to_py};
use super::errors::{guard, to_py};
use super::fs_outside;
use super::memory::{is_memory_config, memory_from_py};
use super::skills::{is_skills_config, skills_from_py};
use super::summarization_call::{
    files_snapshot, finish, host_for, outcome_to_py, request_from_py, responder_base, state_from_py,
};
use crate::middleware::filesystem::Filesystem;
use crate::middleware::{Chain, Hook, HookContext, HookOutput, Middleware};
use crate::state::MessagesDelta;
use crate::tools::result_as_returned;

/// One memory, skills or filesystem entry, built once from its face's configuration.
#[pyclass(frozen, module = "deepagents_rs._core", name = "EntryCall")]
pub(crate) struct EntryCall {
    entry: Arc<dyn Middleware>,
    chain: Chain,
    /// The filesystem entry, for its tools and its tool-call wrapping.
    fs: Option<Arc<Filesystem>>,
}

#[pymethods]
impl EntryCall {
    /// From `_core_config()` of a `MemoryMiddleware`, a `SkillsMiddleware` or a
    /// `FilesystemMiddleware`.
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut fs = None;
        let entry: Arc<dyn Middleware> = if is_memory_config(config) {
            Arc::new(memory_from_py(config)?)
        } else if is_skills_config(config) {
            Arc::new(skills_from_py(config)?)
        } else if is_core_config(config, "filesystem") {
            let entry = Arc::new(filesystem_from_py(config)?);
            fs = Some(entry.clone());
            entry
        } else {
            return Err(PyTypeError::new_err(
                "EntryCall takes a memory, skills or filesystem configuration",
            ));
        };
        let chain = Chain::new(vec![entry.clone()]).map_err(to_py)?;
        Ok(EntryCall { entry, chain, fs })
    }

    /// The entry's tools as `(name, description, parameters as JSON text)`.
    fn tool_specs(&self) -> PyResult<Vec<(String, String, String)>> {
        self.entry
            .tools()
            .iter()
            .map(|t| {
                let spec = t.spec();
                let parameters = serde_json::to_string(&spec.parameters)
                    .map_err(|e| PyTypeError::new_err(e.to_string()))?;
                Ok((spec.name.clone(), spec.description.clone(), parameters))
            })
            .collect()
    }

    /// The filesystem tool call `call` (`{"name", "args", "id"}`) run over the state's
    /// `files`: `{"message": the tool message as a dict, "files": the state files written,
    /// or None}`; awaitable when `is_async`.
    #[pyo3(signature = (call, files, is_async, config=None))]
    fn call_tool<'py>(
        &self,
        py: Python<'py>,
        call: &Bound<'py, PyAny>,
        files: Option<Bound<'py, PyAny>>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fs = self.filesystem()?;
        guard(|| {
            let call = call_from_py(call)?;
            let host = host_for(py, is_async, config)?;
            let files = files_snapshot(files.as_ref())?;
            let id = call.id.clone().unwrap_or_default();
            let fut = fs
                .call_outside(&call.name, call.args.clone(), files, host.clone(), id)
                .ok_or_else(|| PyKeyError::new_err(call.name.clone()))?;
            let fut = async move { fut.await.map(|output| result_as_returned(output, &call)) };
            finish(py, &host, fut, fs_outside::result_to_py)
        })
    }

    /// The filesystem entry's answer to a tool call before its handler runs (the refusal
    /// of a second mutation of one path in one AI message), or None.
    fn refusal(
        &self,
        call: &Bound<'_, PyAny>,
        messages: &Bound<'_, PyAny>,
    ) -> PyResult<Option<&'static str>> {
        fs_outside::refusal(self.filesystem()?, call, messages)
    }

    /// What the filesystem entry makes of `message`, a tool message its handler gave for a
    /// call of `name`: `{"message": the message replacing it or None, "files": the state
    /// files written or None}`; awaitable when `is_async`.
    #[pyo3(signature = (message, name, is_async, files, config=None))]
    fn after_tool<'py>(
        &self,
        py: Python<'py>,
        message: &Bound<'py, PyAny>,
        name: &str,
        is_async: bool,
        files: Option<Bound<'py, PyAny>>,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fs = self.filesystem()?;
        guard(|| {
            let message = fs_outside::tool_message(message)?;
            let host = host_for(py, is_async, config)?;
            let fut = fs.after_tool(name, message, files_snapshot(files.as_ref())?, host.clone());
            finish(
                py,
                &host,
                async move { Ok::<_, PyErr>(fut.await) },
                fs_outside::after_to_py,
            )
        })
    }

    /// The entry's `hook` (`"before_agent"`, or `"before_model"` for skills' pinning) on
    /// `state` (its `files`, `messages` and other keys): the keys it writes as a dict (the
    /// messages it appends under `messages`), or None when it writes nothing; awaitable when
    /// `is_async`.
    #[pyo3(signature = (hook, state, is_async, config=None))]
    fn hook<'py>(
        &self,
        py: Python<'py>,
        hook: &str,
        state: &Bound<'py, PyDict>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hook = match hook {
            "before_agent" => Hook::BeforeAgent,
            "before_model" => Hook::BeforeModel,
            other => {
                return Err(PyTypeError::new_err(format!(
                    "EntryCall runs before_agent or before_model, not {other}"
                )));
            }
        };
        guard(|| {
            let host = host_for(py, is_async, config)?;
            let cx = HookContext {
                state: state_from_py(state)?,
                host: host.clone(),
                events: None,
                place: None,
                trace: None,
            };
            let fut = self
                .entry
                .has_hook(hook)
                .then(|| self.entry.run_hook(hook, cx));
            let fut = async move {
                match fut {
                    Some(f) => f.await,
                    None => Ok(None),
                }
            };
            finish(py, &host, fut, hook_to_py)
        })
    }

    /// The entry around one model call, as `SummarizationCall.run` runs its own, with
    /// `model` (`_core_model` of the request's) as the request's model.
    #[pyo3(signature = (request, model, responder, is_async, config=None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyDict>,
        model: &Bound<'py, PyAny>,
        responder: Bound<'py, PyAny>,
        is_async: bool,
        config: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let host = host_for(py, is_async, config)?;
            let model = super::stack_parts::model_from_py(model)?;
            let request = request_from_py(request, model, host.clone())?;
            let base = responder_base(&request, Arc::new(responder.unbind()));
            let fut = self.chain.model_handler(base).call(request);
            finish(py, &host, fut, outcome_to_py)
        })
    }
}

impl EntryCall {
    fn filesystem(&self) -> PyResult<&Filesystem> {
        self.fs
            .as_deref()
            .ok_or_else(|| PyTypeError::new_err("EntryCall: not a filesystem entry"))
    }
}

/// A hook's writes: the state keys it sets (with the messages it appends under `messages`),
/// or None.
fn hook_to_py(py: Python<'_>, out: Option<HookOutput>) -> PyResult<Bound<'_, PyAny>> {
    let Some(out) = out else {
        return Ok(py.None().into_bound(py));
    };
    let keys = extra_to_py(py, &out.delta.extra)?;
    match &out.delta.messages {
        MessagesDelta::None => {}
        MessagesDelta::Append(messages) => {
            let list = PyList::empty(py);
            for m in messages {
                list.append(message_to_py(py, m)?)?;
            }
            keys.set_item("messages", list)?;
        }
        MessagesDelta::Replace(_) => {
            return Err(PyTypeError::new_err(
                "EntryCall: an entry hook replaced the messages",
            ));
        }
    }
    Ok(keys.into_any())
}
