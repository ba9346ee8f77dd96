//! The searches of the built-in backends' `{path: FileData}` maps for Python (deepagents'
//! `grep_matches_from_files`, `_glob_search_files`, the state backend's `ls`): the map read
//! once in Rust, only the searched records where it can; results in deepagents' shapes.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use super::file_ops::{content_of, record_of, saturated, text_of};
use super::value;
use crate::files::backend::GrepResult;
use crate::files::text;

/// A `{path: FileData}` mapping as the searches read it: of each record only the fields
/// they look at (content, encoding, timestamps), taken straight off a dict of dicts; the
/// general reading of every value is far slower on a map of thousands of files.
fn file_map(files: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
    if let Ok(dict) = files.cast::<PyDict>() {
        let mut map = Map::with_capacity(dict.len());
        for (key, record) in dict.iter() {
            let (Ok(key), Ok(record)) = (key.extract::<String>(), record.cast::<PyDict>()) else {
                return whole_map(files);
            };
            map.insert(key, record_fields(record)?);
        }
        return Ok(map);
    }
    whole_map(files)
}

/// The fields of one record a search looks at.
fn record_fields(record: &Bound<'_, PyDict>) -> PyResult<Value> {
    let mut fields = Map::new();
    for name in ["content", "encoding", "created_at", "modified_at"] {
        if let Some(field) = record.get_item(name)? {
            let read = match field.cast::<PyString>() {
                Ok(text) => text.to_str().map(|t| Value::String(t.to_owned())),
                Err(_) => Err(PyTypeError::new_err("not text")),
            };
            fields.insert(
                name.into(),
                read.or_else(|_| Ok::<_, PyErr>(value::read(&field)?.0))?,
            );
        }
    }
    Ok(Value::Object(fields))
}

/// A searched record: its path and its dict.
type Record<'py> = (String, Bound<'py, PyDict>);

/// `files` as a dict: another mapping is read through its `items()`, as deepagents walks it
/// (an object without one raises deepagents' `AttributeError`).
fn as_dict<'py>(files: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    if let Ok(dict) = files.cast::<PyDict>() {
        return Ok(dict.clone());
    }
    let dict = PyDict::new(files.py());
    for item in files.call_method0("items")?.try_iter()? {
        let (key, record): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item?.extract()?;
        dict.set_item(key, record)?;
    }
    Ok(dict)
}

/// The records of a dict of dicts that `scope` searches, in the dict's order, found by their
/// keys alone so no other record is read (a map of thousands of files is mostly skipped);
/// `None` when a searched key or record is odd in a way Python must read (then read it
/// whole). Input deepagents fails on fails the same way here: a key that is not text is
/// asked `startswith` (an `int` has none), a searched record without `get` raises.
fn scoped_records<'py>(
    dict: &Bound<'py, PyDict>,
    scope: &text::SearchScope,
) -> PyResult<Option<Vec<Record<'py>>>> {
    let root_is_file = dict.contains(scope.dir())?;
    let prefix = scope.prefix();
    let mut found = Vec::new();
    for (key, record) in dict.iter() {
        let Ok(key) = key.cast::<PyString>() else {
            // A root that is itself a key is looked up, never compared with the others.
            if !root_is_file && key.call_method1("startswith", (&prefix,))?.is_truthy()? {
                return Ok(None);
            }
            continue;
        };
        let Ok(key) = key.to_str() else {
            return Ok(None);
        };
        if !scope.includes(key, root_is_file) {
            continue;
        }
        let record = match record.cast_into::<PyDict>() {
            Ok(record) => record,
            Err(other) => {
                other.into_inner().getattr("get")?;
                return Ok(None);
            }
        };
        found.push((key.to_owned(), record));
    }
    Ok(Some(found))
}

/// A text field of a record, borrowed when it is a plain `str` (`None` otherwise).
fn text_field<'a>(field: &'a Option<Bound<'_, PyAny>>) -> Option<&'a str> {
    field.as_ref()?.cast::<PyString>().ok()?.to_str().ok()
}

/// Any other mapping, read whole.
fn whole_map(files: &Bound<'_, PyAny>) -> PyResult<Map<String, Value>> {
    match value::read(files)?.0 {
        Value::Object(map) => Ok(map),
        _ => Err(PyTypeError::new_err(
            "files must be a mapping of paths to file data",
        )),
    }
}

