//! The exit gate: no thread of the core enters Python once the interpreter is shutting down.
//!
//! CPython 3.11 ends a thread that takes the GIL after finalization started with
//! `pthread_exit`, whose forced unwind through Rust frames aborts the process ("FATAL:
//! exception not rethrown", or a `PyGILState_Release` fatal error from a guard dropped on the
//! way); pyo3 has no guard for it before 3.13. Daemon threads looping runs while the main
//! thread returned crashed a loaded machine in 4 runs of 30.
//!
//! So an `atexit` hook (`close`: atexit handlers run after the non-daemon threads were joined
//! and before finalization) shuts the gate, then waits without the GIL until no thread is
//! inside: a thread is inside from the moment it passes the gate to take the GIL (`attach`,
//! the re-attach of `detach`, the entry of a run's blocking call) until it has left Python
//! again. A thread that finds the gate shut parks for good: it never returns into Python, and
//! the process exits around it. A future handed to pyo3-async-runtimes (`gated`) never
//! completes once the gate is shut (its completion takes the GIL on a tokio thread).
//!
//! The thread that shut the gate (the one finalizing) never parks, and while it waits for a
//! run or awaits one of the core's futures the gate is open again (`keep_open`): an atexit
//! handler registered before the package was imported runs after the hook and may still run
//! an agent; the threads of that run, and any parked thread, go on meanwhile.

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;

/// How long `close` waits for the threads inside Python to leave it. They finish the call
/// they are in (a tool, a model callback, a conversion: milliseconds in a run's loop) and park
/// at their next entry; a call longer than this is left running, as before the gate (it may
/// then crash the exit). Short, because deepagents' exit does not wait for daemon threads at
/// all: an exit that waited for any call to end could wait for a long tool.
const DRAIN: Duration = Duration::from_secs(1);

struct Gate {
    /// Set by `close`, with the thread that called it.
    closer: Option<ThreadId>,
    /// How many times the closing thread holds the gate open (`keep_open`).
    held_open: usize,
    /// Threads between passing the gate and leaving Python.
    inside: usize,
}

impl Gate {
    fn shut_for(&self, me: ThreadId) -> bool {
        self.closer.is_some_and(|c| c != me) && self.held_open == 0
    }

    fn is_closer(&self, me: ThreadId) -> bool {
        self.closer == Some(me)
    }
}

static GATE: Mutex<Gate> = Mutex::new(Gate {
    closer: None,
    held_open: 0,
    inside: 0,
});
/// Set with `Gate::closer`: read without the lock by threads that stay inside Python across
/// many calls (`super::python_calls`' drainers), between calls.
static CLOSING: AtomicBool = AtomicBool::new(false);

/// Whether the gate was shut (it may be held open for the closing thread's run): a thread
/// inside Python between two calls then steps out and back in through the gate (`detach`).
pub(crate) fn closing() -> bool {
    CLOSING.load(Ordering::Acquire)
}

/// Woken when a thread leaves (`close` waits for none inside).
static LEFT: Condvar = Condvar::new();
/// Woken when the closing thread holds the gate open (parked threads go on).
static OPENED: Condvar = Condvar::new();

