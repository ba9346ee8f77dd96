//! File backends written in Python (deepagents' `BackendProtocol` objects: a
//! `FilesystemBackend`, a `CompositeBackend`, the user's own), called back from the core's
//! file tools through `deepagents_rs._backend_adapter.BackendAdapter`; and the
//! `FilesystemMiddleware` entry built from the configuration the Python side assembled.

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::errors::Raised;
use super::host::{PyHost, await_coroutine_then, call_in_context};
use crate::error::BoxError;
use crate::files::backend::*;
use crate::files::permissions::{Mode, Permission, Rules};
use crate::files::{Backend, StateBackend};
use crate::middleware::filesystem::{Filesystem, FilesystemConfig};

pub(crate) struct PyBackend {
    adapter: Arc<Py<PyAny>>,
    uses_state: bool,
    touches_disk: bool,
    supports_delete: bool,
    supports_execution: bool,
    execute_accepts_timeout: bool,
    route_prompt: String,
}

impl PyBackend {
    fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyBackend {
            uses_state: adapter.getattr("uses_state")?.extract()?,
            touches_disk: adapter.getattr("touches_disk")?.extract()?,
            supports_delete: adapter.getattr("supports_delete")?.extract()?,
            supports_execution: adapter.getattr("supports_execution")?.extract()?,
            execute_accepts_timeout: adapter.getattr("execute_accepts_timeout")?.extract()?,
            route_prompt: adapter.getattr("route_prompt")?.extract()?,
            adapter: Arc::new(adapter.clone().unbind()),
        })
    }

    /// One operation: `adapter.acall(...)` awaited on the run's loop under `ainvoke`,
    /// `adapter.call(...)` with the other Python calls (`super::python_calls`) under `invoke`, as LangGraph runs a tool.
    fn op<T: DeserializeOwned + Send + 'static>(
        &self,
        cx: Arc<FilesScope>,
        op: &'static str,
        args: Value,
    ) -> Op<T> {
        let adapter = self.adapter.clone();
        let files = self.uses_state.then(|| cx.current_with_host());
        Box::pin(async move {
            let host = PyHost::from_context(&cx.host);
            let (value, update) = match host {
                Some(h) if h.is_async => {
                    let run_host = cx.host.clone();
                    await_coroutine_then(
                        h,
                        move |py| {
                            let host = PyHost::from_context(&run_host);
                            let args = op_args(py, op, &args, &files, host)?;
                            adapter
                                .bind(py)
                                .call_method1("acall", pyo3::types::PyTuple::new(py, args)?)
                        },
                        op_result,
                    )
                    .await
                }
                _ => {
                    let run_host = cx.host.clone();
                    super::python_calls::call(move |py| {
                        let call = || {
                            let host = PyHost::from_context(&run_host);
                            let args = op_args(py, op, &args, &files, host)?;
                            op_result(&call_in_context(py, host, adapter.bind(py), "call", args)?)
                        };
                        call().map_err(|e| Raised::new(py, e))
                    })
                    .await
                    .map_err(|e| Box::new(e) as BoxError)?
                }
            }
            // Told apart where it was raised (`Raised`): a composite asks a route's
            // `delete` whether it is unsupported on a tokio worker.
            .map_err(|e: Raised| Box::new(e) as BoxError)?;
            if let Some(update) = update {
                cx.send(update);
            }
            Ok(value)
        })
    }
}

/// An operation's result and the files it changed in state, read where the call was made.
fn op_result<T: DeserializeOwned>(
    result: &Bound<'_, PyAny>,
) -> PyResult<(T, Option<crate::state::FilesWrite>)> {
    let (value, update): (Bound<'_, PyAny>, Bound<'_, PyAny>) = result.extract()?;
    let update = if update.is_none() {
        None
    } else {
        Some(super::convert::file_map_from_py(&update)?)
    };
    Ok((super::value::view_from_py(&value)?, update))
}

/// The adapter's arguments: the operation, its arguments, the run's files for a backend that
/// keeps them in state, and the run config (its LangGraph runtime carries the run's context,
/// for a `StoreBackend` namespace that reads it).
fn op_args<'py>(
    py: Python<'py>,
    op: &str,
    args: &Value,
    files: &Option<crate::state::FilesSnapshot>,
    host: Option<&PyHost>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    Ok(vec![
        op.into_pyobject(py)?.into_any(),
        pythonize::pythonize(py, args)?,
        match files {
            Some((f, files_host)) => super::convert::file_map_to_py(py, f, files_host)?,
            None => py.None().into_bound(py),
        },
        PyHost::config_arg(host, py),
    ])
}

