//! Python values into the core's JSON, with a bound on depth.
//!
//! Every Python value that crosses into Rust goes through `read`: a walk with a depth limit,
//! so no input can overflow the native stack, and that reports whether its reading was exact.
//! JSON cannot hold everything Python can (a `datetime`, `Decimal`, `set`, bytes, an int past
//! 64 bits, NaN, a str with lone surrogates, a str subclass, a non-str key, a nesting deeper
//! than the core reads): such a value gets a stand-in in the core's view and the caller keeps
//! the object itself to hand back (`crate::host::Origin`); `bytes` gets a stand-in readers
//! tell from text (`crate::stand_ins`), which `to_py` turns back into `bytes`. Where the
//! core must have JSON
//! (schemas, settings), `strict` raises the exception Python's `json` raises instead.

use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyRecursionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// How deep the core reads: serde_json's own parser stops at 128 levels, so a view is
/// always JSON the core could parse back, and every recursive walk over it (clone, drop,
/// serialize) stays far inside a worker thread's stack.
pub(crate) const MAX_DEPTH: usize = 128;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// A stand-in for what JSON cannot hold; the reading is marked inexact.
    View,
    /// An error for what JSON cannot hold.
    Strict,
}

/// A value as the core reads it, and whether that reading is the value exactly.
pub(crate) fn read(obj: &Bound<'_, PyAny>) -> PyResult<(Value, bool)> {
    let mut exact = true;
    let value = walk(obj, 0, Mode::View, &mut exact)?;
    Ok((value, exact))
}

/// A value that must be JSON: `TypeError` for another type, `ValueError` for NaN and the
/// infinities, `RecursionError` past the depth limit (Python's `json.dumps` raises the same).
pub(crate) fn strict(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let mut exact = true;
    walk(obj, 0, Mode::Strict, &mut exact)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |n| n.to_string())
}

fn walk(obj: &Bound<'_, PyAny>, depth: usize, mode: Mode, exact: &mut bool) -> PyResult<Value> {
    // Exact types first: a subclass (a StrEnum, an IntEnum, a defaultdict) is read as its
    // base but kept whole, since the base would not give it back.
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return Ok(Value::String(text(s, mode, exact)?));
    }
    if obj.is_exact_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.is_truthy()?));
    }
    if obj.is_exact_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        // Past 64 bits: JSON numbers here are 64-bit.
        return inexact(obj, mode, exact);
    }
    if obj.is_exact_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        return match Number::from_f64(f) {
            Some(n) => Ok(Value::Number(n)),
            None if mode == Mode::Strict => Err(PyValueError::new_err(
                "Out of range float values are not JSON compliant",
            )),
            None => {
                *exact = false;
                Ok(Value::Null)
            }
        };
    }
    if mode == Mode::View
        && let Ok(b) = obj.cast_exact::<PyBytes>()
    {
        // Readers tell bytes from text (`crate::stand_ins`); the object itself goes back.
        *exact = false;
        return Ok(Value::String(crate::stand_ins::stand_in(b.as_bytes())));
    }
    let container = obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>();
    if container && depth >= MAX_DEPTH {
        if mode == Mode::Strict {
            return Err(PyRecursionError::new_err(
                "maximum recursion depth exceeded while converting a value",
            ));
        }
        *exact = false;
        return Ok(Value::Null);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        if !obj.is_exact_instance_of::<PyDict>() {
            subclass(mode, exact);
        }
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = match k.cast_exact::<PyString>() {
                Ok(s) => text(s, mode, exact)?,
                Err(_) => {
                    // json.dumps writes int, float, bool and None keys as text; the view
                    // does too, but the dict is kept whole.
                    let scalar = k.is_none()
                        || k.is_instance_of::<PyInt>()
                        || k.is_instance_of::<PyFloat>()
                        || k.is_instance_of::<PyString>();
                    if scalar {
                        subclass(mode, exact);
                    } else {
                        not_json(&k, mode, exact)?;
                    }
                    key_text(&k)?
                }
            };
            map.insert(key, walk(&v, depth + 1, mode, exact)?);
        }
        return Ok(Value::Object(map));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        if !obj.is_exact_instance_of::<PyList>() {
            // A tuple reads as a list, as json.dumps writes it, but is kept whole.
            subclass(mode, exact);
        }
        let mut items = Vec::with_capacity(obj.len()?);
        for item in obj.try_iter()? {
            items.push(walk(&item?, depth + 1, mode, exact)?);
        }
        return Ok(Value::Array(items));
    }
    // Subclasses of str, int and float (a StrEnum or IntEnum member): read as their base,
    // as json.dumps writes them, and kept whole.
    if let Ok(s) = obj.cast::<PyString>() {
        subclass(mode, exact);
        return Ok(Value::String(text(s, mode, exact)?));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            subclass(mode, exact);
            return Ok(Value::from(i));
        }
    } else if obj.is_instance_of::<PyFloat>()
        && let Some(n) = Number::from_f64(obj.extract::<f64>()?)
    {
        subclass(mode, exact);
        return Ok(Value::Number(n));
    }
    inexact(obj, mode, exact)
}

