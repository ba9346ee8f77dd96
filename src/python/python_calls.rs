//! The one way the core's async code calls Python: a queue of calls drained by a few threads
//! of their own (`dars-python`), each taking the GIL once per batch.
//!
//! Each call used to take a tokio blocking thread: a wake-up of that thread, a new Python
//! thread state (`PyGILState_Ensure` on a thread without one makes it, the release frees it),
//! a wait in line for the GIL and, with a thousand runs' tool calls, a GIL hand-off per call:
//! the 1,000-thread bench spent a fifth of its CPU in those hand-offs. Here a call is a job
//! pushed into one queue (a lock, no GIL). One drainer thread, holding the GIL, runs the
//! queued jobs one after another while any wait; it is woken only when the queue was idle,
//! and keeps its thread state for its life.
//!
//! A job may block (a user's sync tool sleeping or waiting on I/O, a nested `invoke` waiting
//! for its run, a LangChain model's HTTP call): the jobs behind it must not wait for it. A
//! watchdog thread looks at the drainers every `TICK` while any is busy; one whose job has
//! run `STUCK` or longer while jobs wait is demoted (it ends that job, then goes idle) and
//! another takes its place, from the idle ones or a new thread. When replacements block as
//! well, each tick starts twice as many as the last: a burst of a thousand blocking calls has a
//! thread each within a few ticks, as tokio's blocking pool gave them, instead of one a tick.
//! Blocking jobs release the GIL (Python does around any wait), so a replacement finds it
//! free; a job busy in Python shares it through Python's own switch interval.
//!
//! Exit (`super::exit_gate`): a drainer passes the gate before it takes the GIL, and between
//! jobs it steps out and parks once the gate shuts, as every thread entering Python does.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use pyo3::prelude::*;
use tokio::sync::oneshot;

use super::call_timing::{self, Counter};

/// A call, run on a drainer with the GIL held.
type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// A job running this long while others wait has its drainer replaced. Well above a binding
/// call or a plain tool call (tens to hundreds of microseconds), and above what a loaded
/// machine adds to one: a job that lost the GIL to another thread waits up to Python's 5 ms
/// switch interval for it, and a replacement would only wait for it too (at 2 ms, 1,000
/// threads x 20 steps under load 7 replaced a drainer 900-970 times in 19,000 calls).
const STUCK: Duration = Duration::from_millis(10);

/// How often the watchdog looks while a drainer is busy.
const TICK: Duration = Duration::from_millis(2);

/// How long the watchdog goes on ticking after the drainers went idle before it sleeps
/// until woken: a queue busy in bursts (every step of a thousand runs) costs no wake-up of
/// the watchdog per burst.
const LINGER: Duration = Duration::from_millis(200);

/// Idle drainers kept; one more ends its thread.
const MAX_IDLE: usize = 8;

/// At most this many drainer threads (tokio's default bound on its blocking pool): past it,
/// jobs wait for one to finish, as blocking tasks waited.
const MAX_THREADS: usize = 512;

/// One drainer that takes jobs.
struct Drainer {
    ticket: u64,
    /// When its current job started (None between jobs).
    started: Option<Instant>,
    /// Replaced by the watchdog: it ends its job and goes idle.
    demoted: bool,
    /// Started by the watchdog in place of a stuck one: stuck too, it tells of a burst of
    /// blocking calls.
    replacement: bool,
}

struct State {
    /// Each job with the time it was pushed.
    jobs: VecDeque<(Instant, Job)>,
    /// The drainers taking jobs (one, unless jobs blocked).
    drainers: Vec<Drainer>,
    /// Drainers taking jobs and not demoted, plus turns handed to idle threads not yet taken.
    active: usize,
    /// Turns handed to idle threads, not yet taken.
    turns: usize,
    /// Of `turns`, those handed by the watchdog (`Drainer::replacement`).
    replacement_turns: usize,
    /// Threads waiting for a turn (or about to).
    idle: usize,
    threads: usize,
    next_ticket: u64,
    /// Ticks in a row that found a replacement stuck with jobs waiting.
    streak: u32,
    /// The watchdog sleeps until woken (`LINGER` passed with no drainer busy).
    watch_asleep: bool,
    watch_started: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    jobs: VecDeque::new(),
    drainers: Vec::new(),
    active: 0,
    turns: 0,
    replacement_turns: 0,
    idle: 0,
    threads: 0,
    next_ticket: 0,
    streak: 0,
    watch_asleep: false,
    watch_started: false,
});
/// Idle drainers wait here for a turn.
static TURN: Condvar = Condvar::new();
/// The watchdog waits here.
static WATCH: Condvar = Condvar::new();

