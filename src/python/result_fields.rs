//! A result message's field values as LangChain's validation leaves them, made from the
//! core's message directly (`result_objects` puts them in the object).
//!
//! `_convert.from_core` makes them from the dict `message_to_py` writes: `_ai_fields`
//! remakes tool calls, usage and block content, and every dict field is copied. Each value
//! here is the one that path ends with: the same keys in the same order, the same values (its
//! text values short enough interned, as `interned_keys` writes them into that dict), each
//! dict and list new. `None` where that path would leave the message to LangChain's
//! constructor (a shape `_ai_fields` does not take): the caller then takes it.

use pyo3::IntoPyObjectExt;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};
use serde_json::{Map, Value};

use super::compact_dict::{self, Integer};
use super::interned_keys::{dict_key, text_value};
use super::string_cache::interned;
use super::value::to_py;
use crate::compact_map::CompactMap;
use crate::messages::{Content, ToolCall, Usage};

/// Content as `_ai_fields.content` leaves it: text as it is (the caller's own string when
/// given), a list of blocks new with each dict new; `None` for blocks outside an AI or tool
/// message, an item neither dict nor text, or a stand-in (`message_to_py` would put the value
/// it stands for back, anywhere in the message).
pub(super) fn content<'py>(
    py: Python<'py>,
    content: &Content,
    given: Option<&Bound<'py, PyString>>,
    blocks_allowed: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let blocks = match content {
        Content::Text(text) => {
            return Ok(Some(match given {
                Some(text) => text.clone().into_any(),
                None => text_value(py, text).into_any(),
            }));
        }
        Content::Blocks(blocks) => blocks,
    };
    if !blocks_allowed || blocks.iter().any(crate::stand_ins::contains_stand_in) {
        return Ok(None);
    }
    let list = PyList::empty(py);
    for block in blocks {
        match block {
            Value::Object(map) => list.append(object(py, map)?)?,
            // A list's text items are not interned by `interned_keys` (only dict values).
            Value::String(text) => list.append(PyString::new(py, text))?,
            _ => return Ok(None),
        }
    }
    Ok(Some(list.into_any()))
}

/// `tool_calls` as `_ai_fields.tool_calls` leaves them: a new dict a call (name, arguments,
/// id, `"tool_call"`), its arguments a new dict; `None` when a call's arguments are not an
/// object or are the host's own (read inexactly: `message_to_py` hands that object over).
pub(super) fn tool_calls<'py>(
    py: Python<'py>,
    calls: &[ToolCall],
) -> PyResult<Option<Bound<'py, PyList>>> {
    let list = PyList::empty(py);
    for call in calls {
        let (None, Value::Object(args)) = (&call.args_origin, &call.args) else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item(intern!(py, "name"), text_value(py, &call.name))?;
        dict.set_item(intern!(py, "args"), object(py, args)?)?;
        match &call.id {
            Some(id) => dict.set_item(intern!(py, "id"), text_value(py, id))?,
            None => dict.set_item(intern!(py, "id"), py.None())?,
        }
        // Written anew whatever the call's own `type` (as `_ai_fields` does).
        dict.set_item(intern!(py, "type"), intern!(py, "tool_call"))?;
        list.append(dict)?;
    }
    Ok(Some(list))
}

/// The keys of `UsageMetadata`'s two details in their `TypedDict` order.
const INPUT_DETAILS: [&str; 3] = ["audio", "cache_creation", "cache_read"];
const OUTPUT_DETAILS: [&str; 2] = ["audio", "reasoning"];

/// `usage_metadata` as `AIMessage`'s validation leaves it (`_ai_fields.usage` makes the
/// same for the declared keys): the counts, then each details dict (`details_dict`); `None`
/// for a value that is not an integer.
pub(super) fn usage<'py>(py: Python<'py>, usage: &Usage) -> PyResult<Option<Bound<'py, PyDict>>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "input_tokens"), usage.input_tokens)?;
    dict.set_item(intern!(py, "output_tokens"), usage.output_tokens)?;
    dict.set_item(intern!(py, "total_tokens"), usage.total_tokens)?;
    let details = [
        (
            intern!(py, "input_token_details"),
            &usage.input_token_details,
            &INPUT_DETAILS[..],
        ),
        (
            intern!(py, "output_token_details"),
            &usage.output_token_details,
            &OUTPUT_DETAILS[..],
        ),
    ];
    for (key, details, order) in details {
        let Some(details) = details else { continue };
        match details_dict(py, details, order)? {
            Some(d) => dict.set_item(key, d)?,
            None => return Ok(None),
        }
    }
    Ok(Some(dict))
}

