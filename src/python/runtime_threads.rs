//! The tokio runtime's threads, told apart: its workers drive every run's steps and must never
//! wait for the GIL (a worker blocked on Python stalls all the runs scheduled on it), while its
//! blocking pool (and, under `ainvoke`, the caller's event loop thread: `super::loop_inbox`) is
//! where Python is called from.
//!
//! tokio names all its threads alike, and a thread's role can change (`block_in_place` hands
//! the worker's core to another thread), so a thread is marked a worker when it parks or
//! wakes as one (only workers do): its OS name becomes `dars-worker` (the others are
//! `dars-blocking`), and every GIL acquisition of the binding goes through `attach`, which
//! remembers the call site of any made on a worker (`_gil_on_workers`, for tests).

use std::cell::Cell;
use std::collections::BTreeSet;
use std::panic::Location;

use parking_lot::Mutex;
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

/// `Python::attach`, noting the caller when it runs on a tokio worker.
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
    Python::attach(f)
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
