//! deepagents' `StoreBackend`, its rules in the core: each operation is a `StorePlan` that
//! names the store calls it needs (`get`, `put`, `search`, `batch`), one at a time, and
//! turns their replies into the operation's result. `StoreBackend` carries a plan out with
//! the store's sync methods or awaits their `a`-prefixed twins, so every rule is written
//! once, here, while the user's `BaseStore` is only ever called by Python, on the caller's
//! thread or loop, never from a tokio worker.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use pyo3::BoundObject;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUnicodeDecodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use super::file_ops;
use crate::files::store::{self, PAGE_SIZE};
use crate::files::{media, text};

/// The operation a plan carries out, with its arguments.
enum Op {
    Read {
        path: String,
        offset: Py<PyAny>,
        limit: Py<PyAny>,
    },
    Write {
        path: String,
        content: String,
    },
    Edit {
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    },
    Delete {
        path: String,
    },
    Ls {
        path: String,
    },
    Grep {
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<Py<PyAny>>,
    },
    Glob {
        pattern: String,
        path: Option<String>,
    },
    /// `_search_store_paginated` itself: the items.
    Items,
    Upload {
        files: Vec<(Py<PyAny>, Py<PyAny>)>,
    },
    Download {
        paths: Vec<Py<PyAny>>,
    },
}

/// Where a plan stands: which reply `send` is given next.
enum Stage {
    Start,
    /// The item at the operation's path.
    Got,
    /// The page of the namespace that starts at this offset.
    Page(usize),
    /// The write that ends the operation; then this is its result.
    Wrote(Py<PyAny>),
    /// Upload and download: the call for the file at this index.
    Each(usize),
    Done,
}

/// One operation of `StoreBackend` on one namespace. `send(None)` starts it; each call
/// returns `(method, args, kwargs)` for the store call wanted next, whose reply is the next
/// `send`'s argument, until it returns `(None, result, None)`.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct StorePlan {
    op: Op,
    namespace: Py<PyAny>,
    query: Py<PyAny>,
    filter: Py<PyAny>,
    page_size: usize,
    stage: Stage,
    items: Vec<Py<PyAny>>,
    responses: Vec<Py<PyAny>>,
}

