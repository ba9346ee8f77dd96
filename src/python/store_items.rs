//! `StoreBackend`'s reading and writing of LangGraph store items, for `super::store_plan`:
//! an item read as deepagents' `FileData`, the values its writes store, the results each
//! operation gives, and deepagents' namespace check.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use pyo3::exceptions::{PyTypeError, PyUnicodeDecodeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyModule, PyString};

use super::file_ops;
use crate::files::backend::FileInfo;
use crate::files::{media, store, text};

/// A name of `deepagents_rs.backends.protocol`: a result class, `execute_accepts_timeout`.
pub(crate) fn protocol_attr<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    // Held once: an import per result costs more than the rest of a small operation.
    static PROTOCOL: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let protocol = PROTOCOL.get_or_try_init(py, || {
        py.import("deepagents_rs.backends.protocol")
            .map(Bound::unbind)
    })?;
    protocol.bind(py).getattr(interned(py, name))
}

/// `name` as an interned string when it is one of the protocol's class or field names (a
/// fresh string is hashed and compared at every lookup, a measurable share of a small
/// operation); any other name as a new string.
pub(crate) fn interned<'py>(py: Python<'py>, name: &str) -> Bound<'py, PyString> {
    let known = match name {
        "LsResult" => intern!(py, "LsResult"),
        "ReadResult" => intern!(py, "ReadResult"),
        "WriteResult" => intern!(py, "WriteResult"),
        "EditResult" => intern!(py, "EditResult"),
        "DeleteResult" => intern!(py, "DeleteResult"),
        "GrepResult" => intern!(py, "GrepResult"),
        "GlobResult" => intern!(py, "GlobResult"),
        "FileUploadResponse" => intern!(py, "FileUploadResponse"),
        "FileDownloadResponse" => intern!(py, "FileDownloadResponse"),
        "path" => intern!(py, "path"),
        "error" => intern!(py, "error"),
        "content" => intern!(py, "content"),
        "entries" => intern!(py, "entries"),
        "matches" => intern!(py, "matches"),
        "truncated" => intern!(py, "truncated"),
        "occurrences" => intern!(py, "occurrences"),
        _ => return PyString::new(py, name),
    };
    known.clone()
}

/// A result with text fields.
pub(crate) fn outcome<'py>(
    py: Python<'py>,
    class: &str,
    fields: &[(&str, &str)],
) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    for (name, value) in fields {
        kwargs.set_item(interned(py, name), value)?;
    }
    protocol_attr(py, class)?.call((), Some(&kwargs))
}

pub(crate) fn response(
    py: Python<'_>,
    class: &str,
    path: &Bound<'_, PyAny>,
    content: Option<Bound<'_, PyAny>>,
    error: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item(intern!(py, "path"), path)?;
    if class == "FileDownloadResponse" {
        kwargs.set_item(intern!(py, "content"), content)?;
    }
    kwargs.set_item(intern!(py, "error"), error)?;
    Ok(protocol_attr(py, class)?.call((), Some(&kwargs))?.unbind())
}

/// A store item's content as `FileData` holds it: legacy `list[str]` content joined (the
/// stored item is left as it is). `ValueError` for an item without content, `TypeError` for
/// content of another kind.
fn item_content<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = value.py();
    let content = value.call_method1(intern!(py, "get"), (intern!(py, "content"),))?;
    if content.is_none() {
        let keys = value.call_method0("keys")?.str()?;
        return Err(PyValueError::new_err(format!(
            "{}{keys}",
            store::ITEM_WITHOUT_CONTENT
        )));
    }
    if content.is_instance_of::<PyString>() {
        return Ok(content);
    }
    match content.cast::<PyList>() {
        Ok(lines) if lines.iter().all(|line| line.is_instance_of::<PyString>()) => {
            PyString::new(py, "\n").call_method1("join", (lines,))
        }
        _ => {
            let kind = content.get_type().name()?.to_string();
            Err(PyTypeError::new_err(
                store::ITEM_CONTENT_KIND.replace("{kind}", &kind),
            ))
        }
    }
}

/// The item value's timestamp `stamp` when it is text (`FileData` keeps no other).
fn item_stamp<'py>(
    value: &Bound<'py, PyAny>,
    stamp: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if !value.contains(stamp)? {
        return Ok(None);
    }
    let given = value.get_item(stamp)?;
    Ok(given.is_instance_of::<PyString>().then_some(given))
}

