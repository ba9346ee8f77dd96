//! The user's `BaseSandbox` subclass as `crate::files::sandbox_ops` drives it. The sync
//! methods call its `execute`/`upload_files` on the caller's thread, as deepagents does (a
//! sandbox client may be bound to its thread). The async ones hand each
//! `aexecute`/`aupload_files` awaitable to the caller's own task (`SandboxTask`, stepped
//! by `backends.sandbox._stepped`), which awaits it and sends the reply back: the
//! operation runs in the caller's task and context, never on a tokio worker.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use pyo3::exceptions::{PyRuntimeError, PyTimeoutError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::files::sandbox_ops::{self as ops, Failed, Ran, Uploaded};

/// Between an async operation and the task stepping it: the awaitable to await next, and
/// what awaiting it gave.
#[derive(Default)]
pub(super) struct Handoff {
    awaitable: Option<Py<PyAny>>,
    reply: Option<PyResult<Py<PyAny>>>,
}

/// The user's sandbox as `sandbox_ops` drives it.
pub(super) struct PyShell {
    sandbox: Arc<Py<PyAny>>,
    /// The caller's `timeout=` for `execute_with_offload`, when its `execute` takes one.
    pub(super) timeout: Option<Arc<Py<PyAny>>>,
    /// The async searches' bound in seconds (`ASYNC_GREP_TIMEOUT`), for `asyncio.wait_for`.
    pub(super) bound: Option<Arc<Py<PyAny>>>,
    /// Set under the async methods; `None` calls the sync primitives.
    pub(super) handoff: Option<Arc<Mutex<Handoff>>>,
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("a sandbox operation panicked")
}

impl PyShell {
    pub(super) fn new(sandbox: &Bound<'_, PyAny>, is_async: bool) -> Self {
        PyShell {
            sandbox: Arc::new(sandbox.clone().unbind()),
            timeout: None,
            bound: None,
            handoff: is_async.then(Default::default),
        }
    }

    /// `method` (sync) or `a<method>` (async) of the sandbox, called with `args`; `bound`
    /// wraps the async call in `asyncio.wait_for`, as deepagents bounds its searches.
    fn call(
        &self,
        method: &'static str,
        args: Args,
        timeout: Option<Arc<Py<PyAny>>>,
        bound: Option<Arc<Py<PyAny>>>,
    ) -> impl Future<Output = PyResult<Py<PyAny>>> + Send + use<> {
        let sandbox = self.sandbox.clone();
        let invoke = move |py: Python<'_>, is_async: bool| -> PyResult<Py<PyAny>> {
            let kwargs = match &timeout {
                Some(t) => {
                    let kwargs = PyDict::new(py);
                    kwargs.set_item("timeout", t.bind(py))?;
                    Some(kwargs)
                }
                None => None,
            };
            let name = method_name(py, method, is_async);
            let (sandbox, arg) = (sandbox.bind(py), args.to_py(py)?);
            let out = match &kwargs {
                Some(kwargs) => sandbox.call_method(name, (arg,), Some(kwargs))?,
                None => super::method_call::call_method(sandbox, &name, &[arg])?,
            };
            Ok(out.unbind())
        };
        let handoff = self.handoff.clone();
        let mut asked = false;
        std::future::poll_fn(move |_| {
            let Some(handoff) = &handoff else {
                return Poll::Ready(super::runtime_threads::attach(|py| invoke(py, false)));
            };
            let Ok(mut slot) = handoff.lock() else {
                return Poll::Ready(Err(poisoned()));
            };
            if asked {
                return slot.reply.take().map_or(Poll::Pending, Poll::Ready);
            }
            asked = true;
            let awaitable = super::runtime_threads::attach(|py| -> PyResult<Py<PyAny>> {
                let coroutine = invoke(py, true)?;
                let Some(seconds) = &bound else {
                    return Ok(coroutine);
                };
                let asyncio = py.import("asyncio")?;
                Ok(asyncio
                    .call_method1("wait_for", (coroutine, seconds.bind(py)))?
                    .unbind())
            });
            match awaitable {
                Ok(awaitable) => {
                    slot.awaitable = Some(awaitable);
                    Poll::Pending
                }
                Err(e) => Poll::Ready(Err(e)),
            }
        })
    }

    fn execute_call(
        &self,
        command: String,
        timeout: Option<Arc<Py<PyAny>>>,
        bound: Option<Arc<Py<PyAny>>>,
    ) -> impl Future<Output = PyResult<Ran<Py<PyAny>>>> + Send + use<> {
        let reply = self.call("execute", Args::Command(command), timeout, bound);
        async move {
            let reply = reply.await?;
            super::runtime_threads::attach(|py| ran(reply.bind(py)))
        }
    }
}