/// A JSON-compatible value of a type JSON does not keep (a subclass, a tuple, a non-str
/// key): fine for `strict`, inexact for a view.
fn subclass(mode: Mode, exact: &mut bool) {
    if mode == Mode::View {
        *exact = false;
    }
}

/// A non-str key as json.dumps writes it (`True` as "true", `None` as "null").
fn key_text(k: &Bound<'_, PyAny>) -> PyResult<String> {
    if k.is_none() {
        return Ok("null".to_owned());
    }
    if let Ok(b) = k.cast::<PyBool>() {
        return Ok(if b.is_true() { "true" } else { "false" }.to_owned());
    }
    Ok(k.str()?.to_string_lossy().into_owned())
}

/// A str's text; lone surrogates, which Rust strings cannot hold, read as U+FFFD.
/// A text beginning as a bytes stand-in does is read with U+FFFD first, so it stays text.
fn text(s: &Bound<'_, PyString>, mode: Mode, exact: &mut bool) -> PyResult<String> {
    match s.to_str() {
        Ok(t) if mode == Mode::View && crate::stand_ins::looks_like_one(t) => {
            *exact = false;
            Ok(format!("\u{fffd}{}", &t[1..]))
        }
        Ok(t) => Ok(t.to_owned()),
        Err(_) => {
            if mode == Mode::View {
                *exact = false;
            }
            Ok(s.to_string_lossy().into_owned())
        }
    }
}

fn not_json(obj: &Bound<'_, PyAny>, mode: Mode, exact: &mut bool) -> PyResult<()> {
    if mode == Mode::Strict {
        return Err(PyTypeError::new_err(format!(
            "Object of type {} is not JSON serializable",
            type_name(obj)
        )));
    }
    *exact = false;
    Ok(())
}

/// A value JSON has no form for: its `str()` as the core's stand-in.
fn inexact(obj: &Bound<'_, PyAny>, mode: Mode, exact: &mut bool) -> PyResult<Value> {
    not_json(obj, mode, exact)?;
    let shown = match obj.str() {
        Ok(s) => s.to_string_lossy().into_owned(),
        Err(_) => format!("<{}>", type_name(obj)),
    };
    Ok(Value::String(shown))
}

/// A typed value read with `strict`: a shape error is a `ValueError` (pythonize would raise
/// a bare `Exception` for it).
pub(crate) fn from_py<T: serde::de::DeserializeOwned>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    serde_json::from_value(strict(obj)?).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A typed value read as a view (a stand-in where JSON has no form): for results whose
/// reading is all the core keeps (a backend's answer, turned into text for the model).
pub(crate) fn view_from_py<T: serde::de::DeserializeOwned>(obj: &Bound<'_, PyAny>) -> PyResult<T> {
    serde_json::from_value(read(obj)?.0).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A core value as Python: `pythonize` (dict keys interned, see `interned_keys`), with each
/// stand-in back as the value it stands for.
pub(crate) fn to_py<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
    has_bytes: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let obj = pythonize::pythonize_custom::<super::interned_keys::InternedKeys, _>(py, value)?;
    if has_bytes {
        restore_bytes(&obj)?;
    }
    Ok(obj)
}

/// The values back in place of every stand-in in the dicts and lists `pythonize` made.
fn restore_bytes(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let py = obj.py();
    let fixed = |v: &Bound<'_, PyAny>| -> PyResult<Option<Bound<'_, PyAny>>> {
        if let Ok(s) = v.cast_exact::<PyString>() {
            let Ok(text) = s.to_str() else {
                return Ok(None);
            };
            if let Some(raw) = crate::stand_ins::bytes_of(text) {
                return Ok(Some(PyBytes::new(py, &raw).into_bound_py_any(py)?));
            }
            if let Some(f) = crate::stand_ins::float_of(text) {
                return Ok(Some(PyFloat::new(py, f).into_bound_py_any(py)?));
            }
            return Ok(None);
        }
        restore_bytes(v)?;
        Ok(None)
    };
    if let Ok(d) = obj.cast_exact::<PyDict>() {
        // Set after the walk: a dict is not changed while it is iterated.
        let mut found = Vec::new();
        for (k, v) in d.iter() {
            if let Some(b) = fixed(&v)? {
                found.push((k, b));
            }
        }
        for (k, b) in found {
            d.set_item(k, b)?;
        }
    } else if let Ok(l) = obj.cast_exact::<PyList>() {
        for (i, v) in l.iter().enumerate() {
            if let Some(b) = fixed(&v)? {
                l.set_item(i, b)?;
            }
        }
    }
    Ok(())
}