/// A store item as `FileData`: its content (see `item_content`), the encoding (`utf-8` if
/// none) and whichever timestamps are text.
pub(crate) fn item_file_data<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let py = item.py();
    let value = item.getattr(intern!(py, "value"))?;
    let record = PyDict::new(py);
    record.set_item(intern!(py, "content"), item_content(&value)?)?;
    record.set_item(
        intern!(py, "encoding"),
        value.call_method1(
            intern!(py, "get"),
            (intern!(py, "encoding"), intern!(py, "utf-8")),
        )?,
    )?;
    for stamp in [intern!(py, "created_at"), intern!(py, "modified_at")] {
        if let Some(given) = item_stamp(&value, stamp)? {
            record.set_item(stamp, given)?;
        }
    }
    Ok(record)
}

/// A written file's creation time: now (a new file), the existing file's, or none (an
/// existing file without one, as deepagents' `update_file_data` leaves it).
enum Created<'py> {
    Now,
    Kept(Bound<'py, PyAny>),
    Absent,
}

/// The dict `put` stores for a file written now: `content`, `encoding`, the creation time
/// and now as the modification time, in `FileData`'s key order.
fn file_value<'py>(
    content: &Bound<'py, PyAny>,
    encoding: &Bound<'py, PyAny>,
    created: Created<'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = content.py();
    let now = PyString::new(py, &crate::files::file_data::now_iso());
    let value = PyDict::new(py);
    value.set_item(intern!(py, "content"), content)?;
    value.set_item(intern!(py, "encoding"), encoding)?;
    match created {
        Created::Now => value.set_item(intern!(py, "created_at"), &now)?,
        Created::Kept(at) => value.set_item(intern!(py, "created_at"), at)?,
        Created::Absent => {}
    }
    value.set_item(intern!(py, "modified_at"), now)?;
    Ok(value)
}

/// An existing file's creation time as `FileData` carries it.
fn created_of<'py>(value: &Bound<'py, PyAny>) -> PyResult<Created<'py>> {
    let py = value.py();
    Ok(match item_stamp(value, intern!(py, "created_at"))? {
        Some(at) => Created::Kept(at),
        None => Created::Absent,
    })
}

/// `write`'s value for `content` over the item `get` gave (`None`: a new file), the item
/// checked as deepagents reads it.
pub(crate) fn written_value<'py>(
    item: &Bound<'py, PyAny>,
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = item.py();
    let utf8 = intern!(py, "utf-8").as_any();
    if item.is_none() {
        return file_value(content, utf8, Created::Now);
    }
    let value = item.getattr(intern!(py, "value"))?;
    item_content(&value)?;
    file_value(content, utf8, created_of(&value)?)
}

