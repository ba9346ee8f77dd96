//! A run's input messages. The common form, a plain `{"role": ..., "content": "<str>"}` dict,
//! is read straight from the caller's dict, with the fresh id LangGraph's coercion gives it;
//! a message object is read from its fields (`super::input_objects`, else from the dict
//! `deepagents_rs._convert.to_core` makes of it) and kept (`GivenObjects`); every other
//! message arrives as `to_core` made it. Building a core
//! dict per plain message in Python cost more than the rest of a 2,000-message run's input.

use std::sync::Arc;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use super::convert::message_from_py;
use crate::history::History;
use crate::message_memo::AddressMap;
use crate::messages::{AiMessage, Content, HumanMessage, Message, SystemMessage};

/// The caller's message objects among a run's input, by the core message read from each.
///
/// LangGraph's channel holds the caller's own objects, so deepagents' result (and every
/// `values` chunk) gives them back: `out["messages"][0] is h`. A message the run leaves as
/// it was is the very `Arc` read here (the run replaces, never edits, a message), so the
/// result gives its object back; one the run replaced (same id, or rewritten) is a new
/// `Arc` and is made a new object.
///
/// The content string of each plain dict is kept too: LangChain's coercion makes the message
/// object around the caller's very `str`, and a result made from it again would copy every
/// text of a long history back into a new one.
#[derive(Default)]
pub(crate) struct GivenObjects {
    /// By the address of the message read from the object; the `Arc` held here keeps that
    /// address from being reused by a message made during the run.
    by_address: AddressMap<(Arc<Message>, Py<PyAny>)>,
    /// A plain dict's `content`, by the address of the message read from it (held alike).
    texts: AddressMap<(Arc<Message>, Py<PyString>)>,
}

impl GivenObjects {
    pub(crate) fn is_empty(&self) -> bool {
        self.by_address.is_empty()
    }

    /// The caller's object `message` was read from, while the run holds it unchanged.
    pub(crate) fn object_of<'py>(
        &self,
        py: Python<'py>,
        message: &Arc<Message>,
    ) -> Option<Bound<'py, PyAny>> {
        if self.by_address.is_empty() {
            return None;
        }
        let (_, obj) = self.by_address.get(&address(message))?;
        Some(obj.bind(py).clone())
    }

    /// The caller's `content` string of the plain dict `message` was read from, while the
    /// run holds it unchanged.
    pub(crate) fn text_of<'py>(
        &self,
        py: Python<'py>,
        message: &Arc<Message>,
    ) -> Option<&Bound<'py, PyString>> {
        let (_, text) = self.texts.get(&address(message))?;
        Some(text.bind(py))
    }
}

fn address(message: &Arc<Message>) -> usize {
    Arc::as_ptr(message) as usize
}

/// The messages of an input state as the run's history, with the message objects among them
/// (`_convert.input_messages` leaves plain dicts and message objects as given).
pub(crate) fn input_history_from_py(list: &Bound<'_, PyAny>) -> PyResult<(History, GivenObjects)> {
    let items = list.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    let plain: Vec<Option<Plain<'_>>> = items.iter().map(plain).collect();
    let mut ids = crate::run::new_ids(plain.iter().flatten().count()).into_iter();
    let mut history = History::new();
    let mut given = GivenObjects::default();
    given.texts.reserve(plain.iter().flatten().count());
    let mut to_core = None;
    for (item, plain) in items.iter().zip(plain) {
        let mut text = None;
        let (message, object) = match plain {
            Some(p) => {
                let message = p.message(ids.next().unwrap_or_else(crate::run::new_id))?;
                text = message.1;
                (message.0, None)
            }
            None if item.is_instance_of::<PyDict>() => (message_from_py(item)?, None),
            None => match super::input_objects::object_message(item)? {
                Some(message) => (message, Some(item)),
                None => {
                    let to_core = match &to_core {
                        Some(f) => f,
                        None => to_core.insert(super::convert::convert_fn(item.py(), "to_core")?),
                    };
                    (message_from_py(&to_core.call1((item,))?)?, Some(item))
                }
            },
        };
        let message = Arc::new(message);
        if let Some(obj) = object {
            given
                .by_address
                .insert(address(&message), (message.clone(), obj.clone().unbind()));
        }
        if let Some(text) = text {
            given
                .texts
                .insert(address(&message), (message.clone(), text.unbind()));
        }
        history.push(message);
    }
    Ok((history, given))
}

/// A plain message dict: its core type and its content.
struct Plain<'py> {
    kind: &'static str,
    content: Bound<'py, PyString>,
}

