//! deepagents' `CompositeBackend`, its routing and merging in the core: each operation is a
//! `CompositePlan` that names the backend calls it needs, one at a time, and turns their
//! replies into the operation's result (prefixes put back on, root listings and searches
//! merged, batches split by backend and put back in input order). `CompositeBackend` runs a
//! plan with a small loop that calls each named method (the plan picks `read` or `aread`)
//! and awaits it on the async side, so the routed backends, which are arbitrary Python
//! objects, are only ever called by Python on the caller's thread or loop.

use pyo3::BoundObject;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use super::composite_ops::{Group, Next, Op, Stage};
use super::composite_replies::{
    at_root, capped_grep, failed_glob, glob_parts, items_of, make, prefixed, protocol,
    sorted_by_path,
};
use crate::files::composite as rules;

/// One operation of a `CompositeBackend`. `send(None)` starts it; each call returns the
/// bound backend method wanted next with its arguments, whose reply is the next `send`'s
/// argument; `throw(error)` hands it a `NotImplementedError` that method raised.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct CompositePlan {
    pub(super) op: Op,
    pub(super) composite: Py<PyAny>,
    /// A subclass's own `_get_backend_and_key`, which deepagents asks for the paths of
    /// read, write, edit, delete, upload and download.
    pub(super) resolver: Option<Py<PyAny>>,
    pub(super) asynchronous: bool,
    pub(super) stage: Stage,
    /// A root search: `routes.items()` in the order given.
    pub(super) routes: Vec<(String, Py<PyAny>)>,
    /// A root search: what the parts found so far, and deepagents' `truncated or ...` and
    /// truncation-reason folds over them.
    pub(super) found: Vec<Py<PyAny>>,
    pub(super) truncated: Option<Py<PyAny>>,
    pub(super) reason: Option<Py<PyAny>>,
    pub(super) groups: Vec<Group>,
    pub(super) responses: Vec<Option<Py<PyAny>>>,
}

pub(super) fn done(result: Bound<'_, PyAny>) -> PyResult<Next> {
    Ok((None, result.unbind(), None))
}

/// The stage a grep or glob the default backend was asked for meets: a root search goes on
/// to the routes, any other path's reply is the result.
fn searched_by_default(path: &Bound<'_, PyAny>) -> PyResult<Stage> {
    Ok(if at_root(path)? {
        Stage::RootDefault
    } else {
        Stage::Call {
            inner: path.clone().unbind(),
            prefix: None,
        }
    })
}

fn with_path(py: Python<'_>, result: Bound<'_, PyAny>, path: &Py<PyAny>) -> PyResult<Next> {
    if !result.getattr("path")?.is_none() {
        result.setattr("path", path.bind(py))?;
    }
    done(result)
}

#[pymethods]
impl CompositePlan {
    /// The plan of operation `op` (`read`, `write`, `edit`, `delete`, `execute`, `ls`,
    /// `grep`, `glob`, `upload`, `download`) with the method's own arguments in `args`;
    /// `resolver` is a subclass's own `_get_backend_and_key`.
    #[new]
    fn new(
        op: &str,
        composite: Bound<'_, PyAny>,
        resolver: Option<Py<PyAny>>,
        asynchronous: bool,
        args: Bound<'_, PyTuple>,
    ) -> PyResult<Self> {
        let arg = |i: usize| args.get_item(i).map(Bound::unbind);
        let op = match op {
            "read" => Op::Read {
                path: arg(0)?,
                offset: arg(1)?,
                limit: arg(2)?,
            },
            "write" => Op::Write {
                path: arg(0)?,
                content: arg(1)?,
            },
            "edit" => Op::Edit {
                path: arg(0)?,
                old: arg(1)?,
                new: arg(2)?,
                replace_all: arg(3)?,
            },
            "delete" => Op::Delete { path: arg(0)? },
            "execute" => Op::Execute {
                command: arg(0)?,
                timeout: arg(1)?,
            },
            "ls" => Op::Ls { path: arg(0)? },
            "grep" => Op::Grep {
                pattern: arg(0)?,
                path: arg(1)?,
                glob: arg(2)?,
                max_count: args.get_item(3)?.extract()?,
            },
            "glob" => Op::Glob {
                pattern: arg(0)?,
                path: arg(1)?,
            },
            "upload" => Op::Upload {
                files: args.get_item(0)?.extract()?,
            },
            "download" => Op::Download {
                paths: args.get_item(0)?.extract()?,
            },
            other => {
                return Err(PyValueError::new_err(format!(
                    "no composite operation {other:?}"
                )));
            }
        };
        Ok(Self {
            op,
            composite: composite.unbind(),
            resolver,
            asynchronous,
            stage: Stage::Start,
            routes: Vec::new(),
            found: Vec::new(),
            truncated: None,
            reason: None,
            groups: Vec::new(),
            responses: Vec::new(),
        })
    }

