//! A tool run's id as LangChain makes it (`langchain_core.utils.uuid.uuid7()`): a
//! `uuid.UUID` of version 7 (the time in milliseconds, a counter keeping ids made in one
//! millisecond in order, random bits), made here in one call. LangChain's goes through three
//! Python functions and an enum look-up, some 40 bytecodes, at every plain tool call
//! (`_plain_tool_calls`), where only a tool reading its config's callback manager sees it.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

/// What a `uuid.UUID` is made of without its `__init__`: the bare instance maker
/// (`object.__new__` bound to the class), its slots' names and `SafeUUID.unknown`, as
/// `uuid_utils.compat` (LangChain's maker) sets them.
struct UuidParts {
    new: Py<PyAny>,
    int: Py<PyString>,
    is_safe: Py<PyString>,
    unknown: Py<PyAny>,
}

/// A new version-7 run id, as a `uuid.UUID`.
#[pyfunction]
pub(crate) fn _run_id(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    static PARTS: PyOnceLock<UuidParts> = PyOnceLock::new();
    let parts = PARTS.get_or_try_init(py, || -> PyResult<_> {
        let uuid = py.import("uuid")?;
        let class = uuid.getattr("UUID")?;
        let new = py
            .import("functools")?
            .getattr("partial")?
            .call1((class.getattr("__new__")?, class))?;
        Ok(UuidParts {
            new: new.unbind(),
            int: PyString::intern(py, "int").unbind(),
            is_safe: PyString::intern(py, "is_safe").unbind(),
            unknown: uuid.getattr("SafeUUID")?.getattr("unknown")?.unbind(),
        })
    })?;
    let id = parts.new.bind(py).call0()?;
    let int = uuid::Uuid::now_v7().as_u128().into_pyobject(py)?;
    for (name, value) in [
        (parts.int.bind(py).as_any(), int.as_any()),
        (parts.is_safe.bind(py).as_any(), parts.unknown.bind(py)),
    ] {
        // SAFETY: all three are live objects held for the call; `PyObject_GenericSetAttr` is
        // `object.__setattr__`, which `uuid.UUID`'s own `__setattr__` (it refuses) leaves
        // to its makers.
        if unsafe { pyo3::ffi::PyObject_GenericSetAttr(id.as_ptr(), name.as_ptr(), value.as_ptr()) }
            != 0
        {
            return Err(PyErr::fetch(py));
        }
    }
    Ok(id)
}
