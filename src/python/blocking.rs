//! A Python thread waiting on the core, without the GIL.
//!
//! Python runs signal handlers only in the main thread, and only when that thread is back in
//! Python: so the main thread waits in short slices and checks for signals between them
//! (Ctrl-C stops a run). Any other thread waits in one go: checking there would find nothing
//! and take the GIL twenty times a second per waiting thread, which with a thousand threads
//! blocked in `invoke` is a GIL convoy that costs more than the runs themselves.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::{Duration, Instant};

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

/// `future`'s output, polled on this thread, which sleeps between polls until the future
/// wakes it; `None` once `limit` has passed (`None`: no limit).
///
/// For a wait on what the core's runtime produces (a stream's next item): the runtime's own
/// `block_on` with a timeout enters the runtime and arms one of its timers at each wait,
/// which wakes one of its workers to reschedule its sleep and again to disarm it, every item
/// of every step: about 0.3 ms a step on the main thread (which waits in slices: see
/// `wait_for`). The item's sender wakes this thread directly instead.
pub(crate) fn park_on<F: Future>(
    mut future: Pin<&mut F>,
    limit: Option<Duration>,
) -> Option<F::Output> {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let deadline = limit.map(|limit| Instant::now() + limit);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
        // (A park may end early: the loop polls again.)
        match deadline {
            None => std::thread::park(),
            Some(deadline) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return None;
                }
                std::thread::park_timeout(left);
            }
        }
    }
}

/// Wakes the thread parked in `park_on`.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}
