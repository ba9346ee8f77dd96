//! The state's reducers run by Python (`deepagents_rs._reducers.Reducers`, LangGraph's own
//! channels): `state::FoldHost` for the core. A fold is one call of the object's `fold`
//! (`afold` under `ainvoke`), made off the tokio workers as every host callback is.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::convert::{extra_any_from_py, extra_to_py, opaque_to_py};
use super::host::call_adapter_then;
use crate::error::{Error, ModelError};
use crate::host::Opaque;
use crate::state::{Extra, FoldHost, KeyWrite, Reducers};
use crate::tools::HostContext;

struct PyReducers(Arc<Py<PyAny>>);

impl FoldHost for PyReducers {
    fn fold(
        &self,
        host: HostContext,
        old: Extra,
        writes: Vec<KeyWrite>,
    ) -> BoxFuture<'static, Result<Extra, Error>> {
        let adapter = self.0.clone();
        Box::pin(async move {
            call_adapter_then(
                adapter,
                host,
                "fold",
                move |py, _| {
                    let list = PyList::empty(py);
                    for (key, value, overwrite) in &writes {
                        list.append((key.as_str(), opaque_to_py(py, value)?, *overwrite))?;
                    }
                    Ok(vec![extra_to_py(py, &old)?.into_any(), list.into_any()])
                },
                extra_any_from_py,
            )
            .await
            .map_err(host_err)
        })
    }

    fn unchanged(
        &self,
        host: HostContext,
        pairs: Vec<(String, Opaque, Opaque)>,
    ) -> BoxFuture<'static, Result<Vec<String>, Error>> {
        let adapter = self.0.clone();
        Box::pin(async move {
            call_adapter_then(
                adapter,
                host,
                "unchanged",
                move |py, _| {
                    let list = PyList::empty(py);
                    for (key, before, after) in &pairs {
                        let values = (opaque_to_py(py, before)?, opaque_to_py(py, after)?);
                        list.append((key.as_str(), values.0, values.1))?;
                    }
                    Ok(vec![list.into_any()])
                },
                |out| out.extract::<Vec<String>>(),
            )
            .await
            .map_err(host_err)
        })
    }
}

/// The host's own exception reaches the caller, as LangGraph raises it.
fn host_err(e: PyErr) -> Error {
    Error::Model(ModelError::host(Box::new(e)))
}

/// The reducers of a graph from its Python object (`None`: no key has one).
pub(crate) fn reducers_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Option<Reducers>> {
    if obj.is_none() {
        return Ok(None);
    }
    let keys: Vec<String> = obj.getattr("keys")?.extract()?;
    if keys.is_empty() {
        return Ok(None);
    }
    Ok(Some(Reducers {
        keys: Arc::from(keys),
        host: Arc::new(PyReducers(Arc::new(obj.clone().unbind()))),
    }))
}
