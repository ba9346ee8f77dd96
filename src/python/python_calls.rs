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
//! watchdog thread looks at the drainers every `TICK` to `FIRST_LOOK` while any is busy (see
//! `next_look`); one blocked in its job
//! while jobs wait is demoted (it ends that job, then goes idle) and another takes its place,
//! from the idle ones or a new thread. Blocked means asleep with its CPU clock still for
//! `STUCK` (`super::thread_clock`): a drainer only waiting for a core is runnable, and one
//! computing has its clock running, and a replacement would wait for the same core or GIL.
//! A job computing for `HOG` is replaced too, so one long computation does not hold up every
//! other run's calls: its replacement shares the GIL with it through Python's switch
//! interval, as threads of their own would. When replacements block as well, each tick starts
//! twice as many as the last: a burst of a thousand blocking calls has a thread each within a
//! few ticks, as tokio's blocking pool gave them, instead of one a tick.
//!
//! Every drainer thread has one entry in `State::drainers` for its life, and its `Role` there
//! is the one record of what it does: whether a drainer takes jobs (a push need not wake one)
//! and whether any is busy are read from the roles, never kept apart from them.
//!
//! The watchdog only has work while a job waits and a drainer is in a job: it sleeps until a
//! push leaves its job behind a drainer in a job, or a drainer starts a job with others still
//! queued (the two ways into that state), and ticks until none waited for `LINGER`. One run
//! at a time hands each job to an idle drainer and never keeps it awake: its ticks were a
//! fiftieth of that run's CPU (a thread's wake-up every 2 ms). A woken drainer or watchdog
//! is unparked once the queue's lock is free: woken under it, it wakes only to wait for the
//! lock (a second wake-up, measured at 1.6% of the waker's time).
//!
//! Exit (`super::exit_gate`): a drainer passes the gate before it takes the GIL, and between
//! jobs it steps out and parks once the gate shuts, as every thread entering Python does.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};
use pyo3::prelude::*;
use tokio::sync::oneshot;

use super::call_timing::{self, Counter};
use super::thread_clock::ThreadClock;
use crate::doorbell::Doorbell;

/// A call, run on a drainer with the GIL held.
type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// A drainer asleep in its job this long, its CPU clock still, while others wait is replaced.
/// Well above a binding call or a plain tool call (tens to hundreds of microseconds).
const STUCK: Duration = Duration::from_millis(10);

/// Of the wall time a drainer was looked at over, the CPU share under which it counts as
/// still: a thread waiting for the GIL wakes every 5 ms (Python's switch interval) for a few
/// microseconds; one computing uses most of it.
const STILL_SHARE: u32 = 4;

/// CPU time a job may compute for before its drainer is replaced anyway.
const HOG: Duration = Duration::from_millis(50);

/// The shortest wait between two looks of the watchdog while a drainer is busy.
const TICK: Duration = Duration::from_millis(2);

/// The longest: a job started just after a look is first seen at the next, and can be found
/// stuck `STUCK` after that, so a blocked job is replaced within `FIRST_LOOK + STUCK`.
const FIRST_LOOK: Duration = Duration::from_millis(5);

/// How long the watchdog goes on ticking after the last time it saw a job wait before it
/// sleeps until woken: a queue busy in bursts (every step of a thousand runs) costs no
/// wake-up of the watchdog per burst.
const LINGER: Duration = Duration::from_millis(200);

/// Idle drainers kept; one more ends its thread.
const MAX_IDLE: usize = 8;

/// At most this many drainer threads (tokio's default bound on its blocking pool): past it,
/// jobs wait for one to finish, as blocking tasks waited.
const MAX_THREADS: usize = 512;

/// What a drainer does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Waits for a turn (parked).
    Idle,
    /// Handed a turn, not yet taking jobs (a woken thread may take a while to run).
    Turn,
    /// Takes jobs.
    Draining,
    /// Replaced by the watchdog: it ends its job, then goes idle.
    Demoted,
}

