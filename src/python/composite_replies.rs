//! How `CompositePlan` reads and builds the result objects of deepagents' protocol
//! (`deepagents_rs.backends.protocol`'s classes): replies in the shapes older backends give
//! (bare lists, a string for an error), paths moved back under a route, and deepagents'
//! Python folds (`a or b`, the truncation reason) kept exact on whatever objects a user's
//! backend returns.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PySlice, PyString};

use super::store_items::protocol_attr;
use crate::files::composite as rules;

pub(super) fn protocol<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    protocol_attr(py, name)
}

pub(super) fn make<'py>(
    py: Python<'py>,
    class: &str,
    fields: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    for (name, value) in fields {
        kwargs.set_item(name, value)?;
    }
    protocol(py, class)?.call((), Some(&kwargs))
}

/// `items or []` with each item copied and its path moved back under `prefix`
/// (`{**item, "path": prefix.rstrip("/") + item["path"]}`).
pub(super) fn prefixed<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    prefix: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut out = Vec::new();
    if !items.is_truthy()? {
        return Ok(out);
    }
    for item in items.try_iter()? {
        let item = item?;
        let copy = PyDict::new(py);
        copy.update(item.cast::<pyo3::types::PyMapping>()?)?;
        let path = item.get_item("path")?.str()?;
        copy.set_item("path", rules::outer_path(prefix, path.to_str()?))?;
        out.push(copy.into_any());
    }
    Ok(out)
}

/// `items or []` as a list of its items.
pub(super) fn items_of<'py>(items: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if !items.is_truthy()? {
        return Ok(Vec::new());
    }
    items.try_iter()?.collect()
}

/// `entries` sorted by `entry.get("path", "")`, stable.
pub(super) fn sorted_by_path<'py>(
    py: Python<'py>,
    entries: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut keyed = entries
        .into_iter()
        .map(|e| Ok((e.call_method1("get", ("path", ""))?.extract::<String>()?, e)))
        .collect::<PyResult<Vec<_>>>()?;
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    PyList::new(py, keyed.into_iter().map(|(_, e)| e))
}

/// `a or b`, Python's way.
pub(super) fn either<'py>(
    a: Bound<'py, PyAny>,
    b: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(if a.is_truthy()? { a } else { b })
}

/// deepagents' `_merge_truncation_reason`: `unreadable` wins, else the first given.
pub(super) fn worse_reason<'py>(
    py: Python<'py>,
    current: Bound<'py, PyAny>,
    incoming: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if current.eq("unreadable")? || incoming.eq("unreadable")? {
        return Ok(PyString::new(py, "unreadable").into_any());
    }
    either(current, incoming)
}

/// A grep reply as a `GrepResult` (older backends return a list, or a string on error),
/// trimmed to `max_count` and flagged truncated when anything was cut.
pub(super) fn capped_grep<'py>(
    py: Python<'py>,
    raw: Bound<'py, PyAny>,
    max_count: Option<isize>,
) -> PyResult<Bound<'py, PyAny>> {
    let class = protocol(py, "GrepResult")?;
    let result = if raw.is_instance(&class)? {
        raw
    } else if raw.is_instance_of::<PyString>() {
        make(py, "GrepResult", &[("error", raw)])?
    } else {
        make(py, "GrepResult", &[("matches", raw)])?
    };
    let Some(max) = max_count else {
        return Ok(result);
    };
    let matches = result.getattr("matches")?;
    // Python's comparison and slice: a negative cap drops matches from the end.
    if matches.is_none() || (matches.len()? as isize) <= max {
        return Ok(result);
    }
    let kept = matches.get_item(PySlice::new(py, 0, max, 1))?;
    let truncated = PyBool::new(py, true).to_owned().into_any();
    make(
        py,
        "GrepResult",
        &[
            ("error", result.getattr("error")?),
            ("matches", kept),
            ("truncated", truncated),
        ],
    )
}

/// A glob reply's matches, `truncated` and reason, a legacy list counting as untruncated.
pub(super) fn glob_parts<'py>(
    py: Python<'py>,
    reply: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    if reply.is_instance(&protocol(py, "GlobResult")?)? {
        return Ok((
            reply.getattr("matches")?,
            reply.getattr("truncated")?,
            reply.getattr("truncation_reason")?,
        ));
    }
    let untruncated = PyBool::new(py, false).to_owned().into_any();
    Ok((reply.clone(), untruncated, py.None().into_bound(py)))
}

/// Whether a glob reply is a `GlobResult` carrying an error.
pub(super) fn failed_glob(py: Python<'_>, reply: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(reply.is_instance(&protocol(py, "GlobResult")?)? && reply.getattr("error")?.is_truthy()?)
}

/// `is None or == "/"`: a grep or glob over the default backend and every route.
pub(super) fn at_root(path: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(path.is_none() || path.eq("/")?)
}
