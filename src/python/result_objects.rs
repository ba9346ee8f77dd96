//! A run's result messages as LangChain message objects, the plain ones made here.
//!
//! `invoke` returns every message of the conversation as an object, so a long history makes
//! thousands per run. `_convert.from_core` makes a plain one (text content, no tool calls,
//! no usage, no extra fields) as pydantic's validation leaves it, from the dict
//! `message_to_py` writes; that dict, its copy and the checks in Python were most of a long
//! history's result. A plain message is made here instead, from the core's message directly:
//! the same `__dict__` (values and order), set fields, extras and private attributes as
//! `from_core` makes of its dict. Everything else still goes through `from_core`.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PySet, PyString, PyTuple};
use std::sync::Arc;

use super::convert::message_to_py;
use super::input_messages::GivenObjects;
use crate::messages::{Content, Message};

/// One of LangChain's plain message classes as `_convert._plain_class` describes it.
struct PlainClass {
    cls: Py<PyAny>,
    /// The model's fields in the order its validated `__dict__` holds them.
    fields: Vec<Field>,
    kind: Py<PyString>,
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Content,
    AdditionalKwargs,
    ResponseMetadata,
    Type,
    Name,
    Id,
    ToolCalls,
    InvalidToolCalls,
    UsageMetadata,
}

impl Field {
    fn of(name: &str) -> Option<Field> {
        Some(match name {
            "content" => Field::Content,
            "additional_kwargs" => Field::AdditionalKwargs,
            "response_metadata" => Field::ResponseMetadata,
            "type" => Field::Type,
            "name" => Field::Name,
            "id" => Field::Id,
            "tool_calls" => Field::ToolCalls,
            "invalid_tool_calls" => Field::InvalidToolCalls,
            "usage_metadata" => Field::UsageMetadata,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Field::Content => "content",
            Field::AdditionalKwargs => "additional_kwargs",
            Field::ResponseMetadata => "response_metadata",
            Field::Type => "type",
            Field::Name => "name",
            Field::Id => "id",
            Field::ToolCalls => "tool_calls",
            Field::InvalidToolCalls => "invalid_tool_calls",
            Field::UsageMetadata => "usage_metadata",
        }
    }
}

struct Maker {
    human: PlainClass,
    system: PlainClass,
    ai: PlainClass,
    names: Vec<Py<PyString>>,
}

/// The classes, once per interpreter; `None` without LangChain or when a class has a field
/// this module does not know (a LangChain this code was not written against).
fn maker(py: Python<'_>) -> PyResult<Option<&'static Maker>> {
    static MAKER: PyOnceLock<Option<Maker>> = PyOnceLock::new();
    let made = MAKER.get_or_try_init(py, || -> PyResult<Option<Maker>> {
        let convert = py.import("deepagents_rs._convert")?;
        let classes = convert.call_method0("_classes")?;
        let describe = |kind: &str| -> PyResult<Option<PlainClass>> {
            let cls = classes.get_item(kind)?;
            let known = convert.call_method1("_plain_class", (&cls,))?;
            if known.is_none() {
                return Ok(None);
            }
            let (names, type_value, _is_ai): (Bound<'_, PyTuple>, Bound<'_, PyString>, bool) =
                known.extract()?;
            let mut fields = Vec::new();
            for name in names.iter() {
                match Field::of(name.cast::<PyString>()?.to_str()?) {
                    Some(f) => fields.push(f),
                    None => return Ok(None),
                }
            }
            Ok(Some(PlainClass {
                cls: cls.unbind(),
                fields,
                kind: type_value.unbind(),
            }))
        };
        let (Some(human), Some(system), Some(ai)) =
            (describe("human")?, describe("system")?, describe("ai")?)
        else {
            return Ok(None);
        };
        let names = [
            Field::Content,
            Field::AdditionalKwargs,
            Field::ResponseMetadata,
            Field::Type,
            Field::Name,
            Field::Id,
            Field::ToolCalls,
            Field::InvalidToolCalls,
            Field::UsageMetadata,
        ]
        .iter()
        .map(|f| PyString::intern(py, f.name()).unbind())
        .collect();
        Ok(Some(Maker {
            human,
            system,
            ai,
            names,
        }))
    })?;
    Ok(made.as_ref())
}

#[derive(Clone, Copy)]
enum Kind {
    Human,
    System,
    Ai,
}

/// What a plain message holds: its text, id and name, and which of its fields the dict
/// `message_to_py` writes for it has (the keys `from_core` marks as set).
struct Plain<'a> {
    kind: Kind,
    text: &'a str,
    id: Option<&'a str>,
    name: Option<&'a str>,
    set: &'static [Field],
}

/// The message's plain parts, or `None` when `from_core` would not make it directly
/// (`_convert._validated_as_given`) or would get another dict (a host's own message).
fn plain(message: &Message) -> Option<Plain<'_>> {
    if message.read_inexactly() {
        return None;
    }
    let Content::Text(text) = message.content() else {
        return None;
    };
    // The keys of the dict the message serializes to, `type` and a `None` name left out
    // (`from_core` drops them): its serde attributes skip an empty map and, for a system
    // message, a missing id.
    match message {
        Message::Human(m) if m.additional_kwargs.is_empty() && m.response_metadata.is_empty() => {
            Some(Plain {
                kind: Kind::Human,
                text,
                id: m.id.as_deref(),
                name: m.name.as_deref(),
                set: if m.name.is_some() {
                    &[Field::Content, Field::Id, Field::Name]
                } else {
                    &[Field::Content, Field::Id]
                },
            })
        }
        Message::System(m) if m.additional_kwargs.is_empty() && m.response_metadata.is_empty() => {
            Some(Plain {
                kind: Kind::System,
                text,
                id: m.id.as_deref(),
                name: None,
                set: if m.id.is_some() {
                    &[Field::Content, Field::Id]
                } else {
                    &[Field::Content]
                },
            })
        }
        Message::Ai(m)
            if m.tool_calls.is_empty()
                && m.invalid_tool_calls.is_empty()
                && m.usage_metadata.is_none()
                && m.additional_kwargs.is_empty()
                && m.response_metadata.is_empty() =>
        {
            const WITH_NAME: &[Field] = &[
                Field::Content,
                Field::ToolCalls,
                Field::Id,
                Field::Name,
                Field::ResponseMetadata,
            ];
            const WITHOUT_NAME: &[Field] = &[
                Field::Content,
                Field::ToolCalls,
                Field::Id,
                Field::ResponseMetadata,
            ];
            Some(Plain {
                kind: Kind::Ai,
                text,
                id: m.id.as_deref(),
                name: m.name.as_deref(),
                set: if m.name.is_some() {
                    WITH_NAME
                } else {
                    WITHOUT_NAME
                },
            })
        }
        _ => None,
    }
}

