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
    /// The class's `__new__` slot: `cls.__new__(cls)` without the lookup and the call.
    new: pyo3::ffi::newfunc,
    /// The model's fields in the order its validated `__dict__` holds them.
    fields: Vec<Field>,
    /// Its `__dict__` with every field `None` but `type`: a copy keeps the order and the
    /// table's size, so a message's writes are overwrites (no growing, no reordering).
    template: Py<PyDict>,
    /// Its set fields without and with the optional one (`Plain::more`), copied per message.
    set: [Py<PySet>; 2],
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
        let describe = |kind: Kind, name: &str| -> PyResult<Option<PlainClass>> {
            let cls = classes.get_item(name)?;
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
            let template = PyDict::new(py);
            for &f in &fields {
                match f {
                    Field::Type => {
                        template.set_item(PyString::intern(py, f.name()), &type_value)?
                    }
                    _ => template.set_item(PyString::intern(py, f.name()), py.None())?,
                }
            }
            let set = |fields: &[Field]| -> PyResult<Py<PySet>> {
                let names = fields.iter().map(|f| PyString::intern(py, f.name()));
                Ok(PySet::new(py, names)?.unbind())
            };
            let [fewer, more] = set_fields(kind);
            // SAFETY: `cls` is a live type object; `Py_tp_new` is a slot every type has (an
            // instantiable class's is never null, checked all the same).
            let new =
                unsafe { pyo3::ffi::PyType_GetSlot(cls.as_ptr().cast(), pyo3::ffi::Py_tp_new) };
            if new.is_null() {
                return Ok(None);
            }
            Ok(Some(PlainClass {
                // SAFETY: the `Py_tp_new` slot holds a `newfunc`.
                new: unsafe {
                    std::mem::transmute::<*mut std::ffi::c_void, pyo3::ffi::newfunc>(new)
                },
                cls: cls.unbind(),
                fields,
                template: template.unbind(),
                set: [set(fewer)?, set(more)?],
            }))
        };
        let (Some(human), Some(system), Some(ai)) = (
            describe(Kind::Human, "human")?,
            describe(Kind::System, "system")?,
            describe(Kind::Ai, "ai")?,
        ) else {
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

/// The keys of the dict a plain message of `kind` serializes to (`type` and a `None` name
/// left out: `from_core` drops them), without and with its optional one: its serde
/// attributes skip an empty map and, for a system message, a missing id.
fn set_fields(kind: Kind) -> [&'static [Field]; 2] {
    match kind {
        Kind::Human => [
            &[Field::Content, Field::Id],
            &[Field::Content, Field::Id, Field::Name],
        ],
        Kind::System => [&[Field::Content], &[Field::Content, Field::Id]],
        Kind::Ai => [
            &[
                Field::Content,
                Field::ToolCalls,
                Field::Id,
                Field::ResponseMetadata,
            ],
            &[
                Field::Content,
                Field::ToolCalls,
                Field::Id,
                Field::Name,
                Field::ResponseMetadata,
            ],
        ],
    }
}

/// What a plain message holds: its text, id and name, and whether the dict `message_to_py`
/// writes for it has its optional key (`set_fields`).
struct Plain<'a> {
    kind: Kind,
    text: &'a str,
    id: Option<&'a str>,
    name: Option<&'a str>,
    more: bool,
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
    match message {
        Message::Human(m) if m.additional_kwargs.is_empty() && m.response_metadata.is_empty() => {
            Some(Plain {
                kind: Kind::Human,
                text,
                id: m.id.as_deref(),
                name: m.name.as_deref(),
                more: m.name.is_some(),
            })
        }
        Message::System(m) if m.additional_kwargs.is_empty() && m.response_metadata.is_empty() => {
            Some(Plain {
                kind: Kind::System,
                text,
                id: m.id.as_deref(),
                name: None,
                more: m.id.is_some(),
            })
        }
        Message::Ai(m)
            if m.tool_calls.is_empty()
                && m.invalid_tool_calls.is_empty()
                && m.usage_metadata.is_none()
                && m.additional_kwargs.is_empty()
                && m.response_metadata.is_empty() =>
        {
            Some(Plain {
                kind: Kind::Ai,
                text,
                id: m.id.as_deref(),
                name: m.name.as_deref(),
                more: m.name.is_some(),
            })
        }
        _ => None,
    }
}

impl Maker {
    fn name<'py>(&self, py: Python<'py>, field: Field) -> &Bound<'py, PyString> {
        self.names[field as usize].bind(py)
    }

    /// The object `from_core` makes of the message's dict; its content the caller's own
    /// string `text` when the message was read from one.
    fn make<'py>(
        &self,
        py: Python<'py>,
        parts: &Plain<'_>,
        text: Option<&Bound<'py, PyString>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let class = match parts.kind {
            Kind::Human => &self.human,
            Kind::System => &self.system,
            Kind::Ai => &self.ai,
        };
        let values = class.template.bind(py).copy()?;
        for &field in &class.fields {
            let key = self.name(py, field);
            match field {
                Field::Content => match text {
                    Some(text) => values.set_item(key, text)?,
                    None => values.set_item(key, parts.text)?,
                },
                Field::AdditionalKwargs | Field::ResponseMetadata => {
                    values.set_item(key, PyDict::new(py))?
                }
                // The template's: the class's `type`, `None` for no name, id or usage.
                Field::Type | Field::UsageMetadata => {}
                Field::Name => {
                    if let Some(name) = parts.name {
                        values.set_item(key, name)?
                    }
                }
                Field::Id => {
                    if let Some(id) = parts.id {
                        values.set_item(key, id)?
                    }
                }
                Field::ToolCalls | Field::InvalidToolCalls => {
                    values.set_item(key, PyList::empty(py))?
                }
            }
        }
        let template = class.set[usize::from(parts.more)].bind(py);
        // SAFETY: `PySet_New` of a live set copies it (its table as it is, no rehashing);
        // a new reference or null with an exception set.
        let set =
            unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PySet_New(template.as_ptr()))? };
        // The set holds field names only (pydantic adds names, nothing else), so it can be in
        // no reference cycle: left out of the collector's lists, one tracked container less
        // per message of a long history for every collection to walk.
        // SAFETY: `set` is a live set, new here, tracked by `PySet_New`.
        unsafe { pyo3::ffi::PyObject_GC_UnTrack(set.as_ptr().cast()) };
        let cls = class.cls.bind(py);
        // SAFETY: `new` is the class's own `__new__` slot, called as `cls.__new__(cls)` calls
        // it: the class, an empty argument tuple, no keywords; it returns a new reference or
        // null with an exception set.
        let obj = unsafe {
            let args = PyTuple::empty(py);
            let made = (class.new)(cls.as_ptr().cast(), args.as_ptr(), std::ptr::null_mut());
            Bound::from_owned_ptr_or_err(py, made)?
        };
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
            (Some(maker), Some(parts)) => {
                list.append(maker.make(py, &parts, given.text_of(py, m))?)?
            }
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