thread_local! {
    /// How many passages of this thread are alive: it counts once in `inside` while any is.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Counts the calling thread inside, first parking while the gate is shut for it.
fn pass(depth: usize) {
    let me = std::thread::current().id();
    let mut gate = GATE.lock();
    while gate.shut_for(me) {
        OPENED.wait(&mut gate);
    }
    gate.inside += 1;
    DEPTH.with(|d| d.set(depth));
}

/// Takes the calling thread out of `inside` (it left Python or is about to wait outside it);
/// returns its depth, to be restored by `pass`.
fn step_out() -> usize {
    let depth = DEPTH.with(|d| d.replace(0));
    if depth > 0 {
        GATE.lock().inside -= 1;
        LEFT.notify_all();
    }
    depth
}

/// A thread's passage into Python: it counts as inside until dropped.
pub(crate) struct Inside(());

impl Drop for Inside {
    fn drop(&mut self) {
        let depth = DEPTH.with(Cell::get);
        if depth > 1 {
            DEPTH.with(|d| d.set(depth - 1));
        } else {
            step_out();
        }
    }
}

/// Passes the gate before taking the GIL (parks for good if it is shut).
pub(crate) fn enter() -> Inside {
    let depth = DEPTH.with(Cell::get);
    if depth > 0 {
        DEPTH.with(|d| d.set(depth + 1));
    } else {
        pass(1);
    }
    Inside(())
}

/// Passes the gate at the start of a call from Python that waits for a run: a thread holding
/// the GIL, so it parks without it when the gate is shut.
pub(crate) fn enter_holding(py: Python<'_>) -> Inside {
    if DEPTH.with(Cell::get) > 0 {
        return enter();
    }
    {
        // Looked at and counted in one go: parking here would hold the GIL.
        let mut gate = GATE.lock();
        if !gate.shut_for(std::thread::current().id()) {
            gate.inside += 1;
            DEPTH.with(|d| d.set(1));
            return Inside(());
        }
    }
    py.detach(enter)
}

/// `py.detach(f)` whose re-attach passes the gate: the thread is not inside while `f` runs
/// (the closing thread does not wait for it), and parks for good before retaking the GIL if
/// the gate shut meanwhile.
pub(crate) fn detach<T, F>(py: Python<'_>, f: F) -> T
where
    F: Send + FnOnce() -> T,
    T: Send,
{
    detach_then(py, f, || ())
}

/// `detach`, the re-attach made in the binding's line of GIL waiters once past the gate
/// (`runtime_threads::gil_place`, as `runtime_threads::attach` waits): for a thread that gave
/// the GIL up for a long wait (an `invoke` caller), so that a thousand of them ending together
/// do not all wait on the GIL's own mutex.
pub(crate) fn detach_in_line<T, F>(py: Python<'_>, f: F) -> T
where
    F: Send + FnOnce() -> T,
    T: Send,
{
    detach_then(py, f, super::runtime_threads::gil_place)
}

/// `detach` with `before_attach` run once past the gate (never before: a thread parked for
/// good there must hold nothing), what it gives kept until the GIL is held again.
fn detach_then<T, F, P>(py: Python<'_>, f: F, before_attach: impl Send + FnOnce() -> P) -> T
where
    F: Send + FnOnce() -> T,
    T: Send,
    P: Send,
{
    let (value, back, kept) = py.detach(move || {
        let depth = step_out();
        let value = f();
        pass(depth.max(1));
        // Counted again for the re-attach; a thread that was not inside before leaves once
        // it holds the GIL again.
        (value, (depth == 0).then(|| Inside(())), before_attach())
    });
    drop(kept);
    drop(back);
    value
}

/// The closing thread holds the gate open while it waits for a run (`None` on any other
/// thread, or before the gate shut).
pub(crate) struct HeldOpen(());

impl Drop for HeldOpen {
    fn drop(&mut self) {
        GATE.lock().held_open -= 1;
    }
}

impl HeldOpen {
    /// Lets the gate shut again and waits for the threads that went on meanwhile to leave.
    pub(crate) fn shut_again(self, py: Python<'_>) {
        drop(self);
        drain(py);
    }
}

pub(crate) fn keep_open() -> Option<HeldOpen> {
    let me = std::thread::current().id();
    let mut gate = GATE.lock();
    if !gate.is_closer(me) {
        return None;
    }
    gate.held_open += 1;
    OPENED.notify_all();
    Some(HeldOpen(()))
}

/// A future's result with its passage: counted inside until pyo3-async-runtimes converted it
/// (with the GIL, on a blocking thread).
pub(crate) struct Gated<T> {
    out: PyResult<T>,
    _inside: Passage,
    _open: Option<HeldOpen>,
}

/// `inside` counted for a value rather than a thread (made on a tokio worker, dropped on the
/// blocking thread that converts it).
struct Passage(());

impl Drop for Passage {
    fn drop(&mut self) {
        GATE.lock().inside -= 1;
        LEFT.notify_all();
    }
}

/// `fut` for pyo3-async-runtimes: once the gate is shut it never completes (completing takes
/// the GIL); made by the closing thread, it holds the gate open until its result is handed
/// over.
pub(crate) fn gated<T, F>(fut: F) -> impl Future<Output = PyResult<Gated<T>>> + Send + 'static
where
    F: Future<Output = PyResult<T>> + Send + 'static,
    T: Send + 'static,
{
    let open = keep_open();
    async move {
        let out = fut.await;
        let passage = {
            let mut gate = GATE.lock();
            let shut = gate.closer.is_some() && gate.held_open == 0;
            if !shut {
                gate.inside += 1;
            }
            (!shut).then(|| Passage(()))
        };
        match passage {
            Some(passage) => Ok(Gated {
                out,
                _inside: passage,
                _open: open,
            }),
            None => std::future::pending().await,
        }
    }
}

impl<'py, T> IntoPyObject<'py> for Gated<T>
where
    T: IntoPyObject<'py>,
{
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.out?.into_bound_py_any(py)
    }
}

/// The `atexit` hook: shuts the gate and waits (without the GIL, at most `DRAIN`) for the
/// threads inside Python to leave it.
#[pyfunction]
pub(crate) fn _close_exit_gate(py: Python<'_>) {
    let me = std::thread::current().id();
    GATE.lock().closer = Some(me);
    CLOSING.store(true, Ordering::Release);
    drain(py);
}

/// Waits without the GIL (at most `DRAIN`) for no other thread inside Python, unless the
/// gate is held open (a run of the closing thread's is still going).
fn drain(py: Python<'_>) {
    // The closing thread itself counts when it drains from inside a run's call.
    let mine = usize::from(DEPTH.with(Cell::get) > 0);
    py.detach(|| {
        let until = Instant::now() + DRAIN;
        let mut gate = GATE.lock();
        while gate.inside > mine
            && gate.held_open == 0
            && !LEFT.wait_until(&mut gate, until).timed_out()
        {}
    });
}
