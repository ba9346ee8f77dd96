//! `BaseSandbox`'s methods (`crate::files::sandbox_ops`) for the Python class: each runs
//! its operation over the user's subclass (`super::sandbox_shell`) and builds the protocol's
//! result object from the outcome.

use std::future::Future;
use std::sync::Arc;

use pyo3::BoundObject;
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::sandbox_shell::{PyShell, SandboxTask, drive, log, text};
use crate::files::sandbox_ops::{self as ops, Failed};
use crate::files::sandbox_texts::SEARCH_TIMED_OUT;

/// An instance of the protocol's result class `name` built from `kwargs`.
fn result<'py>(
    py: Python<'py>,
    name: &str,
    kwargs: &[(&str, Bound<'py, PyAny>)],
) -> PyResult<Bound<'py, PyAny>> {
    let dict = PyDict::new(py);
    for (key, value) in kwargs {
        dict.set_item(super::store_items::interned(py, key), value)?;
    }
    super::store_items::protocol_attr(py, name)?.call((), Some(&dict))
}

fn value<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(pythonize::pythonize(py, v)?)
}

/// `(path, is_dir)` rows as dicts under `keys`.
fn dicts<'py, I, R>(
    py: Python<'py>,
    rows: I,
    keys: &[&Bound<'py, PyString>],
) -> PyResult<Bound<'py, PyAny>>
where
    I: IntoIterator<Item = R>,
    R: IntoPyObject<'py, Target = PyTuple>,
{
    let list = PyList::empty(py);
    for row in rows {
        let row = row
            .into_pyobject(py)
            .map_err(Into::<PyErr>::into)?
            .into_bound();
        let d = PyDict::new(py);
        for (key, item) in keys.iter().zip(row.iter()) {
            d.set_item(key, item)?;
        }
        list.append(d)?;
    }
    Ok(list.into_any())
}

/// grep's `(path, line, text)` rows as `GrepMatch` dicts. The rows of one file come
/// together, so each path becomes one Python string, shared by its rows.
pub(crate) fn grep_matches(
    py: Python<'_>,
    rows: Vec<(String, i64, String)>,
) -> PyResult<Bound<'_, PyAny>> {
    let list = PyList::empty(py);
    let mut last: Option<(String, Bound<'_, PyString>)> = None;
    for (path, line, text) in rows {
        let shown = match &last {
            Some((seen, shown)) if *seen == path => shown.clone(),
            _ => {
                let shown = PyString::new(py, &path);
                last = Some((path, shown.clone()));
                shown
            }
        };
        let d = PyDict::new(py);
        d.set_item(intern!(py, "path"), shown)?;
        d.set_item(intern!(py, "line"), line)?;
        d.set_item(intern!(py, "text"), PyString::new(py, &text))?;
        list.append(d)?;
    }
    Ok(list.into_any())
}

/// `WriteResult`, `EditResult` or `DeleteResult`: `path` (and an extra field) or `error`.
fn outcome<'py>(
    py: Python<'py>,
    class: &str,
    path: &str,
    out: Result<Option<(&str, Bound<'py, PyAny>)>, String>,
) -> PyResult<Bound<'py, PyAny>> {
    match out {
        Ok(None) => result(py, class, &[("path", text(py, path))]),
        Ok(Some(extra)) => result(py, class, &[("path", text(py, path)), extra]),
        Err(error) => result(py, class, &[("error", text(py, &error))]),
    }
}

/// `op` run over the user's `sandbox` (see `drive`).
fn run<'py, T, F, Fut, C>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    is_async: bool,
    op: F,
    convert: C,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    F: FnOnce(PyShell) -> Fut,
    Fut: Future<Output = Result<T, Failed<PyErr>>> + Send + 'static,
    C: for<'a> FnOnce(Python<'a>, T) -> PyResult<Bound<'a, PyAny>> + Send + 'static,
{
    let shell = PyShell::new(sandbox, is_async);
    let handoff = shell.handoff.clone();
    drive(py, handoff, op(shell), convert)
}

fn error_result<'py>(py: Python<'py>, class: &str, error: &str) -> PyResult<Bound<'py, PyAny>> {
    result(py, class, &[("error", text(py, error))])
}

