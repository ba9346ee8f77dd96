//! Core values to and from Python at the boundary.
//!
//! What comes in is read with `value::read` (bounded, and told whether the reading is exact);
//! where it is not exact the Python object travels beside the core's reading and goes back
//! out in its place, so a `datetime`, a lone surrogate or a 10,000-deep list comes back as
//! it was given.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyModule};
use serde_json::{Map, Value};

use super::value;
use crate::host::{HostValue, Opaque, Origin};
use crate::messages::{Content, Message};
use crate::state::{Extra, FilesHost, FilesWrite};

/// `deepagents_rs._convert`'s function ``name`` (``from_core``, ``to_core``). The module is
/// imported once and kept: an import at each call goes through Python's import machinery
/// (`builtins.__import__`, a microsecond or more), and some callers run at every step. The
/// function itself is read at each call, so a test that replaces it sees its calls.
pub(crate) fn convert_fn<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    MODULE
        .get_or_try_init(py, || {
            py.import("deepagents_rs._convert").map(Bound::unbind)
        })?
        .bind(py)
        .getattr(name)
}

/// The Python object a host value carries, if it is one.
pub(crate) fn host_object<'py>(py: Python<'py>, value: &HostValue) -> Option<Bound<'py, PyAny>> {
    value
        .downcast_ref::<Py<PyAny>>()
        .map(|o| o.bind(py).clone())
}

fn origin_object<'py>(py: Python<'py>, origin: &Origin) -> Option<Bound<'py, PyAny>> {
    host_object(py, origin.object())
}

fn keep(obj: &Bound<'_, PyAny>) -> HostValue {
    HostValue::new(obj.clone().unbind())
}

/// A message dict (as `deepagents_rs._convert.to_core` makes them) as a core message. Where
/// the reading is not exact, a copy of the dict is kept to give back, and each tool call
/// keeps its own arguments object for the tool.
pub(crate) fn message_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Message> {
    let (view, exact) = value::read(obj)?;
    let mut message: Message = serde_json::from_value(view)
        .map_err(|e| PyValueError::new_err(format!("invalid message: {e}")))?;
    if !exact {
        let dict = obj
            .cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("a message must be a dict"))?;
        if let Message::Ai(ai) = &mut message
            && let Some(calls) = dict.get_item("tool_calls")?
        {
            for (i, call) in ai.tool_calls.iter_mut().enumerate() {
                if let Ok(args) = calls.get_item(i).and_then(|c| c.get_item("args")) {
                    call.args_origin = Some(Origin::new(keep(&args), &call.args));
                }
            }
        }
        message.set_origin(keep(dict.copy()?.as_any()));
    }
    Ok(message)
}

/// `message_from_py` over a list.
pub(crate) fn messages_from_py(list: &Bound<'_, PyAny>) -> PyResult<Vec<Message>> {
    list.try_iter()?.map(|m| message_from_py(&m?)).collect()
}

/// A message as a dict: the host's own when the core still holds what was read from it,
/// else the core's, with the host's objects put back where they still fit (a tool's
/// artifact and return value, a call's arguments).
pub(crate) fn message_to_py<'py>(
    py: Python<'py>,
    message: &Message,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(obj) = message.origin().and_then(|o| origin_object(py, o))
        && let Ok(dict) = obj.cast::<PyDict>()
    {
        let copy = dict.copy()?;
        // The reducer may have given it an id since.
        copy.set_item("id", message.id())?;
        return Ok(copy.into_any());
    }
    // Stand-ins come from the host's objects, or from the core's reading of text as JSON
    // (a server tool's `NaN` arguments, which only a rewritten content holds).
    let has = message.read_inexactly()
        || matches!(message.content(), Content::Blocks(b) if b.iter().any(crate::stand_ins::contains_stand_in));
    let dict = value::to_py(py, message, has)?;
    let dict = dict.cast::<PyDict>()?;
    match message {
        Message::Tool(tool) => {
            if let Some(artifact) = tool.artifact_host.as_ref().and_then(|a| host_object(py, a)) {
                dict.set_item("artifact", artifact)?;
            }
            if let Some(content) = tool
                .content_origin
                .as_ref()
                .filter(|o| o.matches(&tool.content))
                .and_then(|o| origin_object(py, o))
            {
                dict.set_item("content", content)?;
            }
        }
        Message::Ai(ai) if ai.tool_calls.iter().any(|c| c.args_origin.is_some()) => {
            let calls = dict.as_any().get_item("tool_calls")?;
            for (i, call) in ai.tool_calls.iter().enumerate() {
                if let Some(args) = call_args(py, call) {
                    calls.get_item(i)?.set_item("args", args)?;
                }
            }
        }
        _ => {}
    }
    Ok(dict.clone().into_any())
}

