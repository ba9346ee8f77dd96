//! Async Python callbacks handed to their event loop's own thread, without the GIL.
//!
//! Under `ainvoke` a callback is a coroutine awaited on the caller's loop. Making it (its
//! arguments converted to Python), scheduling it (`call_soon_threadsafe`) and reading its
//! result all need the GIL; done on the tokio worker that awaits it, the worker waits for
//! the GIL while the loop's thread runs Python, stalling every run scheduled on it. Instead
//! a worker pushes the whole call into the loop's inbox (a queue and a pipe the loop
//! watches with `add_reader`): no GIL, a lock and at most one byte written. The loop's
//! thread, which holds the GIL anyway, drains the inbox, makes each coroutine, creates its
//! task, and when the task is done reads its result into Rust in the task's done callback,
//! so one call takes the GIL nowhere else. A batch of calls made while the loop was busy
//! costs one wake-up.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3_async_runtimes::TaskLocals;
use tokio::sync::oneshot;

use super::call_timing::{self, Counter};
use super::collector_pause::DrainPause;
use super::errors::HostError;

/// Work for the loop's thread, run with the GIL it holds.
type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// A `loop_future`'s result, made with the collector paused across every result of the drain
/// (objects only; Python code in it goes through `collector_pause::as_left`).
type Make = Box<dyn for<'py> FnOnce(Python<'py>) -> PyResult<Py<PyAny>> + Send>;

/// A made result and the future it is set on (Python code: done callbacks scheduled).
struct SetResult {
    future: Py<PyAny>,
    value: PyResult<Py<PyAny>>,
}

/// One entry of the inbox.
enum Entry {
    Run(Job),
    Settle { future: Py<PyAny>, make: Make },
}

/// How a worker wakes the loop once jobs wait.
enum Wake {
    /// The write end of a pipe the loop reads (`add_reader`): no GIL needed.
    #[cfg(unix)]
    Pipe {
        read: libc::c_int,
        write: libc::c_int,
    },
    /// Loops that watch no file descriptors (Windows' proactor): `call_soon_threadsafe`,
    /// which needs the GIL.
    #[cfg_attr(unix, allow(dead_code))]
    Call(Py<PyAny>),
}

struct Shared {
    /// Each job with the time it was pushed.
    jobs: Mutex<Vec<(Option<Instant>, Entry)>>,
    /// A wake-up is on its way: later pushes need not send another.
    pending: AtomicBool,
    wake: Wake,
}

impl Drop for Shared {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Wake::Pipe { read, write } = self.wake {
            // SAFETY: both ends were opened by `LoopInbox::new` and are closed only here.
            unsafe {
                libc::close(read);
                libc::close(write);
            }
        }
    }
}

impl Shared {
    fn push(self: &Arc<Self>, job: Job) {
        self.push_entry(Entry::Run(job));
    }

    fn push_entry(self: &Arc<Self>, entry: Entry) {
        self.jobs.lock().push((call_timing::now(), entry));
        if self.pending.swap(true, Ordering::AcqRel) {
            return;
        }
        match &self.wake {
            #[cfg(unix)]
            Wake::Pipe { write, .. } => {
                // SAFETY: writes one byte from a live buffer to the inbox's own pipe. A full
                // pipe (EAGAIN) already wakes the loop, so the result needs no check.
                unsafe {
                    libc::write(*write, [1u8].as_ptr().cast(), 1);
                }
            }
            Wake::Call(call_soon) => {
                let inbox = LoopInbox {
                    shared: self.clone(),
                };
                super::runtime_threads::attach(|py| {
                    let drained = Bound::new(py, inbox)
                        .and_then(|i| i.getattr("drain"))
                        .and_then(|drain| call_soon.bind(py).call1((drain,)));
                    if let Err(e) = drained {
                        e.write_unraisable(py, None);
                    }
                });
            }
        }
    }
}

/// A drain's entry once its results are made.
enum Step {
    Run(Job),
    Set(SetResult),
}

/// One event loop's inbox (`_runtime.loop_inbox` keeps one per loop).
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct LoopInbox {
    shared: Arc<Shared>,
}