/// The rule `_convert._plain_dict` applies: a dict of exactly `role` (one of the plain roles)
/// and a str `content`.
///
/// A history's dicts are checked twice a run (`all_plain_messages`, then the reading): the
/// two entries are read in one pass over the dict, and the keys and roles compared first by
/// identity with the interned literals (a caller's literals are those very objects), not
/// looked up by key through their wrappers (~370 instructions a dict before).
fn plain<'py>(obj: &Bound<'py, PyAny>) -> Option<Plain<'py>> {
    use pyo3::ffi;
    let py = obj.py();
    let dict = obj.cast_exact::<PyDict>().ok()?;
    let (role_key, content_key) = (intern!(py, "role"), intern!(py, "content"));
    let (mut role, mut content) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: `dict` is a live dict, not changed while read (no Python code runs here);
    // `PyDict_Next` hands out borrowed references, used while `dict` holds them.
    unsafe {
        if ffi::PyDict_Size(dict.as_ptr()) != 2 {
            return None;
        }
        let mut pos: ffi::Py_ssize_t = 0;
        for _ in 0..2 {
            let (mut key, mut value) = (std::ptr::null_mut(), std::ptr::null_mut());
            if ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut key, &mut value) == 0 {
                return None;
            }
            // A str equal to a literal (JSON's keys) is the same key. A key of another type,
            // a str subclass among them, is looked up as the dict itself would.
            let slot = if key == role_key.as_ptr() {
                &mut role
            } else if key == content_key.as_ptr() {
                &mut content
            } else if ffi::PyUnicode_CheckExact(key) == 0 {
                return plain_looked_up(dict);
            } else if ffi::PyUnicode_CompareWithASCIIString(key, c"role".as_ptr()) == 0 {
                &mut role
            } else if ffi::PyUnicode_CompareWithASCIIString(key, c"content".as_ptr()) == 0 {
                &mut content
            } else {
                return None;
            };
            *slot = value;
        }
        if role.is_null() || content.is_null() || ffi::PyUnicode_Check(content) == 0 {
            return None;
        }
        let kind = role_kind(&Bound::from_borrowed_ptr(py, role))?;
        let content = Bound::from_borrowed_ptr(py, content).cast_into_unchecked::<PyString>();
        Some(Plain { kind, content })
    }
}

/// `plain`'s rule through the dict's own lookups (a key that is not exactly a str).
fn plain_looked_up<'py>(dict: &Bound<'py, PyDict>) -> Option<Plain<'py>> {
    let py = dict.py();
    let role = dict.get_item(intern!(py, "role")).ok()??;
    let content = dict.get_item(intern!(py, "content")).ok()??;
    let kind = role_kind(&role)?;
    let content = content.cast_into::<PyString>().ok()?;
    Some(Plain { kind, content })
}

/// The core type of a plain role (a str, or a subclass of it).
fn role_kind(role: &Bound<'_, PyAny>) -> Option<&'static str> {
    let py = role.py();
    // The caller's literals first, by identity.
    let literals = [
        (intern!(py, "user"), "human"),
        (intern!(py, "assistant"), "ai"),
        (intern!(py, "human"), "human"),
        (intern!(py, "ai"), "ai"),
        (intern!(py, "system"), "system"),
    ];
    if let Some((_, kind)) = literals.iter().find(|(literal, _)| role.is(literal)) {
        return Some(kind);
    }
    Some(match role.cast::<PyString>().ok()?.to_str().ok()? {
        "user" | "human" => "human",
        "assistant" | "ai" => "ai",
        "system" => "system",
        _ => return None,
    })
}

/// Whether every message of the list is a plain dict (`plain`'s rule, the one the run's
/// input reading applies): the check `_convert.input_messages` makes of a whole input, a
/// Python call per message of a long history otherwise.
#[pyfunction]
pub(crate) fn all_plain_messages(messages: &Bound<'_, PyList>) -> bool {
    messages.iter().all(|m| plain(&m).is_some())
}

impl<'py> Plain<'py> {
    /// The message, and the content string it was read from exactly (kept for the result).
    fn message(self, id: String) -> PyResult<(Message, Option<Bound<'py, PyString>>)> {
        // A str subclass or a lone surrogate is not read exactly: the core dict the Python
        // side made before, read as every message dict is (the object kept to give back).
        let text = match self.content.is_exact_instance_of::<PyString>() {
            true => self.content.to_str().ok().map(str::to_owned),
            false => None,
        };
        let Some(text) = text else {
            return Ok((message_from_py(&self.core_dict(id)?)?, None));
        };
        let content = Content::Text(text);
        let message = match self.kind {
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
        };
        Ok((message, Some(self.content)))
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