#[pyfunction]
pub(crate) fn sandbox_ls<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
    is_async: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let op = move |s: PyShell| async move { ops::ls(&s, &path).await };
    run(py, sandbox, is_async, op, |py, out| {
        let entries = match out {
            Ok(entries) => entries,
            Err(error) => {
                let none = py.None().into_bound(py);
                return result(
                    py,
                    "LsResult",
                    &[("entries", none), ("error", text(py, &error))],
                );
            }
        };
        let list = PyList::empty(py);
        for (path, is_dir) in &entries {
            let d = PyDict::new(py);
            d.set_item("path", value(py, path)?)?;
            d.set_item("is_dir", value(py, is_dir)?)?;
            list.append(d)?;
        }
        result(py, "LsResult", &[("entries", list.into_any())])
    })
}

/// `read` of a window already clamped by `normalize_read_bounds`.
#[pyfunction]
pub(crate) fn sandbox_read<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
    offset: i64,
    limit: i64,
    is_async: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let op = move |s: PyShell| async move {
        let file_type = crate::files::media::backend_read_type(&path);
        let out = ops::read(&s, &path, file_type, offset, limit).await?;
        Ok::<_, Failed<PyErr>>((out, path))
    };
    run(py, sandbox, is_async, op, |py, (out, path)| {
        let fields = match out {
            Err(error) => return error_result(py, "ReadResult", &error),
            Ok(fields) => value(py, &serde_json::Value::Object(fields))?,
        };
        let class = super::store_items::protocol_attr(py, "ReadResult")?;
        match class.call((), Some(fields.cast::<PyDict>()?)) {
            // Valid JSON with paging keys that ReadResult refuses.
            Err(e)
                if e.is_instance_of::<PyKeyError>(py)
                    || e.is_instance_of::<PyTypeError>(py)
                    || e.is_instance_of::<PyValueError>(py) =>
            {
                let shown = e.value(py).str()?;
                let error = format!("File '{path}': unexpected server response: {shown}");
                error_result(py, "ReadResult", &error)
            }
            other => other,
        }
    })
}

/// `_write_preflight`: `None`, or the failed `WriteResult`.
#[pyfunction]
pub(crate) fn sandbox_preflight<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
    is_async: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let op = move |s: PyShell| async move { ops::preflight(&s, &path).await };
    run(py, sandbox, is_async, op, |py, out| match out {
        Ok(()) => Ok(py.None().into_bound(py)),
        Err(error) => error_result(py, "WriteResult", &error),
    })
}

/// `write`; with `preflight=False` only the upload, for a subclass that ran its own
/// `_write_preflight` first.
#[pyfunction]
#[pyo3(signature = (sandbox, path, content, is_async, preflight=true))]
pub(crate) fn sandbox_write<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
    content: Bound<'py, PyString>,
    is_async: bool,
    preflight: bool,
) -> PyResult<Bound<'py, PyAny>> {
    // The text's UTF-8 bytes, copied once, straight into the upload.
    let content = content.to_str()?.as_bytes().to_vec();
    let op = move |s: PyShell| async move {
        let out = if preflight {
            ops::write(&s, &path, content).await?
        } else {
            ops::upload_written(&s, &path, content).await?
        };
        Ok::<_, Failed<PyErr>>((out, path))
    };
    run(py, sandbox, is_async, op, |py, (out, path)| {
        outcome(py, "WriteResult", &path, out.map(|()| None))
    })
}

/// `edit`; `way="inline"` or `"upload"` is `_edit_inline` or `_edit_via_upload`.
#[pyfunction]
#[pyo3(signature = (sandbox, path, old, new, replace_all, is_async, way=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sandbox_edit<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
    old: String,
    new: String,
    replace_all: bool,
    is_async: bool,
    way: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let way = match way {
        None => ops::EditWay::Chosen,
        Some("inline") => ops::EditWay::Inline,
        Some("upload") => ops::EditWay::Upload,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "way must be 'inline', 'upload' or None, not {other:?}"
            )));
        }
    };
    let op = move |s: PyShell| async move {
        let out = ops::edit(&s, &path, (&old, &new), replace_all, way).await?;
        Ok::<_, Failed<PyErr>>((out, path))
    };
    run(py, sandbox, is_async, op, |py, (out, path)| {
        let out = match out {
            Ok(n) => Ok(Some(("occurrences", value(py, &n)?))),
            Err(e) => Err(e),
        };
        outcome(py, "EditResult", &path, out)
    })
}

