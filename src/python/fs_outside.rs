//! Conversions for the filesystem entry's parts run one at a time by a LangChain agent
//! (`crate::middleware::filesystem::outside`, through `EntryCall`): the face hands over
//! dicts and the state's `files`, and gets the tool message (a dict, as
//! `deepagents_rs._convert` reads it) and the state files written back.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::convert::{call_from_py, message_from_py, message_to_py, messages_from_py};
use super::errors::to_py;
use super::summarization_call::written_to_py;
use crate::error::Error;
use crate::messages::{Message, ToolMessage};
use crate::middleware::ToolCallRequest;
use crate::middleware::filesystem::{AfterTool, Filesystem};
use crate::state::AgentState;
use crate::tools::ToolResult;

/// A tool call's result as `EntryCall.call_tool` returns it.
/// A call answered with a `Command` (a video read: the tool message and the frames' user
/// message) also hands over `messages`, everything it writes there in order.
pub(crate) fn result_to_py(py: Python<'_>, result: ToolResult) -> PyResult<Bound<'_, PyAny>> {
    let out = PyDict::new(py);
    if result.command {
        let written = result
            .written_messages()
            .iter()
            .map(|m| message_to_py(py, m))
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item("messages", written)?;
    }
    out.set_item(
        "message",
        message_to_py(py, &Message::Tool(result.message))?,
    )?;
    out.set_item("files", written_to_py(py, result.files.as_ref())?)?;
    Ok(out.into_any())
}

/// See `EntryCall.refusal`.
pub(crate) fn refusal(
    fs: &Filesystem,
    call: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
) -> PyResult<Option<&'static str>> {
    let state = AgentState {
        messages: messages_from_py(messages)?.into_iter().collect(),
        ..Default::default()
    };
    let request = ToolCallRequest {
        call: call_from_py(call)?,
        state,
        host: None,
        trace: None,
        place: None,
        tool: None,
    };
    Ok(fs.refusal(&request))
}

/// A tool message handed over as a dict.
pub(crate) fn tool_message(message: &Bound<'_, PyAny>) -> PyResult<ToolMessage> {
    match message_from_py(message)? {
        Message::Tool(message) => Ok(message),
        _ => Err(to_py(Error::InvalidInput(
            "EntryCall.after_tool takes a tool message".into(),
        ))),
    }
}

/// What `EntryCall.after_tool` returns.
pub(crate) fn after_to_py(
    py: Python<'_>,
    (message, files): AfterTool,
) -> PyResult<Bound<'_, PyAny>> {
    let out = PyDict::new(py);
    match message {
        Some(m) => out.set_item("message", message_to_py(py, &Message::Tool(m))?)?,
        None => out.set_item("message", py.None())?,
    }
    out.set_item("files", written_to_py(py, files.as_ref())?)?;
    Ok(out.into_any())
}
