//! A Python thread waiting on the core, without the GIL.
//!
//! Python runs signal handlers only in the main thread, and only when that thread is back in
//! Python: so the main thread waits in short slices and checks for signals between them
//! (Ctrl-C stops a run). Any other thread waits in one go: checking there would find nothing
//! and take the GIL twenty times a second per waiting thread, which with a thousand threads
//! blocked in `invoke` is a GIL convoy that costs more than the runs themselves.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::call_timing::{self, Counter};

const SLICE: Duration = Duration::from_millis(50);

fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    // Both kept: every `invoke` and every step of a thread graph's feed waits here, and an
    // import at each call costs a trip through Python's import machinery.
    static MAIN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static CURRENT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let current = CURRENT.import(py, "threading", "current_thread")?;
    let main = MAIN.get_or_try_init(py, || {
        py.import("threading")?
            .call_method0("main_thread")
            .map(Bound::unbind)
    })?;
    Ok(current.call0()?.is(main.bind(py)))
}

/// The value `wait` yields: `wait(Some(limit))` gives up after `limit` (returns `None`),
/// `wait(None)` waits as long as it takes.
pub(crate) fn wait_for<T: Send>(
    py: Python<'_>,
    wait: impl FnMut(Option<Duration>) -> Option<T> + Send,
) -> PyResult<T> {
    // A run waited for from an atexit handler, after the exit gate shut: its threads (and
    // parked ones) go on meanwhile, and leave Python again before the handler goes on.
    let open = super::exit_gate::keep_open();
    let out = wait_here(py, wait);
    if let Some(open) = open {
        open.shut_again(py);
    }
    out
}

fn wait_here<T: Send>(
    py: Python<'_>,
    mut wait: impl FnMut(Option<Duration>) -> Option<T> + Send,
) -> PyResult<T> {
    if !on_main_thread(py)? {
        // The GIL retaken in the binding's line of waiters: a thousand `invoke` callers whose
        // runs end together otherwise all wait on the GIL's own mutex, each waking every
        // switch interval (5 ms) to ask its holder to let go.
        let (value, ended) =
            super::exit_gate::detach_in_line(py, || (wait(None), call_timing::now()));
        call_timing::since(Counter::CallerReattachNs, ended);
        call_timing::add(Counter::CallerReattaches, 1);
        if let Some(value) = value {
            return Ok(value);
        }
    }
    loop {
        if let Some(value) = super::exit_gate::detach(py, || wait(Some(SLICE))) {
            return Ok(value);
        }
        py.check_signals()?;
    }
}