/// `delete` (sync only: `adelete` is the protocol's thread offload, as in deepagents).
#[pyfunction]
pub(crate) fn sandbox_delete<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    path: String,
) -> PyResult<Bound<'py, PyAny>> {
    let op = move |s: PyShell| async move {
        let out = ops::delete(&s, &path).await?;
        Ok::<_, Failed<PyErr>>((out, path))
    };
    run(py, sandbox, false, op, |py, (out, path)| {
        outcome(py, "DeleteResult", &path, out.map(|()| None))
    })
}

/// The async searches' bound (`None`: unbounded), as `asyncio.wait_for` takes it.
fn bound(seconds: Option<&Bound<'_, PyAny>>) -> Option<Arc<Py<PyAny>>> {
    seconds
        .filter(|s| !s.is_none())
        .map(|s| Arc::new(s.clone().unbind()))
}

/// What `agrep`/`aglob` answer once their bound has passed: the warning logged (`logging`
/// formats `what`'s `%d`/`%r` with `seconds` and `args`), the error result returned.
fn timed_out<'py>(
    py: Python<'py>,
    tool: &str,
    seconds: Option<Py<PyAny>>,
    what: &str,
    args: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let seconds = seconds.map_or_else(|| py.None().into_bound(py), |s| s.into_bound(py));
    let mut log_args = vec![
        text(py, &format!("a{tool} timed out after %ds ({what})")),
        seconds.clone(),
    ];
    log_args.extend(args);
    log(py, "warning", PyTuple::new(py, log_args)?);
    // `format(seconds, "")`, as deepagents' f-string renders the bound (`5`, `0.25`).
    let shown = seconds.call_method1(intern!(py, "__format__"), ("",))?;
    let error = SEARCH_TIMED_OUT
        .replace("{tool}", tool)
        .replace("{seconds}", shown.cast::<PyString>()?.to_str()?);
    let class = if tool == "grep" {
        "GrepResult"
    } else {
        "GlobResult"
    };
    error_result(py, class, &error)
}

fn optional<'py>(py: Python<'py>, s: Option<&str>) -> Bound<'py, PyAny> {
    s.map_or_else(|| py.None().into_bound(py), |s| text(py, s))
}

#[pyfunction]
#[pyo3(signature = (sandbox, pattern, path, glob, max_count, is_async, seconds=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sandbox_grep<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    max_count: Option<i64>,
    is_async: bool,
    seconds: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let exclude_dirs: Vec<String> = sandbox.getattr("grep_exclude_dirs")?.extract()?;
    let within = bound(seconds.as_ref());
    let op = move |mut s: PyShell| {
        s.bound = within;
        async move {
            let q = ops::GrepQuery {
                pattern: &pattern,
                path: path.as_deref(),
                glob: glob.as_deref(),
                max_count,
                exclude_dirs: &exclude_dirs,
            };
            let parsed = ops::grep(&s, &q).await?;
            Ok::<_, Failed<PyErr>>((parsed, pattern, path, glob))
        }
    };
    let seconds = seconds.map(Bound::unbind);
    run(
        py,
        sandbox,
        is_async,
        op,
        move |py, (parsed, pattern, path, glob)| {
            let Some(parsed) = parsed else {
                let what = "pattern=%r, path=%r, glob=%r";
                let args = vec![
                    text(py, &pattern),
                    optional(py, path.as_deref()),
                    optional(py, glob.as_deref()),
                ];
                return timed_out(py, "grep", seconds, what, args);
            };
            if let Some(error) = parsed.error {
                return error_result(py, "GrepResult", &error);
            }
            let matches = grep_matches(py, parsed.matches.unwrap_or_default())?;
            let mut fields = vec![("matches", matches)];
            if parsed.truncated {
                fields.push(("truncated", flag(py, true)));
            }
            result(py, "GrepResult", &fields)
        },
    )
}

