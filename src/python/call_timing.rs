//! Where the binding's calls into Python spend their time, counted for the benches: the
//! 1,000-thread bench is bound by what holds the GIL, and these say who held it how long and
//! who waited for it. Off unless a bench or test switches it on (`_call_timing(True)`): off,
//! each counting site costs one relaxed load and reads no clock.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// What is counted; the names `_call_timing` gives them.
#[derive(Clone, Copy)]
pub(crate) enum Counter {
    /// Jobs the `dars-python` drainers ran, and their time with the GIL.
    Jobs,
    JobNs,
    /// The drainers' CPU time in those jobs (less than `JobNs` when a job lost its core or
    /// the GIL midway).
    JobCpuNs,
    /// From a job's push to its start on a drainer.
    QueuedNs,
    /// A drainer given a turn, until it held the GIL.
    DrainerAttaches,
    DrainerAttachNs,
    /// A thread blocked in a run (`invoke`) told the run ended, until it held the GIL again.
    CallerReattaches,
    CallerReattachNs,
    /// An event loop's inbox: drains, jobs, and from a job's push to its run on the loop.
    InboxDrains,
    InboxJobs,
    InboxQueuedNs,
    InboxJobNs,
}

const NAMES: [&str; 12] = [
    "jobs",
    "job_ns",
    "job_cpu_ns",
    "queued_ns",
    "drainer_attaches",
    "drainer_attach_ns",
    "caller_reattaches",
    "caller_reattach_ns",
    "inbox_drains",
    "inbox_jobs",
    "inbox_queued_ns",
    "inbox_job_ns",
];

static COUNTS: [AtomicU64; NAMES.len()] = [const { AtomicU64::new(0) }; NAMES.len()];

/// Counting is on (`_call_timing(True)`).
static ON: AtomicBool = AtomicBool::new(false);

fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The time now when counting, for `since` (no clock read when off).
pub(crate) fn now() -> Option<Instant> {
    on().then(Instant::now)
}

/// The calling thread's CPU time when counting, for `cpu_since`.
pub(crate) fn cpu_now() -> Option<u64> {
    on().then(super::thread_clock::own_cpu_ns)
}

pub(crate) fn add(counter: Counter, n: u64) {
    if on() {
        COUNTS[counter as usize].fetch_add(n, Ordering::Relaxed);
    }
}

/// Adds the nanoseconds from `start` to `end` (a `now()` each: nothing when either is none,
/// as when counting was off at the start).
pub(crate) fn between(counter: Counter, start: Option<Instant>, end: Option<Instant>) {
    if let (Some(start), Some(end)) = (start, end) {
        let ns = end.saturating_duration_since(start).as_nanos();
        add(counter, u64::try_from(ns).unwrap_or(u64::MAX));
    }
}

/// Adds the nanoseconds since `start` (a `now()`).
pub(crate) fn since(counter: Counter, start: Option<Instant>) {
    if start.is_some() {
        between(counter, start, now());
    }
}

/// Adds the calling thread's CPU nanoseconds since `start` (a `cpu_now()`).
pub(crate) fn cpu_since(counter: Counter, start: Option<u64>) {
    if let (Some(start), Some(end)) = (start, cpu_now()) {
        add(counter, end.saturating_sub(start));
    }
}

/// The counts since counting was first switched on, by name (for benches: differences
/// between two reads). `on` switches counting on (`True`) or off (`False`) first; the
/// counts are kept across.
#[pyfunction]
#[pyo3(signature = (on = None))]
pub(crate) fn _call_timing(py: Python<'_>, on: Option<bool>) -> PyResult<Bound<'_, PyDict>> {
    if let Some(on) = on {
        ON.store(on, Ordering::Relaxed);
    }
    let out = PyDict::new(py);
    for (name, count) in NAMES.iter().zip(COUNTS.iter()) {
        out.set_item(name, count.load(Ordering::Relaxed))?;
    }
    Ok(out)
}