/// A tool call's arguments as the host gave them, while the core's reading is unchanged.
pub(crate) fn call_args<'py>(
    py: Python<'py>,
    call: &crate::messages::ToolCall,
) -> Option<Bound<'py, PyAny>> {
    call.args_origin
        .as_ref()
        .filter(|o| o.matches(&call.args))
        .and_then(|o| origin_object(py, o))
}

/// Content a tool returned, and the object itself when the reading is not exact.
pub(crate) fn content_from_py(obj: &Bound<'_, PyAny>) -> PyResult<(Content, Option<Origin>)> {
    let (view, exact) = value::read(obj)?;
    let content: Content = serde_json::from_value(view)
        .map_err(|e| PyTypeError::new_err(format!("invalid message content: {e}")))?;
    let origin = (!exact).then(|| Origin::new(keep(obj), &content));
    Ok((content, origin))
}

/// State keys the core does not read: each kept as the caller's object.
pub(crate) fn extra_from_py(dict: &Bound<'_, PyDict>) -> PyResult<Extra> {
    let mut out = Extra::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("state keys must be str"))?;
        let value = match key.as_str() {
            crate::summarization::event::EVENT_KEY => record_from_py(&v),
            crate::summarization::event::SESSION_KEY => json_from_py(&v),
            // Memory's and skills' keys, which the core reads and writes.
            crate::middleware::MEMORY_CONTENTS_KEY
            | "skills_metadata"
            | "skills_load_errors"
            | "pinned_skills"
            | "_skill_tools_disclosed" => json_from_py(&v),
            _ => None,
        };
        out.insert(key, value.unwrap_or_else(|| Opaque::Host(keep(&v))));
    }
    Ok(out)
}

/// A value the core reads, as JSON when it reads exactly.
fn json_from_py(v: &Bound<'_, PyAny>) -> Option<Opaque> {
    match value::read(v) {
        Ok((json, true)) => Some(Opaque::Json(json)),
        _ => None,
    }
}

/// A dict of JSON values and LangChain messages (summarization's event) as a record the core
/// reads; `None` (kept as the caller's object) when it is not one.
fn record_from_py(v: &Bound<'_, PyAny>) -> Option<Opaque> {
    let dict = v.cast::<PyDict>().ok()?;
    let py = v.py();
    let to_core = convert_fn(py, "to_core").ok()?;
    // Kept once found; without LangChain looked for again (no message can be one then).
    static BASE_MESSAGE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let base_message = BASE_MESSAGE
        .import(py, "langchain_core.messages", "BaseMessage")
        .ok();
    let mut fields = indexmap::IndexMap::new();
    for (k, item) in dict.iter() {
        let key: String = k.extract().ok()?;
        let is_message = base_message.is_some_and(|cls| item.is_instance(cls).unwrap_or(false));
        let field = if is_message || (key == "summary_message" && item.is_instance_of::<PyDict>()) {
            let d = to_core.call1((&item,)).ok()?;
            Opaque::Message(Arc::new(message_from_py(&d).ok()?))
        } else {
            json_from_py(&item)?
        };
        fields.insert(key, field);
    }
    Some(Opaque::Record(Arc::new(fields)))
}

pub(crate) fn opaque_to_py<'py>(py: Python<'py>, value: &Opaque) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Opaque::Host(h) => match host_object(py, h) {
            Some(obj) => Ok(obj),
            None => Ok(py.None().into_bound(py)),
        },
        Opaque::Json(v) => Ok(pythonize::pythonize(py, v)?),
        Opaque::Message(m) => convert_fn(py, "from_core")?.call1((message_to_py(py, m)?,)),
        Opaque::Record(fields) => {
            let dict = PyDict::new(py);
            for (k, v) in fields.iter() {
                dict.set_item(k, opaque_to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

pub(crate) fn extra_to_py<'py>(py: Python<'py>, extra: &Extra) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (k, v) in extra {
        out.set_item(k, opaque_to_py(py, v)?)?;
    }
    Ok(out)
}

/// A files map (`{path: file data}`) as the core reads it, with the caller's objects for
/// entries not read exactly and the entries under keys that are not plain str paths
/// (deepagents keeps those; no file tool reaches them).
pub(crate) fn file_map_from_py(obj: &Bound<'_, PyAny>) -> PyResult<FilesWrite> {
    read_file_map(obj, false)
}

/// A run's input `files`, with the caller's object kept for every entry (see
/// `FilesHost::exact`): deepagents' reducer takes the input's file dicts as they are, so
/// those no write touches come back as the same objects. (A tool's `Command` update does not
/// keep them in deepagents, so `file_map_from_py` does not.)
pub(crate) fn input_file_map_from_py(obj: &Bound<'_, PyAny>) -> PyResult<FilesWrite> {
    read_file_map(obj, true)
}

fn read_file_map(obj: &Bound<'_, PyAny>, keep_exact: bool) -> PyResult<FilesWrite> {
    let dict = obj
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err("`files` must be a dict of path -> file data"))?;
    let mut write = FilesWrite::default();
    for (k, v) in dict.iter() {
        let path = match value::read(&k)? {
            (Value::String(path), true) => path,
            _ => {
                let id = format!("{}:{}", k.get_type().qualname()?, k.repr()?);
                let entry = (!v.is_none()).then(|| keep(&v));
                write.host.foreign.insert(id, (keep(&k), entry));
                continue;
            }
        };
        let (mut entry, exact) = value::read(&v)?;
        // `null` deletes: a value read as null that is not `None` (NaN) needs another stand-in.
        if entry.is_null() && !v.is_none() {
            entry = Value::String(v.str()?.to_string_lossy().into_owned());
        }
        if exact {
            if keep_exact {
                write.host.exact.insert(path.clone(), keep(&v));
            }
        } else {
            write
                .host
                .origins
                .insert(path.clone(), Origin::new(keep(&v), &entry));
        }
        write.entries.insert(path, entry);
    }
    Ok(write)
}