/// `grep_matches_from_files`: `(error, matches, truncated)`.
#[pyfunction]
#[pyo3(signature = (files, pattern, search_path, glob, max_count))]
pub(crate) fn files_grep<'py>(
    py: Python<'py>,
    files: &Bound<'py, PyAny>,
    pattern: &str,
    search_path: Option<&str>,
    glob: Option<&str>,
    max_count: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let max_count = max_count
        .filter(|m| !m.is_none())
        .map(|m| m.extract::<i64>().or_else(|_| saturated(m)))
        .transpose()?;
    // A cap below one stops at the first match, as deepagents' `len(found) >= max_count`.
    let cap = max_count.map(|m| m.max(0) as usize);
    let files = as_dict(files)?;
    let found = match scoped_grep(&files, pattern, search_path, glob, cap)? {
        Some(found) => found,
        None => text::grep_files_checked(
            &file_map(files.as_any())?,
            pattern,
            search_path,
            glob,
            cap,
            true,
        )
        .map_err(PyTypeError::new_err)?,
    };
    let matches = match found.matches {
        // Built directly (interned keys, one path string a file): a search can find thousands.
        Some(m)
            if m.iter()
                .all(|m| m.context_before.is_none() && m.context_after.is_none()) =>
        {
            let rows = m.into_iter().map(|m| (m.path, m.line as i64, m.text));
            super::sandbox_calls::grep_matches(py, rows.collect())?
        }
        Some(m) => pythonize::pythonize(py, &m)?,
        None => py.None().into_bound(py),
    };
    (found.error, matches, found.truncated).into_pyobject(py)
}

/// `files_grep` reading only the searched records, each text borrowed from its `str`;
/// `None` for odd records (see `scoped_records`).
fn scoped_grep(
    dict: &Bound<'_, PyDict>,
    pattern: &str,
    search_path: Option<&str>,
    glob: Option<&str>,
    cap: Option<usize>,
) -> PyResult<Option<GrepResult>> {
    let scope = match text::SearchScope::new(search_path, glob.filter(|g| !g.is_empty())) {
        Ok(Some(scope)) => scope,
        Ok(None) => return Ok(Some(GrepResult::found(Vec::new(), false))),
        Err(e) => {
            return Ok(Some(GrepResult {
                error: Some(e.0),
                ..Default::default()
            }));
        }
    };
    let Some(records) = scoped_records(dict, &scope)? else {
        return Ok(None);
    };
    let mut matches = Vec::new();
    for (file_path, record) in records {
        if text_field(&record.get_item("encoding")?) == Some("base64") {
            continue;
        }
        let content = record.get_item("content")?;
        let truncated = match text_field(&content) {
            Some(content) => text::grep_content(&file_path, content, pattern, cap, &mut matches),
            // Lines, or content deepagents refuses, checked on the Python object: the core's
            // view of a tuple or of bytes would pass for lines or for text.
            None => {
                let content = text_of(record.as_any())?;
                text::grep_content(&file_path, &content, pattern, cap, &mut matches)
            }
        };
        if truncated {
            return Ok(Some(GrepResult::found(matches, true)));
        }
    }
    Ok(Some(GrepResult::found(matches, false)))
}

/// `_glob_search_files` with each match's listing entry: `(error, entries)`, the newest
/// first; without `entries`, only the matching paths.
#[pyfunction]
#[pyo3(signature = (files, pattern, search_path, entries=true))]
pub(crate) fn files_glob<'py>(
    py: Python<'py>,
    files: &Bound<'py, PyAny>,
    pattern: &str,
    search_path: Option<&str>,
    entries: bool,
) -> PyResult<(Option<String>, Bound<'py, PyAny>)> {
    let dict = as_dict(files)?;
    let scope = match text::SearchScope::new(search_path, Some(pattern)) {
        Ok(Some(scope)) => scope,
        Ok(None) => return Ok((None, PyList::empty(py).into_any())),
        Err(e) => return Ok((Some(e.0), PyList::empty(py).into_any())),
    };
    let Some(records) = scoped_records(&dict, &scope)? else {
        return glob_whole(py, dict.as_any(), pattern, search_path, entries);
    };
    let records = newest_first(py, records)?;
    let listed = PyList::empty(py);
    for (path, record) in &records {
        if entries {
            listed.append(glob_entry(py, path, record)?)?;
        } else {
            listed.append(path)?;
        }
    }
    Ok((None, listed.into_any()))
}

