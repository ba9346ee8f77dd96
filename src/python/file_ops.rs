//! The file rules of the built-in backends (`crate::files::text`, `crate::files::path`, the
//! file tools' formatting) for the Python modules a user calls directly:
//! `deepagents_rs.backends.utils` and the state and store backends. Python passes its dicts
//! in and gets deepagents' result shapes back; no rule is decided on the Python side.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

use super::value;
use crate::files::backend::{GrepMatch, GrepResult};
use crate::files::{file_data, media, path, permissions, text};
use crate::middleware::filesystem::{eviction, format};

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

/// A record's text, or the `TypeError` deepagents raises for content of another type.
fn content_of(fd: &Value) -> PyResult<String> {
    file_data::content(fd).map_err(PyTypeError::new_err)
}

/// A caller's record as the core reads it, its content checked on the Python object: the
/// core's view of a tuple or a str subclass would pass for a list or a str.
pub(crate) fn record_of(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let text = text_of(obj)?;
    let mut record = value::read(obj)?.0;
    if let Some(map) = record.as_object_mut() {
        map.insert("content".into(), Value::String(text));
    }
    Ok(record)
}

/// `file_data_to_string` on the caller's object.
fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let content = obj.get_item("content")?;
    Ok(if let Ok(s) = content.cast::<PyString>() {
        s.to_cow()?.into_owned()
    } else if let Ok(lines) = content.cast::<PyList>()
        && lines.iter().all(|l| l.is_instance_of::<PyString>())
    {
        let lines: Vec<String> = lines.extract()?;
        lines.join("\n")
    } else {
        let name = content.get_type().name()?.to_string();
        return Err(PyTypeError::new_err(file_data::not_text(&name)));
    })
}

/// `slice_read_response`: the `ReadResult` fields of the window (bounds already clamped).
/// Python's ints have no bound: one past 64 bits reads as the largest, and an offset past
/// the end still names the number given, as deepagents' message does.
#[pyfunction]
pub(crate) fn files_read_window<'py>(
    py: Python<'py>,
    record: &Bound<'py, PyAny>,
    offset: &Bound<'py, PyAny>,
    limit: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let fd = record_of(record)?;
    let (offset, shown_offset) = match offset.extract::<i64>() {
        Ok(offset) => (offset, None),
        Err(_) => (
            saturated(offset)?,
            Some(offset.str()?.to_cow()?.into_owned()),
        ),
    };
    let limit = limit.extract::<i64>().or_else(|_| saturated(limit))?;
    Ok(pythonize::pythonize(
        py,
        &text::slice_read_shown(&fd, offset, limit, shown_offset.as_deref()),
    )?)
}

/// An int too large for 64 bits as the nearest 64-bit bound (`TypeError` for a non-int).
fn saturated(number: &Bound<'_, PyAny>) -> PyResult<i64> {
    let index = number.call_method0("__index__")?;
    Ok(if index.lt(0)? { i64::MIN } else { i64::MAX })
}

/// `perform_string_replacement`: `(new content, occurrences)` or the error text.
#[pyfunction]
pub(crate) fn files_replace<'py>(
    py: Python<'py>,
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match text::replace(content, old, new, replace_all) {
        Ok((edited, occurrences)) => (edited, occurrences).into_pyobject(py)?.into_any(),
        Err(message) => PyString::new(py, &message).into_any(),
    })
}

