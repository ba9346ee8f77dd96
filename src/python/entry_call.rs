//! The core's `MemoryMiddleware` / `SkillsMiddleware` entries run outside a deepagents_rs
//! agent: what their Python faces' `before_agent` and `wrap_model_call` do in LangChain's
//! `create_agent`, or when called directly. The entry does the work (loading through the
//! backend, the system-prompt section); the face only converts.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::convert::{extra_to_py, message_to_py};
use super::errors::{guard, to_py};
use super::memory::{is_memory_config, memory_from_py};
use super::skills::{is_skills_config, skills_from_py};
use super::summarization_call::{
    finish, host_for, outcome_to_py, request_from_py, responder_base, state_from_py,
};
use crate::middleware::{Chain, Hook, HookContext, HookOutput, Middleware};
use crate::state::MessagesDelta;

/// One memory or skills entry, built once from its face's configuration.
#[pyclass(frozen, module = "deepagents_rs._core", name = "EntryCall")]
pub(crate) struct EntryCall {
    entry: Arc<dyn Middleware>,
    chain: Chain,
}

#[pymethods]
impl EntryCall {
    /// From `_core_config()` of a `MemoryMiddleware` or a `SkillsMiddleware`.
    #[new]
    fn new(config: &Bound<'_, PyAny>) -> PyResult<Self> {
        let entry: Arc<dyn Middleware> = if is_memory_config(config) {
            Arc::new(memory_from_py(config)?)
        } else if is_skills_config(config) {
            Arc::new(skills_from_py(config)?)
        } else {
            return Err(PyTypeError::new_err(
                "EntryCall takes a memory or skills configuration",
            ));
        };
        let chain = Chain::new(vec![entry.clone()]).map_err(to_py)?;
        Ok(EntryCall { entry, chain })
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
                    Some(f) => f.await.map_err(to_py),
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
            let fut = async move { fut.await.map_err(to_py) };
            finish(py, &host, fut, outcome_to_py)
        })
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