/// `files_glob` over a map with records Python must read, converted whole.
fn glob_whole<'py>(
    py: Python<'py>,
    files: &Bound<'py, PyAny>,
    pattern: &str,
    search_path: Option<&str>,
    entries: bool,
) -> PyResult<(Option<String>, Bound<'py, PyAny>)> {
    let files = file_map(files)?;
    let found = match text::glob_files(&files, pattern, search_path) {
        Ok(found) => found,
        Err(e) => return Ok((Some(e.0), PyList::empty(py).into_any())),
    };
    if !entries {
        let paths = found.into_iter().map(|entry| entry.path);
        return Ok((None, PyList::new(py, paths)?.into_any()));
    }
    // An empty record is listed blank; any other must hold text, as deepagents reads it.
    for entry in &found {
        if let Some(fd) = files
            .get(&entry.path)
            .filter(|fd| fd.as_object().is_some_and(|o| !o.is_empty()))
        {
            content_of(fd)?;
        }
    }
    Ok((None, pythonize::pythonize(py, &found)?))
}

/// A glob match's listing entry, as the state and store backends give it: an empty record
/// is listed blank; any other must hold text, and its `modified_at` is passed on as it is.
fn glob_entry<'py>(
    py: Python<'py>,
    path: &str,
    record: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyDict>> {
    let (size, modified_at) = if record.is_empty() {
        (0, PyString::new(py, "").into_any())
    } else {
        let modified_at = match record.get_item("modified_at")? {
            Some(stamp) => stamp,
            None => PyString::new(py, "").into_any(),
        };
        (text_of(record.as_any())?.len(), modified_at)
    };
    let entry = PyDict::new(py);
    entry.set_item("path", path)?;
    entry.set_item("is_dir", false)?;
    entry.set_item("size", size)?;
    entry.set_item("modified_at", modified_at)?;
    Ok(entry)
}

/// `records`, the most recently modified first (undated last, ties in the given order), as
/// deepagents sorts them; a stamp that is not text (`None`, say) is left to Python's own
/// sort, so what it cannot compare raises deepagents' `TypeError`.
fn newest_first<'py>(py: Python<'py>, records: Vec<Record<'py>>) -> PyResult<Vec<Record<'py>>> {
    let mut stamps = Vec::with_capacity(records.len());
    for (_, record) in &records {
        stamps.push(match record.get_item("modified_at")? {
            None => Some(String::new()),
            Some(stamp) => match stamp.cast::<PyString>() {
                Ok(text) => Some(text.to_cow()?.into_owned()),
                Err(_) => None,
            },
        });
    }
    let order: Vec<usize> = if let Some(stamps) = stamps.into_iter().collect::<Option<Vec<_>>>() {
        let mut order: Vec<usize> = (0..records.len()).collect();
        order.sort_by(|&a, &b| stamps[b].cmp(&stamps[a]));
        order
    } else {
        let keyed = PyList::empty(py);
        for (index, (_, record)) in records.iter().enumerate() {
            let stamp = record
                .get_item("modified_at")?
                .unwrap_or_else(|| PyString::new(py, "").into_any());
            keyed.append((index, stamp))?;
        }
        let kwargs = PyDict::new(py);
        kwargs.set_item(
            "key",
            py.import("operator")?.getattr("itemgetter")?.call1((1,))?,
        )?;
        kwargs.set_item("reverse", true)?;
        keyed.call_method("sort", (), Some(&kwargs))?;
        keyed
            .iter()
            .map(|pair| pair.get_item(0)?.extract())
            .collect::<PyResult<_>>()?
    };
    let mut slots: Vec<Option<Record<'py>>> = records.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| slots[i].take()).collect())
}

/// A directory listing over a store's `keys`: `load(key)` gives a direct child's record
/// (or `None` to leave it out); deeper keys show as subdirectories.
#[pyfunction]
pub(crate) fn files_ls<'py>(
    py: Python<'py>,
    keys: Vec<String>,
    directory: &str,
    load: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let entries = text::ls_entries(keys.iter().map(String::as_str), directory, |_, key| {
        let record = load.call1((key,))?;
        if record.is_none() {
            return Ok::<_, PyErr>(None);
        }
        Ok(Some(text::file_info(key, &record_of(&record)?)))
    })?;
    Ok(pythonize::pythonize(py, &entries)?)
}
