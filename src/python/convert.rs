//! Core values to Python at the boundary.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::host::HostValue;
use crate::messages::Message;

/// The Python object a host value carries, if it is one.
pub(crate) fn host_object<'py>(py: Python<'py>, value: &HostValue) -> Option<Bound<'py, PyAny>> {
    value
        .downcast_ref::<Py<PyAny>>()
        .map(|o| o.bind(py).clone())
}

/// A message as a dict, with a tool's own artifact object put back in place.
pub(crate) fn message_to_py<'py>(
    py: Python<'py>,
    message: &Message,
) -> PyResult<Bound<'py, PyAny>> {
    let dict = pythonize::pythonize(py, message)?;
    if let Message::Tool(tool) = message
        && let Some(artifact) = tool.artifact_host.as_ref().and_then(|a| host_object(py, a))
    {
        dict.cast::<PyDict>()?.set_item("artifact", artifact)?;
    }
    Ok(dict)
}