/// Drainers the watchdog replaced, since start (`_python_calls_stats`).
static REPLACED: AtomicUsize = AtomicUsize::new(0);
/// Microseconds a woken idle drainer waits before it takes its turn (0: none). Only
/// `_python_calls_delay_turns` sets it: a test's stand-in for a loaded machine slow to wake
/// a thread.
static TURN_DELAY_US: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Drainer threads started, since start.
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// The call failed to report back: it panicked, or its drainer could not start.
#[derive(Debug)]
pub(crate) struct Lost;

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Python call of the core was lost (it panicked)")
    }
}

impl std::error::Error for Lost {}

impl From<Lost> for PyErr {
    fn from(e: Lost) -> Self {
        pyo3::exceptions::PyRuntimeError::new_err(e.to_string())
    }
}

/// Runs `f` with the GIL on a drainer and hands back its result; never on the calling
/// (tokio worker) thread. Dropping the future before the call ran does not cancel it.
pub(crate) async fn call<R, F>(f: F) -> Result<R, Lost>
where
    F: for<'py> FnOnce(Python<'py>) -> R + Send + 'static,
    R: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    push(Box::new(move |py| {
        // The awaiter may be gone (its run was dropped): nobody to tell.
        let _ = tx.send(f(py));
    }));
    rx.await.map_err(|_| Lost)
}

fn push(job: Job) {
    let mut st = STATE.lock();
    st.jobs.push_back((Instant::now(), job));
    if st.active == 0 {
        activate(&mut st, 1, false);
    }
}