/// `item_file_data`, `None` for an item without content (left out of listings and searches).
pub(crate) fn readable<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    match item_file_data(item) {
        Ok(record) => Ok(Some(record)),
        Err(e) if e.is_instance_of::<PyValueError>(item.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// An item's key as `str(item.key)` gives it: the key itself when it is a `str`.
pub(crate) fn item_key<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyString>> {
    let key = item.getattr(intern!(item.py(), "key"))?;
    match key.cast_into_exact::<PyString>() {
        Ok(text) => Ok(text),
        Err(other) => other.into_inner().str(),
    }
}

/// The items that hold file content, by key.
pub(crate) fn readable_files<'py>(
    py: Python<'py>,
    items: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyDict>> {
    let files = PyDict::new(py);
    for item in items {
        if let Some(record) = readable(item)? {
            files.set_item(item.getattr(intern!(py, "key"))?, record)?;
        }
    }
    Ok(files)
}

/// A direct child's `ls` entry, `None` for an item without content. The usual item (a dict
/// holding text) is measured where it lies; any other is read as `FileData` first.
fn listed_file(key: &str, item: &Bound<'_, PyAny>) -> PyResult<Option<FileInfo>> {
    let py = item.py();
    let value = item.getattr(intern!(py, "value"))?;
    if let Ok(fields) = value.cast_exact::<PyDict>()
        && let Some(content) = fields.get_item(intern!(py, "content"))?
        && let Ok(content) = content.cast_exact::<PyString>()
    {
        let modified_at = match fields.get_item(intern!(py, "modified_at"))? {
            Some(stamp) if stamp.is_instance_of::<PyString>() => {
                stamp.cast_into::<PyString>()?.to_str()?.to_owned()
            }
            _ => String::new(),
        };
        return Ok(Some(FileInfo {
            path: key.to_owned(),
            is_dir: Some(false),
            size: Some(content.to_str()?.len() as u64),
            modified_at: Some(modified_at),
        }));
    }
    let Some(record) = readable(item)? else {
        return Ok(None);
    };
    Ok(Some(text::file_info(
        key,
        &file_ops::record_of(record.as_any())?,
    )))
}

/// `ls`: the entries directly under `directory`; only direct children are read, so an odd
/// item deeper down cannot spoil the listing. Keys are read in place, not copied.
pub(crate) fn listing<'py>(
    py: Python<'py>,
    items: &[Bound<'py, PyAny>],
    directory: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = items.iter().map(item_key).collect::<PyResult<Vec<_>>>()?;
    let texts = keys
        .iter()
        .map(|key| key.to_str())
        .collect::<PyResult<Vec<_>>>()?;
    let entries = text::ls_entries(texts.iter().copied(), directory, |index, key| {
        listed_file(key, &items[index])
    })?;
    let kwargs = PyDict::new(py);
    kwargs.set_item(intern!(py, "entries"), entries_to_py(py, &entries)?)?;
    protocol_attr(py, "LsResult")?.call((), Some(&kwargs))
}

/// Listing entries as deepagents' `FileInfo` dicts (keys in its order, absent fields left out).
fn entries_to_py<'py>(py: Python<'py>, entries: &[FileInfo]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for entry in entries {
        let info = PyDict::new(py);
        info.set_item(intern!(py, "path"), &entry.path)?;
        if let Some(is_dir) = entry.is_dir {
            info.set_item(intern!(py, "is_dir"), is_dir)?;
        }
        if let Some(size) = entry.size {
            info.set_item(intern!(py, "size"), size)?;
        }
        if let Some(modified_at) = &entry.modified_at {
            info.set_item(intern!(py, "modified_at"), modified_at)?;
        }
        list.append(info)?;
    }
    Ok(list)
}

/// `read`'s result for the item at `path`: a text file's window of lines (the bounds
/// clamped at 0, as deepagents' `int()`s them), any other file whole.
pub(crate) fn read<'py>(
    py: Python<'py>,
    path: &str,
    item: &Bound<'py, PyAny>,
    offset: &Bound<'py, PyAny>,
    limit: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if item.is_none() {
        return outcome(
            py,
            "ReadResult",
            &[("error", &format!("File '{path}' not found"))],
        );
    }
    let record = match item_file_data(item) {
        Ok(record) => record,
        Err(e) if e.is_instance_of::<PyValueError>(py) => {
            let error = e.value(py).str()?.to_cow()?.into_owned();
            return outcome(py, "ReadResult", &[("error", &error)]);
        }
        Err(e) => return Err(e),
    };
    let kwargs = if media::backend_read_type(path) != "text" {
        let kwargs = PyDict::new(py);
        kwargs.set_item("file_data", record)?;
        kwargs
    } else {
        let int = py.get_type::<PyInt>();
        let clamp = |n: &Bound<'py, PyAny>| -> PyResult<Bound<'py, PyAny>> {
            let n = int.call1((n,))?;
            Ok(if n.lt(0)? {
                0i64.into_pyobject(py)?.into_any()
            } else {
                n
            })
        };
        let (offset, limit) = (clamp(offset)?, clamp(limit)?);
        file_ops::files_read_window(py, record.as_any(), &offset, &limit)?.cast_into::<PyDict>()?
    };
    protocol_attr(py, "ReadResult")?.call((), Some(&kwargs))
}

/// An edit's value to store and result, or its result alone when nothing changes.
pub(crate) type Edit<'py> = Result<(Bound<'py, PyDict>, Bound<'py, PyAny>), Bound<'py, PyAny>>;

/// `edit` of the item at `path`: the value to store and the result, or the result alone
/// when nothing changes.
pub(crate) fn edited<'py>(
    py: Python<'py>,
    path: &str,
    item: &Bound<'py, PyAny>,
    old: &str,
    new: &str,
    replace_all: bool,
) -> PyResult<Edit<'py>> {
    let refused = |error: &str| outcome(py, "EditResult", &[("error", error)]);
    if item.is_none() {
        return refused(&format!("Error: File '{path}' not found")).map(Err);
    }
    let record = match item_file_data(item) {
        Ok(record) => record,
        Err(e) if e.is_instance_of::<PyValueError>(py) => {
            return refused(&format!("Error: {}", e.value(py).str()?)).map(Err);
        }
        Err(e) => return Err(e),
    };
    if record
        .get_item("encoding")?
        .is_some_and(|e| e.eq("base64").unwrap_or(false))
    {
        return refused("Error: Cannot edit binary files with text replacements.").map(Err);
    }
    let content = file_ops::files_record_text(record.as_any())?;
    let (edited, occurrences) = match text::replace(&content, old, new, replace_all) {
        Ok(done) => done,
        Err(message) => return refused(&message).map(Err),
    };
    let created = match record.get_item(intern!(py, "created_at"))? {
        Some(at) => Created::Kept(at),
        None => Created::Absent,
    };
    let encoding = record.as_any().get_item(intern!(py, "encoding"))?;
    let value = file_value(PyString::new(py, &edited).as_any(), &encoding, created)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item(intern!(py, "path"), path)?;
    kwargs.set_item(intern!(py, "occurrences"), occurrences)?;
    let result = protocol_attr(py, "EditResult")?.call((), Some(&kwargs))?;
    Ok(Ok((value, result)))
}