/// What `send` hands back: a store call or, with no method, the result.
type Next = (Option<&'static str>, Py<PyAny>, Option<Py<PyDict>>);

fn plan(py: Python<'_>, namespace: Bound<'_, PyAny>, op: Op) -> StorePlan {
    StorePlan {
        op,
        namespace: namespace.unbind(),
        query: py.None(),
        filter: py.None(),
        page_size: PAGE_SIZE,
        stage: Stage::Start,
        items: Vec::new(),
        responses: Vec::new(),
    }
}

#[pymethods]
impl StorePlan {
    #[staticmethod]
    fn read(
        namespace: Bound<'_, PyAny>,
        path: String,
        offset: Py<PyAny>,
        limit: Py<PyAny>,
    ) -> Self {
        let op = Op::Read {
            path,
            offset,
            limit,
        };
        plan(namespace.py(), namespace, op)
    }

    #[staticmethod]
    fn write(namespace: Bound<'_, PyAny>, path: String, content: String) -> Self {
        plan(namespace.py(), namespace, Op::Write { path, content })
    }

    #[staticmethod]
    fn edit(
        namespace: Bound<'_, PyAny>,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Self {
        let op = Op::Edit {
            path,
            old,
            new,
            replace_all,
        };
        plan(namespace.py(), namespace, op)
    }

    #[staticmethod]
    fn delete(namespace: Bound<'_, PyAny>, path: String) -> Self {
        plan(namespace.py(), namespace, Op::Delete { path })
    }

    #[staticmethod]
    fn ls(namespace: Bound<'_, PyAny>, path: String) -> Self {
        plan(namespace.py(), namespace, Op::Ls { path })
    }

    #[staticmethod]
    #[pyo3(signature = (namespace, pattern, path, glob, max_count))]
    fn grep(
        namespace: Bound<'_, PyAny>,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<Py<PyAny>>,
    ) -> Self {
        let op = Op::Grep {
            pattern,
            path,
            glob,
            max_count,
        };
        plan(namespace.py(), namespace, op)
    }

    #[staticmethod]
    #[pyo3(signature = (namespace, pattern, path))]
    fn glob(namespace: Bound<'_, PyAny>, pattern: String, path: Option<String>) -> Self {
        plan(namespace.py(), namespace, Op::Glob { pattern, path })
    }

    /// Every item of the namespace matching `query` and `filter`, `page_size` at a time.
    #[staticmethod]
    fn items(
        namespace: Bound<'_, PyAny>,
        query: Py<PyAny>,
        filter: Py<PyAny>,
        page_size: usize,
    ) -> Self {
        let mut plan = plan(namespace.py(), namespace, Op::Items);
        (plan.query, plan.filter, plan.page_size) = (query, filter, page_size);
        plan
    }

    #[staticmethod]
    fn upload(namespace: Bound<'_, PyAny>, files: Vec<(Py<PyAny>, Py<PyAny>)>) -> Self {
        plan(namespace.py(), namespace, Op::Upload { files })
    }

    #[staticmethod]
    fn download(namespace: Bound<'_, PyAny>, paths: Vec<Py<PyAny>>) -> Self {
        plan(namespace.py(), namespace, Op::Download { paths })
    }

    fn send(&mut self, py: Python<'_>, reply: Bound<'_, PyAny>) -> PyResult<Next> {
        let stage = std::mem::replace(&mut self.stage, Stage::Done);
        match stage {
            Stage::Start => self.start(py),
            Stage::Got => self.got(py, reply),
            Stage::Page(offset) => {
                let got = reply.len()?;
                for item in reply.try_iter()? {
                    self.items.push(item?.unbind());
                }
                if store::more_pages(got, self.page_size) {
                    self.page(py, offset + self.page_size)
                } else {
                    self.searched(py)
                }
            }
            Stage::Wrote(result) => Ok((None, result, None)),
            Stage::Each(index) => self.each(py, index, reply),
            Stage::Done => Err(PyRuntimeError::new_err("the store plan is finished")),
        }
    }
}

impl StorePlan {
    fn start(&mut self, py: Python<'_>) -> PyResult<Next> {
        match &self.op {
            Op::Read { path, .. } | Op::Write { path, .. } | Op::Edit { path, .. } => {
                let path = path.clone();
                self.stage = Stage::Got;
                self.call(py, "get", (self.namespace.clone_ref(py), path))
            }
            Op::Upload { .. } | Op::Download { .. } => self.each(py, 0, py.None().into_bound(py)),
            _ => self.page(py, 0),
        }
    }

    fn call<'py>(
        &self,
        py: Python<'py>,
        method: &'static str,
        args: impl IntoPyObject<'py, Target = PyTuple>,
    ) -> PyResult<Next> {
        let args = args.into_pyobject(py).map_err(Into::into)?.into_bound();
        Ok((Some(method), args.into_any().unbind(), None))
    }

    /// `store.search(namespace, query=..., filter=..., limit=..., offset=...)`, as deepagents asks.
    fn page(&mut self, py: Python<'_>, offset: usize) -> PyResult<Next> {
        let kwargs = PyDict::new(py);
        kwargs.set_item("query", &self.query)?;
        kwargs.set_item("filter", &self.filter)?;
        kwargs.set_item("limit", self.page_size)?;
        kwargs.set_item("offset", offset)?;
        self.stage = Stage::Page(offset);
        let args = PyTuple::new(py, [self.namespace.clone_ref(py)])?;
        Ok((
            Some("search"),
            args.into_any().unbind(),
            Some(kwargs.unbind()),
        ))
    }

    fn done(result: Bound<'_, PyAny>) -> PyResult<Next> {
        Ok((None, result.unbind(), None))
    }

    /// The operation's store call, its result given once the call returns.
    fn then_write<'py>(
        &mut self,
        py: Python<'py>,
        method: &'static str,
        args: impl IntoPyObject<'py, Target = PyTuple>,
        result: Bound<'py, PyAny>,
    ) -> PyResult<Next> {
        self.stage = Stage::Wrote(result.unbind());
        self.call(py, method, args)
    }

    /// The reply to `get` of the operation's path.
    fn got(&mut self, py: Python<'_>, item: Bound<'_, PyAny>) -> PyResult<Next> {
        let namespace = self.namespace.clone_ref(py);
        match &self.op {
            Op::Read {
                path,
                offset,
                limit,
            } => Self::done(read(py, path, &item, offset.bind(py), limit.bind(py))?),
            Op::Write { path, content } => {
                let record = if item.is_none() {
                    file_ops::files_record_new(py, content.clone(), None, "utf-8")?
                } else {
                    let existing = item_file_data(&item)?;
                    file_ops::files_record_with(py, existing.as_any(), content.clone(), true)?
                };
                record.set_item("encoding", "utf-8")?;
                let value = store_value(&record)?;
                let path = path.clone();
                let result = outcome(py, "WriteResult", &[("path", path.as_str())])?;
                self.then_write(py, "put", (namespace, path, value), result)
            }
            Op::Edit {
                path,
                old,
                new,
                replace_all,
            } => match edited(py, path, &item, old, new, *replace_all)? {
                Ok((value, result)) => {
                    let path = path.clone();
                    self.then_write(py, "put", (namespace, path, value), result)
                }
                Err(result) => Self::done(result),
            },
            _ => Err(PyRuntimeError::new_err("the store plan wanted no item")),
        }
    }

    /// The whole namespace is read: finish the operation that wanted it.
    fn searched(&mut self, py: Python<'_>) -> PyResult<Next> {
        let items: Vec<Bound<'_, PyAny>> = self.items.iter().map(|i| i.bind(py).clone()).collect();
        match &self.op {
            Op::Items => Self::done(PyList::new(py, items)?.into_any()),
            Op::Ls { path } => Self::done(listing(py, &items, path)?),
            Op::Grep {
                pattern,
                path,
                glob,
                max_count,
            } => {
                let files = readable_files(py, &items)?;
                let max_count = max_count.as_ref().map(|m| m.bind(py).clone());
                let (error, matches, truncated) = file_ops::files_grep(
                    py,
                    files.as_any(),
                    pattern,
                    path.as_deref(),
                    glob.as_deref(),
                    max_count.as_ref(),
                )?
                .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("error", error)?;
                kwargs.set_item("matches", matches)?;
                kwargs.set_item("truncated", truncated)?;
                Self::done(result_class(py, "GrepResult")?.call((), Some(&kwargs))?)
            }
            Op::Glob { pattern, path } => {
                let files = readable_files(py, &items)?;
                let (error, entries) =
                    file_ops::files_glob(py, files.as_any(), pattern, path.as_deref(), true)?;
                let kwargs = PyDict::new(py);
                match error {
                    Some(error) => kwargs.set_item("error", error)?,
                    None => kwargs.set_item("matches", entries)?,
                }
                Self::done(result_class(py, "GlobResult")?.call((), Some(&kwargs))?)
            }
            Op::Delete { path } => {
                let put_op = py.import("langgraph.store.base")?.getattr("PutOp")?;
                let mut ops = Vec::new();
                for item in &items {
                    let key = item.getattr("key")?.str()?;
                    if store::deleted_by(key.to_str()?, path) {
                        ops.push(put_op.call1((self.namespace.clone_ref(py), key, py.None()))?);
                    }
                }
                if ops.is_empty() {
                    let error = format!("Error: File '{path}' not found");
                    return Self::done(outcome(py, "DeleteResult", &[("error", &error)])?);
                }
                let result = outcome(py, "DeleteResult", &[("path", path.as_str())])?;
                let ops = PyList::new(py, ops)?;
                self.then_write(py, "batch", (ops,), result)
            }
            _ => Err(PyRuntimeError::new_err("the store plan read no namespace")),
        }
    }

    /// Upload and download, one store call per file: `reply` answers the call for file
    /// `index - 1`; the call for file `index` is next.
    fn each(&mut self, py: Python<'_>, index: usize, reply: Bound<'_, PyAny>) -> PyResult<Next> {
        let namespace = self.namespace.clone_ref(py);
        match &self.op {
            Op::Upload { files } => {
                if index > 0 {
                    let path = files[index - 1].0.bind(py);
                    self.responses
                        .push(response(py, "FileUploadResponse", path, None, None)?);
                }
                let Some((path, content)) = files.get(index) else {
                    return Self::done(PyList::new(py, &self.responses)?.into_any());
                };
                let value = uploaded_value(py, content.bind(py))?;
                self.stage = Stage::Each(index + 1);
                self.call(py, "put", (namespace, path.clone_ref(py), value))
            }
            Op::Download { paths } => {
                if index > 0 {
                    let path = paths[index - 1].bind(py);
                    self.responses.push(downloaded(py, path, &reply)?);
                }
                let Some(path) = paths.get(index) else {
                    return Self::done(PyList::new(py, &self.responses)?.into_any());
                };
                self.stage = Stage::Each(index + 1);
                self.call(py, "get", (namespace, path.clone_ref(py)))
            }
            _ => Err(PyRuntimeError::new_err("the store plan has no files")),
        }
    }
}