/// One drainer thread.
struct Drainer {
    id: u64,
    thread: Thread,
    /// Its CPU clock (set by the thread once it runs).
    clock: Option<ThreadClock>,
    role: Role,
    /// Jobs it started, and whether one runs now.
    jobs: u64,
    in_job: bool,
    /// Given its turn by the watchdog in place of a stuck one, and no job ended since:
    /// stuck too, it tells of a burst of blocking calls.
    replacement: bool,
    /// The watchdog's last look at its current job.
    look: Option<Look>,
}

/// A look at a drainer's job: which job, when, and the drainer's CPU time then and when first
/// seen in that job.
struct Look {
    job: u64,
    at: Instant,
    cpu: Option<u64>,
    first_cpu: Option<u64>,
}

impl Drainer {
    fn takes_jobs(&self) -> bool {
        matches!(self.role, Role::Turn | Role::Draining)
    }

    /// Keeps the watchdog's look at the job running now (a new look for a new job).
    fn watch(&mut self, now: Instant) {
        if !self.in_job || self.look.as_ref().is_some_and(|l| l.job == self.jobs) {
            return;
        }
        let cpu = self.clock.and_then(|c| c.cpu_ns());
        self.look = Some(Look {
            job: self.jobs,
            at: now,
            cpu,
            first_cpu: cpu,
        });
    }

    /// The earliest time its job, seen at the last look, could be found stuck: `STUCK` after
    /// that look, or sooner when the job's CPU time is near `HOG`. `None` when it is in no job,
    /// in one not looked at yet, or not draining: only a draining drainer is asked whether it
    /// is stuck, so a demoted one's look, never renewed, would keep the watchdog at `TICK`.
    fn due(&self) -> Option<Instant> {
        if self.role != Role::Draining {
            return None;
        }
        let look = self
            .look
            .as_ref()
            .filter(|l| self.in_job && l.job == self.jobs)?;
        let computed = match (look.cpu, look.first_cpu) {
            (Some(cpu), Some(first)) => Duration::from_nanos(cpu.saturating_sub(first)),
            _ => Duration::ZERO,
        };
        Some(look.at + STUCK.min(HOG.saturating_sub(computed)))
    }

    /// Its job is blocked (asleep, its clock still for `STUCK`) or has computed for `HOG`.
    fn stuck(&mut self, now: Instant) -> bool {
        let clock = self.clock;
        let Some(look) = self
            .look
            .as_mut()
            .filter(|l| self.in_job && l.job == self.jobs)
        else {
            return false;
        };
        let cpu = clock.and_then(|c| c.cpu_ns());
        if let (Some(cpu), Some(first)) = (cpu, look.first_cpu)
            && Duration::from_nanos(cpu.saturating_sub(first)) >= HOG
        {
            return true;
        }
        let wall = now.saturating_duration_since(look.at);
        if wall < STUCK {
            return false;
        }
        // Unknown clocks count as still: replaced on the wall time alone.
        let still = match (cpu, look.cpu) {
            (Some(cpu), Some(before)) => {
                Duration::from_nanos(cpu.saturating_sub(before)) * STILL_SHARE < wall
            }
            _ => true,
        };
        look.at = now;
        look.cpu = cpu;
        still && !clock.is_some_and(|c| c.runnable())
    }
}

struct State {
    /// Each job with the time it was pushed (when counting, `call_timing`).
    jobs: VecDeque<(Option<Instant>, Job)>,
    /// Every drainer thread alive.
    drainers: Vec<Drainer>,
    next_id: u64,
    watch_started: bool,
    /// The watchdog sleeps until woken (no job waited for `LINGER`).
    watch_asleep: bool,
}

impl State {
    fn drainer(&mut self, id: u64) -> Option<&mut Drainer> {
        self.drainers.iter_mut().find(|d| d.id == id)
    }

