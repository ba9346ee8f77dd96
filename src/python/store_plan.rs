//! deepagents' `StoreBackend`, its rules in the core: each operation is a `StorePlan` that
//! names the store calls it needs (`get`, `put`, `search`, `batch`), one at a time, and
//! turns their replies into the operation's result. `StoreBackend` carries a plan out with
//! the store's sync methods or awaits their `a`-prefixed twins, so every rule is written
//! once, here, while the user's `BaseStore` is only ever called by Python, on the caller's
//! thread or loop, never from a tokio worker.

use pyo3::BoundObject;
use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::file_searches;
use super::store_items::{
    downloaded, edited, item_key, listing, outcome, protocol_attr, read, readable_files, response,
    store_validate_namespace, uploaded_value, written_value,
};
use crate::files::store::{self, PAGE_SIZE};

/// The operation a plan carries out, with its arguments.
enum Op {
    Read {
        path: String,
        offset: Py<PyAny>,
        limit: Py<PyAny>,
    },
    Write {
        path: String,
        content: Py<PyString>,
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

impl StorePlan {
    /// The plan of `op` in `namespace`, reading whole namespaces in pages of `PAGE_SIZE`.
    fn new(namespace: Bound<'_, PyAny>, op: Op) -> Self {
        let py = namespace.py();
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
        StorePlan::new(namespace, op)
    }

    #[staticmethod]
    fn write(namespace: Bound<'_, PyAny>, path: String, content: Bound<'_, PyString>) -> Self {
        let content = content.unbind();
        StorePlan::new(namespace, Op::Write { path, content })
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
        StorePlan::new(namespace, op)
    }

    #[staticmethod]
    fn delete(namespace: Bound<'_, PyAny>, path: String) -> Self {
        StorePlan::new(namespace, Op::Delete { path })
    }

    #[staticmethod]
    fn ls(namespace: Bound<'_, PyAny>, path: String) -> Self {
        StorePlan::new(namespace, Op::Ls { path })
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
        StorePlan::new(namespace, op)
    }

    #[staticmethod]
    #[pyo3(signature = (namespace, pattern, path))]
    fn glob(namespace: Bound<'_, PyAny>, pattern: String, path: Option<String>) -> Self {
        StorePlan::new(namespace, Op::Glob { pattern, path })
    }

    /// Every item of the namespace matching `query` and `filter`, `page_size` at a time.
    #[staticmethod]
    fn items(
        namespace: Bound<'_, PyAny>,
        query: Py<PyAny>,
        filter: Py<PyAny>,
        page_size: usize,
    ) -> Self {
        let mut plan = StorePlan::new(namespace, Op::Items);
        (plan.query, plan.filter, plan.page_size) = (query, filter, page_size);
        plan
    }

    #[staticmethod]
    fn upload(namespace: Bound<'_, PyAny>, files: Vec<(Py<PyAny>, Py<PyAny>)>) -> Self {
        StorePlan::new(namespace, Op::Upload { files })
    }

    #[staticmethod]
    fn download(namespace: Bound<'_, PyAny>, paths: Vec<Py<PyAny>>) -> Self {
        StorePlan::new(namespace, Op::Download { paths })
    }

    fn send(&mut self, py: Python<'_>, reply: Bound<'_, PyAny>) -> PyResult<Next> {
        self.advance(py, reply)
    }

    /// The whole plan carried out with `store`'s sync methods, on the caller's thread; its
    /// result. Given `items` (what a subclass's `_search_store_paginated` found, or a plain
    /// `InMemoryStore`'s items), they answer the first `search` page and an empty page any
    /// further one, ending the paging. Given `data` (a plain `InMemoryStore`'s dict of
    /// namespace -> key -> item), a `get` is answered from it (see `get_from`).
    #[pyo3(signature = (store, items=None, data=None))]
    fn run<'py>(
        &mut self,
        py: Python<'py>,
        store: &Bound<'py, PyAny>,
        mut items: Option<Bound<'py, PyAny>>,
        data: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let mut reply = py.None().into_bound(py);
        loop {
            let (method, args, kwargs) = self.advance(py, reply)?;
            let Some(method) = method else {
                return Ok(args);
            };
            reply = match items.take() {
                Some(given) if method == "search" => {
                    items = Some(PyList::empty(py).into_any());
                    given
                }
                unused => {
                    items = unused;
                    let args = args.bind(py).cast::<PyTuple>()?;
                    if let (Some(data), "get") = (&data, method) {
                        reply = get_from(data, args)?;
                        continue;
                    }
                    let name = method_name(py, method);
                    match &kwargs {
                        Some(kwargs) => store.call_method(name, args, Some(kwargs.bind(py)))?,
                        None => {
                            let args: Vec<_> = args.iter().collect();
                            super::method_call::call_method(store, name, &args)?
                        }
                    }
                }
            };
        }
    }
}

/// `store.get(namespace, key)` of a plain `InMemoryStore`, read from its `data` as its
/// `batch` reads it: `data[namespace].get(str(key))` (the same lookup, so a namespace never
/// seen gets its empty entry, as the store's own `get` leaves it).
fn get_from<'py>(
    data: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let (namespace, key) = (args.get_item(0)?, args.get_item(1)?);
    let key = if key.is_exact_instance_of::<PyString>() {
        key
    } else {
        key.str()?.into_any()
    };
    let entries = data.get_item(namespace)?;
    Ok(match entries.cast::<PyDict>()?.get_item(key)? {
        Some(item) => item,
        None => entries.py().None().into_bound(entries.py()),
    })
}

/// LangGraph's `PutOp`, imported once (the import statement's lookups cost more than a
/// small delete's own work).
fn put_op(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static PUT_OP: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    PUT_OP.import(py, "langgraph.store.base", "PutOp")
}

/// A store method's name, interned.
fn method_name<'py>(py: Python<'py>, method: &str) -> &'py Bound<'py, PyString> {
    match method {
        "get" => intern!(py, "get"),
        "put" => intern!(py, "put"),
        "search" => intern!(py, "search"),
        _ => intern!(py, "batch"),
    }
}

impl StorePlan {
    fn advance(&mut self, py: Python<'_>, reply: Bound<'_, PyAny>) -> PyResult<Next> {
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
                let value = written_value(&item, content.bind(py).as_any())?;
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
                let (error, matches, truncated) = file_searches::files_grep(
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
                Self::done(protocol_attr(py, "GrepResult")?.call((), Some(&kwargs))?)
            }
            Op::Glob { pattern, path } => {
                let files = readable_files(py, &items)?;
                let (error, entries) =
                    file_searches::files_glob(py, files.as_any(), pattern, path.as_deref(), true)?;
                let kwargs = PyDict::new(py);
                match error {
                    Some(error) => kwargs.set_item("error", error)?,
                    None => kwargs.set_item("matches", entries)?,
                }
                Self::done(protocol_attr(py, "GlobResult")?.call((), Some(&kwargs))?)
            }
            Op::Delete { path } => {
                let mut ops = Vec::new();
                for item in &items {
                    let key = item_key(item)?;
                    if store::deleted_by(key.to_str()?, path) {
                        let put =
                            put_op(py)?.call1((self.namespace.clone_ref(py), key, py.None()))?;
                        ops.push(put);
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StorePlan>()?;
    m.add_function(wrap_pyfunction!(store_validate_namespace, m)?)?;
    Ok(())
}