/// One of `deepagents_rs.backends.protocol`'s result classes.
fn result_class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("deepagents_rs.backends.protocol")?.getattr(name)
}

/// A result with text fields.
fn outcome<'py>(
    py: Python<'py>,
    class: &str,
    fields: &[(&str, &str)],
) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(py);
    for (name, value) in fields {
        kwargs.set_item(name, value)?;
    }
    result_class(py, class)?.call((), Some(&kwargs))
}

fn response(
    py: Python<'_>,
    class: &str,
    path: &Bound<'_, PyAny>,
    content: Option<Bound<'_, PyAny>>,
    error: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("path", path)?;
    if class == "FileDownloadResponse" {
        kwargs.set_item("content", content)?;
    }
    kwargs.set_item("error", error)?;
    Ok(result_class(py, class)?.call((), Some(&kwargs))?.unbind())
}

/// A store item as `FileData`: legacy `list[str]` content joined (the stored item is left
/// as it is), the encoding (`utf-8` if none) and whichever timestamps are text.
/// `ValueError` for an item without content, `TypeError` for content of another kind.
fn item_file_data<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let py = item.py();
    let value = item.getattr("value")?;
    let content = value.call_method1("get", ("content",))?;
    if content.is_none() {
        let keys = value.call_method0("keys")?.str()?;
        return Err(PyValueError::new_err(format!(
            "{}{keys}",
            store::ITEM_WITHOUT_CONTENT
        )));
    }
    let content = match content.cast::<PyList>() {
        Ok(lines) if lines.iter().all(|line| line.is_instance_of::<PyString>()) => {
            PyString::new(py, "\n").call_method1("join", (lines,))?
        }
        _ if content.is_instance_of::<PyString>() => content,
        _ => {
            let kind = content.get_type().name()?.to_string();
            return Err(PyTypeError::new_err(
                store::ITEM_CONTENT_KIND.replace("{kind}", &kind),
            ));
        }
    };
    let record = PyDict::new(py);
    record.set_item("content", content)?;
    record.set_item(
        "encoding",
        value.call_method1("get", ("encoding", "utf-8"))?,
    )?;
    for stamp in ["created_at", "modified_at"] {
        if value.contains(stamp)? {
            let given = value.get_item(stamp)?;
            if given.is_instance_of::<PyString>() {
                record.set_item(stamp, given)?;
            }
        }
    }
    Ok(record)
}

