//! A run's input messages. The common form, a plain `{"role": ..., "content": "<str>"}` dict,
//! is read straight from the caller's dict, with the fresh id LangGraph's coercion gives it;
//! every other message arrives as `deepagents_rs._convert.to_core` made it. Building a core
//! dict per plain message in Python cost more than the rest of a 2,000-message run's input.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::convert::message_from_py;
use crate::messages::{AiMessage, Content, HumanMessage, Message, SystemMessage};

/// The messages of an input state (`_convert.input_messages` leaves plain dicts as given).
pub(crate) fn input_messages_from_py(list: &Bound<'_, PyAny>) -> PyResult<Vec<Message>> {
    let items = list.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    let plain: Vec<Option<Plain<'_>>> = items.iter().map(plain).collect();
    let mut ids = crate::run::new_ids(plain.iter().flatten().count()).into_iter();
    items
        .iter()
        .zip(plain)
        .map(|(item, plain)| match plain {
            Some(p) => p.message(ids.next().unwrap_or_else(crate::run::new_id)),
            None => message_from_py(item),
        })
        .collect()
}

/// A plain message dict: its core type and its content.
struct Plain<'py> {
    kind: &'static str,
    content: Bound<'py, PyString>,
}

/// The rule `_convert._plain_dict` applies: a dict of exactly `role` (one of the plain roles)
/// and a str `content`.
fn plain<'py>(obj: &Bound<'py, PyAny>) -> Option<Plain<'py>> {
    let dict = obj.cast_exact::<PyDict>().ok()?;
    if dict.len() != 2 {
        return None;
    }
    let role = dict.get_item("role").ok()??;
    let kind = match role.cast::<PyString>().ok()?.to_str().ok()? {
        "user" | "human" => "human",
        "assistant" | "ai" => "ai",
        "system" => "system",
        _ => return None,
    };
    let content = dict
        .get_item("content")
        .ok()??
        .cast::<PyString>()
        .ok()?
        .clone();
    Some(Plain { kind, content })
}

impl Plain<'_> {
    fn message(self, id: String) -> PyResult<Message> {
        // A str subclass or a lone surrogate is not read exactly: the core dict the Python
        // side made before, read as every message dict is (the object kept to give back).
        let text = match self.content.is_exact_instance_of::<PyString>() {
            true => self.content.to_str().ok().map(str::to_owned),
            false => None,
        };
        let Some(text) = text else {
            return message_from_py(&self.core_dict(id)?);
        };
        let content = Content::Text(text);
        Ok(match self.kind {
            "human" => Message::Human(HumanMessage {
                content,
                id: Some(id),
                ..HumanMessage::default()
            }),
            "ai" => Message::Ai(AiMessage {
                content,
                id: Some(id),
                ..AiMessage::default()
            }),
            _ => Message::System(SystemMessage {
                content,
                id: Some(id),
                ..SystemMessage::default()
            }),
        })
    }

    /// What LangChain's coercion makes of the dict, as a core dict.
    fn core_dict(&self, id: String) -> PyResult<Bound<'_, PyAny>> {
        let py = self.content.py();
        let d = PyDict::new(py);
        d.set_item("type", self.kind)?;
        d.set_item("content", &self.content)?;
        d.set_item("id", id)?;
        d.set_item("name", py.None())?;
        d.set_item("additional_kwargs", PyDict::new(py))?;
        d.set_item("response_metadata", PyDict::new(py))?;
        if self.kind == "ai" {
            d.set_item("tool_calls", PyList::empty(py))?;
            d.set_item("invalid_tool_calls", PyList::empty(py))?;
            d.set_item("usage_metadata", py.None())?;
        }
        Ok(d.into_any())
    }
}