    /// A job waits while a drainer is in one: what the watchdog watches for.
    fn waiting_behind_job(&self) -> bool {
        !self.jobs.is_empty() && self.drainers.iter().any(|d| d.in_job)
    }
}

static STATE: Mutex<State> = Mutex::new(State {
    jobs: VecDeque::new(),
    drainers: Vec::new(),
    next_id: 0,
    watch_started: false,
    watch_asleep: false,
});
/// The watchdog waits here.
static WATCH: Condvar = Condvar::new();

/// Drainers the watchdog replaced, since start (`_python_calls_stats`).
static REPLACED: AtomicUsize = AtomicUsize::new(0);
/// Microseconds a woken idle drainer waits before it takes its turn (0: none). Only
/// `_delay_python_call_turns_for_tests` sets it: a test's stand-in for a loaded machine slow to wake
/// a thread.
static TURN_DELAY_US: AtomicU64 = AtomicU64::new(0);

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

/// What a call of Python code that may raise answered, a lost call as its Python error: how
/// `call` (or `on_host`) of such code is read (`call(f).await.answered()`).
pub(crate) trait Answered<T> {
    fn answered(self) -> PyResult<T>;
}

impl<T> Answered<T> for Result<PyResult<T>, Lost> {
    fn answered(self) -> PyResult<T> {
        self.unwrap_or_else(|lost| Err(lost.into()))
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
    // Woken through the runtime's I/O driver, not from the drainer's thread (see
    // `crate::doorbell`: no second worker woken to search a step).
    crate::doorbell::relayed(rx, doorbell())
        .await
        .map_err(|_| Lost)
}

/// The doorbell the calls' results ring (see `crate::doorbell`), answered on the runtime.
fn doorbell() -> Option<&'static Arc<Doorbell>> {
    static DOORBELL: OnceLock<Option<Arc<Doorbell>>> = OnceLock::new();
    DOORBELL
        .get_or_init(|| Doorbell::start(pyo3_async_runtimes::tokio::get_runtime().handle()))
        .as_ref()
}

fn push(job: Job) {
    let mut st = STATE.lock();
    st.jobs.push_back((call_timing::now(), job));
    let mut woken = Vec::new();
    if !st.drainers.iter().any(Drainer::takes_jobs) {
        activate(&mut st, 1, false, &mut woken);
    }
    let watch = wake_watch(&mut st);
    drop(st);
    if watch {
        WATCH.notify_one();
    }
    woken.iter().for_each(Thread::unpark);
}

/// Whether the sleeping watchdog must wake (a job waits while a drainer is in a job): marked
/// awake here, for the caller to notify once it let go of the lock.
fn wake_watch(st: &mut State) -> bool {
    let wake = st.watch_asleep && st.waiting_behind_job();
    if wake {
        st.watch_asleep = false;
    }
    wake
}

