//! Calling a Python object's method without making a bound method first.
//!
//! pyo3's `call_method1` under the stable ABI for Python 3.11 looks the method up as an
//! attribute (a new bound-method object), packs the arguments in a tuple and calls that;
//! `PyObject_CallMethodObjArgs` (stable ABI) finds the function on the type and calls it
//! with the object prepended, as Python's own `obj.method(arg)` does. The sandbox's and the
//! store's primitives are called this way on every file operation.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// `obj.name(*args)`; up to three arguments without a bound method or tuple, more through
/// pyo3's call.
pub(crate) fn call_method<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
    args: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyAny>> {
    let end = std::ptr::null_mut::<pyo3::ffi::PyObject>();
    let (o, n) = (obj.as_ptr(), name.as_ptr());
    // SAFETY: every pointer is a live object held by `obj`, `name` and `args` for the whole
    // call, and the argument list ends with NULL as `PyObject_CallMethodObjArgs` requires.
    let out = unsafe {
        match args {
            [] => pyo3::ffi::PyObject_CallMethodObjArgs(o, n, end),
            [a] => pyo3::ffi::PyObject_CallMethodObjArgs(o, n, a.as_ptr(), end),
            [a, b] => pyo3::ffi::PyObject_CallMethodObjArgs(o, n, a.as_ptr(), b.as_ptr(), end),
            [a, b, c] => {
                let (a, b, c) = (a.as_ptr(), b.as_ptr(), c.as_ptr());
                pyo3::ffi::PyObject_CallMethodObjArgs(o, n, a, b, c, end)
            }
            _ => return obj.call_method1(name, PyTuple::new(obj.py(), args)?),
        }
    };
    // SAFETY: `out` is the call's new reference, or NULL with the exception set.
    unsafe { Bound::from_owned_ptr_or_err(obj.py(), out) }
}
