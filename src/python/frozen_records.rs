//! LangGraph's frozen records a plain tool call's task is made of (its `ExecutionInfo`,
//! `Runtime` and `PregelScratchpad`), made from their fields' values in one call: the
//! record's bare instance (its class's `__new__`), then each slot set as `object.__setattr__`
//! sets it. `deepagents_rs._frozen_records` checks that a class can be made so (slots, no
//! `__post_init__`, defaults for the fields not given) and hands the names and defaults here;
//! made in Python, the same three records cost some 90 bytecodes a tool call on the thread
//! every run's tool calls share.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// Makes records of one class from the values of its `given` fields, in order; the others
/// take `defaults`, in the order of `names` after the given ones.
#[pyclass(frozen, module = "deepagents_rs._core", name = "SlotRecords")]
pub(crate) struct SlotRecords {
    /// The class's bare instance maker (`functools.partial(cls.__new__, cls)`).
    new: Py<PyAny>,
    /// Every field's name: the given ones, then the defaulted ones.
    names: Vec<Py<PyString>>,
    defaults: Vec<Py<PyAny>>,
}

#[pymethods]
impl SlotRecords {
    #[new]
    fn py_new(
        new: Py<PyAny>,
        names: Vec<Bound<'_, PyString>>,
        defaults: Vec<Py<PyAny>>,
    ) -> PyResult<Self> {
        if defaults.len() > names.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "more defaults than fields",
            ));
        }
        // Interned: each set looks its name up in the class's attributes.
        let names = names
            .into_iter()
            .map(|n| Ok(PyString::intern(n.py(), n.to_str()?).unbind()))
            .collect::<PyResult<_>>()?;
        Ok(SlotRecords {
            new,
            names,
            defaults,
        })
    }

    #[pyo3(signature = (*values))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let given = self.names.len() - self.defaults.len();
        if values.len() != given {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "expected {given} field values, got {}",
                values.len()
            )));
        }
        let record = self.new.bind(py).call0()?;
        let values = values
            .iter()
            .chain(self.defaults.iter().map(|d| d.bind(py).clone()));
        for (name, value) in self.names.iter().zip(values) {
            // SAFETY: all three are live objects held for the call; `PyObject_GenericSetAttr`
            // is `object.__setattr__`, which sets a slot through its descriptor whatever the
            // class's own `__setattr__` (a frozen dataclass's refuses).
            let set = unsafe {
                pyo3::ffi::PyObject_GenericSetAttr(record.as_ptr(), name.as_ptr(), value.as_ptr())
            };
            if set != 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(record)
    }
}
