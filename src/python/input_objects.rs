//! A caller's LangChain message object read in the core, from the fields its `__dict__`
//! holds, instead of through `_convert.to_core` (a Python call and a dict per message: most
//! of reading a long history given as objects).
//!
//! Only LangChain's own human, system, AI and tool message classes are read here (their
//! fields are known); a plain one (text content, no calls, usage or extra fields) becomes the
//! core's message directly, any other the very dict `to_core` makes of it, read as every
//! message dict is. Anything else (a subclass, ours, a field of an unexpected type) goes
//! through `to_core`, which also raises what deepagents raises for what is not a message.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};

use super::convert::message_from_py;
use crate::messages::{AiMessage, Content, HumanMessage, Message, SystemMessage};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Human,
    System,
    Ai,
    Tool,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Human => "human",
            Kind::System => "system",
            Kind::Ai => "ai",
            Kind::Tool => "tool",
        }
    }

    /// The fields `_convert._BY_TYPE` reads of a message of this kind, in its order.
    fn fields(self) -> &'static [&'static str] {
        const COMMON: &[&str] = &[
            "content",
            "id",
            "name",
            "additional_kwargs",
            "response_metadata",
        ];
        const AI: &[&str] = &[
            "content",
            "id",
            "name",
            "additional_kwargs",
            "response_metadata",
            "tool_calls",
            "invalid_tool_calls",
            "usage_metadata",
        ];
        const TOOL: &[&str] = &[
            "content",
            "id",
            "name",
            "additional_kwargs",
            "response_metadata",
            "tool_call_id",
            "status",
            "artifact",
        ];
        match self {
            Kind::Human | Kind::System => COMMON,
            Kind::Ai => AI,
            Kind::Tool => TOOL,
        }
    }
}

/// LangChain's message classes by kind, once per interpreter (none without LangChain).
fn classes(py: Python<'_>) -> PyResult<&'static [(Py<PyType>, Kind)]> {
    static CLASSES: PyOnceLock<Vec<(Py<PyType>, Kind)>> = PyOnceLock::new();
    let found = CLASSES.get_or_try_init(py, || -> PyResult<_> {
        let convert = py.import("deepagents_rs._convert")?;
        let by_kind = convert.call_method0("_classes")?;
        let mut out = Vec::new();
        for kind in [Kind::Human, Kind::System, Kind::Ai, Kind::Tool] {
            let cls = by_kind.get_item(kind.name())?;
            // `_plain_class` knows LangChain's own classes only.
            if !convert.call_method1("_plain_class", (&cls,))?.is_none() {
                out.push((cls.cast_into::<PyType>()?.unbind(), kind));
            }
        }
        Ok(out)
    })?;
    Ok(found)
}

/// The core message `message_from_py(to_core(obj))` reads, or `None` for an object read
/// through `to_core` (see the module's doc).
pub(crate) fn object_message(obj: &Bound<'_, PyAny>) -> PyResult<Option<Message>> {
    let py = obj.py();
    let cls = obj.get_type();
    let Some(kind) = classes(py)?
        .iter()
        .find(|(c, _)| c.bind(py).is(&cls))
        .map(|(_, k)| *k)
    else {
        return Ok(None);
    };
    let Ok(fields) = obj.getattr(intern!(py, "__dict__")) else {
        return Ok(None);
    };
    let Ok(fields) = fields.cast_into::<PyDict>() else {
        return Ok(None);
    };
    if let Some(message) = plain(&fields, kind)? {
        return Ok(Some(message));
    }
    match core_dict(&fields, kind)? {
        Some(d) => message_from_py(d.as_any()).map(Some),
        None => Ok(None),
    }
}

/// A str exactly (not a subclass, no lone surrogate), or `None` for `None`; `Err(())` else.
fn text_or_none(value: Option<Bound<'_, PyAny>>) -> Result<Option<String>, ()> {
    match value {
        Some(v) if v.is_none() => Ok(None),
        Some(v) if v.is_exact_instance_of::<PyString>() => v
            .cast_into::<PyString>()
            .ok()
            .and_then(|s| s.to_str().ok().map(str::to_owned))
            .map(Some)
            .ok_or(()),
        _ => Err(()),
    }
}

fn empty_exact<T: pyo3::PyTypeInfo>(value: Option<Bound<'_, PyAny>>) -> bool {
    value.is_some_and(|v| v.is_exact_instance_of::<T>() && v.len().is_ok_and(|n| n == 0))
}

/// The message `to_core`'s dict reads as, for a plain one: text content, a str or no id, no
/// name on a system message, and every other field empty.
fn plain<'py>(fields: &Bound<'py, PyDict>, kind: Kind) -> PyResult<Option<Message>> {
    let py = fields.py();
    let get = |name: &Bound<'py, PyString>| fields.get_item(name);
    let Ok(Some(text)) = text_or_none(get(intern!(py, "content"))?) else {
        return Ok(None);
    };
    let (Ok(id), Ok(name)) = (
        text_or_none(get(intern!(py, "id"))?),
        text_or_none(get(intern!(py, "name"))?),
    ) else {
        return Ok(None);
    };
    if !empty_exact::<PyDict>(get(intern!(py, "additional_kwargs"))?)
        || !empty_exact::<PyDict>(get(intern!(py, "response_metadata"))?)
    {
        return Ok(None);
    }
    let content = Content::Text(text);
    Ok(match kind {
        Kind::Human => Some(Message::Human(HumanMessage {
            content,
            id,
            name,
            ..HumanMessage::default()
        })),
        // The core keeps no system message's name: one with a name is read as a dict.
        Kind::System if name.is_none() => Some(Message::System(SystemMessage {
            content,
            id,
            ..SystemMessage::default()
        })),
        Kind::Ai
            if empty_exact::<PyList>(get(intern!(py, "tool_calls"))?)
                && empty_exact::<PyList>(get(intern!(py, "invalid_tool_calls"))?)
                && get(intern!(py, "usage_metadata"))?.is_some_and(|u| u.is_none()) =>
        {
            Some(Message::Ai(AiMessage {
                content,
                id,
                name,
                ..AiMessage::default()
            }))
        }
        _ => None,
    })
}

