//! `FilesystemBackend`'s paths and listings (`crate::files::disk_paths`) for Python: the
//! backend passes its root and mode with each call, so a changed `cwd` or `virtual_mode`
//! attribute takes effect as it does in deepagents. Failures become the exceptions Python
//! raises for them, with Python's own texts.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::files::disk_file::{self, Failure, Found};
use crate::files::disk_paths::{self, DiskRoot, ListProblem, Refusal, Unresolved};
use crate::files::{disk, media, text::IncludeGlob};
use crate::middleware::filesystem::texts::EMPTY_CONTENT_WARNING;

fn root_of(cwd: PathBuf, virtual_mode: bool) -> DiskRoot {
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
    key: OsString,
) -> PyResult<OsString> {
    let backend = root_of(cwd, virtual_mode);
    let found = super::exit_gate::detach(py, || backend.resolve(&key));
    match found {
        Ok(path) => Ok(path.into_os_string()),
        Err(Refusal::Refused(text)) => Err(PyValueError::new_err(text)),
        Err(Refusal::Outside(target)) => {
            // Named as Python's f-string names them: non-UTF-8 bytes as surrogates.
            let text = PyString::new(py, "Path:{} outside root directory: {}")
                .call_method1("format", (target, &backend.cwd))?;
            Err(PyValueError::new_err(text.unbind()))
        }
        Err(Refusal::Unresolved(e)) => Err(unresolved_error(py, e)?),
    }
}

/// `_to_virtual_path`: `path` resolved (against the process's working directory when
/// relative), as a path under `cwd` (`/.` for the root itself). Outside the root, the
/// `ValueError` Python 3.11's `relative_to` raises; a symlink loop's `RuntimeError` or an
/// `OSError` when it cannot be resolved.
#[pyfunction]
pub(crate) fn disk_virtual_path(py: Python<'_>, cwd: PathBuf, path: PathBuf) -> PyResult<OsString> {
    let path = if path.is_absolute() {
        path
    } else {
        std::env::current_dir()?.join(path)
    };
    let resolved = super::exit_gate::detach(py, || disk_paths::resolve(&path));
    let resolved = resolved.map_err(|e| unresolved_error(py, e).unwrap_or_else(|err| err))?;
    let backend = root_of(cwd, true);
    if let Ok(Some(shown)) = backend.virtual_path(&resolved) {
        return Ok(shown);
    }
    Err(not_in_subpath(py, &resolved, &backend.cwd)?)
}

/// The `ValueError` Python 3.11's `path.relative_to(root)` raises when `path` is not under `root`.
fn not_in_subpath(py: Python<'_>, path: &Path, root: &Path) -> PyResult<PyErr> {
    let text = PyString::new(
        py,
        "{!r} is not in the subpath of {!r} OR one path is relative and the other is absolute.",
    )
    .call_method1(
        "format",
        (
            path.into_pyobject(py)?.str()?,
            root.into_pyobject(py)?.str()?,
        ),
    )?;
    Ok(PyValueError::new_err(text.unbind()))
}

