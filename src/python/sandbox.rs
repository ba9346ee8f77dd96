//! `BaseSandbox`'s command protocol (`crate::files::sandbox`) for the Python class: the
//! scripts it sends through the user's `execute()`, and its readings of their replies.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::files::sandbox as protocol;
use crate::files::sandbox_capture as capture;
use crate::files::sandbox_search as search;
use crate::files::{sandbox_scripts as scripts, sandbox_texts as texts};

type Dict<'py> = Bound<'py, PyDict>;

#[pyfunction]
pub(crate) fn sandbox_ls_cmd(path: &str) -> String {
    protocol::ls_cmd(path)
}

/// `(entries, error)`: the `FileInfo` dicts of a listing, or its error message.
#[pyfunction]
pub(crate) fn sandbox_parse_ls<'py>(
    py: Python<'py>,
    output: &str,
    path: &str,
) -> PyResult<(Option<Vec<Dict<'py>>>, Option<String>)> {
    match protocol::parse_ls(output, path).map_err(|r| super::errors::builtin(&r))? {
        Err(e) => Ok((None, Some(e))),
        Ok(entries) => {
            let dicts = entries
                .into_iter()
                .map(|(p, is_dir)| {
                    let d = PyDict::new(py);
                    d.set_item("path", pythonize::pythonize(py, &p)?)?;
                    d.set_item("is_dir", pythonize::pythonize(py, &is_dir)?)?;
                    Ok(d)
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok((Some(dicts), None))
        }
    }
}

#[pyfunction]
pub(crate) fn sandbox_read_cmd(path: &str, file_type: &str, offset: i64, limit: i64) -> String {
    protocol::read_cmd(path, file_type, offset, limit)
}

/// `(fields, error)`: the `ReadResult` keyword arguments of a reply, or its error message.
#[pyfunction]
pub(crate) fn sandbox_parse_read<'py>(
    py: Python<'py>,
    output: &str,
    path: &str,
) -> PyResult<(Option<Bound<'py, PyAny>>, Option<String>)> {
    match protocol::parse_read(output, path) {
        Ok(fields) => Ok((Some(pythonize::pythonize(py, &fields)?), None)),
        Err(e) => Ok((None, Some(e))),
    }
}

#[pyfunction]
pub(crate) fn sandbox_write_preflight_cmd(path: &str) -> String {
    protocol::write_preflight_cmd(path)
}

/// The preflight's error message, or `None` when the parent folders are in place.
#[pyfunction]
#[pyo3(signature = (output, exit_code, path))]
pub(crate) fn sandbox_preflight_error(
    output: &str,
    exit_code: Option<i64>,
    path: &str,
) -> Option<String> {
    protocol::preflight_error(output, exit_code, path)
}

#[pyfunction]
pub(crate) fn sandbox_edit_inline_cmd(
    path: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> String {
    protocol::edit_inline_cmd(path, old, new, replace_all)
}

#[pyfunction]
pub(crate) fn sandbox_edit_tmpfile_cmd(
    path: &str,
    old_tmp: &str,
    new_tmp: &str,
    replace_all: bool,
) -> String {
    protocol::edit_tmpfile_cmd(path, old_tmp, new_tmp, replace_all)
}

/// An edit script's reply: `(was_json, occurrences, error)`.
#[pyfunction]
pub(crate) fn sandbox_edit_result<'py>(
    py: Python<'py>,
    output: &str,
    path: &str,
    old: &str,
) -> PyResult<(bool, Option<Bound<'py, PyAny>>, Option<String>)> {
    let output = crate::middleware::py_text::py_rstrip(output);
    let reply = protocol::edit_reply(output);
    let was_json = reply.is_some();
    Ok(
        match protocol::edit_outcome(reply.as_ref(), output, path, old) {
            Ok(n) => (was_json, Some(pythonize::pythonize(py, &n)?), None),
            Err(e) => (was_json, None, Some(e)),
        },
    )
}

/// The message for an error code of the edit scripts.
#[pyfunction]
pub(crate) fn sandbox_edit_error(
    py: Python<'_>,
    error: &Bound<'_, PyAny>,
    path: &str,
    old: &str,
) -> PyResult<String> {
    let _ = py;
    let (error, _) = super::value::read(error)?;
    Ok(protocol::edit_error(&error, path, old))
}

/// The shell command for `BaseSandbox.grep`.
#[pyfunction]
#[pyo3(signature = (pattern, path, glob, max_count, exclude_dirs))]
pub(crate) fn sandbox_grep_cmd(
    pattern: &str,
    path: Option<&str>,
    glob: Option<&str>,
    max_count: Option<i64>,
    exclude_dirs: Vec<String>,
) -> String {
    search::grep_cmd(pattern, path, glob, max_count, &exclude_dirs)
}

/// `exclude_dirs` without the search root's own name.
#[pyfunction]
#[pyo3(signature = (path, exclude_dirs))]
pub(crate) fn sandbox_grep_excluded_dirs(
    path: Option<&str>,
    exclude_dirs: Vec<String>,
) -> Vec<String> {
    search::excluded_dirs(path, &exclude_dirs)
}

type GrepFields<'py> = (Option<Vec<Bound<'py, PyDict>>>, Option<String>, bool);

