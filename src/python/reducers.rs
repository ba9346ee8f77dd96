//! The state's reducers run by Python (`deepagents_rs._reducers.Reducers`, LangGraph's own
//! channels): `state::FoldHost` for the core. A fold is one call of the object's `fold`
//! (`afold` under `ainvoke`), made off the tokio workers as every host callback is.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use super::convert::{extra_any_from_py, extra_to_py, opaque_to_py};
use super::host::call_adapter_then;
use crate::error::{Error, ModelError};
use crate::host::Opaque;
use crate::state::{Extra, FoldHost, KeyWrite, Reducers};
use crate::tools::HostContext;

struct PyReducers(Arc<Py<PyAny>>);

impl PyReducers {
    /// The object's `method` (`a<method>` under `ainvoke`) called with `old` (when given)
    /// and a list of `(key, a, b)` triples made of `items`.
    fn call<T, I, O>(
        &self,
        host: HostContext,
        method: &'static str,
        old: Option<Extra>,
        items: Vec<I>,
        triple: for<'py> fn(Python<'py>, &I) -> PyResult<Bound<'py, PyTuple>>,
        out: O,
    ) -> BoxFuture<'static, Result<T, Error>>
    where
        T: Send + 'static,
        I: Send + 'static,
        O: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    {
        let adapter = self.0.clone();
        Box::pin(async move {
            call_adapter_then(
                adapter,
                host,
                method,
                move |py, _| {
                    let list = PyList::empty(py);
                    for item in &items {
                        list.append(triple(py, item)?)?;
                    }
                    let mut args = Vec::with_capacity(2);
                    if let Some(old) = &old {
                        args.push(extra_to_py(py, old)?.into_any());
                    }
                    args.push(list.into_any());
                    Ok(args)
                },
                out,
            )
            .await
            .map_err(host_err)
        })
    }
}

fn write_triple<'py>(
    py: Python<'py>,
    (key, value, overwrite): &KeyWrite,
) -> PyResult<Bound<'py, PyTuple>> {
    (key.as_str(), opaque_to_py(py, value)?, *overwrite).into_pyobject(py)
}

fn pair_triple<'py>(
    py: Python<'py>,
    (key, before, after): &(String, Opaque, Opaque),
) -> PyResult<Bound<'py, PyTuple>> {
    let values = (opaque_to_py(py, before)?, opaque_to_py(py, after)?);
    (key.as_str(), values.0, values.1).into_pyobject(py)
}

impl FoldHost for PyReducers {
    fn fold(
        &self,
        host: HostContext,
        old: Extra,
        writes: Vec<KeyWrite>,
    ) -> BoxFuture<'static, Result<Extra, Error>> {
        self.call(
            host,
            "fold",
            Some(old),
            writes,
            write_triple,
            extra_any_from_py,
        )
    }

    fn unchanged(
        &self,
        host: HostContext,
        pairs: Vec<(String, Opaque, Opaque)>,
    ) -> BoxFuture<'static, Result<Vec<String>, Error>> {
        let out = |out: &Bound<'_, PyAny>| out.extract::<Vec<String>>();
        self.call(host, "unchanged", None, pairs, pair_triple, out)
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