/// `item_file_data`, `None` for an item without content (left out of listings and searches).
fn readable<'py>(item: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
    match item_file_data(item) {
        Ok(record) => Ok(Some(record)),
        Err(e) if e.is_instance_of::<PyValueError>(item.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The dict `put` stores for a file: its content, encoding and whichever timestamps it has.
fn store_value<'py>(record: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let value = PyDict::new(record.py());
    value.set_item("content", record.get_item("content")?)?;
    value.set_item("encoding", record.get_item("encoding")?)?;
    for stamp in ["created_at", "modified_at"] {
        if record.contains(stamp)? {
            value.set_item(stamp, record.get_item(stamp)?)?;
        }
    }
    Ok(value)
}

/// The items that hold file content, by key.
fn readable_files<'py>(
    py: Python<'py>,
    items: &[Bound<'py, PyAny>],
) -> PyResult<Bound<'py, PyDict>> {
    let files = PyDict::new(py);
    for item in items {
        if let Some(record) = readable(item)? {
            files.set_item(item.getattr("key")?, record)?;
        }
    }
    Ok(files)
}

/// `ls`: the entries directly under `directory`; only direct children are read, so an odd
/// item deeper down cannot spoil the listing.
fn listing<'py>(
    py: Python<'py>,
    items: &[Bound<'py, PyAny>],
    directory: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        keyed.push((item.getattr("key")?.str()?.to_cow()?.into_owned(), item));
    }
    let by_key: std::collections::HashMap<&str, &Bound<'py, PyAny>> = keyed
        .iter()
        .map(|(key, item)| (key.as_str(), *item))
        .collect();
    let entries = text::ls_entries(
        keyed.iter().map(|(key, _)| key.as_str()),
        directory,
        |key| {
            let Some(record) = by_key
                .get(key)
                .map(|item| readable(item))
                .transpose()?
                .flatten()
            else {
                return Ok::<_, PyErr>(None);
            };
            Ok(Some(text::file_info(
                key,
                &file_ops::record_of(record.as_any())?,
            )))
        },
    )?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("entries", pythonize::pythonize(py, &entries)?)?;
    result_class(py, "LsResult")?.call((), Some(&kwargs))
}