/// `(matches, error, truncated)` of a grep's output.
#[pyfunction]
#[pyo3(signature = (output, exit_code, path, max_count))]
pub(crate) fn sandbox_parse_grep<'py>(
    py: Python<'py>,
    output: &str,
    exit_code: Option<i64>,
    path: Option<&str>,
    max_count: Option<i64>,
) -> PyResult<GrepFields<'py>> {
    let parsed = search::parse_grep(output, exit_code, path, max_count);
    let matches = parsed
        .matches
        .map(|ms| {
            ms.into_iter()
                .map(|(path, line, text)| {
                    let d = PyDict::new(py);
                    d.set_item("path", path)?;
                    d.set_item("line", line)?;
                    d.set_item("text", text)?;
                    Ok(d)
                })
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    Ok((matches, parsed.error, parsed.truncated))
}

#[pyfunction]
pub(crate) fn sandbox_glob_cmd(pattern: &str, search_path: &str) -> String {
    search::glob_cmd(pattern, search_path)
}

#[pyfunction]
#[pyo3(signature = (path))]
pub(crate) fn sandbox_glob_search_root(path: Option<&str>) -> String {
    search::glob_search_root(path)
}

#[pyfunction]
pub(crate) fn sandbox_absolutize_glob_path(search_path: &str, rel_path: &str) -> String {
    search::absolutize_glob_path(search_path, rel_path)
}

type GlobFields<'py> = (
    Option<Vec<Bound<'py, PyDict>>>,
    Option<String>,
    bool,
    Option<&'static str>,
    Vec<(&'static str, String)>,
);

/// `(matches, error, truncated, truncation_reason, log lines)` of the walking glob's output.
#[pyfunction]
#[pyo3(signature = (output, exit_code, truncated, search_path))]
pub(crate) fn sandbox_parse_glob<'py>(
    py: Python<'py>,
    output: &str,
    exit_code: Option<i64>,
    truncated: bool,
    search_path: &str,
) -> PyResult<GlobFields<'py>> {
    let parsed = search::parse_glob(output, exit_code, truncated, search_path);
    let matches = parsed
        .matches
        .map(|ms| {
            ms.into_iter()
                .map(|(path, is_dir)| {
                    let d = PyDict::new(py);
                    d.set_item("path", path)?;
                    d.set_item("is_dir", is_dir)?;
                    Ok(d)
                })
                .collect::<PyResult<Vec<_>>>()
        })
        .transpose()?;
    Ok((
        matches,
        parsed.error,
        parsed.truncated,
        parsed.reason,
        parsed.logs,
    ))
}