impl Maker {
    fn name<'py>(&self, py: Python<'py>, field: Field) -> &Bound<'py, PyString> {
        self.names[field as usize].bind(py)
    }

    /// The object `from_core` makes of the message's dict.
    fn make<'py>(&self, py: Python<'py>, parts: &Plain<'_>) -> PyResult<Bound<'py, PyAny>> {
        let class = match parts.kind {
            Kind::Human => &self.human,
            Kind::System => &self.system,
            Kind::Ai => &self.ai,
        };
        let values = PyDict::new(py);
        for &field in &class.fields {
            let key = self.name(py, field);
            match field {
                Field::Content => values.set_item(key, parts.text)?,
                Field::AdditionalKwargs | Field::ResponseMetadata => {
                    values.set_item(key, PyDict::new(py))?
                }
                Field::Type => values.set_item(key, class.kind.bind(py))?,
                Field::Name => values.set_item(key, parts.name)?,
                Field::Id => values.set_item(key, parts.id)?,
                Field::ToolCalls | Field::InvalidToolCalls => {
                    values.set_item(key, PyList::empty(py))?
                }
                Field::UsageMetadata => values.set_item(key, py.None())?,
            }
        }
        let set = PySet::empty(py)?;
        for &field in parts.set {
            set.add(self.name(py, field))?;
        }
        let cls = class.cls.bind(py);
        let obj = cls.call_method1("__new__", (cls,))?;
        set_plain(&obj, intern!(py, "__dict__"), values.as_any())?;
        set_plain(&obj, intern!(py, "__pydantic_fields_set__"), set.as_any())?;
        set_plain(
            &obj,
            intern!(py, "__pydantic_extra__"),
            PyDict::new(py).as_any(),
        )?;
        set_plain(
            &obj,
            intern!(py, "__pydantic_private__"),
            &py.None().into_bound(py),
        )?;
        Ok(obj)
    }
}

/// `object.__setattr__(obj, name, value)` (pydantic's own `__setattr__` would validate and
/// track the write) without the call: `object`'s slot itself, with no argument tuple and no
/// name made per call, four times per message of a run's result.
fn set_plain(
    obj: &Bound<'_, PyAny>,
    name: &Bound<'_, PyString>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    // SAFETY: the three pointers are live objects the caller holds for the whole call.
    let status =
        unsafe { pyo3::ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
    if status == 0 {
        Ok(())
    } else {
        Err(PyErr::fetch(obj.py()))
    }
}

/// The messages as message objects: the caller's own for those it `given` the run, the plain
/// ones made here, the others by `_convert.from_core` from their dicts, one at a time (a list
/// of every dict beside the objects would live through the collector's young generations
/// into its oldest).
pub(crate) fn message_objects<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
    given: &GivenObjects,
) -> PyResult<Bound<'py, PyList>> {
    let maker = maker(py)?;
    let from_core = py.import("deepagents_rs._convert")?.getattr("from_core")?;
    let list = PyList::empty(py);
    for m in messages {
        if let Some(obj) = given.object_of(py, m) {
            list.append(obj)?;
            continue;
        }
        match (maker, plain(m)) {
            (Some(maker), Some(parts)) => list.append(maker.make(py, &parts)?)?,
            _ => list.append(from_core.call1((message_to_py(py, m)?,))?)?,
        }
    }
    Ok(list)
}

/// For the tests: the messages of the given core dicts made here and by `from_core`, side
/// by side, with whether each was plain.
#[pyfunction]
pub(crate) fn _result_objects_for_tests<'py>(
    py: Python<'py>,
    dicts: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Vec<bool>)> {
    let messages: Vec<Arc<Message>> = super::convert::messages_from_py(dicts)?
        .into_iter()
        .map(Arc::new)
        .collect();
    let plain_ones = messages.iter().map(|m| plain(m).is_some()).collect();
    let made = message_objects(py, &messages, &GivenObjects::default())?;
    let reference = super::convert::message_object_list(py, &messages)?;
    Ok((made, reference, plain_ones))
}
