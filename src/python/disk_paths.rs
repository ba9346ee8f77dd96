//! `FilesystemBackend`'s paths and listings (`crate::files::disk_paths`) for Python: the
//! backend passes its root and mode with each call, so a changed `cwd` or `virtual_mode`
//! attribute takes effect as it does in deepagents. Failures become the exceptions Python
//! raises for them, with Python's own texts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::files::disk_file::{self, Failure, Found};
use crate::files::disk_paths::{self, DiskRoot, ListProblem, Refusal, Unresolved};
use crate::files::{disk, media, text::IncludeGlob};
use crate::middleware::filesystem::texts::EMPTY_CONTENT_WARNING;

fn root(cwd: PathBuf, virtual_mode: bool) -> DiskRoot {
    DiskRoot { cwd, virtual_mode }
}

/// The exception Python raises for `e`: `RuntimeError("Symlink loop from '...'")` (the path's
/// repr, as `Path.resolve()` words it, with the loop's `OSError` as its context, which is how
/// a loop is told apart) or the `OSError` naming the path.
fn unresolved_error(py: Python<'_>, e: Unresolved) -> PyResult<PyErr> {
    Ok(match e {
        Unresolved::Loop(e, path) => {
            let context = os_error(py, e, &path)?;
            let shown = path.into_pyobject(py)?.str()?.repr()?;
            let err = PyRuntimeError::new_err(format!("Symlink loop from {shown}"));
            err.value(py).setattr("__context__", context.value(py))?;
            err
        }
        Unresolved::Os(e, path) => os_error(py, e, &path)?,
    })
}

/// `OSError(errno, strerror, path)`: Python picks the subclass from the errno.
fn os_error(py: Python<'_>, e: std::io::Error, path: &Path) -> PyResult<PyErr> {
    let Some(errno) = e.raw_os_error() else {
        return Ok(PyErr::from(e));
    };
    let detail = e.to_string();
    let strerror = detail
        .find(" (os error")
        .map_or(&detail[..], |i| &detail[..i]);
    let shown = path.into_pyobject(py)?.str()?;
    Ok(PyOSError::new_err((
        errno,
        strerror.to_owned(),
        shown.unbind(),
    )))
}

/// `_resolve_path`: where `key` leads (`ValueError` for a path virtual mode refuses, the
/// loop's `RuntimeError` or `OSError` otherwise).
#[pyfunction]
pub(crate) fn disk_resolve(
    py: Python<'_>,
    cwd: PathBuf,
    virtual_mode: bool,
    key: &str,
) -> PyResult<OsString> {
    let found = py.detach(|| root(cwd, virtual_mode).resolve(key));
    match found {
        Ok(path) => Ok(path.into_os_string()),
        Err(Refusal::Refused(text)) => Err(PyValueError::new_err(text)),
        Err(Refusal::Unresolved(e)) => Err(unresolved_error(py, e)?),
    }
}

/// A listing entry: `{"path", "is_dir"}`, with `size` and `modified_at` (local time, as
/// `datetime.fromtimestamp(...).isoformat()`) when they could be read.
fn entry<'py>(
    py: Python<'py>,
    stamp: &Bound<'py, PyAny>,
    path: OsString,
    is_dir: bool,
    measured: Option<(u64, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let entry = PyDict::new(py);
    entry.set_item("path", path)?;
    entry.set_item("is_dir", is_dir)?;
    if let Some((size, mtime)) = measured {
        entry.set_item("size", size)?;
        entry.set_item(
            "modified_at",
            stamp.call1((mtime,))?.call_method0("isoformat")?,
        )?;
    }
    Ok(entry)
}

fn timestamps(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("datetime")?
        .getattr("datetime")?
        .getattr("fromtimestamp")
}

type Listing<'py> = (Bound<'py, PyList>, Vec<String>, Vec<OsString>);

/// `ls` of the resolved directory `dir`: `(entries sorted by path, problems, paths left out
/// as outside the root)`; `OSError` when the directory cannot be read.
#[pyfunction]
pub(crate) fn disk_ls<'py>(
    py: Python<'py>,
    cwd: PathBuf,
    virtual_mode: bool,
    dir: PathBuf,
) -> PyResult<Listing<'py>> {
    let listing = py.detach(|| disk_paths::list(&root(cwd, virtual_mode), &dir));
    let listing = listing.map_err(|e| os_error(py, e, &dir).unwrap_or_else(|err| err))?;
    let stamp = timestamps(py)?;
    let entries = PyList::empty(py);
    for listed in listing.entries {
        entries.append(entry(
            py,
            &stamp,
            listed.path,
            listed.is_dir,
            listed.measured,
        )?)?;
    }
    let mut problems = Vec::with_capacity(listing.problems.len());
    for problem in listing.problems {
        let (doing, child, err) = match problem {
            ListProblem::Stat(child, e) => ("stat", child.clone(), os_error(py, e, &child)?),
            ListProblem::Resolve(child, e) => ("resolve", child, unresolved_error(py, e)?),
        };
        let child = child.into_pyobject(py)?.str()?;
        let err = err.value(py).str()?;
        problems.push(format!("child error: cannot {doing} '{child}': {err}"));
    }
    let outside = listing.outside.into_iter().map(PathBuf::into_os_string);
    Ok((entries, problems, outside.collect()))
}