#[pymethods]
impl LoopInbox {
    /// Registers the inbox with `event_loop`: its thread drains it when woken.
    #[new]
    fn new(py: Python<'_>, event_loop: &Bound<'_, PyAny>) -> PyResult<Py<Self>> {
        #[cfg(unix)]
        let wake = {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: `pipe2` fills the two-element array on success.
            if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } != 0 {
                return Err(std::io::Error::last_os_error().into());
            }
            Wake::Pipe {
                read: fds[0],
                write: fds[1],
            }
        };
        #[cfg(not(unix))]
        let wake = Wake::Call(event_loop.getattr("call_soon_threadsafe")?.unbind());
        let inbox = Py::new(
            py,
            LoopInbox {
                shared: Arc::new(Shared {
                    jobs: Mutex::new(Vec::new()),
                    pending: AtomicBool::new(false),
                    wake,
                }),
            },
        )?;
        #[cfg(unix)]
        if let Wake::Pipe { read, .. } = inbox.borrow(py).shared.wake {
            // `add_reader` belongs to the loop's thread; the caller may be another.
            event_loop.call_method1(
                "call_soon_threadsafe",
                (
                    event_loop.getattr("add_reader")?,
                    read,
                    inbox.bind(py).getattr("drain")?,
                ),
            )?;
        }
        Ok(inbox)
    }

    /// Runs every waiting job (on the loop's thread).
    fn drain(&self, py: Python<'_>) {
        // The jobs run Python under this call: the exit waits for them (`super::exit_gate`).
        let _inside = super::exit_gate::enter_holding(py);
        #[cfg(unix)]
        if let Wake::Pipe { read, .. } = self.shared.wake {
            let mut buf = [0u8; 256];
            // SAFETY: reads into a live buffer of its length; the pipe is non-blocking.
            while unsafe { libc::read(read, buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
        }
        // Cleared before taking the jobs: a push after the take wakes the loop again.
        self.shared.pending.store(false, Ordering::Release);
        let jobs = std::mem::take(&mut *self.shared.jobs.lock());
        let start = call_timing::now();
        call_timing::add(Counter::InboxDrains, 1);
        call_timing::add(Counter::InboxJobs, jobs.len() as u64);
        // Every result first, with the collector paused (made objects only: walked once by the
        // first young collection after, not by one pass or more each), then in the order
        // pushed the jobs and the futures' settings, which run Python code with the collector
        // as the user left it, as before.
        // A future done already (cancelled meanwhile) takes no result: none is made, and its
        // outcome is let go here (a finalizer may run), before the pause.
        let jobs: Vec<_> = jobs
            .into_iter()
            .filter_map(|(pushed, entry)| {
                call_timing::between(Counter::InboxQueuedNs, pushed, start);
                match entry {
                    Entry::Settle { future, make } if !still_open(py, &future) => {
                        drop(make);
                        None
                    }
                    entry => Some(entry),
                }
            })
            .collect();
        let mut steps = Vec::with_capacity(jobs.len());
        {
            let mut pause = None;
            for entry in jobs {
                steps.push(match entry {
                    Entry::Run(job) => Step::Run(job),
                    Entry::Settle { future, make } => {
                        pause.get_or_insert_with(|| DrainPause::start(py));
                        Step::Set(SetResult {
                            value: make(py),
                            future,
                        })
                    }
                });
            }
        }
        for step in steps {
            match step {
                Step::Run(job) => job(py),
                Step::Set(set) => set_result(py, set),
            }
        }
        call_timing::since(Counter::InboxJobNs, start);
    }
}

impl LoopInbox {
    /// The inbox of the loop `locals` runs on.
    pub(crate) fn of(py: Python<'_>, locals: &TaskLocals) -> PyResult<Inbox> {
        // Looked up once: an import at each run (every invoke asks) cost ~11K instructions.
        static LOOP_INBOX: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let loop_inbox = LOOP_INBOX.import(py, "deepagents_rs._runtime", "loop_inbox")?;
        let inbox = loop_inbox.call1((locals.event_loop(py),))?;
        Ok(Inbox(inbox.cast::<LoopInbox>()?.borrow().shared.clone()))
    }
}

/// A handle on one loop's inbox, held by a run (no GIL needed to use it).
#[derive(Clone)]
pub(crate) struct Inbox(Arc<Shared>);

/// The task a call made, for cancelling it when its awaiter goes away.
#[derive(Default)]
struct TaskSlot {
    task: Mutex<Option<Py<PyAny>>>,
    abandoned: AtomicBool,
}

/// Cancels the call's task when dropped before its result came (the caller's `ainvoke` was
/// cancelled): the cancellation goes through the inbox too, after the job that made it.
struct CancelOnDrop {
    slot: Option<Arc<TaskSlot>>,
    inbox: Inbox,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(slot) = self.slot.take() else {
            return;
        };
        slot.abandoned.store(true, Ordering::Release);
        self.inbox.0.push(Box::new(move |py| {
            if let Some(task) = slot.task.lock().take()
                && let Err(e) = task.call_method0(py, "cancel")
            {
                e.write_unraisable(py, None);
            }
        }));
    }
}