/// Gives `n` threads a turn at the queue: idle ones first, then new ones.
fn activate(st: &mut State, n: usize, replacement: bool) {
    for _ in 0..n {
        if st.idle > st.turns {
            st.turns += 1;
            st.replacement_turns += usize::from(replacement);
            st.active += 1;
            TURN.notify_one();
        } else if st.threads < MAX_THREADS {
            let ticket = st.next_ticket;
            st.next_ticket += 1;
            let spawned = std::thread::Builder::new()
                .name("dars-python".into())
                .spawn(move || drainer(ticket));
            if spawned.is_ok() {
                st.threads += 1;
                st.active += 1;
                st.drainers.push(Drainer::new(ticket, replacement));
                STARTED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    if !st.watch_started {
        st.watch_started = std::thread::Builder::new()
            .name("dars-python-watch".into())
            .spawn(watchdog)
            .is_ok();
    } else if st.watch_asleep {
        st.watch_asleep = false;
        WATCH.notify_one();
    }
}

impl Drainer {
    fn new(ticket: u64, replacement: bool) -> Self {
        Drainer {
            ticket,
            started: None,
            demoted: false,
            replacement,
        }
    }
}

/// What a drainer does once it left the queue.
enum Next {
    /// Wait for a turn.
    Wait,
    /// End the thread (enough others wait).
    Retire,
}

/// A drainer thread: holds a Python thread state for its life, the GIL while it runs jobs.
fn drainer(ticket: u64) {
    // Jobs may use tokio's handle (`tokio::spawn`, `block_on` of a core future), as they did
    // on the runtime's blocking threads.
    let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
    super::runtime_threads::attach(|py| {
        let mut ticket = ticket;
        loop {
            if let Next::Retire = run_jobs(py, ticket) {
                return;
            }
            let (next, turn) = super::exit_gate::detach(py, wait_for_turn);
            call_timing::since(Counter::DrainerAttachNs, turn);
            call_timing::add(Counter::DrainerAttaches, 1);
            ticket = next;
        }
    });
}

/// Runs jobs until the queue is empty or the watchdog demoted this drainer.
fn run_jobs(py: Python<'_>, ticket: u64) -> Next {
    let mut first = true;
    loop {
        let job = {
            let mut st = STATE.lock();
            let at = st.drainers.iter().position(|d| d.ticket == ticket);
            let mine = at.filter(|&i| !st.drainers[i].demoted);
            match mine.and_then(|i| st.jobs.pop_front().map(|job| (i, job))) {
                Some((i, (pushed, job))) => {
                    let me = &mut st.drainers[i];
                    let now = Instant::now();
                    me.started = Some(now);
                    call_timing::add(
                        Counter::QueuedNs,
                        u64::try_from(now.duration_since(pushed).as_nanos()).unwrap_or(0),
                    );
                    // A replacement that ended a job is no sign of a burst any more.
                    me.replacement &= first;
                    first = false;
                    job
                }
                None => {
                    if let Some(i) = at {
                        st.drainers.swap_remove(i);
                    }
                    if mine.is_some() {
                        st.active -= 1;
                    }
                    if st.idle >= MAX_IDLE {
                        st.threads -= 1;
                        return Next::Retire;
                    }
                    // Counted idle before it waits: a job pushed meanwhile hands it a turn
                    // rather than starting a thread.
                    st.idle += 1;
                    return Next::Wait;
                }
            }
        };
        if super::exit_gate::closing() {
            // Steps out of Python, parking for good if the gate is shut for this thread.
            super::exit_gate::detach(py, || ());
        }
        // A panicking job drops its sender: its caller hears `Lost`.
        let (start, cpu) = (Instant::now(), call_timing::thread_cpu_ns());
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(py)));
        call_timing::since(Counter::JobNs, start);
        call_timing::add(
            Counter::JobCpuNs,
            call_timing::thread_cpu_ns().saturating_sub(cpu),
        );
        call_timing::add(Counter::Jobs, 1);
    }
}

/// Waits (without the GIL) for a turn; returns the drainer's new ticket and when it had it.
fn wait_for_turn() -> (u64, Instant) {
    let mut st = STATE.lock();
    let mut delayed = false;
    loop {
        if st.turns > 0 {
            let delay = TURN_DELAY_US.load(Ordering::Relaxed);
            if delay > 0 && !delayed {
                delayed = true;
                parking_lot::MutexGuard::unlocked(&mut st, || {
                    std::thread::sleep(Duration::from_micros(delay));
                });
                continue;
            }
            st.turns -= 1;
            st.idle -= 1;
            let replacement = st.replacement_turns > 0;
            st.replacement_turns -= usize::from(replacement);
            let ticket = st.next_ticket;
            st.next_ticket += 1;
            st.drainers.push(Drainer::new(ticket, replacement));
            return (ticket, Instant::now());
        }
        TURN.wait(&mut st);
    }
}

/// Replaces drainers stuck in a job while others wait (see the module's comment).
fn watchdog() {
    let mut st = STATE.lock();
    let mut idle_since: Option<Instant> = None;
    loop {
        let now = Instant::now();
        // Idle only with no turn handed out either: a turn handed to an idle thread counts in
        // `active` before that thread, woken, joins `drainers` (a loaded machine can take
        // longer than `LINGER` to wake it). Asleep then, nothing would wake the watchdog
        // (`push` activates only when `active` is 0), and a job of that drainer that blocks
        // (a nested call waiting for the queue) would never be replaced: every later call hung.
        if st.drainers.is_empty() && st.active == 0 {
            let since = *idle_since.get_or_insert(now);
            if now.duration_since(since) >= LINGER {
                st.watch_asleep = true;
                while st.watch_asleep {
                    WATCH.wait(&mut st);
                }
                idle_since = None;
                continue;
            }
        } else {
            idle_since = None;
        }
        WATCH.wait_for(&mut st, TICK);
        if st.jobs.is_empty() {
            continue;
        }
        let now = Instant::now();
        let (mut stuck, mut burst) = (0, false);
        for d in st.drainers.iter_mut() {
            if !d.demoted && d.started.is_some_and(|t| now.duration_since(t) >= STUCK) {
                d.demoted = true;
                stuck += 1;
                burst |= d.replacement;
            }
        }
        if stuck == 0 {
            continue;
        }
        st.active -= stuck;
        REPLACED.fetch_add(stuck, Ordering::Relaxed);
        // A replacement stuck as well: blocking calls come in a burst, each wants a thread.
        st.streak = if burst { st.streak + 1 } else { 0 };
        let wanted = stuck << st.streak.min(6);
        let n = wanted.min(st.jobs.len());
        activate(&mut st, n, true);
    }
}

/// `(drainer threads started, drainers replaced as stuck, threads alive)` since start (for
/// tests and benches).
#[pyfunction]
pub(crate) fn _python_calls_stats() -> (usize, usize, usize) {
    let threads = STATE.lock().threads;
    (
        STARTED.load(Ordering::Relaxed),
        REPLACED.load(Ordering::Relaxed),
        threads,
    )
}

/// Makes each idle drainer handed a turn wait `seconds` before it takes it, as a loaded
/// machine slow to wake a thread would (for tests; 0 ends it).
#[pyfunction]
pub(crate) fn _python_calls_delay_turns(seconds: f64) -> PyResult<()> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "the delay must be a finite number of seconds, 0 or more",
        ));
    }
    let micros = (seconds * 1e6).round() as u64;
    TURN_DELAY_US.store(micros, Ordering::Relaxed);
    Ok(())
}
