//! Per-run host context: the asyncio loop and contextvars that Python callbacks run with.

use std::any::Any;
use std::borrow::Borrow;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3_async_runtimes::TaskLocals;

use super::errors::HostError;
use super::loop_inbox::{Inbox, LoopInbox};
use crate::tools::HostContext;

/// Whether the run was started by `invoke` (call sync Python APIs from `super::python_calls`) or
/// by `ainvoke` (await the async ones on the caller's loop), as LangGraph chooses.
pub(crate) struct PyHost {
    pub locals: TaskLocals,
    pub is_async: bool,
    /// The caller's run config (`recursion_limit`, `configurable`, tags, metadata), handed
    /// to LangChain tools and compiled subagents as LangGraph hands it.
    pub config: Option<Py<PyAny>>,
    /// The worker slots of the executor sync tools run on (`super::executor`): the loop's
    /// default executor under `ainvoke`, the run's own under `invoke`.
    pub executor: Option<Arc<tokio::sync::Semaphore>>,
    /// See `super::reply_shaper::protocol_events`.
    pub protocol_events: bool,
    /// Where async callbacks are handed to the loop's thread (`super::loop_inbox`).
    pub inbox: Inbox,
}

impl PyHost {
    /// For `invoke`: async tools run on a private loop in a daemon thread, since the calling
    /// thread is blocked in Rust and may itself be inside a running loop.
    pub fn for_sync(py: Python<'_>, config: Option<Py<PyAny>>) -> PyResult<HostContext> {
        static RUNTIME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let background_loop = RUNTIME.import(py, "deepagents_rs._runtime", "background_loop")?;
        // Asked each time: an invoke nested in an async tool needs a loop of its own.
        let event_loop = background_loop.call0()?;
        let locals = TaskLocals::new(event_loop).copy_context(py)?;
        Ok(Some(Arc::new(PyHost {
            inbox: LoopInbox::of(py, &locals)?,
            protocol_events: super::reply_shaper::protocol_events(py, &locals),
            locals,
            is_async: false,
            config,
            executor: Some(super::executor::for_run(py)?),
        })))
    }

    /// For `ainvoke`: callbacks run on the caller's loop with the caller's contextvars.
    pub fn for_async(py: Python<'_>, config: Option<Py<PyAny>>) -> PyResult<HostContext> {
        let locals = pyo3_async_runtimes::tokio::get_current_locals(py)?;
        let executor = Some(super::executor::for_loop(locals.event_loop(py).as_any())?);
        Ok(Some(Arc::new(PyHost {
            inbox: LoopInbox::of(py, &locals)?,
            protocol_events: super::reply_shaper::protocol_events(py, &locals),
            locals,
            is_async: true,
            config,
            executor,
        })))
    }

    /// The config as a call argument (None when there is none).
    pub fn config_arg<'py>(host: Option<&PyHost>, py: Python<'py>) -> Bound<'py, PyAny> {
        host.and_then(|h| h.config.as_ref())
            .map_or_else(|| py.None().into_bound(py), |c| c.bind(py).clone())
    }

    /// The same loop with another config: a resumed subagent's, whose task LangGraph's
    /// `interrupt()` must read. `interrupt()` reads the config from LangChain's context
    /// variable, not from its caller, so a copy of the contextvars holds that config too
    /// (the run's own hold the task that started the run, another subagent's perhaps).
    pub fn with_config(
        host: &HostContext,
        py: Python<'_>,
        config: Py<PyAny>,
    ) -> PyResult<HostContext> {
        let Some(parent) = Self::from_context(host) else {
            return Ok(None);
        };
        let mut locals = parent.locals.clone();
        if !parent.locals.context(py).is_none()
            && let Ok(var) = py
                .import("langchain_core.runnables.config")
                .and_then(|m| m.getattr("var_child_runnable_config"))
        {
            let context = parent.locals.context(py).call_method0("copy")?;
            context.call_method1("run", (var.getattr("set")?, config.bind(py)))?;
            locals = TaskLocals::new(parent.locals.event_loop(py)).with_context(context);
        }
        Ok(Some(Arc::new(PyHost {
            locals,
            is_async: parent.is_async,
            config: Some(config),
            executor: parent.executor.clone(),
            protocol_events: parent.protocol_events,
            inbox: parent.inbox.clone(),
        })))
    }

    /// The same run with the contextvars current on the calling thread (a copy): what a
    /// `wrap_model_call` handler hands on, since LangChain calls the handler inside the
    /// wrapper's context, so a context variable the wrapper sets reaches the model (e.g.
    /// `FireworksPromptCachingMiddleware`'s session affinity).
    pub fn with_current_context(host: &HostContext, py: Python<'_>) -> PyResult<HostContext> {
        let Some(parent) = Self::from_context(host) else {
            return Ok(host.clone());
        };
        if parent.locals.context(py).is_none() {
            return Ok(host.clone());
        }
        let context = py.import("contextvars")?.call_method0("copy_context")?;
        Ok(Some(Arc::new(PyHost {
            locals: TaskLocals::new(parent.locals.event_loop(py)).with_context(context),
            is_async: parent.is_async,
            config: parent.config.as_ref().map(|c| c.clone_ref(py)),
            executor: parent.executor.clone(),
            protocol_events: parent.protocol_events,
            inbox: parent.inbox.clone(),
        })))
    }

    pub fn from_context(host: &HostContext) -> Option<&PyHost> {
        host.as_ref()
            .and_then(|h| (h.as_ref() as &dyn Any).downcast_ref::<PyHost>())
    }
}