/// The value an upload stores: UTF-8 text as such, any other bytes base64-encoded. The
/// bytes are decoded by their own `decode`, so what has none fails as in deepagents.
pub(crate) fn uploaded_value<'py>(
    py: Python<'py>,
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let (text, encoding) =
        match content.call_method1(intern!(py, "decode"), (intern!(py, "utf-8"),)) {
            Ok(text) => (text, intern!(py, "utf-8")),
            Err(e) if e.is_instance_of::<PyUnicodeDecodeError>(py) => {
                let raw = py.get_type::<PyBytes>().call1((content,))?;
                let encoded = STANDARD.encode(raw.cast::<PyBytes>()?.as_bytes());
                (
                    PyString::new(py, &encoded).into_any(),
                    intern!(py, "base64"),
                )
            }
            Err(e) => return Err(e),
        };
    file_value(&text, encoding.as_any(), Created::Now)
}

/// The text of the usual text item (a dict holding a `str` and no encoding or `utf-8`),
/// read in place; `None` for any other item, which is read as `FileData`.
fn plain_text<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyString>>> {
    let py = item.py();
    let value = item.getattr(intern!(py, "value"))?;
    let Ok(fields) = value.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    let text_encoding = match fields.get_item(intern!(py, "encoding"))? {
        None => true,
        Some(encoding) => encoding
            .cast_exact::<PyString>()
            .is_ok_and(|e| e.to_str().is_ok_and(|e| e != "base64")),
    };
    if !text_encoding {
        return Ok(None);
    }
    Ok(fields
        .get_item(intern!(py, "content"))?
        .and_then(|content| content.cast_into_exact::<PyString>().ok()))
}

/// A download's response for `path` from the item `get` gave.
pub(crate) fn downloaded(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    item: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    if item.is_none() {
        return response(
            py,
            "FileDownloadResponse",
            path,
            None,
            Some("file_not_found"),
        );
    }
    if let Some(text) = plain_text(item)? {
        let bytes = text.encode_utf8()?.into_any();
        return response(py, "FileDownloadResponse", path, Some(bytes), None);
    }
    let record = item_file_data(item)?;
    // The item's text, a `str` once `item_file_data` has read it.
    let content = record.as_any().get_item(intern!(py, "content"))?;
    let binary = record
        .as_any()
        .get_item(intern!(py, "encoding"))?
        .eq(intern!(py, "base64"))?;
    let bytes = if !binary {
        content.call_method1(intern!(py, "encode"), (intern!(py, "utf-8"),))?
    } else {
        let text = content.cast::<PyString>()?;
        match text.to_str().ok().and_then(|t| STANDARD.decode(t).ok()) {
            Some(raw) => PyBytes::new(py, &raw).into_any(),
            // What the strict decoder refuses, Python's lenient one decides (or refuses the same way).
            None => py
                .import("base64")?
                .call_method1("standard_b64decode", (content,))?,
        }
    };
    response(py, "FileDownloadResponse", path, Some(bytes), None)
}

/// deepagents' `_validate_namespace`: the namespace unchanged once every component is a
/// non-empty string of safe characters (`ValueError`, or `TypeError` for a component that
/// is not a string).
#[pyfunction]
pub(crate) fn store_validate_namespace<'py>(
    namespace: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if !namespace.is_truthy()? {
        return Err(PyValueError::new_err(store::NAMESPACE_EMPTY));
    }
    for (index, component) in namespace.try_iter()?.enumerate() {
        let component = component?;
        let index = index.to_string();
        let Ok(text) = component.cast::<PyString>() else {
            let kind = component.get_type().name()?.to_string();
            let message = store::NAMESPACE_COMPONENT_NOT_TEXT
                .replace("{index}", &index)
                .replace("{kind}", &kind);
            return Err(PyTypeError::new_err(message));
        };
        let text_value = text.to_cow()?;
        if text_value.is_empty() {
            return Err(PyValueError::new_err(
                store::NAMESPACE_COMPONENT_EMPTY.replace("{index}", &index),
            ));
        }
        if !store::namespace_component_ok(&text_value) {
            let shown = text.repr()?.to_string();
            let message = store::NAMESPACE_DISALLOWED_CHARACTERS
                .replace("{index}", &index)
                .replace("{component}", &shown);
            return Err(PyValueError::new_err(message));
        }
    }
    Ok(namespace)
}
