//! Which tool calls take the plain path (`deepagents_rs._plain_tool_calls`): a call's
//! `PlainCall` (its run's base and the call's `full_config` arguments, nothing built yet),
//! made by the core where the tool job starts. Made through Python (`_stream`'s config entry,
//! then `plain_call`) it was two Python calls and some 75 bytecodes a tool call on the one
//! thread every run's Python calls share; here it is a dict look-up and three slot writes.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};

use super::bare_objects::BareClass;

/// `_task_config.RunConfig` and `_plain_tool_calls.PlainCall` with how a `PlainCall` is made
/// (`object.__new__` and its slots set, as its `__init__` sets them), found at the first call.
struct Classes {
    run_config: Py<PyAny>,
    plain_call: Py<PyAny>,
    /// Its slots `base`, `args`, `config`.
    made: BareClass<3>,
}

fn classes(py: Python<'_>) -> PyResult<&'static Classes> {
    static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();
    CLASSES.get_or_try_init(py, || {
        let run_config = py
            .import("deepagents_rs._task_config")?
            .getattr("RunConfig")?;
        let plain_call = py
            .import("deepagents_rs._plain_tool_calls")?
            .getattr("PlainCall")?;
        Ok(Classes {
            made: BareClass::of(&plain_call, ["base", "args", "config"])?,
            run_config: run_config.unbind(),
            plain_call: plain_call.unbind(),
        })
    })
}

/// A `PlainCall` for the tool call whose `_stream.full_config` arguments are `args`, when its
/// run's calls can take the plain path: not traced (no parent run), with its files, at a
/// step, its config the core's `RunConfig`, and a base for its namespace, subagent and mode
/// (`_plain_tool_calls.run_base`, made at the first such call of the run and kept in its
/// `tool_bases`; `None` there keeps the run's calls on the general path). Else `None`.
pub(crate) fn plain_call<'py>(args: &Bound<'py, PyTuple>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = args.py();
    let config = args.get_item(0)?;
    if !args.get_item(2)?.is_none() || args.get_item(3)?.is_none() || args.get_item(4)?.is_none() {
        return Ok(None);
    }
    let classes = classes(py)?;
    if !config.get_type().is(classes.run_config.bind(py)) {
        return Ok(None);
    }
    let bases = config.getattr(intern!(py, "tool_bases"))?;
    let bases = bases.cast::<PyDict>()?;
    let namespace = args.get_item(7)?;
    // The key's tuple made at once (a list is made only for `run_base`, once a run).
    let namespace = if namespace.is_none() {
        PyTuple::empty(py)
    } else {
        PyTuple::new(py, namespace.try_iter()?.collect::<PyResult<Vec<_>>>()?)?
    };
    let (subagent, asynchronous) = (args.get_item(8)?, args.get_item(9)?);
    let key = PyTuple::new(
        py,
        [
            namespace.clone().into_any(),
            subagent.clone(),
            asynchronous.clone(),
        ],
    )?;
    let base = match bases.get_item(&key)? {
        Some(base) => base,
        None => {
            // Looked up at each run's first call (not kept): the parity tests replace it to
            // keep every call on the general path.
            let made = py
                .import("deepagents_rs._plain_tool_calls")?
                .getattr(intern!(py, "run_base"))?
                .call1((&config, PyList::new(py, namespace)?, subagent, asynchronous))?;
            bases.set_item(key, &made)?;
            made
        }
    };
    if base.is_none() {
        return Ok(None);
    }
    let plain_call = classes.plain_call.bind(py);
    let call = classes.made.make(
        plain_call,
        [&base, args.as_any(), &py.None().into_bound(py)],
    )?;
    Ok(Some(call))
}

/// `plain_call` for Python: an async tool's config entry (`_stream.config_with_writer`, on
/// the run's event loop) takes the same path as a sync tool's job.
#[pyfunction]
pub(crate) fn _plain_call<'py>(args: &Bound<'py, PyTuple>) -> PyResult<Option<Bound<'py, PyAny>>> {
    plain_call(args)
}