/// Awaits the coroutine `make` returns, as a task on the run's loop, made and scheduled on
/// the loop's own thread, its result read there by `convert` when the task is done
/// (`super::loop_inbox`). Dropping the returned future cancels the task, so an abandoned run
/// leaves nothing running behind it.
pub(crate) async fn await_coroutine_then<F, C, T, E>(
    host: &PyHost,
    make: F,
    convert: C,
) -> Result<T, E>
where
    F: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send + 'static,
    C: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    T: Send + 'static,
    E: HostError,
{
    super::loop_inbox::await_on_loop(&host.inbox, &host.locals, make, convert).await
}

/// Calls `method` of `obj` with `args` inside a copy of the run's contextvars, as LangChain
/// runs sync callables in an executor (`copy_context().run(...)`): a copy per call, since
/// one context cannot be entered by two threads at once.
pub(crate) fn call_in_context<'py>(
    py: Python<'py>,
    host: Option<&PyHost>,
    obj: &Bound<'py, PyAny>,
    method: &str,
    args: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let callable = obj.getattr(method)?;
    match host {
        Some(h) if !h.locals.context(py).is_none() => {
            let context = h.locals.context(py).call_method0("copy")?;
            let mut full = Vec::with_capacity(args.len() + 1);
            full.push(callable);
            full.extend(args);
            context.call_method1("run", pyo3::types::PyTuple::new(py, full)?)
        }
        _ => callable.call1(pyo3::types::PyTuple::new(py, args)?),
    }
}

/// Calls `method` of a host adapter as LangGraph runs a callback: its `a`-prefixed
/// coroutine awaited on the run's loop under `ainvoke`, the method itself with the other
/// Python calls (`super::python_calls`, in a copy of the run's contextvars) under `invoke`;
/// never on a tokio worker. `args` makes the arguments with the GIL held, told whether the
/// call is the async one. The adapter may come shared (`Arc<Py<PyAny>>`), so the caller
/// needs no GIL to pass it.
///
/// Its result is read by `convert` with the GIL held off the tokio workers: in
/// the same Python call under `invoke`, on the loop's thread when the coroutine is done
/// under `ainvoke`; its exception made the caller's error (`HostError`) there too.
pub(crate) async fn call_adapter_then<A, F, C, T, E>(
    adapter: A,
    host: HostContext,
    method: &'static str,
    args: F,
    convert: C,
) -> Result<T, E>
where
    A: Borrow<Py<PyAny>> + Send + 'static,
    F: for<'py> FnOnce(Python<'py>, bool) -> PyResult<Vec<Bound<'py, PyAny>>> + Send + 'static,
    C: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    T: Send + 'static,
    E: HostError,
{
    match PyHost::from_context(&host).filter(|h| h.is_async) {
        Some(h) => {
            await_coroutine_then(
                h,
                move |py| {
                    let args = args(py, true)?;
                    adapter
                        .borrow()
                        .bind(py)
                        .call_method1(format!("a{method}"), pyo3::types::PyTuple::new(py, args)?)
                },
                convert,
            )
            .await
        }
        None => super::python_calls::call(move |py| {
            let call = || {
                let args = args(py, false)?;
                let host = PyHost::from_context(&host);
                let adapter = adapter.borrow().bind(py);
                convert(&call_in_context(py, host, adapter, method, args)?)
            };
            call().map_err(|e| E::raised(py, e))
        })
        .await
        .unwrap_or_else(|lost| Err(E::lost(lost.into()))),
    }
}