/// `read`'s result for the item at `path`: a text file's window of lines (the bounds
/// clamped at 0, as deepagents' `int()`s them), any other file whole.
fn read<'py>(
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
    result_class(py, "ReadResult")?.call((), Some(&kwargs))
}

/// `edit` of the item at `path`: the value to store and the result, or the result alone
/// when nothing changes.
fn edited<'py>(
    py: Python<'py>,
    path: &str,
    item: &Bound<'py, PyAny>,
    old: &str,
    new: &str,
    replace_all: bool,
) -> PyResult<Result<(Bound<'py, PyDict>, Bound<'py, PyAny>), Bound<'py, PyAny>>> {
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
    let updated = file_ops::files_record_with(py, record.as_any(), edited, true)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("path", path)?;
    kwargs.set_item("occurrences", occurrences)?;
    let result = result_class(py, "EditResult")?.call((), Some(&kwargs))?;
    Ok(Ok((store_value(&updated)?, result)))
}

/// The value an upload stores: UTF-8 text as such, any other bytes base64-encoded. The
/// bytes are decoded by their own `decode`, so what has none fails as in deepagents.
fn uploaded_value<'py>(
    py: Python<'py>,
    content: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let (text, encoding) = match content.call_method1("decode", ("utf-8",)) {
        Ok(text) => (text.extract::<String>()?, "utf-8"),
        Err(e) if e.is_instance_of::<PyUnicodeDecodeError>(py) => {
            let raw = py.get_type::<PyBytes>().call1((content,))?;
            (STANDARD.encode(raw.cast::<PyBytes>()?.as_bytes()), "base64")
        }
        Err(e) => return Err(e),
    };
    let record = file_ops::files_record_new(py, text, None, encoding)?;
    store_value(&record)
}

/// A download's response for `path` from the item `get` gave.
fn downloaded(
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
    let record = item_file_data(item)?;
    let content = file_ops::files_record_text(record.as_any())?;
    let binary = record.as_any().get_item("encoding")?.eq("base64")?;
    let bytes = if !binary {
        PyString::new(py, &content).call_method1("encode", ("utf-8",))?
    } else {
        match STANDARD.decode(&content) {
            Ok(raw) => PyBytes::new(py, &raw).into_any(),
            // What the strict decoder refuses, Python's lenient one decides (or refuses the same way).
            Err(_) => py
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StorePlan>()?;
    m.add_function(wrap_pyfunction!(store_validate_namespace, m)?)?;
    Ok(())
}