/// deepagents' public `validate_path`; `ValueError` with its texts. The prefixes are named
/// as the caller gave them (a tuple stays a tuple).
#[pyfunction]
#[pyo3(signature = (raw, allowed_prefixes=None))]
pub(crate) fn files_validate_path(
    raw: &str,
    allowed_prefixes: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let prefixes: Option<Vec<String>> = allowed_prefixes
        .map(|p| p.try_iter()?.map(|i| i?.extract()).collect())
        .transpose()?;
    path::virtual_path(raw, prefixes.as_deref()).map_err(|e| match (e, allowed_prefixes) {
        (path::PathError::Prefix(_, raw), Some(given)) => {
            let shown = given
                .repr()
                .map_or_else(|_| String::new(), |r| r.to_string());
            PyValueError::new_err(format!("Path must start with one of {shown}: {raw}"))
        }
        (e, _) => PyValueError::new_err(e.to_string()),
    })
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
    let matches = match &found.matches {
        Some(m) => pythonize::pythonize(py, m)?,
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

/// `format_grep_matches`: the grep tool's text for `matches` in `mode`.
#[pyfunction]
pub(crate) fn files_format_grep(matches: &Bound<'_, PyAny>, mode: &str) -> PyResult<String> {
    let matches: Vec<GrepMatch> = value::view_from_py(matches)?;
    Ok(format::grep_matches(&matches, mode))
}

/// `format_content_with_line_numbers` over lines already split.
#[pyfunction]
pub(crate) fn files_numbered(lines: Vec<String>, start_line: i64) -> String {
    eviction::numbered(&lines, start_line)
}

/// `truncate_if_too_long` on a string.
#[pyfunction]
pub(crate) fn files_truncate_text(result: String) -> String {
    format::truncate_text(result)
}

/// `truncate_if_too_long` on a list of strings.
#[pyfunction]
pub(crate) fn files_truncate_list(result: Vec<String>) -> Vec<String> {
    format::truncate_list(result)
}

/// `sanitize_tool_call_id`.
#[pyfunction]
pub(crate) fn files_sanitize_call_id(tool_call_id: &str) -> String {
    eviction::sanitize(tool_call_id)
}

/// `_get_file_type`, or with `backend` `_get_backend_read_file_type` (`.mkv` is video).
#[pyfunction]
pub(crate) fn files_kind(file_path: &str, backend: bool) -> &'static str {
    if backend {
        media::backend_read_type(file_path)
    } else {
        media::file_type(file_path)
    }
}

/// `_glob_anchor`: a permission pattern's literal leading directories (`/` if none).
#[pyfunction]
pub(crate) fn files_glob_anchor(pattern: &str) -> String {
    permissions::glob_anchor(pattern)
}

/// `_paths_overlap`: whether either path's subtree holds the other, component-wise.
#[pyfunction]
pub(crate) fn files_paths_overlap(call_path: &str, rule_anchor: &str) -> bool {
    permissions::paths_overlap(call_path, rule_anchor)
}

/// `_find_delete_deny_patterns`: the deny-write patterns of `rules` (`(operations, paths,
/// mode)` tuples) that block deleting `target`.
#[pyfunction]
pub(crate) fn files_delete_deny_patterns(
    rules: Vec<(Vec<String>, Vec<String>, String)>,
    target: &str,
    has_descendants: bool,
) -> Vec<String> {
    super::backends::rules_from_py(rules).delete_deny_patterns(target, has_descendants)
}

/// `_create_content_preview`: the line-numbered preview of `content` with `head_lines` and
/// `tail_lines` around the omitted middle, and whether lines were omitted or clipped.
#[pyfunction]
pub(crate) fn files_content_preview(
    content: &str,
    head_lines: i64,
    tail_lines: i64,
) -> (String, bool, bool) {
    eviction::content_preview(content, head_lines, tail_lines)
}

/// `compile_grep_include_glob`'s predicate: a pattern without `/` matches a file's name at
/// any depth, one with `/` the root-relative path. `ValueError` with the refusal's text.
#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct IncludeMatcher {
    glob: text::IncludeGlob,
}

#[pymethods]
impl IncludeMatcher {
    #[new]
    fn new(pattern: &str) -> PyResult<Self> {
        text::IncludeGlob::new(pattern)
            .map(|glob| IncludeMatcher { glob })
            .map_err(|e| PyValueError::new_err(e.0))
    }

    fn __call__(&self, relative: &str) -> bool {
        self.glob.is_match(relative)
    }
}

/// The default description grep or execute takes in place of `description` for the
/// `visible` tools (and whether commands run); `None` when it keeps its own.
#[pyfunction]
pub(crate) fn files_retargeted_description(
    name: &str,
    description: &str,
    visible: Vec<String>,
    execution: bool,
) -> Option<&'static str> {
    let visible: Vec<&str> = visible.iter().map(String::as_str).collect();
    crate::middleware::filesystem::retargeted_description(name, description, &visible, execution)
}

