//! The routing and merging rules of `CompositeBackend` (`crate::files::composite`), for the
//! Python class a user calls directly: it calls its backends (sync or async, the user's own
//! objects) and asks these functions where each path goes and how the replies combine.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::files::composite as rules;

/// The route owning `path` among `sorted_prefixes` (longest first): `(index, inner path)`,
/// or `None` for the default backend.
#[pyfunction]
pub(crate) fn composite_route(sorted_prefixes: Vec<String>, path: &str) -> Option<(usize, String)> {
    rules::route(&sorted_prefixes, path)
}

/// A root glob pattern adapted to the route at `prefix`, or `None` to skip the route.
#[pyfunction]
pub(crate) fn composite_glob_pattern(pattern: &str, prefix: &str) -> Option<String> {
    rules::route_glob_pattern(pattern, prefix)
}

/// Copies of `FileInfo`/`GrepMatch` dicts with their paths moved back under `prefix`.
#[pyfunction]
#[pyo3(signature = (items, prefix))]
pub(crate) fn composite_prefixed<'py>(
    py: Python<'py>,
    items: Option<&Bound<'py, PyAny>>,
    prefix: &str,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    let Some(items) = items.filter(|i| !i.is_none()) else {
        return Ok(out);
    };
    for item in items.try_iter()? {
        let item = item?;
        let copy = PyDict::new(py);
        copy.update(item.cast::<pyo3::types::PyMapping>()?)?;
        let path: String = item.get_item("path")?.extract()?;
        copy.set_item("path", rules::outer_path(prefix, &path))?;
        out.append(copy)?;
    }
    Ok(out)
}

fn path_key(entry: &Bound<'_, PyAny>) -> PyResult<String> {
    let got = entry.call_method1("get", ("path", ""))?;
    got.extract()
}

/// `entries` sorted by their `path` (stable; a missing path sorts as `""`).
#[pyfunction]
pub(crate) fn composite_sorted_by_path<'py>(
    py: Python<'py>,
    entries: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut keyed = entries
        .into_iter()
        .map(|e| Ok((path_key(&e)?, e)))
        .collect::<PyResult<Vec<_>>>()?;
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    PyList::new(py, keyed.into_iter().map(|(_, e)| e))
}

/// A root listing: the default backend's entries and a directory entry per route, sorted
/// by path.
#[pyfunction]
pub(crate) fn composite_root_listing<'py>(
    py: Python<'py>,
    entries: Option<Vec<Bound<'py, PyAny>>>,
    sorted_prefixes: Vec<String>,
) -> PyResult<Bound<'py, PyList>> {
    let mut all = entries.unwrap_or_default();
    for mount in rules::mount_points(&sorted_prefixes) {
        let d = PyDict::new(py);
        d.set_item("path", mount.path)?;
        d.set_item("is_dir", true)?;
        d.set_item("size", 0)?;
        d.set_item("modified_at", "")?;
        all.push(d.into_any());
    }
    composite_sorted_by_path(py, all)
}

/// Of two glob truncation causes, the one to report (`unreadable` wins).
#[pyfunction]
#[pyo3(signature = (first, second))]
pub(crate) fn composite_worse_reason(
    first: Option<String>,
    second: Option<String>,
) -> Option<String> {
    rules::worse_reason(first, second)
}

/// The matches a root grep may still take after `collected` (`None`: no cap; `0`: stop).
#[pyfunction]
#[pyo3(signature = (max_count, collected))]
pub(crate) fn composite_grep_budget(max_count: Option<i64>, collected: usize) -> Option<i64> {
    rules::grep_budget(max_count, collected)
}

/// deepagents' error result text for a route that cannot delete.
#[pyfunction]
pub(crate) fn composite_delete_unsupported(path: &str) -> String {
    rules::delete_unsupported(path)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("COMPOSITE_NO_EXECUTION_ERROR", rules::NO_EXECUTION_ERROR)?;
    m.add_function(wrap_pyfunction!(composite_route, m)?)?;
    m.add_function(wrap_pyfunction!(composite_glob_pattern, m)?)?;
    m.add_function(wrap_pyfunction!(composite_prefixed, m)?)?;
    m.add_function(wrap_pyfunction!(composite_sorted_by_path, m)?)?;
    m.add_function(wrap_pyfunction!(composite_root_listing, m)?)?;
    m.add_function(wrap_pyfunction!(composite_worse_reason, m)?)?;
    m.add_function(wrap_pyfunction!(composite_grep_budget, m)?)?;
    m.add_function(wrap_pyfunction!(composite_delete_unsupported, m)?)?;
    Ok(())
}