impl Backend for PyBackend {
    fn ls(&self, cx: Arc<FilesScope>, path: String) -> Op<LsResult> {
        self.op(cx, "ls", json!({"path": path}))
    }
    fn read(&self, cx: Arc<FilesScope>, path: String, offset: i64, limit: i64) -> Op<ReadResult> {
        self.op(
            cx,
            "read",
            json!({"file_path": path, "offset": offset, "limit": limit}),
        )
    }
    fn write(&self, cx: Arc<FilesScope>, path: String, content: String) -> Op<WriteResult> {
        self.op(cx, "write", json!({"file_path": path, "content": content}))
    }
    fn edit(
        &self,
        cx: Arc<FilesScope>,
        path: String,
        old: String,
        new: String,
        replace_all: bool,
    ) -> Op<EditResult> {
        self.op(
            cx,
            "edit",
            json!({"file_path": path, "old_string": old, "new_string": new, "replace_all": replace_all}),
        )
    }
    fn delete(&self, cx: Arc<FilesScope>, path: String) -> Op<DeleteResult> {
        self.op(cx, "delete", json!({"file_path": path}))
    }
    fn glob(&self, cx: Arc<FilesScope>, pattern: String, path: Option<String>) -> Op<GlobResult> {
        self.op(cx, "glob", json!({"pattern": pattern, "path": path}))
    }
    fn download_text(&self, cx: Arc<FilesScope>, paths: Vec<String>) -> Op<Vec<TextDownload>> {
        self.op(cx, "download_files", json!({"paths": paths}))
    }
    fn upload_blobs(
        &self,
        cx: Arc<FilesScope>,
        files: Vec<(String, String)>,
    ) -> Op<Option<Vec<Option<String>>>> {
        self.op(cx, "upload_blobs", json!({ "files": files }))
    }
    fn download_blobs(
        &self,
        cx: Arc<FilesScope>,
        paths: Vec<String>,
    ) -> Op<Option<Vec<Option<String>>>> {
        self.op(cx, "download_blobs", json!({ "paths": paths }))
    }
    fn grep(
        &self,
        cx: Arc<FilesScope>,
        pattern: String,
        path: Option<String>,
        glob: Option<String>,
        max_count: Option<usize>,
    ) -> Op<GrepResult> {
        self.op(
            cx,
            "grep",
            json!({"pattern": pattern, "path": path, "glob": glob, "max_count": max_count}),
        )
    }
    fn execute(
        &self,
        cx: Arc<FilesScope>,
        command: String,
        timeout: Option<i64>,
        capture: Option<Capture>,
    ) -> Op<ExecuteResponse> {
        let (path, max_inline) =
            capture.map_or((None, None), |c| (Some(c.path), Some(c.max_inline_bytes)));
        self.op(
            cx,
            "execute",
            json!({
                "command": command,
                "timeout": timeout,
                "capture_path": path,
                "max_inline_bytes": max_inline,
            }),
        )
    }
    fn supports_delete(&self) -> bool {
        self.supports_delete
    }
    fn supports_execution(&self) -> bool {
        self.supports_execution
    }
    fn execute_accepts_timeout(&self) -> bool {
        self.execute_accepts_timeout
    }
    fn route_prompt(&self) -> String {
        self.route_prompt.clone()
    }
    /// Only a backend with a disk under it resolves paths; asking Python is a short call
    /// made while the tool runs, so the worker thread is told it may block.
    fn real_path(&self, path: &str) -> Result<String, String> {
        if !self.touches_disk {
            return Ok(path.to_owned());
        }
        let call = || {
            super::runtime_threads::attach(|py| {
                self.adapter
                    .bind(py)
                    .call_method1("real_path", (path,))
                    .and_then(|r| r.extract::<String>())
                    .map_err(|e| e.to_string())
            })
        };
        match tokio::runtime::Handle::try_current() {
            Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| {
                    super::runtime_threads::leave_worker();
                    call()
                })
            }
            _ => call(),
        }
    }
}

/// A backend as the Python side hands it: `"state"` for the native `StateBackend`, a
/// `("composite", ...)` tuple for a `CompositeBackend` routed in the core, else a
/// `BackendAdapter`.
pub(crate) fn backend_from_py(backend: &Bound<'_, PyAny>) -> PyResult<Arc<dyn Backend>> {
    backend_from_py_memo(backend, &mut Vec::new())
}

/// One core backend per Python object: a backend serving several routes stays one backend
/// (the composite batches its uploads and downloads per backend).
fn backend_from_py_memo(
    backend: &Bound<'_, PyAny>,
    memo: &mut Vec<(usize, Arc<dyn Backend>)>,
) -> PyResult<Arc<dyn Backend>> {
    let key = backend.as_ptr() as usize;
    if let Some((_, b)) = memo.iter().find(|(k, _)| *k == key) {
        return Ok(b.clone());
    }
    let built: Arc<dyn Backend> = match backend.extract::<String>() {
        Ok(s) if s == "state" => Arc::new(StateBackend),
        _ if backend.is_instance_of::<pyo3::types::PyTuple>() => composite_from_py(backend, memo)?,
        _ => Arc::new(PyBackend::new(backend)?),
    };
    memo.push((key, built.clone()));
    Ok(built)
}

