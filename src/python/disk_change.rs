//! `FilesystemBackend`'s edit, delete, upload and download of a resolved path
//! (`crate::files::disk_change`) for Python. Failures are raised as the exceptions Python's
//! own file calls raise (`OSError` naming the path, `UnicodeDecodeError`), so the backend
//! words its errors, and codes its transfers, exactly as deepagents does.

use std::path::{Path, PathBuf};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use super::disk_paths::failure_error;
use crate::files::disk_change::{self, Edited};
use crate::files::text;

/// `FilesystemBackend.edit` of the resolved `path`: `None` when there is no regular file
/// there, the refusal's text, or the number of occurrences replaced.
#[pyfunction]
pub(crate) fn disk_edit<'py>(
    py: Python<'py>,
    path: PathBuf,
    old: &Bound<'py, PyString>,
    new: &Bound<'py, PyString>,
    replace_all: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let (Ok(old), Ok(new)) = (old.to_str(), new.to_str()) else {
        return unencodable_edit(py, &path, old, new, replace_all);
    };
    let edited = super::exit_gate::detach(py, || disk_change::edit(&path, old, new, replace_all));
    Ok(match edited.map_err(|e| failure_error(py, e))? {
        Edited::Missing => None,
        Edited::Refused(text) => Some(PyString::new(py, &text).into_any()),
        Edited::Replaced(count) => Some(count.into_pyobject(py)?.into_any()),
    })
}

/// An edit whose `old` or `new` holds a lone surrogate (a Python string no UTF-8 file can
/// hold), taken step by step as Python's would: the file is read first; an `old` with one
/// is not in the text; a `new` with one empties the file, then fails to encode.
fn unencodable_edit<'py>(
    py: Python<'py>,
    path: &Path,
    old: &Bound<'py, PyString>,
    new: &Bound<'py, PyString>,
    replace_all: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let read = super::exit_gate::detach(py, || disk_change::read_for_edit(path));
    let Some(content) = read.map_err(|e| failure_error(py, e))? else {
        return Ok(None);
    };
    let unix = |s: &Bound<'py, PyString>| -> PyResult<Bound<'py, PyAny>> {
        s.call_method1("replace", ("\r\n", "\n"))?
            .call_method1("replace", ("\r", "\n"))
    };
    let (old, new) = (unix(old)?, unix(new)?);
    let Ok(old_text) = old.cast::<PyString>()?.to_str() else {
        let template = PyString::new(py, text::NOT_FOUND_TEMPLATE);
        return Ok(Some(template.call_method1("format", (old,))?));
    };
    if let Err(refused) = text::replace(&content, old_text, "", replace_all) {
        return Ok(Some(PyString::new(py, &refused).into_any()));
    }
    let edited = PyString::new(py, &content).call_method1("replace", (old, new))?;
    super::exit_gate::detach(py, || disk_change::truncate(path))
        .map_err(|e| failure_error(py, e))?;
    edited.call_method1("encode", ("utf-8",))?;
    Err(pyo3::exceptions::PyRuntimeError::new_err(
        "an edit with a lone surrogate encoded",
    ))
}

/// `FilesystemBackend.delete` of the resolved `path`: whether there was anything to delete.
#[pyfunction]
pub(crate) fn disk_delete(py: Python<'_>, path: PathBuf) -> PyResult<bool> {
    super::exit_gate::detach(py, || disk_change::delete(&path)).map_err(|e| failure_error(py, e))
}

/// One upload to the resolved `path`. `content` is any bytes-like object; anything else
/// raises Python's `TypeError`, once the file is made (as writing it in Python would).
#[pyfunction]
pub(crate) fn disk_upload(
    py: Python<'_>,
    path: PathBuf,
    content: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let mut file = super::exit_gate::detach(py, || disk_change::open_upload(&path))
        .map_err(|e| failure_error(py, e))?;
    let bytes: Vec<u8> = if let Ok(bytes) = content.cast::<PyBytes>() {
        bytes.as_bytes().to_vec()
    } else {
        let viewed = py
            .import("builtins")?
            .getattr("memoryview")?
            .call1((content,));
        let Ok(view) = viewed else {
            let kind = content.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "a bytes-like object is required, not '{kind}'"
            )));
        };
        view.call_method0("tobytes")?.extract()?
    };
    super::exit_gate::detach(py, || disk_change::write_upload(&mut file, &bytes, &path))
        .map_err(|e| failure_error(py, e))
}

/// One download of the resolved `path`: its bytes, or `None` for a directory.
#[pyfunction]
pub(crate) fn disk_download<'py>(
    py: Python<'py>,
    path: PathBuf,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let read = super::exit_gate::detach(py, || disk_change::download(&path));
    Ok(read
        .map_err(|e| failure_error(py, e))?
        .map(|bytes| PyBytes::new(py, &bytes)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(disk_edit, m)?)?;
    m.add_function(wrap_pyfunction!(disk_delete, m)?)?;
    m.add_function(wrap_pyfunction!(disk_upload, m)?)?;
    m.add_function(wrap_pyfunction!(disk_download, m)?)?;
    Ok(())
}