/// The files map as a dict: each entry the caller's object while the core still holds what
/// it read from it, and the entries under other keys after the paths.
pub(crate) fn file_map_to_py<'py>(
    py: Python<'py>,
    files: &Map<String, Value>,
    host: &FilesHost,
) -> PyResult<Bound<'py, PyAny>> {
    if host.is_empty() {
        return Ok(pythonize::pythonize(py, files)?);
    }
    let out = PyDict::new(py);
    for (path, entry) in files {
        let kept = match host.exact.get(path) {
            Some(object) => host_object(py, object),
            None => host
                .origins
                .get(path)
                .filter(|o| o.matches(entry))
                .and_then(|o| origin_object(py, o)),
        };
        match kept {
            Some(obj) => out.set_item(path, obj)?,
            None => out.set_item(path, pythonize::pythonize(py, entry)?)?,
        }
    }
    for (key, entry) in host.foreign.values() {
        if let Some(key) = host_object(py, key) {
            let entry = entry.as_ref().and_then(|e| host_object(py, e));
            out.set_item(key, entry)?;
        }
    }
    Ok(out.into_any())
}

/// A files write as a dict, as a state update streams it (`None` deletes).
pub(crate) fn files_write_to_py<'py>(
    py: Python<'py>,
    write: &FilesWrite,
) -> PyResult<Bound<'py, PyAny>> {
    file_map_to_py(py, &write.entries, &write.host)
}

/// A list of core messages as dicts.
pub(crate) fn message_list<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for m in messages {
        list.append(message_to_py(py, m)?)?;
    }
    Ok(list)
}

/// A list of core messages as message objects (`_convert.from_core`), each made from its
/// dict as soon as the dict is: a list of all the dicts beside the objects would live through
/// the collector's young generations into its oldest, and a long history's result then paid
/// for full collections.
pub(crate) fn message_object_list<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
) -> PyResult<Bound<'py, PyList>> {
    let from_core = convert_fn(py, "from_core")?;
    let list = PyList::empty(py);
    for m in messages {
        list.append(from_core.call1((message_to_py(py, m)?,))?)?;
    }
    Ok(list)
}

/// A tool call as a dict, with the host's own arguments object where there is one.
pub(crate) fn call_to_py<'py>(
    py: Python<'py>,
    call: &crate::messages::ToolCall,
) -> PyResult<Bound<'py, PyAny>> {
    let dict = pythonize::pythonize(py, call)?;
    if let Some(args) = call_args(py, call) {
        dict.set_item("args", args)?;
    }
    Ok(dict)
}

/// A tool call dict as the core's, keeping its arguments object where the reading of it is
/// not exact.
pub(crate) fn call_from_py(obj: &Bound<'_, PyAny>) -> PyResult<crate::messages::ToolCall> {
    let (view, exact) = value::read(obj)?;
    let mut call: crate::messages::ToolCall = serde_json::from_value(view)
        .map_err(|e| PyValueError::new_err(format!("invalid tool call: {e}")))?;
    if !exact && let Ok(args) = obj.get_item("args") {
        call.args_origin = Some(Origin::new(keep(&args), &call.args));
    }
    Ok(call)
}

/// A dict of other state keys, each kept as the caller's object.
pub(crate) fn extra_any_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Extra> {
    extra_from_py(
        obj.cast::<PyDict>()
            .map_err(|_| PyTypeError::new_err("a state update must be a dict"))?,
    )
}

/// Whether a middleware item is the configuration of one of the core's own entries
/// (`{"kind": kind, ...}`), as deepagents_rs' middleware faces hand them over.
pub(crate) fn is_core_config(item: &Bound<'_, PyAny>, kind: &str) -> bool {
    item.cast::<PyDict>().is_ok_and(|d| {
        d.get_item("kind")
            .ok()
            .flatten()
            .is_some_and(|k| k.extract::<String>().is_ok_and(|k| k == kind))
    })
}
