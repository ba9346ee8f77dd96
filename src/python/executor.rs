//! Bounds on the sync tool calls of runs running at once (the executor LangGraph runs them on).
//!
//! LangChain runs a sync tool under `ainvoke` with `run_in_executor(None, ...)`: on the
//! loop's default `ThreadPoolExecutor`, at most `min(32, os.cpu_count() + 4)` calls at once,
//! the others waiting their turn; under `invoke` LangGraph makes an executor of that size per
//! run. The bound is kept as LangGraph has it (a tool that waits for another call's tool to
//! start waits alike); the calls themselves run with the other Python calls
//! (`super::python_calls`). One bound per event loop, as the executor is per
//! loop: a run on another loop (a tool's own `asyncio.run`) never waits for this one's calls.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Weak};

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use tokio::sync::Semaphore;

/// The bound of each live loop, by the loop object's address. A run's host holds the loop and
/// its bound, so an address is not reused while its entry is alive.
static LOOPS: LazyLock<Mutex<HashMap<usize, Weak<Semaphore>>>> = LazyLock::new(Mutex::default);

/// The worker slots of `event_loop`'s default executor.
pub(crate) fn for_loop(event_loop: &Bound<'_, PyAny>) -> PyResult<Arc<Semaphore>> {
    let workers = default_workers(event_loop.py())?;
    let key = event_loop.as_ptr() as usize;
    let mut loops = LOOPS.lock();
    if let Some(slots) = loops.get(&key).and_then(Weak::upgrade) {
        return Ok(slots);
    }
    loops.retain(|_, w| w.strong_count() > 0);
    let slots = Arc::new(Semaphore::new(workers));
    loops.insert(key, Arc::downgrade(&slots));
    Ok(slots)
}

/// The worker slots of a run's own executor under `invoke`: LangGraph runs a step's tool
/// calls on an executor it makes per run, of the same default size.
pub(crate) fn for_run(py: Python<'_>) -> PyResult<Arc<Semaphore>> {
    Ok(Arc::new(Semaphore::new(default_workers(py)?)))
}

/// `ThreadPoolExecutor`'s default `max_workers`.
fn default_workers(py: Python<'_>) -> PyResult<usize> {
    static WORKERS: PyOnceLock<usize> = PyOnceLock::new();
    WORKERS
        .get_or_try_init(py, || {
            let cpus: Option<usize> = py.import("os")?.call_method0("cpu_count")?.extract()?;
            Ok::<_, PyErr>(32.min(cpus.unwrap_or(1) + 4))
        })
        .copied()
}