/// Gives `n` threads a turn at the queue: idle ones first (added to `woken`, for the caller
/// to unpark once it let go of the lock), then new ones.
fn activate(st: &mut State, n: usize, replacement: bool, woken: &mut Vec<Thread>) {
    for _ in 0..n {
        if let Some(d) = st.drainers.iter_mut().find(|d| d.role == Role::Idle) {
            d.role = Role::Turn;
            d.replacement = replacement;
            woken.push(d.thread.clone());
        } else if st.drainers.len() < MAX_THREADS {
            let id = st.next_id;
            st.next_id += 1;
            let spawned = std::thread::Builder::new()
                .name("dars-python".into())
                .spawn(move || drainer(id));
            if let Ok(handle) = spawned {
                st.drainers.push(Drainer {
                    id,
                    thread: handle.thread().clone(),
                    clock: None,
                    role: Role::Turn,
                    jobs: 0,
                    in_job: false,
                    replacement,
                    look: None,
                });
                STARTED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    if !st.watch_started {
        st.watch_started = std::thread::Builder::new()
            .name("dars-python-watch".into())
            .spawn(watchdog)
            .is_ok();
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
fn drainer(id: u64) {
    if let Some(me) = STATE.lock().drainer(id) {
        me.clock = Some(ThreadClock::current());
    }
    // Jobs may use tokio's handle (`tokio::spawn`, `block_on` of a core future), as they did
    // on the runtime's blocking threads.
    let _runtime = pyo3_async_runtimes::tokio::get_runtime().enter();
    super::runtime_threads::attach(|py| {
        loop {
            if let Next::Retire = run_jobs(py, id) {
                return;
            }
            let turn = super::exit_gate::detach(py, || wait_for_turn(id));
            call_timing::since(Counter::DrainerAttachNs, turn);
            call_timing::add(Counter::DrainerAttaches, 1);
        }
    });
}

/// Runs jobs until the queue is empty or the watchdog demoted this drainer.
fn run_jobs(py: Python<'_>, id: u64) -> Next {
    let mut first = true;
    loop {
        let (pushed, job) = match take(id, first) {
            Ok(job) => job,
            Err(next) => return next,
        };
        first = false;
        call_timing::between(Counter::QueuedNs, pushed, call_timing::now());
        if super::exit_gate::closing() {
            // Steps out of Python, parking for good if the gate is shut for this thread.
            super::exit_gate::detach(py, || ());
        }
        // A panicking job drops its sender: its caller hears `Lost`.
        let (start, cpu) = (call_timing::now(), call_timing::cpu_now());
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| job(py)));
        // The CPU clock read inside the wall clock's interval at both ends, so a job that only
        // computes never counts more CPU than time (read the other way round, the two clocks'
        // reads a microsecond apart made `test_the_calls_time_is_counted` fail at random).
        call_timing::cpu_since(Counter::JobCpuNs, cpu);
        call_timing::since(Counter::JobNs, start);
        call_timing::add(Counter::Jobs, 1);
    }
}

/// The drainer's next job, when its turn or its draining goes on (or, demoted, it is the
/// only drainer left to take the jobs waiting: its replacements could not start); else it
/// leaves the queue, in the same hold of the lock (a job pushed meanwhile would find it still
/// taking jobs, and wake nobody).
fn take(id: u64, first: bool) -> Result<(Option<Instant>, Job), Next> {
    let mut guard = STATE.lock();
    let others_take = guard.drainers.iter().any(|d| d.id != id && d.takes_jobs());
    let st = &mut *guard;
    let Some(at) = st.drainers.iter().position(|d| d.id == id) else {
        return Err(Next::Retire);
    };
    let me = &mut st.drainers[at];
    me.in_job = false;
    if (me.takes_jobs() || !others_take)
        && let Some(job) = st.jobs.pop_front()
    {
        me.role = Role::Draining;
        me.in_job = true;
        me.jobs += 1;
        // A replacement that ended a job is no sign of a burst any more.
        me.replacement &= first;
        // The jobs left wait behind this one, which may block.
        let watch = wake_watch(st);
        drop(guard);
        if watch {
            WATCH.notify_one();
        }
        return Ok(job);
    }
    let idle = st.drainers.iter().filter(|d| d.role == Role::Idle).count();
    if idle >= MAX_IDLE {
        st.drainers.swap_remove(at);
        return Err(Next::Retire);
    }
    st.drainers[at].role = Role::Idle;
    Err(Next::Wait)
}

/// Waits (without the GIL) for a turn; returns when it had it (when counting).
fn wait_for_turn(id: u64) -> Option<Instant> {
    let mut st = STATE.lock();
    let mut delayed = false;
    loop {
        if st.drainer(id).is_some_and(|me| me.role != Role::Idle) {
            let delay = TURN_DELAY_US.load(Ordering::Relaxed);
            if delay == 0 || delayed {
                return call_timing::now();
            }
            delayed = true;
            MutexGuard::unlocked(&mut st, || {
                std::thread::sleep(Duration::from_micros(delay));
            });
            continue;
        }
        // `activate` unparks it after handing the turn (an unpark before the park is kept).
        MutexGuard::unlocked(&mut st, std::thread::park);
    }
}

/// Replaces drainers stuck in a job while others wait (see the module's comment).
fn watchdog() {
    let mut st = STATE.lock();
    // When a job was last seen waiting behind a drainer in a job.
    let mut last_wait: Option<Instant> = None;
    // Ticks in a row that found a replacement stuck with jobs waiting.
    let mut streak = 0u32;
    loop {
        let now = Instant::now();
        if st.waiting_behind_job() {
            last_wait = Some(now);
        } else if last_wait.is_none_or(|at| now.duration_since(at) >= LINGER) {
            // Woken by `wake_watch` (which clears the mark) once a job waits again; a wake
            // that finds none waiting any more (the drainer took it) sleeps again at once.
            st.watch_asleep = true;
            while st.watch_asleep {
                WATCH.wait(&mut st);
            }
            last_wait = None;
            continue;
        }
        let wait = next_look(&st, now);
        WATCH.wait_for(&mut st, wait);
        let now = Instant::now();
        for d in st.drainers.iter_mut() {
            d.watch(now);
        }
        if st.jobs.is_empty() {
            continue;
        }
        let (mut stuck, mut burst) = (0, false);
        for d in st.drainers.iter_mut() {
            if d.role == Role::Draining && d.stuck(now) {
                d.role = Role::Demoted;
                stuck += 1;
                burst |= d.replacement;
            }
        }
        if stuck == 0 {
            continue;
        }
        REPLACED.fetch_add(stuck, Ordering::Relaxed);
        // A replacement stuck as well: blocking calls come in a burst, each wants a thread.
        streak = if burst { streak + 1 } else { 0 };
        let wanted = stuck << streak.min(6);
        let n = wanted.min(st.jobs.len());
        let mut woken = Vec::new();
        activate(&mut st, n, true, &mut woken);
        MutexGuard::unlocked(&mut st, || woken.iter().for_each(Thread::unpark));
    }
}

/// How long the watchdog waits before its next look: until the first job it saw could be
/// found stuck (`Drainer::due`), at least `TICK`, at most `FIRST_LOOK` (a job started since
/// the last look is unseen). Looks every `TICK` were a wake-up of its thread every 2 ms for as
/// long as a thousand runs kept jobs waiting (3,500 a 1,000-thread run); a drainer going from
/// job to job is only found stuck `STUCK` after a look at one job, so looks sooner find
/// nothing.
fn next_look(st: &State, now: Instant) -> Duration {
    let due = st.drainers.iter().filter_map(Drainer::due).min();
    due.map_or(FIRST_LOOK, |at| at.saturating_duration_since(now))
        .clamp(TICK, FIRST_LOOK)
}

/// `(drainer threads started, drainers replaced as stuck, threads alive)` since start (for
/// tests and benches).
#[pyfunction]
pub(crate) fn _python_calls_stats() -> (usize, usize, usize) {
    let threads = STATE.lock().drainers.len();
    (
        STARTED.load(Ordering::Relaxed),
        REPLACED.load(Ordering::Relaxed),
        threads,
    )
}

/// Makes each idle drainer handed a turn wait `seconds` before it takes it, as a loaded
/// machine slow to wake a thread would (for tests; 0 ends it).
#[pyfunction]
pub(crate) fn _delay_python_call_turns_for_tests(seconds: f64) -> PyResult<()> {
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "the delay must be a finite number of seconds, 0 or more",
        ));
    }
    let micros = (seconds * 1e6).round() as u64;
    TURN_DELAY_US.store(micros, Ordering::Relaxed);
    Ok(())
}