/// `_looks_like_regex`: unmistakable regex syntax in a literal grep pattern.
#[pyfunction]
pub(crate) fn files_looks_like_regex(pattern: &str) -> bool {
    format::looks_like_regex(pattern)
}

/// `file_data_to_string`: a record's text (`TypeError` for other content).
#[pyfunction]
pub(crate) fn files_record_text(record: &Bound<'_, PyAny>) -> PyResult<String> {
    text_of(record)
}

/// `create_file_data`: a fresh record, modified now, created at `created_at` or now.
#[pyfunction]
#[pyo3(signature = (content, created_at, encoding))]
pub(crate) fn files_record_new<'py>(
    py: Python<'py>,
    content: String,
    created_at: Option<String>,
    encoding: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let record = file_data::create(content, created_at, encoding);
    Ok(pythonize::pythonize(py, &record)?)
}

/// `update_file_data` (`modified` true: modified now) or `_copy_file_data_with_content`
/// (timestamps kept): `record`'s encoding and stamps around new `content`.
#[pyfunction]
pub(crate) fn files_record_with<'py>(
    py: Python<'py>,
    record: &Bound<'py, PyAny>,
    content: String,
    modified: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let existing = value::read(record)?.0;
    let updated = if modified {
        file_data::update(&existing, content)
    } else {
        file_data::with_content(&existing, content)
    };
    Ok(pythonize::pythonize(py, &updated)?)
}

/// The paths among `keys` a search of `root` covers (that file itself, or everything below
/// the directory), each with its path relative to `root`.
#[pyfunction]
pub(crate) fn files_under_root(keys: Vec<String>, root: &str) -> Vec<(String, String)> {
    let keys: Map<String, Value> = keys.into_iter().map(|k| (k, Value::Null)).collect();
    text::files_under(&keys, root)
        .into_iter()
        .map(|(key, _)| (key.clone(), text::relative_to(key, root)))
        .collect()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FILE_TYPE_EXTENSIONS", media::FILE_TYPE_EXTENSIONS.to_vec())?;
    m.add_function(wrap_pyfunction!(files_read_window, m)?)?;
    m.add_function(wrap_pyfunction!(files_replace, m)?)?;
    m.add_function(wrap_pyfunction!(files_validate_path, m)?)?;
    m.add_function(wrap_pyfunction!(files_grep, m)?)?;
    m.add_function(wrap_pyfunction!(files_glob, m)?)?;
    m.add_function(wrap_pyfunction!(files_ls, m)?)?;
    m.add_function(wrap_pyfunction!(files_format_grep, m)?)?;
    m.add_function(wrap_pyfunction!(files_numbered, m)?)?;
    m.add_function(wrap_pyfunction!(files_truncate_text, m)?)?;
    m.add_function(wrap_pyfunction!(files_truncate_list, m)?)?;
    m.add_function(wrap_pyfunction!(files_sanitize_call_id, m)?)?;
    m.add_function(wrap_pyfunction!(files_kind, m)?)?;
    m.add_function(wrap_pyfunction!(files_glob_anchor, m)?)?;
    m.add_function(wrap_pyfunction!(files_paths_overlap, m)?)?;
    m.add_function(wrap_pyfunction!(files_delete_deny_patterns, m)?)?;
    m.add_function(wrap_pyfunction!(files_content_preview, m)?)?;
    m.add_class::<IncludeMatcher>()?;
    m.add_function(wrap_pyfunction!(files_under_root, m)?)?;
    m.add_function(wrap_pyfunction!(files_looks_like_regex, m)?)?;
    m.add_function(wrap_pyfunction!(files_retargeted_description, m)?)?;
    m.add_function(wrap_pyfunction!(files_record_text, m)?)?;
    m.add_function(wrap_pyfunction!(files_record_new, m)?)?;
    m.add_function(wrap_pyfunction!(files_record_with, m)?)?;
    Ok(())
}