fn flag(py: Python<'_>, b: bool) -> Bound<'_, PyAny> {
    pyo3::types::PyBool::new(py, b).to_owned().into_any()
}

#[pyfunction]
#[pyo3(signature = (sandbox, pattern, path, is_async, seconds=None))]
pub(crate) fn sandbox_glob<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    pattern: String,
    path: Option<String>,
    is_async: bool,
    seconds: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let within = bound(seconds.as_ref());
    let op = move |mut s: PyShell| {
        s.bound = within;
        async move {
            let (root, parsed) = ops::glob(&s, &pattern, path.as_deref()).await?;
            Ok::<_, Failed<PyErr>>((root, parsed, pattern))
        }
    };
    let seconds = seconds.map(Bound::unbind);
    run(
        py,
        sandbox,
        is_async,
        op,
        move |py, (root, parsed, pattern)| {
            let Some(parsed) = parsed else {
                let args = vec![text(py, &pattern), text(py, &root)];
                return timed_out(py, "glob", seconds, "pattern=%r, path=%r", args);
            };
            for (level, line) in parsed.logs {
                log(py, level, ("%s", line));
            }
            if let Some(error) = parsed.error {
                let none = py.None().into_bound(py);
                return result(
                    py,
                    "GlobResult",
                    &[("matches", none), ("error", text(py, &error))],
                );
            }
            let matches = dicts(
                py,
                parsed.matches.unwrap_or_default(),
                &[intern!(py, "path"), intern!(py, "is_dir")],
            )?;
            let reason = optional(py, parsed.reason);
            let fields = [
                ("matches", matches),
                ("truncated", flag(py, parsed.truncated)),
                ("truncation_reason", reason),
            ];
            result(py, "GlobResult", &fields)
        },
    )
}

/// `execute_with_offload`; `timeout` is passed on only when `execute` takes one.
#[pyfunction]
#[pyo3(signature = (sandbox, command, capture_path, max_inline_bytes, max_capture_bytes, timeout, is_async))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sandbox_offload<'py>(
    py: Python<'py>,
    sandbox: &Bound<'py, PyAny>,
    command: String,
    capture_path: String,
    max_inline_bytes: i64,
    max_capture_bytes: Option<i64>,
    timeout: Option<Bound<'py, PyAny>>,
    is_async: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let mut passed = None;
    if let Some(timeout) = timeout.filter(|t| !t.is_none()) {
        let accepts = super::store_items::protocol_attr(py, "execute_accepts_timeout")?;
        if accepts.call1((sandbox.get_type(),))?.is_truthy()? {
            passed = Some(Arc::new(timeout.unbind()));
        }
    }
    let enabled = sandbox.getattr("enable_capture_offload")?.is_truthy()?;
    let op = move |mut s: PyShell| {
        s.timeout = passed;
        async move {
            let plan = ops::OffloadPlan {
                capture_path: &capture_path,
                inline_budget: max_inline_bytes,
                max_capture_bytes,
                enabled,
            };
            ops::offload(&s, &command, &plan).await
        }
    };
    run(py, sandbox, is_async, op, |py, out| match out {
        ops::Offloaded::Whole(raw) => {
            let fields = [
                ("offloaded", flag(py, false)),
                ("response", raw.into_bound(py)),
            ];
            result(py, "ExecuteOffloadResult", &fields)
        }
        ops::Offloaded::Read {
            captured,
            truncated,
        } => {
            let response = result(
                py,
                "ExecuteResponse",
                &[
                    ("output", text(py, &captured.output)),
                    (
                        "exit_code",
                        captured.exit_code.into_pyobject(py)?.into_any(),
                    ),
                    ("truncated", flag(py, truncated)),
                ],
            )?;
            let fields = [
                ("offloaded", flag(py, captured.offloaded)),
                ("response", response),
                (
                    "preview_has_truncation_marker",
                    flag(py, captured.preview_has_marker),
                ),
            ];
            result(py, "ExecuteOffloadResult", &fields)
        }
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SandboxTask>()?;
    m.add_function(wrap_pyfunction!(sandbox_ls, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_read, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_preflight, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_write, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_edit, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_delete, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_grep, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_glob, m)?)?;
    m.add_function(wrap_pyfunction!(sandbox_offload, m)?)?;
    Ok(())
}