/// `glob` under the resolved `base`: `(entries sorted by path, truncated)`. A match virtual
/// mode cannot show (outside the root, or unresolvable) is left out, as deepagents leaves it
/// out without a word. The walk stops after `timeout` seconds, flagged truncated.
#[pyfunction]
pub(crate) fn disk_glob_entries<'py>(
    py: Python<'py>,
    cwd: PathBuf,
    virtual_mode: bool,
    base: PathBuf,
    pattern: &str,
    timeout: f64,
) -> PyResult<(Bound<'py, PyList>, bool)> {
    let pattern = IncludeGlob::new(pattern).map_err(|e| PyValueError::new_err(e.0))?;
    let (mut shown, truncated) = py.detach(|| {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs_f64(timeout.clamp(0.0, 1e9));
        let (paths, truncated) = disk::glob(&base, &pattern, Some(deadline));
        let backend = root(cwd, virtual_mode);
        let shown: Vec<_> = paths
            .iter()
            .filter_map(|path| {
                let listed = backend.shown(path).ok()??;
                let measured = disk::stat_of(path).and_then(|s| Some((s.size, s.modified?)));
                Some((listed, measured))
            })
            .collect();
        (shown, truncated)
    });
    shown.sort_by(|a, b| a.0.cmp(&b.0));
    let stamp = timestamps(py)?;
    let entries = PyList::empty(py);
    for (listed, measured) in shown {
        entries.append(entry(py, &stamp, listed, false, measured)?)?;
    }
    Ok((entries, truncated))
}

/// The exception Python raises for a failed read or write.
fn failure_error(py: Python<'_>, e: Failure) -> PyErr {
    let made = match e {
        Failure::Os(e, path) => os_error(py, e, &path),
        Failure::Decode(bytes, e) => super::files::utf8_error(py, &bytes, e),
    };
    made.unwrap_or_else(|err| err)
}

/// `FilesystemBackend.read` of the resolved `path` before paging: the text to page, or the
/// `ReadResult` fields (not found, a binary file as base64, the empty-file reminder, a video
/// over `video_limit` bytes). `file_path` is the path as asked, which the file type and the
/// not-found text go by. `OSError` or `UnicodeDecodeError` as Python raises them.
#[pyfunction]
pub(crate) fn disk_read<'py>(
    py: Python<'py>,
    path: PathBuf,
    file_path: &str,
    video_limit: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let kind = media::backend_read_type(file_path);
    let found = py.detach(|| disk_file::read(&path, kind, video_limit));
    let (content, encoding) = match found.map_err(|e| failure_error(py, e))? {
        Found::Text(text) => return Ok(text.into_pyobject(py)?.into_any()),
        Found::Missing => return error_fields(py, disk_file::missing_text(file_path)),
        Found::VideoTooLarge => {
            return error_fields(py, disk_file::video_too_large_text(video_limit));
        }
        Found::Blank => (EMPTY_CONTENT_WARNING.to_owned(), "utf-8"),
        Found::Encoded(encoded) => (encoded, "base64"),
    };
    let file_data = PyDict::new(py);
    file_data.set_item("content", content)?;
    file_data.set_item("encoding", encoding)?;
    let fields = PyDict::new(py);
    fields.set_item("file_data", file_data)?;
    Ok(fields.into_any())
}

fn error_fields(py: Python<'_>, error: String) -> PyResult<Bound<'_, PyAny>> {
    let fields = PyDict::new(py);
    fields.set_item("error", error)?;
    Ok(fields.into_any())
}

/// `FilesystemBackend.write` to the resolved `path`: its parent directories made, then the
/// text written as UTF-8 with no newline translation, never through a final symlink.
/// `content` is encoded only once the directories exist, as Python's write encodes it.
#[pyfunction]
pub(crate) fn disk_write(
    py: Python<'_>,
    path: PathBuf,
    content: &Bound<'_, pyo3::types::PyString>,
) -> PyResult<()> {
    if let Some(parent) = path.parent() {
        py.detach(|| disk_file::make_dirs(parent))
            .map_err(|e| failure_error(py, e))?;
    }
    let content = content.to_str()?;
    py.detach(|| disk::write_text(&path, content, true))
        .map_err(|e| failure_error(py, Failure::Os(e, path.clone())))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(disk_read, m)?)?;
    m.add_function(wrap_pyfunction!(disk_write, m)?)?;
    m.add_function(wrap_pyfunction!(disk_resolve, m)?)?;
    m.add_function(wrap_pyfunction!(disk_ls, m)?)?;
    m.add_function(wrap_pyfunction!(disk_glob_entries, m)?)?;
    Ok(())
}