type Operation = Pin<Box<dyn Future<Output = PyResult<Py<PyAny>>> + Send>>;

/// An async operation, stepped by the caller's task: `step` runs it to its next awaitable
/// (`(False, awaitable)`) or to its end (`(True, result)`); the task sends each awaited
/// result (or exception) back with the next `step`.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct SandboxTask {
    op: Mutex<Option<Operation>>,
    handoff: Arc<Mutex<Handoff>>,
    started: AtomicBool,
}

#[pymethods]
impl SandboxTask {
    #[pyo3(signature = (value=None, error=None))]
    fn step(
        &self,
        py: Python<'_>,
        value: Option<Py<PyAny>>,
        error: Option<Bound<'_, PyAny>>,
    ) -> PyResult<(bool, Py<PyAny>)> {
        if self.started.swap(true, Ordering::SeqCst) {
            let reply = match error {
                Some(e) => Err(PyErr::from_value(e)),
                None => Ok(value.unwrap_or_else(|| py.None())),
            };
            self.handoff.lock().map_err(|_| poisoned())?.reply = Some(reply);
        }
        let mut op = self.op.lock().map_err(|_| poisoned())?;
        let Some(fut) = op.as_mut() else {
            return Err(PyRuntimeError::new_err("sandbox task already finished"));
        };
        match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(out) => {
                *op = None;
                out.map(|v| (true, v))
            }
            Poll::Pending => {
                let next = self
                    .handoff
                    .lock()
                    .map_err(|_| poisoned())?
                    .awaitable
                    .take();
                next.map(|a| (false, a))
                    .ok_or_else(|| PyRuntimeError::new_err("sandbox task waits on nothing"))
            }
        }
    }
}

/// The one argument of a primitive: a command, or the `(path, bytes)` pairs to upload.
enum Args {
    Command(String),
    Files(Vec<(String, Vec<u8>)>),
}

impl Args {
    fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Args::Command(command) => Ok(text(py, command)),
            Args::Files(files) => {
                let list = PyList::empty(py);
                for (path, bytes) in files {
                    list.append((path, PyBytes::new(py, bytes)))?;
                }
                Ok(list.into_any())
            }
        }
    }
}

fn ran(reply: &Bound<'_, PyAny>) -> PyResult<Ran<Py<PyAny>>> {
    let py = reply.py();
    Ok(Ran {
        output: reply.getattr(intern!(py, "output"))?.extract()?,
        exit_code: reply.getattr(intern!(py, "exit_code"))?.extract()?,
        truncated: reply.getattr(intern!(py, "truncated"))?.is_truthy()?,
        raw: reply.clone().unbind(),
    })
}

fn uploaded(reply: &Bound<'_, PyAny>) -> PyResult<Uploaded> {
    let mut errors = Vec::new();
    for response in reply.try_iter()? {
        let error = response?.getattr(intern!(reply.py(), "error"))?;
        errors.push(if error.is_truthy()? {
            Some(error.str()?.to_string())
        } else {
            None
        });
    }
    // The reply's type only shows in the message of a reply without responses.
    let kind = if errors.is_empty() {
        reply.get_type().str()?.to_string()
    } else {
        String::new()
    };
    Ok(Uploaded { errors, kind })
}