/// The capture wrapper around `command` for `execute_with_offload`.
#[pyfunction]
#[pyo3(signature = (command, capture_path, inline_budget, max_capture_bytes=None))]
pub(crate) fn sandbox_capture_cmd(
    command: &str,
    capture_path: &str,
    inline_budget: i64,
    max_capture_bytes: Option<i64>,
) -> String {
    capture::capture_cmd(command, capture_path, inline_budget, max_capture_bytes)
}

/// A read reply: `(output, exit_code, offloaded, capped, preview_has_truncation_marker)`.
type CaptureReply = (String, i64, bool, bool, bool);

/// The wrapper's reply: `(warning, parsed)`, `parsed` being `(output, exit_code, offloaded,
/// capped, preview_has_truncation_marker)`, or `None` when the reply is to be returned as
/// it is (the warning then says why).
#[pyfunction]
pub(crate) fn sandbox_parse_capture(output: &str) -> (Option<String>, Option<CaptureReply>) {
    match capture::parse_capture(output) {
        Err(warning) => (Some(warning), None),
        Ok((c, warning)) => (
            warning,
            Some((
                c.output,
                c.exit_code,
                c.offloaded,
                c.capped,
                c.preview_has_marker,
            )),
        ),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let capture_values = PyDict::new(m.py());
    capture_values.set_item("_EXECUTE_CAPTURE_SENTINEL", capture::SENTINEL)?;
    capture_values.set_item("_EXECUTE_CAPTURE_META_FIELDS", capture::META_FIELDS)?;
    capture_values.set_item("_EXECUTE_CAPTURE_HEAD_LINES", capture::HEAD_LINES)?;
    capture_values.set_item("_EXECUTE_CAPTURE_TAIL_LINES", capture::TAIL_LINES)?;
    capture_values.set_item("_EXECUTE_CAPTURE_HEAD_BYTES", capture::HEAD_BYTES)?;
    capture_values.set_item("_EXECUTE_CAPTURE_TAIL_BYTES", capture::TAIL_BYTES)?;
    capture_values.set_item("_EXECUTE_CAPTURE_MAX_BYTES", capture::MAX_BYTES)?;
    capture_values.set_item("_EXECUTE_CAPTURE_CLIP_NOTICE", capture::CLIP_NOTICE)?;
    capture_values.set_item(
        "_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED",
        capture::CLIP_NOTICE_CAPPED,
    )?;
    capture_values.set_item(
        "_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE",
        capture::EXCERPT_CLIP_NOTICE,
    )?;
    m.add("SANDBOX_CAPTURE", capture_values)?;
    m.add_function(wrap_pyfunction!(sandbox_capture_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_parse_capture, m)?)?;
    let templates = PyDict::new(m.py());
    templates.set_item("ls", scripts::LS_TEMPLATE)?;
    templates.set_item("read", texts::READ_TEMPLATE)?;
    templates.set_item("write_check", scripts::WRITE_CHECK_TEMPLATE)?;
    templates.set_item("edit", scripts::EDIT_TEMPLATE)?;
    templates.set_item("edit_tmpfile", scripts::EDIT_TMPFILE_TEMPLATE)?;
    templates.set_item("grep_path_glob", scripts::GREP_PATH_GLOB_TEMPLATE)?;
    templates.set_item("glob", scripts::GLOB_TEMPLATE)?;
    m.add("SANDBOX_TEMPLATES", templates)?;
    m.add_function(wrap_pyfunction!(sandbox_grep_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_grep_excluded_dirs, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_parse_grep, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_glob_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_glob_search_root, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_absolutize_glob_path, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_parse_glob, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_ls_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_parse_ls, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_read_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_parse_read, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_write_preflight_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_preflight_error, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_edit_inline_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_edit_tmpfile_cmd, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_edit_result, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_edit_error, m)?)?;
    Ok(())
}