    fn send(&mut self, py: Python<'_>, reply: Bound<'_, PyAny>) -> PyResult<Next> {
        match std::mem::replace(&mut self.stage, Stage::Done) {
            Stage::Start => self.start(py),
            Stage::Call { inner, prefix } => self.answered(py, reply, inner, prefix),
            Stage::RootDefault => self.root_default(py, reply),
            Stage::RootRoute(index, cap) => self.root_route(py, reply, index, cap),
            Stage::Batch(index) => self.batch(py, index, Some(reply)),
            Stage::Done => Err(PyRuntimeError::new_err("the composite plan is finished")),
        }
    }

    /// The `NotImplementedError` the last call raised: a delete reports that its route
    /// cannot delete; every other operation raises it on.
    fn throw(&mut self, py: Python<'_>, error: Bound<'_, PyAny>) -> PyResult<Next> {
        let stage = std::mem::replace(&mut self.stage, Stage::Done);
        if let (Op::Delete { path }, Stage::Call { .. }) = (&self.op, stage)
            && error.is_instance_of::<PyNotImplementedError>()
        {
            let text = rules::delete_unsupported(path.bind(py).str()?.to_str()?);
            let text = PyString::new(py, &text).into_any();
            return done(make(py, "DeleteResult", &[("error", text)])?);
        }
        Err(PyErr::from_value(error))
    }
}

impl CompositePlan {
    /// `backend.<method>(*args, **kwargs)`, or its `a`-prefixed twin for an async plan.
    pub(super) fn call<'py>(
        &self,
        py: Python<'py>,
        backend: &Bound<'py, PyAny>,
        method: &str,
        args: Bound<'py, PyTuple>,
        kwargs: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Next> {
        let name = if self.asynchronous {
            format!("a{method}")
        } else {
            method.to_owned()
        };
        let bound = backend.getattr(name.as_str())?;
        let kwargs = kwargs.unwrap_or_else(|| PyDict::new(py));
        Ok((
            Some(bound.unbind()),
            args.into_any().unbind(),
            Some(kwargs.unbind()),
        ))
    }

