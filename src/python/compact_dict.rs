//! A `CompactMap`'s dict made from its text directly: each entry's key and value made as
//! Python objects as they are scanned, with no `serde_json::Value` tree and no serializer in
//! between (parsed into a `Map`, its nulls put back and handed to pythonize, a reply's
//! `response_metadata` cost about 70,000 instructions a reply on the calling thread).
//!
//! What it makes is what `value::to_py` makes of the map's `to_map()`: the same keys in the
//! same order (a shape's left-out nulls back where `NullFields::fields` puts them), keys
//! interned and short text values interned as `interned_keys` writes them, integers as
//! `int`, other numbers as serde reads them. A list, a number that is not a plain integer
//! or a text with escapes is read by serde (rare in metadata); a field the shape rewrites
//! (`NullFields::rewritten`) or a list of models makes `dict` give `None`, and the caller
//! takes the old path.
//!
//! Each dict is made through `dict_templates`: a reply's dicts have the same keys reply after
//! reply, so each is a copy of its shape's template with the values written in.

use std::borrow::Cow;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use serde_json::Value;

use super::dict_templates::{self, Entries};
use super::interned_keys::text_value;
use crate::compact_map::{CompactMap, Field, Nested, RawEntries};

/// The map's dict, or `None` for a shape this does not make (the caller makes it from the
/// whole map).
pub(super) fn dict<'py>(py: Python<'py>, map: &CompactMap) -> PyResult<Option<Bound<'py, PyDict>>> {
    match map.null_fields() {
        None => object(py, map.raw_entries()),
        Some(nulls) => {
            // The entries read once: checked for a rewritten field, then shaped.
            let given: Vec<_> = map.raw_entries().collect();
            if given
                .iter()
                .any(|(key, _)| nulls.rewritten.contains(&&**key))
            {
                return Ok(None);
            }
            shaped(py, given, nulls.fields)
        }
    }
}

/// An object's entries as a dict, in their order.
fn object<'py>(py: Python<'py>, entries: RawEntries<'_>) -> PyResult<Option<Bound<'py, PyDict>>> {
    let mut made = Entries::new();
    for (key, raw) in entries {
        let Some(value) = value(py, raw)? else {
            return Ok(None);
        };
        made.push((key, value));
    }
    dict_templates::dict(py, made).map(Some)
}

/// An object (its entries `given` in order) of a shape of nulls as `NullFields::fill`
/// leaves it: its declared fields in order (null when left out, a `Model` filled by its own
/// fields), then the others in their order.
fn shaped<'py>(
    py: Python<'py>,
    mut given: Vec<(Cow<'_, str>, &str)>,
    fields: &[Field],
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let mut made = Entries::with_capacity(fields.len() + given.len());
    for (name, nested) in fields {
        let value = match given.iter().position(|(key, _)| key == name) {
            None => py.None().into_bound(py),
            Some(at) => {
                let (_, raw) = given.remove(at);
                let made = match (raw.as_bytes().first(), nested) {
                    (Some(b'{'), Nested::Model(inner)) => {
                        shaped(py, RawEntries::of(raw).collect(), inner)?.map(Bound::into_any)
                    }
                    // Its items are filled too: made from the whole map.
                    (Some(b'['), Nested::Models(_)) => None,
                    _ => value(py, raw)?,
                };
                let Some(made) = made else {
                    return Ok(None);
                };
                made
            }
        };
        made.push((Cow::Borrowed(*name), value));
    }
    for (key, raw) in given {
        let Some(value) = value(py, raw)? else {
            return Ok(None);
        };
        made.push((key, value));
    }
    dict_templates::dict(py, made).map(Some)
}

/// A value's JSON text as a dict value (a text interned when short, as `InternedDict` puts
/// it in a dict); `None` for text serde does not read either.
fn value<'py>(py: Python<'py>, raw: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let made = match raw.as_bytes().first() {
        Some(b'"') => match raw.get(1..raw.len() - 1) {
            Some(inner) if !inner.contains('\\') => text_value(py, inner).into_any(),
            _ => match serde_json::from_str::<String>(raw) {
                Ok(text) => text_value(py, &text).into_any(),
                Err(_) => return Ok(None),
            },
        },
        Some(b'{') => match object(py, RawEntries::of(raw))? {
            Some(dict) => dict.into_any(),
            None => return Ok(None),
        },
        Some(b'n') if raw == "null" => py.None().into_bound(py),
        Some(b't') if raw == "true" => PyBool::new(py, true).to_owned().into_any(),
        Some(b'f') if raw == "false" => PyBool::new(py, false).to_owned().into_any(),
        _ => match integer(raw) {
            Some(Integer::Unsigned(n)) => n.into_bound_py_any(py)?,
            Some(Integer::Signed(n)) => n.into_bound_py_any(py)?,
            // A list, a float, an integer past 64 bits: as serde reads it.
            None => match serde_json::from_str::<Value>(raw) {
                Ok(v) => super::result_fields::json(py, &v)?,
                Err(_) => return Ok(None),
            },
        },
    };
    Ok(Some(made))
}

/// A JSON integer as serde reads it into a `Value`.
pub(super) enum Integer {
    Unsigned(u64),
    Signed(i64),
}

/// `raw` as the integer serde reads it as, if it does: digits that fit a `u64`, or `-` and
/// digits that fit an `i64` (but `-0`, which serde reads as the float `-0.0`).
pub(super) fn integer(raw: &str) -> Option<Integer> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match raw.strip_prefix('-') {
        None if digits(raw) => raw.parse().ok().map(Integer::Unsigned),
        Some(rest) if digits(rest) => raw
            .parse()
            .ok()
            .filter(|&n: &i64| n != 0)
            .map(Integer::Signed),
        _ => None,
    }
}
