//! Where the binding's calls into Python spend their time, counted for the benches: the
//! 1,000-thread bench is bound by what holds the GIL, and these say who held it how long and
//! who waited for it. A few relaxed atomic adds per call (tens of nanoseconds against calls
//! of tens of microseconds).

use std::sync::atomic::{AtomicU64, Ordering};
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

pub(crate) fn add(counter: Counter, n: u64) {
    COUNTS[counter as usize].fetch_add(n, Ordering::Relaxed);
}

/// Adds the nanoseconds since `start`.
pub(crate) fn since(counter: Counter, start: Instant) {
    add(
        counter,
        u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX),
    );
}

/// The calling thread's CPU time in nanoseconds (0 where unknown).
pub(crate) fn thread_cpu_ns() -> u64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: fills the live `timespec` passed.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return u64::try_from(ts.tv_sec).unwrap_or(0) * 1_000_000_000
                + u64::try_from(ts.tv_nsec).unwrap_or(0);
        }
    }
    0
}

/// The counts since start-up, by name (for benches: differences between two reads).
#[pyfunction]
pub(crate) fn _call_timing(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for (name, count) in NAMES.iter().zip(COUNTS.iter()) {
        out.set_item(name, count.load(Ordering::Relaxed))?;
    }
    Ok(out)
}