    fn default<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.composite.bind(py).getattr("default")
    }

    /// deepagents' `_route_for_path` over `sorted_routes`: the backend, the path it sees
    /// and the route's prefix (`None`: the default backend, the path unchanged).
    fn route<'py>(
        &self,
        py: Python<'py>,
        path: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Option<String>)> {
        let (mut prefixes, mut backends) = self.sorted_prefixes(py)?;
        let found = match path.cast::<PyString>() {
            Ok(text) => rules::route(&prefixes, text.to_str()?),
            Err(_) if prefixes.is_empty() => None,
            // A path that is not text meets the first route's comparison as in deepagents,
            // which raises (`startswith` of a non-string).
            Err(_) => {
                path.call_method1("startswith", (prefixes[0].as_str(),))?;
                return Err(PyTypeError::new_err("a path must be a string"));
            }
        };
        Ok(match found {
            Some((index, inner)) => (
                backends.swap_remove(index).into_bound(py),
                PyString::new(py, &inner).into_any(),
                Some(prefixes.swap_remove(index)),
            ),
            None => (self.default(py)?, path.clone(), None),
        })
    }

    /// The backend for one path of read, write, edit, delete, upload or download, and the
    /// path it sees (`_get_backend_and_key`, the subclass's own when it has one).
    pub(super) fn key<'py>(
        &self,
        py: Python<'py>,
        path: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        if let Some(resolver) = &self.resolver {
            let pair = resolver.bind(py).call1((path,))?;
            let mut parts = pair.try_iter()?;
            if let (Some(backend), Some(inner), None) = (parts.next(), parts.next(), parts.next()) {
                return Ok((backend?, inner?));
            }
            return Err(PyValueError::new_err(
                "_get_backend_and_key must return (backend, key)",
            ));
        }
        let (backend, inner, _) = self.route(py, path)?;
        Ok((backend, inner))
    }

    fn start(&mut self, py: Python<'_>) -> PyResult<Next> {
        let paths: Vec<Bound<'_, PyAny>> = match &self.op {
            Op::Upload { files } => files.iter().map(|(p, _)| p.bind(py).clone()).collect(),
            Op::Download { paths } => paths.iter().map(|p| p.bind(py).clone()).collect(),
            _ => {
                let (call, stage) = self.first_call(py)?;
                self.stage = stage;
                return Ok(call);
            }
        };
        self.group(py, &paths)?;
        self.batch(py, 0, None)
    }

    /// The first call of every operation but upload and download, and the stage its reply
    /// meets.
    fn first_call(&self, py: Python<'_>) -> PyResult<(Next, Stage)> {
        let args = |items: &[&Py<PyAny>]| PyTuple::new(py, items.iter().map(|i| i.bind(py)));
        match &self.op {
            Op::Read {
                path,
                offset,
                limit,
            } => {
                let (backend, inner) = self.key(py, path.bind(py))?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("offset", offset)?;
                kwargs.set_item("limit", limit)?;
                self.then(
                    py,
                    &backend,
                    "read",
                    (&inner,),
                    Some(kwargs),
                    inner.clone(),
                    None,
                )
            }
            Op::Write { path, content } => {
                let (backend, inner) = self.key(py, path.bind(py))?;
                let call_args = PyTuple::new(py, [&inner, content.bind(py)])?;
                self.then(py, &backend, "write", call_args, None, inner, None)
            }
            Op::Edit {
                path,
                old,
                new,
                replace_all,
            } => {
                let (backend, inner) = self.key(py, path.bind(py))?;
                let call_args = PyTuple::new(py, [&inner, old.bind(py), new.bind(py)])?;
                let kwargs = PyDict::new(py);
                kwargs.set_item("replace_all", replace_all)?;
                self.then(py, &backend, "edit", call_args, Some(kwargs), inner, None)
            }
            Op::Delete { path } => {
                let (backend, inner) = self.key(py, path.bind(py))?;
                self.then(py, &backend, "delete", (&inner,), None, inner.clone(), None)
            }
            Op::Execute { command, timeout } => {
                let shell = self.default(py)?;
                if !shell.is_instance(&protocol(py, "SandboxBackendProtocol")?)? {
                    // The execute tool is only offered for shell-capable backends; this
                    // guards direct calls.
                    return Err(PyNotImplementedError::new_err(rules::NO_EXECUTION_ERROR));
                }
                let timeout = timeout.bind(py);
                let kwargs = PyDict::new(py);
                if !timeout.is_none()
                    && protocol(py, "execute_accepts_timeout")?
                        .call1((shell.get_type(),))?
                        .is_truthy()?
                {
                    kwargs.set_item("timeout", timeout)?;
                }
                let none = py.None();
                self.then(
                    py,
                    &shell,
                    "execute",
                    args(&[command])?,
                    Some(kwargs),
                    none.into_bound(py),
                    None,
                )
            }
            Op::Ls { path } => {
                let (backend, inner, prefix) = self.route(py, path.bind(py))?;
                self.then(py, &backend, "ls", (&inner,), None, inner.clone(), prefix)
            }
            Op::Grep {
                path, max_count, ..
            } => {
                let path = path.bind(py);
                if !path.is_none() {
                    let (backend, inner, prefix) = self.route(py, path)?;
                    if prefix.is_some() {
                        let call = self.grep_call(py, &backend, &inner, *max_count)?;
                        let inner = inner.unbind();
                        return Ok((call, Stage::Call { inner, prefix }));
                    }
                }
                let call = self.grep_call(py, &self.default(py)?, path, *max_count)?;
                Ok((call, searched_by_default(path)?))
            }
            Op::Glob { pattern, path } => {
                let path = path.bind(py);
                if !path.is_none() {
                    let (backend, inner, prefix) = self.route(py, path)?;
                    if prefix.is_some() {
                        let call_args = PyTuple::new(py, [pattern.bind(py), &inner])?;
                        return self.then(py, &backend, "glob", call_args, None, inner, prefix);
                    }
                }
                let call_args = args(&[pattern, path.as_unbound()])?;
                let call = self.call(py, &self.default(py)?, "glob", call_args, None)?;
                Ok((call, searched_by_default(path)?))
            }
            Op::Upload { .. } | Op::Download { .. } => Err(PyRuntimeError::new_err(
                "the composite plan batches its files",
            )),
        }
    }

    /// The call of a routed operation, its reply to be finished by `answered`.
    #[allow(clippy::too_many_arguments)]
    fn then<'py>(
        &self,
        py: Python<'py>,
        backend: &Bound<'py, PyAny>,
        method: &str,
        args: impl IntoPyObject<'py, Target = PyTuple>,
        kwargs: Option<Bound<'py, PyDict>>,
        inner: Bound<'py, PyAny>,
        prefix: Option<String>,
    ) -> PyResult<(Next, Stage)> {
        let args = args.into_pyobject(py).map_err(Into::into)?.into_bound();
        let call = self.call(py, backend, method, args, kwargs)?;
        let inner = inner.unbind();
        Ok((call, Stage::Call { inner, prefix }))
    }

    /// `backend.grep(pattern, path, glob, max_count=cap)`; `max_count` is left out for a
    /// backend whose method predates it (the plan caps its reply instead).
    pub(super) fn grep_call<'py>(
        &self,
        py: Python<'py>,
        backend: &Bound<'py, PyAny>,
        path: &Bound<'py, PyAny>,
        cap: Option<isize>,
    ) -> PyResult<Next> {
        let Op::Grep { pattern, glob, .. } = &self.op else {
            return Err(PyRuntimeError::new_err("the composite plan is not a grep"));
        };
        let name = if self.asynchronous { "agrep" } else { "grep" };
        let accepts = protocol(py, "_method_accepts_max_count")?
            .call1((backend.get_type(), name))?
            .is_truthy()?;
        let kwargs = PyDict::new(py);
        if accepts {
            kwargs.set_item("max_count", cap)?;
        }
        let args = PyTuple::new(py, [pattern.bind(py), path, glob.bind(py)])?;
        self.call(py, backend, "grep", args, Some(kwargs))
    }

    /// The reply to the one call of a routed operation.
    fn answered(
        &self,
        py: Python<'_>,
        reply: Bound<'_, PyAny>,
        inner: Py<PyAny>,
        prefix: Option<String>,
    ) -> PyResult<Next> {
        match &self.op {
            Op::Read { .. } | Op::Execute { .. } => done(reply),
            Op::Write { path, .. } => {
                if reply.getattr("path")?.is_none() || inner.bind(py).eq(path.bind(py))? {
                    return done(reply);
                }
                with_path(py, reply, path)
            }
            Op::Edit { path, .. } | Op::Delete { path } => with_path(py, reply, path),
            Op::Ls { path } => {
                let listing = if reply.is_instance(&protocol(py, "LsResult")?)? {
                    reply
                } else {
                    make(py, "LsResult", &[("entries", reply)])?
                };
                if listing.getattr("error")?.is_truthy()? {
                    return done(listing);
                }
                let entries = listing.getattr("entries")?;
                if let Some(prefix) = prefix {
                    let moved = PyList::new(py, prefixed(py, &entries, &prefix)?)?;
                    return done(make(py, "LsResult", &[("entries", moved.into_any())])?);
                }
                if !path.bind(py).eq("/")? {
                    return done(listing);
                }
                // At the root each route shows up as a directory beside the default
                // backend's entries.
                let mut all = items_of(&entries)?;
                let (prefixes, _) = self.sorted_prefixes(py)?;
                for mount in rules::mount_points(&prefixes) {
                    let entry = PyDict::new(py);
                    entry.set_item("path", mount.path)?;
                    entry.set_item("is_dir", true)?;
                    entry.set_item("size", 0)?;
                    entry.set_item("modified_at", "")?;
                    all.push(entry.into_any());
                }
                let sorted = sorted_by_path(py, all)?;
                done(make(py, "LsResult", &[("entries", sorted.into_any())])?)
            }
            Op::Grep { max_count, .. } => {
                let found = capped_grep(py, reply, *max_count)?;
                let Some(prefix) = prefix else {
                    return done(found);
                };
                if found.getattr("error")?.is_truthy()? {
                    return done(found);
                }
                let moved = PyList::new(py, prefixed(py, &found.getattr("matches")?, &prefix)?)?;
                let truncated = found.getattr("truncated")?;
                done(make(
                    py,
                    "GrepResult",
                    &[("matches", moved.into_any()), ("truncated", truncated)],
                )?)
            }
            Op::Glob { .. } => {
                let Some(prefix) = prefix else {
                    // Handed back as the backend returned it, legacy list included.
                    return done(reply);
                };
                if failed_glob(py, &reply)? {
                    return done(reply);
                }
                let (matches, truncated, reason) = glob_parts(py, &reply)?;
                let moved = PyList::new(py, prefixed(py, &matches, &prefix)?)?;
                done(make(
                    py,
                    "GlobResult",
                    &[
                        ("matches", moved.into_any()),
                        ("truncated", truncated),
                        ("truncation_reason", reason),
                    ],
                )?)
            }
            Op::Upload { .. } | Op::Download { .. } => Err(PyRuntimeError::new_err(
                "the composite plan batches its files",
            )),
        }
    }

    fn sorted_prefixes(&self, py: Python<'_>) -> PyResult<(Vec<String>, Vec<Py<PyAny>>)> {
        let mut prefixes = Vec::new();
        let mut backends = Vec::new();
        for pair in self
            .composite
            .bind(py)
            .getattr("sorted_routes")?
            .try_iter()?
        {
            let (prefix, backend): (String, Py<PyAny>) = pair?.extract()?;
            prefixes.push(prefix);
            backends.push(backend);
        }
        Ok((prefixes, backends))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CompositePlan>()
}