/// `_real_path` of `resolved` (what `_resolve_path` gave): in virtual mode the path under
/// the root; otherwise where it leads once every symlink is followed (`os.path.realpath`,
/// against the process's working directory when relative), without its drive.
#[pyfunction]
pub(crate) fn disk_real_path(
    py: Python<'_>,
    cwd: PathBuf,
    virtual_mode: bool,
    resolved: PathBuf,
) -> PyResult<OsString> {
    let inner = if virtual_mode {
        match resolved.strip_prefix(&cwd) {
            Ok(inner) => inner.to_path_buf(),
            Err(_) => return Err(not_in_subpath(py, &resolved, &cwd)?),
        }
    } else {
        let absolute = if resolved.is_absolute() {
            resolved
        } else {
            std::env::current_dir()?.join(resolved)
        };
        let real = super::exit_gate::detach(py, || disk_paths::real_path(&absolute));
        let real = real.map_err(|e| unresolved_error(py, e).unwrap_or_else(|err| err))?;
        real.strip_prefix("/")
            .map_or(real.clone(), Path::to_path_buf)
    };
    Ok(disk_paths::rooted(&inner))
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
    let listing =
        super::exit_gate::detach(py, || disk_paths::list(&root_of(cwd, virtual_mode), &dir));
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
    let (mut shown, truncated) = super::exit_gate::detach(py, || {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs_f64(timeout.clamp(0.0, 1e9));
        let (paths, truncated) = disk::glob(&base, &pattern, Some(deadline));
        let backend = root_of(cwd, virtual_mode);
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

/// What the search without ripgrep found, by the path each result shows: `(hits, truncated,
/// unreadable, outside, unresolved)`. `hits` maps a shown path to its `(line, text)` pairs;
/// `unreadable` lists `- {shown}: {problem}` for files searched only in part; the found paths
/// virtual mode leaves out are returned for the backend to log: outside the root, or not
/// resolvable at all.
type GrepShown<'py> = (
    Bound<'py, PyDict>,
    bool,
    Vec<Bound<'py, PyAny>>,
    Vec<PathBuf>,
    Vec<PathBuf>,
);

/// `FilesystemBackend`'s grep without ripgrep: a literal search of the regular UTF-8 files
/// under `root` (`disk::grep`), each result under the path virtual mode shows for it.
#[pyfunction]
#[pyo3(signature = (cwd, virtual_mode, root, pattern, include_glob, max_size, max_count, timeout))]
#[allow(clippy::too_many_arguments)] // One call per search: the backend's state and the request.
pub(crate) fn disk_grep_shown<'py>(
    py: Python<'py>,
    cwd: PathBuf,
    virtual_mode: bool,
    root: PathBuf,
    pattern: &str,
    include_glob: Option<&str>,
    max_size: u64,
    max_count: Option<usize>,
    timeout: f64,
) -> PyResult<GrepShown<'py>> {
    let include = include_glob
        .filter(|g| !g.is_empty())
        .map(|g| IncludeGlob::new(g).map_err(|e| PyValueError::new_err(e.0)))
        .transpose()?;
    let backend = root_of(cwd, virtual_mode);
    let (found, truncated) = super::exit_gate::detach(py, || {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_secs_f64(timeout.clamp(0.0, 1e9));
        let outcome = disk::grep(
            &root,
            pattern,
            include.as_ref(),
            max_size,
            max_count,
            Some(deadline),
        );
        let found: Vec<_> = outcome
            .files
            .into_iter()
            .map(|file| (backend.shown(&file.path), file))
            .collect();
        (found, outcome.truncated)
    });
    let hits = PyDict::new(py);
    let (mut unreadable, mut outside, mut unresolved) = (Vec::new(), Vec::new(), Vec::new());
    for (shown, file) in found {
        let shown = match shown {
            Ok(Some(shown)) => shown.into_pyobject(py)?.str()?,
            Ok(None) => {
                outside.push(file.path);
                continue;
            }
            Err(_) => {
                unresolved.push(file.path);
                continue;
            }
        };
        if let Some(problem) = file.error {
            unreadable
                .push(PyString::new(py, "- {}: {}").call_method1("format", (&shown, problem))?);
        }
        if !file.lines.is_empty() {
            hits.set_item(shown, file.lines)?;
        }
    }
    Ok((hits, truncated, unreadable, outside, unresolved))
}

/// Where a file ripgrep reported shows in `FilesystemBackend.grep`: `(shown, skipped)`.
/// `reported` is read under `base` (rg names files relative to its working directory, or
/// as given), keeping the symlinked form the caller searched through. A file whose real
/// path is outside `real_base` (a link out of the searched tree) is skipped as `"search"`;
/// one virtual mode cannot show as `"root"` (outside the root) or `"unresolved"`.
#[pyfunction]
pub(crate) fn disk_rg_place(
    py: Python<'_>,
    cwd: PathBuf,
    virtual_mode: bool,
    base: PathBuf,
    real_base: PathBuf,
    reported: OsString,
) -> PyResult<(Option<OsString>, Option<&'static str>)> {
    use std::os::unix::ffi::OsStrExt;
    let found = disk_paths::pure_path(base.join(reported).as_os_str().as_bytes());
    let backend = root_of(cwd, virtual_mode);
    let placed = super::exit_gate::detach(py, || match disk_paths::resolve(&found) {
        Ok(real) if real.starts_with(&real_base) => Ok(match backend.shown(&found) {
            Ok(Some(shown)) => (Some(shown), None),
            Ok(None) => (None, Some("root")),
            Err(_) => (None, Some("unresolved")),
        }),
        Ok(_) | Err(Unresolved::Os(..)) => Ok((None, Some("search"))),
        // Python lets the loop's RuntimeError through this check.
        Err(loop_error) => Err(loop_error),
    });
    placed.map_err(|e| unresolved_error(py, e).unwrap_or_else(|err| err))
}

/// The exception Python raises for a failed read or write.
pub(super) fn failure_error(py: Python<'_>, e: Failure) -> PyErr {
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
    let found = super::exit_gate::detach(py, || disk_file::read(&path, kind, video_limit));
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
        super::exit_gate::detach(py, || disk_file::make_dirs(parent))
            .map_err(|e| failure_error(py, e))?;
    }
    let content = content.to_str()?;
    super::exit_gate::detach(py, || disk::write_text(&path, content, true))
        .map_err(|e| failure_error(py, Failure::Os(e, path.clone())))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(disk_read, m)?)?;
    m.add_function(wrap_pyfunction!(disk_write, m)?)?;
    m.add_function(wrap_pyfunction!(disk_resolve, m)?)?;
    m.add_function(wrap_pyfunction!(disk_real_path, m)?)?;
    m.add_function(wrap_pyfunction!(disk_ls, m)?)?;
    m.add_function(wrap_pyfunction!(disk_glob_entries, m)?)?;
    m.add_function(wrap_pyfunction!(disk_grep_shown, m)?)?;
    m.add_function(wrap_pyfunction!(disk_virtual_path, m)?)?;
    m.add_function(wrap_pyfunction!(disk_rg_place, m)?)?;
    Ok(())
}