/// The sandbox method `name` (`execute`, `upload_files` or their `a` twins), interned.
fn method_name<'py>(py: Python<'py>, name: &str, is_async: bool) -> Bound<'py, PyString> {
    match (name, is_async) {
        ("execute", false) => intern!(py, "execute").clone(),
        ("execute", true) => intern!(py, "aexecute").clone(),
        ("upload_files", false) => intern!(py, "upload_files").clone(),
        ("upload_files", true) => intern!(py, "aupload_files").clone(),
        (other, false) => PyString::new(py, other),
        (other, true) => PyString::new(py, &format!("a{other}")),
    }
}

fn logger(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("logging")?
        .call_method1("getLogger", ("deepagents_rs.backends.sandbox",))
}

/// Logs `args` (a format and its values, formatted by `logging`) at `level`.
pub(super) fn log<'py>(py: Python<'py>, level: &str, args: impl pyo3::call::PyCallArgs<'py>) {
    if let Err(e) = logger(py).and_then(|l| l.call_method1(level, args)) {
        e.write_unraisable(py, None);
    }
}

impl ops::Sandbox for PyShell {
    type Raw = Py<PyAny>;
    type Error = PyErr;

    fn execute(
        &self,
        command: String,
        with_timeout: bool,
    ) -> impl Future<Output = PyResult<Ran<Py<PyAny>>>> + Send {
        let timeout = self.timeout.clone().filter(|_| with_timeout);
        self.execute_call(command, timeout, None)
    }

    fn execute_within(
        &self,
        command: String,
    ) -> impl Future<Output = PyResult<Option<Ran<Py<PyAny>>>>> + Send {
        let ran = self.execute_call(command, None, self.bound.clone());
        async move {
            match ran.await {
                Ok(ran) => Ok(Some(ran)),
                Err(e)
                    if super::runtime_threads::attach(|py| {
                        e.is_instance_of::<PyTimeoutError>(py)
                    }) =>
                {
                    Ok(None)
                }
                Err(e) => Err(e),
            }
        }
    }

    fn upload(
        &self,
        files: Vec<(String, Vec<u8>)>,
    ) -> impl Future<Output = PyResult<Uploaded>> + Send {
        let reply = self.call("upload_files", Args::Files(files), None, None);
        async move {
            let reply = reply.await?;
            super::runtime_threads::attach(|py| uploaded(reply.bind(py)))
        }
    }

    fn warn(&self, message: String) {
        super::runtime_threads::attach(|py| log(py, "warning", ("%s", message)));
    }
}

fn raise(failed: Failed<PyErr>) -> PyErr {
    match failed {
        Failed::Sandbox(e) => e,
        Failed::Raised(raised) => super::errors::builtin(&raised),
    }
}

/// Runs `op` and makes its result with `convert`: a `SandboxTask` for the async methods
/// (`handoff` set), else the result itself.
pub(super) fn drive<'py, T, F, C>(
    py: Python<'py>,
    handoff: Option<Arc<Mutex<Handoff>>>,
    op: F,
    convert: C,
) -> PyResult<Bound<'py, PyAny>>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Failed<PyErr>>> + Send + 'static,
    C: for<'a> FnOnce(Python<'a>, T) -> PyResult<Bound<'a, PyAny>> + Send + 'static,
{
    let whole = async move {
        let out = op.await.map_err(raise)?;
        super::runtime_threads::attach(|py| convert(py, out).map(Bound::unbind))
    };
    let Some(handoff) = handoff else {
        // The sync primitives answer when first polled: nothing here ever waits, so one
        // poll on this thread finishes the operation.
        let mut whole = std::pin::pin!(whole);
        return match whole.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(out) => out.map(|v| v.into_bound(py)),
            Poll::Pending => Err(PyRuntimeError::new_err("a sync sandbox call waited")),
        };
    };
    let task = SandboxTask {
        op: Mutex::new(Some(Box::pin(whole))),
        handoff,
        started: AtomicBool::new(false),
    };
    Ok(Bound::new(py, task)?.into_any())
}

/// `s` as a Python `str`.
pub(super) fn text<'py>(py: Python<'py>, s: &str) -> Bound<'py, PyAny> {
    pyo3::types::PyString::new(py, s).into_any()
}