/// `("composite", default, [(prefix, backend)] longest first, [(prefix, backend)] as given,
/// supports_execution, execute_accepts_timeout, route_prompt)`.
fn composite_from_py(
    spec: &Bound<'_, PyAny>,
    memo: &mut Vec<(usize, Arc<dyn Backend>)>,
) -> PyResult<Arc<dyn Backend>> {
    use crate::files::composite::{Composite, Route};
    type Routes<'py> = Vec<(String, Bound<'py, PyAny>)>;
    let (_tag, default, sorted, given, supports_execution, execute_accepts_timeout, route_prompt): (
        String,
        Bound<'_, PyAny>,
        Routes<'_>,
        Routes<'_>,
        bool,
        bool,
        String,
    ) = spec.extract()?;
    let mut routes = |list: Routes<'_>| -> PyResult<Vec<Route>> {
        list.into_iter()
            .map(|(prefix, b)| {
                Ok(Route {
                    prefix,
                    backend: backend_from_py_memo(&b, memo)?,
                })
            })
            .collect()
    };
    let sorted = routes(sorted)?;
    let given = routes(given)?;
    Ok(Arc::new(Composite {
        default: backend_from_py_memo(&default, memo)?,
        sorted,
        given,
        delete_unsupported: raised_not_implemented,
        supports_execution,
        execute_accepts_timeout,
        route_prompt,
    }))
}

/// Whether a backend call failed with Python's `NotImplementedError`: told where it was
/// raised (`PyBackend::op`), read here on a tokio worker without the GIL.
fn raised_not_implemented(e: &BoxError) -> bool {
    e.downcast_ref::<Raised>()
        .is_some_and(|e| e.not_implemented)
}

/// The `FilesystemMiddleware` entry from `deepagents_rs._backend_adapter.fs_config(...)`.
pub(crate) fn filesystem_from_py(config: &Bound<'_, PyAny>) -> PyResult<Filesystem> {
    let config = config.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        config
            .get_item(key)?
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.to_owned()))
    };
    let backend = backend_from_py(&get("backend")?)?;
    let rules = rules_from_py(get("rules")?.extract()?);
    let custom_descriptions: HashMap<String, String> = get("custom_descriptions")?.extract()?;
    Filesystem::new(FilesystemConfig {
        backend,
        rules,
        custom_descriptions,
        system_prompt: get("system_prompt")?.extract()?,
        token_limit: get("token_limit")?.extract()?,
        grep_max_count: get("grep_max_count")?.extract()?,
        max_execute_timeout: get("max_execute_timeout")?.extract()?,
        enabled: get("enabled")?.extract()?,
        large_tool_results_prefix: get("large_tool_results_prefix")?.extract()?,
        human_message_token_limit: get("human_message_token_limit")?.extract()?,
        conversation_history_prefix: get("conversation_history_prefix")?.extract()?,
        blobs_prefix: get("blobs_prefix")?.extract()?,
        video: match get("video")?.is_truthy()? {
            true => Some(Arc::new(super::video::PyFrames::new(config.py())?) as _),
            false => None,
        },
        glob_timeout: Some(Arc::new(read_glob_timeout)),
    })
    .map_err(super::errors::to_py)
}

/// `deepagents_rs.middleware.filesystem.GLOB_TIMEOUT` as `glob` reads it at each call (a
/// test or a caller may have changed it): its seconds and its `str`. A value that is no
/// number keeps the default.
/// Read on the core's Python threads, not on the tokio worker running `glob`.
fn read_glob_timeout() -> futures::future::BoxFuture<'static, (f64, String)> {
    let default = || {
        (
            crate::middleware::filesystem::texts::GLOB_TIMEOUT_SECS,
            "10.0".to_owned(),
        )
    };
    Box::pin(async move {
        super::python_calls::call(|py| {
            let value = py
                .import("deepagents_rs.middleware.filesystem")?
                .getattr("GLOB_TIMEOUT")?;
            Ok::<_, PyErr>((value.extract::<f64>()?, value.str()?.to_string()))
        })
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_else(default)
    })
}

/// `FilesystemPermission` rules as `(operations, paths, mode)` tuples.
pub(crate) fn rules_from_py(rules: Vec<(Vec<String>, Vec<String>, String)>) -> Rules {
    Rules(
        rules
            .into_iter()
            .map(|(operations, paths, mode)| Permission {
                operations,
                paths,
                mode: match mode.as_str() {
                    "deny" => Mode::Deny,
                    "interrupt" => Mode::Interrupt,
                    _ => Mode::Allow,
                },
            })
            .collect(),
    )
}