/// `_convert._object_to_dict` of the object: its fields by kind, its tool calls as
/// `{name, args, id, type}`; `None` when a field is missing or a call is not a dict holding
/// a name and arguments (left to `to_core`).
fn core_dict<'py>(fields: &Bound<'py, PyDict>, kind: Kind) -> PyResult<Option<Bound<'py, PyDict>>> {
    let py = fields.py();
    let out = PyDict::new(py);
    out.set_item(intern!(py, "type"), kind.name())?;
    for &field in kind.fields() {
        let Some(value) = fields.get_item(field)? else {
            return Ok(None);
        };
        if field == "tool_calls" && value.is_truthy()? {
            let Some(calls) = tool_calls(&value)? else {
                return Ok(None);
            };
            out.set_item(field, calls)?;
        } else {
            out.set_item(field, value)?;
        }
    }
    Ok(Some(out))
}

fn tool_calls<'py>(value: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyList>>> {
    let py = value.py();
    let Ok(calls) = value.cast::<PyList>() else {
        return Ok(None);
    };
    let out = PyList::empty(py);
    for call in calls.iter() {
        let Ok(call) = call.cast_into_exact::<PyDict>() else {
            return Ok(None);
        };
        let (Some(name), Some(args)) = (
            call.get_item(intern!(py, "name"))?,
            call.get_item(intern!(py, "args"))?,
        ) else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item(intern!(py, "name"), name)?;
        d.set_item(intern!(py, "args"), args)?;
        d.set_item(intern!(py, "id"), call.get_item(intern!(py, "id"))?)?;
        d.set_item(intern!(py, "type"), intern!(py, "tool_call"))?;
        out.append(d)?;
    }
    Ok(Some(out))
}

/// An object's reading here (if any), `to_core`'s, and whether they are the same message.
type TestReading<'py> = (Option<Bound<'py, PyAny>>, Bound<'py, PyAny>, bool);

/// For the tests: each object read here (or `None` where `to_core` reads it) beside the
/// message `to_core`'s dict reads as, both as the core hands them back, with whether the two
/// are the same message.
#[pyfunction]
pub(crate) fn _input_objects_for_tests<'py>(
    py: Python<'py>,
    objects: Vec<Bound<'py, PyAny>>,
) -> PyResult<Vec<TestReading<'py>>> {
    let to_core = super::convert::convert_fn(py, "to_core")?;
    let mut out = Vec::new();
    for obj in &objects {
        let reference = message_from_py(&to_core.call1((obj,))?)?;
        let made = object_message(obj)?;
        let same = made
            .as_ref()
            .is_some_and(|m| *m == reference && m.read_inexactly() == reference.read_inexactly());
        let made = made
            .map(|m| super::convert::message_to_py(py, &m))
            .transpose()?;
        out.push((made, super::convert::message_to_py(py, &reference)?, same));
    }
    Ok(out)
}
