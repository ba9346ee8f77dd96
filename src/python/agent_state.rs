//! The agent state across the boundary: a Python input dict read into an `AgentState`, and
//! an `AgentState` written back as the dict `invoke`, the stream and the hooks hand Python.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Map;

use super::convert::{
    extra_from_py, file_map_to_py, host_object, input_file_map_from_py, message_list, opaque_to_py,
};
use super::input_messages::{GivenObjects, input_history_from_py};
use crate::host::HostValue;
use crate::middleware::MEMORY_CONTENTS_KEY;
use crate::state::AgentState;

/// The input state: `messages` as message dicts (or objects), `files`, and any other keys
/// kept as the caller's objects.
pub(crate) fn state_from_py(input: &Bound<'_, PyDict>) -> PyResult<AgentState> {
    Ok(input_state_from_py(input)?.0)
}

/// A run's input state, with the caller's message objects it holds (the result gives them
/// back: `result_to_py`).
pub(crate) fn input_state_from_py(
    input: &Bound<'_, PyDict>,
) -> PyResult<(AgentState, GivenObjects)> {
    let input = input.copy()?;
    let (messages, given) = match input.get_item("messages")? {
        Some(list) => input_history_from_py(&list)?,
        None => Default::default(),
    };
    input.del_item("messages").ok();
    // Input files go through deepagents' reducer as its first write: `None` entries drop.
    let (files, files_host) = match input.get_item("files")?.filter(|f| !f.is_none()) {
        Some(f) => input_file_map_from_py(&f)?.into_snapshot(),
        None => (Arc::new(Map::new()), Arc::new(Default::default())),
    };
    input.del_item("files").ok();
    let (structured_response, structured_host) = match input.get_item("structured_response")? {
        Some(sr) if !sr.is_none() => {
            let host = HostValue::new(sr.clone().unbind());
            (Some(super::value::read(&sr)?.0), Some(host))
        }
        _ => (None, None),
    };
    input.del_item("structured_response").ok();
    let mut extra = extra_from_py(&input)?;
    // The one kept key the core reads: memory a checkpoint kept.
    if let Some(contents) = input.get_item(MEMORY_CONTENTS_KEY)? {
        let (view, exact) = super::value::read(&contents)?;
        if exact {
            extra.insert(MEMORY_CONTENTS_KEY.into(), view.into());
        }
    }
    let state = AgentState {
        messages,
        files,
        files_host,
        structured_response,
        structured_rendered: None,
        structured_host,
        extra,
    };
    Ok((state, given))
}

pub(crate) fn state_to_py(py: Python<'_>, state: &AgentState) -> PyResult<Py<PyAny>> {
    let list = message_list(py, &state.messages.to_vec())?;
    state_with_messages(py, state, list)
}

/// A state of the run as its stream hands it to the Python side: message dicts, and the
/// caller's own objects for those the run left as given (shown as LangGraph's channel
/// holds them).
pub(crate) fn streamed_state_to_py(
    py: Python<'_>,
    state: &AgentState,
    given: &GivenObjects,
) -> PyResult<Py<PyAny>> {
    if given.is_empty() {
        return state_to_py(py, state);
    }
    let list = pyo3::types::PyList::empty(py);
    for m in state.messages.to_vec() {
        match given.object_of(py, &m) {
            Some(obj) => list.append(obj)?,
            None => list.append(super::convert::message_to_py(py, &m)?)?,
        }
    }
    state_with_messages(py, state, list)
}

/// A run's final state as `invoke` returns it: its messages as message objects already, the
/// caller's own for those the run left as given.
pub(crate) fn result_to_py(
    py: Python<'_>,
    state: &AgentState,
    given: &GivenObjects,
) -> PyResult<Py<PyAny>> {
    let list = super::result_objects::message_objects(py, &state.messages.to_vec(), given)?;
    state_with_messages(py, state, list)
}

/// The state as a dict whose `messages` are `messages` (message dicts, or objects).
pub(crate) fn state_with_messages(
    py: Python<'_>,
    state: &AgentState,
    messages: Bound<'_, pyo3::types::PyList>,
) -> PyResult<Py<PyAny>> {
    let out = PyDict::new(py);
    out.set_item("messages", messages)?;
    for (k, v) in &state.extra {
        out.set_item(k, opaque_to_py(py, v)?)?;
    }
    // The host's own parsed object when there is one: re-validating JSON could change it.
    if let Some(obj) = state
        .structured_host
        .as_ref()
        .and_then(|h| host_object(py, h))
    {
        out.set_item("structured_response", obj)?;
    } else if let Some(sr) = &state.structured_response {
        out.set_item("structured_response", pythonize::pythonize(py, sr)?)?;
    }
    out.set_item(
        "files",
        file_map_to_py(py, state.files.as_ref(), &state.files_host)?,
    )?;
    Ok(out.into_any().unbind())
}