/// What a finished task's result is handed to.
type Done = Box<dyn for<'py> FnOnce(&Bound<'py, PyAny>) + Send>;

/// A task's done callback: reads the result and hands it to the awaiting future.
#[pyclass]
struct OnDone(Mutex<Option<Done>>);

#[pymethods]
impl OnDone {
    fn __call__(&self, task: &Bound<'_, PyAny>) {
        let _inside = super::exit_gate::enter_holding(task.py());
        if let Some(done) = self.0.lock().take() {
            done(task);
        }
    }
}

/// Makes the coroutine, right before it is scheduled (an error leaves none never awaited),
/// and its task in a copy of the run's contextvars, as `asyncio.ensure_future` called in
/// them would.
fn start_task<'py, M>(py: Python<'py>, locals: &TaskLocals, make: M) -> PyResult<Bound<'py, PyAny>>
where
    M: FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>,
{
    let coro = make(py)?;
    let context = locals.context(py);
    let kwargs = pyo3::types::PyDict::new(py);
    if !context.is_none() {
        kwargs.set_item("context", context.call_method0("copy")?)?;
    }
    locals
        .event_loop(py)
        .call_method("create_task", (coro,), Some(&kwargs))
}

/// Awaits the coroutine `make` returns as a task on the loop of `locals`, its result read by
/// `convert`: both run on the loop's thread, so the awaiting tokio worker never takes the
/// GIL. An exception is made the awaiter's error there too (`HostError::raised`: a `Raised`
/// is told apart holding the GIL). Dropping the returned future cancels the task.
pub(crate) async fn await_on_loop<M, C, T, E>(
    inbox: &Inbox,
    locals: &TaskLocals,
    make: M,
    convert: C,
) -> Result<T, E>
where
    M: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send + 'static,
    C: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    T: Send + 'static,
    E: HostError,
{
    let (tx, rx) = oneshot::channel::<Result<T, E>>();
    let slot = Arc::new(TaskSlot::default());
    let mut guard = CancelOnDrop {
        slot: Some(slot.clone()),
        inbox: inbox.clone(),
    };
    let locals = locals.clone();
    inbox.0.push(Box::new(move |py| {
        if slot.abandoned.load(Ordering::Acquire) {
            return;
        }
        let task = match start_task(py, &locals, make) {
            Ok(task) => task,
            Err(e) => {
                let _ = tx.send(Err(E::raised(py, e)));
                return;
            }
        };
        *slot.task.lock() = Some(task.clone().unbind());
        let done = OnDone(Mutex::new(Some(Box::new(
            move |task: &Bound<'_, PyAny>| {
                slot.task.lock().take();
                let out = task.call_method0("result").and_then(|r| convert(&r));
                // The awaiter may be gone (cancelled): nobody to tell.
                let _ = tx.send(out.map_err(|e| E::raised(task.py(), e)));
            },
        ))));
        if let Err(e) = task.call_method1("add_done_callback", (done,)) {
            // Unobserved otherwise; the awaiter hears of a cancellation.
            e.write_unraisable(py, None);
            let _ = task.call_method0("cancel");
        }
    }));
    let out = rx.await;
    guard.slot = None;
    out.unwrap_or_else(|_| {
        Err(E::lost(pyo3::exceptions::asyncio::CancelledError::new_err(
            "the event loop dropped the call",
        )))
    })
}

/// Runs `f` with the GIL on the loop's own thread (no coroutine: a plain call the loop makes
/// between its tasks, as a callback of it would) and hands back its result; never on the
/// awaiting tokio worker. `Lost` when the loop dropped the job unrun.
pub(crate) async fn run_on_loop<R, F>(inbox: &Inbox, f: F) -> Result<R, super::python_calls::Lost>
where
    F: for<'py> FnOnce(Python<'py>) -> R + Send + 'static,
    R: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    inbox.0.push(Box::new(move |py| {
        // The awaiter may be gone (its run was dropped): nobody to tell.
        let _ = tx.send(f(py));
    }));
    rx.await.map_err(|_| super::python_calls::Lost)
}