/// A details dict as pydantic validates a `TypedDict`: its declared keys in its order, then
/// any other in the order given (Anthropic's `ephemeral_5m_input_tokens` and
/// `ephemeral_1h_input_tokens`), kept. Integers only (JSON's: a float or a bool is not
/// `int`); `None` for another value, which LangChain's constructor then checks. Read from
/// the map's text (no `Map` parsed); `None` too for a map with a shape of nulls (none is
/// made with one).
fn details_dict<'py>(
    py: Python<'py>,
    details: &CompactMap,
    order: &[&str],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    if details.has_null_shape() {
        return Ok(None);
    }
    let entries: Vec<_> = details.raw_entries().collect();
    let known = order
        .iter()
        .filter_map(|&k| entries.iter().find(|(key, _)| key == k));
    let others = entries.iter().filter(|(k, _)| !order.contains(&&**k));
    let dict = PyDict::new(py);
    for (key, raw) in known.chain(others) {
        let key = interned(py, key);
        match compact_dict::integer(raw) {
            Some(Integer::Unsigned(n)) => dict.set_item(key, n)?,
            Some(Integer::Signed(n)) => dict.set_item(key, n)?,
            None => return Ok(None),
        }
    }
    Ok(Some(dict))
}

/// A dict field (`additional_kwargs`, `response_metadata`) as its validated copy: new, and
/// whether the message's dict has it (the core leaves an empty one out).
pub(super) fn map<'py>(
    py: Python<'py>,
    map: &Map<String, Value>,
) -> PyResult<(Bound<'py, PyAny>, bool)> {
    if map.is_empty() {
        return Ok((PyDict::new(py).into_any(), false));
    }
    Ok((object(py, map)?.into_any(), true))
}

/// A JSON object as `value::to_py` makes it (pythonize through `interned_keys`), made
/// directly: the same dict, each key interned (where interning frees), each short text
/// value interned as a dict value is, a list's texts new, integers as `int` and other numbers
/// as `float`, in the map's order. Without the serializer in between, no key or text is made
/// twice (pythonize makes each as a new `str` that `InternedDict` then swaps for the
/// interned one).
fn object<'py>(py: Python<'py>, map: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in map {
        dict.set_item(dict_key(py, key), dict_value(py, value)?)?;
    }
    Ok(dict)
}

/// A JSON value as a dict holds it: a short text interned (`text_value`), the rest as `json`.
fn dict_value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    match value {
        Value::String(text) => Ok(text_value(py, text).into_any()),
        other => json(py, other),
    }
}

/// A JSON value as `object` makes it inside a list (or at the top): a text new.
pub(super) fn json<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        // serde_json's integers are a `u64` or a negative `i64`, the rest `f64`: pythonize
        // makes an `int` of the first two and a `float` of the last.
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_bound_py_any(py)?,
            (None, Some(i)) => i.into_bound_py_any(py)?,
            (None, None) => n.as_f64().into_bound_py_any(py)?,
        },
        Value::String(text) => PyString::new(py, text).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => object(py, map)?.into_any(),
    })
}

/// An AI message's `response_metadata`, always in its dict.
pub(super) fn compact_map<'py>(py: Python<'py>, map: &CompactMap) -> PyResult<Bound<'py, PyAny>> {
    // A history's AI message has none: made directly, not through a JSON map and the
    // serializer (~1,900 instructions an empty one).
    if map.is_empty() {
        return Ok(PyDict::new(py).into_any());
    }
    // Made from its text (~70,000 instructions a reply through the whole map and pythonize);
    // a shape it does not make goes that way.
    match compact_dict::dict(py, map)? {
        Some(dict) => Ok(dict.into_any()),
        None => to_py(py, map, false),
    }
}

/// A tool message's JSON artifact as its dict holds it (a text value as a dict value is).
pub(super) fn artifact<'py>(py: Python<'py>, artifact: &Value) -> PyResult<Bound<'py, PyAny>> {
    dict_value(py, artifact)
}
