//! A tool run's id as LangChain makes it (`langchain_core.utils.uuid.uuid7()`): a
//! `uuid.UUID` of version 7 (the time in milliseconds, a counter keeping ids made in one
//! millisecond in order, random bits), made here in one call. LangChain's goes through three
//! Python functions and an enum look-up, some 40 bytecodes, at every plain tool call
//! (`_plain_tool_calls`), where only a tool reading its config's callback manager sees it.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::bare_objects::BareClass;

/// What a `uuid.UUID` is made of without its `__init__` (`bare_objects`: as `object.__new__`
/// and `object.__setattr__` make it, found once): the class, its bare instance, its two slots'
/// setters and `SafeUUID.unknown`, as `uuid_utils.compat` (LangChain's maker) sets them.
struct UuidParts {
    class: Py<PyAny>,
    /// Its slots `int`, `is_safe`.
    made: BareClass<2>,
    unknown: Py<PyAny>,
}

/// A new version-7 run id, as a `uuid.UUID`.
#[pyfunction]
pub(crate) fn _run_id(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    static PARTS: PyOnceLock<UuidParts> = PyOnceLock::new();
    let parts = PARTS.get_or_try_init(py, || -> PyResult<_> {
        let uuid = py.import("uuid")?;
        let class = uuid.getattr("UUID")?;
        Ok(UuidParts {
            made: BareClass::of(&class, ["int", "is_safe"])?,
            unknown: uuid.getattr("SafeUUID")?.getattr("unknown")?.unbind(),
            class: class.unbind(),
        })
    })?;
    let int = crate::run::now_v7().as_u128().into_pyobject(py)?;
    parts
        .made
        .make(parts.class.bind(py), [int.as_any(), parts.unknown.bind(py)])
}
