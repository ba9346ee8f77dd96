//! The file rules of the built-in backends (`crate::files::text`, `crate::files::path`, the
//! file tools' formatting) for the Python modules a user calls directly:
//! `deepagents_rs.backends.utils` and the state and store backends. Python passes its dicts
//! in and gets deepagents' result shapes back; no rule is decided on the Python side.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use serde_json::{Map, Value};

use super::{file_searches, value};
use crate::files::backend::GrepMatch;
use crate::files::{file_data, media, path, permissions, text};
use crate::middleware::filesystem::{eviction, format};

/// A record's text, or the `TypeError` deepagents raises for content of another type.
pub(super) fn content_of(fd: &Value) -> PyResult<String> {
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
pub(super) fn text_of(obj: &Bound<'_, PyAny>) -> PyResult<String> {
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
pub(super) fn saturated(number: &Bound<'_, PyAny>) -> PyResult<i64> {
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
    m.add_function(wrap_pyfunction!(file_searches::files_grep, m)?)?;
    m.add_function(wrap_pyfunction!(file_searches::files_glob, m)?)?;
    m.add_function(wrap_pyfunction!(file_searches::files_ls, m)?)?;
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
