//! The tokio runtime's threads, told apart: its workers drive every run's steps and must never
//! wait for the GIL (a worker blocked on Python stalls all the runs scheduled on it), while
//! Python is called from the threads of `super::python_calls` (`dars-python`) and, under
//! `ainvoke`, the caller's event loop thread (`super::loop_inbox`).
//!
//! tokio names all its threads alike, and a thread's role can change (`block_in_place` hands
//! the worker's core to another thread), so a thread is marked a worker when it parks or
//! wakes as one (only workers do): its OS name becomes `dars-worker` (the others are
//! `dars-blocking`), and every GIL acquisition of the binding goes through `attach`, which
//! remembers the call site of any made on a worker (`_gil_on_workers`, for tests).

use std::cell::Cell;
use std::collections::BTreeSet;
use std::panic::Location;

use parking_lot::{Condvar, Mutex};
use pyo3::prelude::*;

thread_local! {
    static ON_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Call sites (`file:line`) that took the GIL on a worker thread.
static ON_WORKERS: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The OS name of the calling thread (what `/proc` and profilers show).
fn set_os_name(name: &std::ffi::CStr) {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, name.as_ptr());
    }
    #[cfg(not(target_os = "linux"))]
    let _ = name;
}

/// Called by tokio each time a worker parks or wakes: marks the thread a worker.
fn mark_worker() {
    if !ON_WORKER.with(Cell::get) {
        ON_WORKER.with(|w| w.set(true));
        set_os_name(c"dars-worker");
    }
}

/// The calling worker gives its core away (`block_in_place`): what it runs next is blocking.
pub(crate) fn leave_worker() {
    if ON_WORKER.with(Cell::get) {
        ON_WORKER.with(|w| w.set(false));
        set_os_name(c"dars-blocking");
    }
}

/// The runtime pyo3-async-runtimes builds on first use, with its threads told apart.
pub(crate) fn install() {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .enable_all()
        .thread_name("dars-blocking")
        .on_thread_park(mark_worker)
        .on_thread_unpark(mark_worker);
    pyo3_async_runtimes::tokio::init(builder);
}

/// How many threads of the binding wait for the GIL at once. CPython 3.11's GIL hands itself
/// over through one mutex that every waiter retakes each time its 5 ms wait times out: with
/// a thousand `invoke` runs' tool calls waiting on it, the process spent three quarters of
/// its CPU in futex calls on that mutex (perf, 1,000 threads under `invoke`). The others wait
/// here, in line, one wake-up a turn. Two, so that one is always ready to take the GIL when
/// its holder drops it.
const GIL_WAITERS: usize = 2;

/// How many threads wait for the GIL now (at most `GIL_WAITERS`), and the line of the others.
static GIL_LINE: Mutex<usize> = Mutex::new(0);
static GIL_TURN: Condvar = Condvar::new();

/// A place among the threads waiting for the GIL, given back as soon as the thread has it
/// (never held while Python runs: a thread that holds the GIL and waits for another run,
/// as a nested `invoke` does, holds no place another thread needs).
pub(crate) struct GilWait;

/// A place in the line of GIL waiters for a thread about to retake the GIL itself (without
/// `attach`): drop it once the GIL is held.
pub(crate) fn gil_place() -> GilWait {
    GilWait::take()
}

impl GilWait {
    fn take() -> Self {
        let mut waiting = GIL_LINE.lock();
        while *waiting >= GIL_WAITERS {
            GIL_TURN.wait(&mut waiting);
        }
        *waiting += 1;
        GilWait
    }
}

impl Drop for GilWait {
    fn drop(&mut self) {
        *GIL_LINE.lock() -= 1;
        GIL_TURN.notify_one();
    }
}

unsafe extern "C" {
    /// Whether the calling thread holds the GIL (1; also 1 once sub-interpreters were used,
    /// which only skips the line). CPython has it since 3.4 but leaves it out of the limited
    /// API pyo3's `abi3` declares; the interpreter loading the module exports it.
    fn PyGILState_Check() -> std::ffi::c_int;
}

/// `Python::attach`, noting the caller when it runs on a tokio worker; a thread without the
/// GIL waits its turn to wait for it (`GIL_WAITERS`).
#[track_caller]
pub(crate) fn attach<F, R>(f: F) -> R
where
    F: for<'py> FnOnce(Python<'py>) -> R,
{
    if ON_WORKER.with(Cell::get) {
        let at = Location::caller();
        ON_WORKERS
            .lock()
            .insert(format!("{}:{}", at.file(), at.line()));
    }
    // SAFETY: PyGILState_Check only reads the calling thread's state; the interpreter is
    // initialized (the binding runs inside it).
    if unsafe { PyGILState_Check() } == 1 {
        // Already holding it (a nested call): taking a place could wait on threads that
        // wait for this one's GIL.
        return Python::attach(f);
    }
    // Passed before the line: a thread never waits for the GIL once the interpreter may be
    // finalizing (`super::exit_gate`).
    let _inside = super::exit_gate::enter();
    let place = GilWait::take();
    Python::attach(move |py| {
        drop(place);
        f(py)
    })
}

/// The call sites that took the GIL on a tokio worker thread since the last call (for
/// tests: none should).
#[pyfunction]
pub(crate) fn _gil_on_workers() -> Vec<String> {
    std::mem::take(&mut *ON_WORKERS.lock())
        .into_iter()
        .collect()
}

/// A future's result converted to Python where pyo3-async-runtimes hands it to the loop (on a
/// blocking thread, with the GIL), not on the tokio worker the future finished on.
pub(crate) struct Later<F>(F);

/// `make` runs when the result is handed to the loop.
pub(crate) fn later<F>(make: F) -> Later<F>
where
    F: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send,
{
    Later(make)
}

impl<'py, F> IntoPyObject<'py> for Later<F>
where
    F: FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>,
{
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        (self.0)(py)
    }
}