/// What settles a `loop_future`: its run's outcome made the future's result (or exception),
/// with the GIL, on the loop's thread.
type Settle<T> = Box<dyn for<'py> FnOnce(Python<'py>, T) -> PyResult<Py<PyAny>> + Send>;

/// An asyncio future on `event_loop` (whose inbox is `inbox`) that `run`, spawned on tokio,
/// resolves: its outcome is handed to the loop's thread, where `settle` makes the result and
/// sets it on the future in the same drain. `future_into_py` did that with three holders of
/// the GIL in a row: the conversion with the other Python calls, then a blocking thread taking
/// the GIL only to schedule `set_result` with `call_soon_threadsafe` (a self-pipe write), then
/// the loop; the loop's thread, which resumes the awaiting coroutine anyway, now does all of
/// it, and a thousand runs ending together cost a few wake-ups of it, not a thousand hand-offs
/// of the GIL. Cancelling the future drops `run`, as `future_into_py`'s did.
pub(crate) fn loop_future<'py, F, T>(
    py: Python<'py>,
    inbox: &Inbox,
    event_loop: &Bound<'py, PyAny>,
    run: F,
    settle: Settle<T>,
) -> PyResult<Bound<'py, PyAny>>
where
    F: std::future::Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let future = event_loop.call_method0(pyo3::intern!(py, "create_future"))?;
    let (cancel_tx, cancel_rx) = oneshot::channel::<()>();
    future.call_method1(
        pyo3::intern!(py, "add_done_callback"),
        (OnCancel(Mutex::new(Some(cancel_tx))),),
    )?;
    let target = future.clone().unbind();
    let inbox = inbox.clone();
    // The closing thread awaiting a run at exit keeps the gate open until it has the result
    // (`super::exit_gate`), as `exit_gate::gated` did for `future_into_py`.
    let open = super::exit_gate::keep_open();
    pyo3_async_runtimes::tokio::get_runtime().spawn(async move {
        // A dropped sender (the future settled, or never cancelled) cancels nothing.
        let cancelled = async move {
            if cancel_rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let out =
            match futures::future::select(std::pin::pin!(cancelled), std::pin::pin!(run)).await {
                futures::future::Either::Left(_) => return,
                futures::future::Either::Right((out, _)) => out,
            };
        inbox.0.push_entry(Entry::Settle {
            future: target,
            make: Box::new(move |py| {
                let _open = open;
                settle(py, out)
            }),
        });
    });
    Ok(future)
}

/// Whether `future` still takes a result (an error checking is reported, and it takes none).
fn still_open(py: Python<'_>, future: &Py<PyAny>) -> bool {
    let future = future.bind(py);
    match future
        .call_method0(pyo3::intern!(py, "done"))
        .and_then(|done| done.is_truthy())
    {
        Ok(done) => !done,
        Err(e) => {
            e.write_unraisable(py, Some(future));
            false
        }
    }
}

/// Sets a made result on its future, still not done unless a job of the same drain ended it.
fn set_result(py: Python<'_>, SetResult { future, value }: SetResult) {
    let future = future.bind(py);
    let set = future
        .call_method0(pyo3::intern!(py, "done"))
        .and_then(|done| done.is_truthy())
        .and_then(|done| {
            if done {
                return Ok(());
            }
            match value {
                Ok(value) => future.call_method1(pyo3::intern!(py, "set_result"), (value,)),
                Err(e) => {
                    future.call_method1(pyo3::intern!(py, "set_exception"), (e.into_value(py),))
                }
            }
            .map(drop)
        });
    if let Err(e) = set {
        e.write_unraisable(py, Some(future));
    }
}

/// A `loop_future`'s done callback: a cancelled future stops its run.
#[pyclass]
struct OnCancel(Mutex<Option<oneshot::Sender<()>>>);

#[pymethods]
impl OnCancel {
    fn __call__(&self, future: &Bound<'_, PyAny>) -> PyResult<()> {
        let cancelled = future
            .call_method0(pyo3::intern!(future.py(), "cancelled"))?
            .is_truthy()?;
        // Dropped otherwise: the run goes on (it is done already).
        if let Some(tx) = self.0.lock().take()
            && cancelled
        {
            let _ = tx.send(());
        }
        Ok(())
    }
}
