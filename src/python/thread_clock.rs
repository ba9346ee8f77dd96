//! A thread's CPU clock and run state, read from another thread: how the Python-call
//! watchdog (`super::python_calls`) tells a drainer blocked in a call (asleep, its clock
//! still) from one only waiting for a core (runnable) or busy computing (its clock running).

/// The calling thread's CPU time in nanoseconds (0 where unknown).
pub(crate) fn own_cpu_ns() -> u64 {
    #[cfg(unix)]
    {
        read_clock(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or(0)
    }
    #[cfg(not(unix))]
    {
        0
    }
}

#[cfg(unix)]
fn read_clock(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: fills the live `timespec` passed.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(u64::try_from(ts.tv_sec).ok()? * 1_000_000_000 + u64::try_from(ts.tv_nsec).ok()?)
}

/// One thread's clock, made on that thread, read on others while the thread lives.
#[derive(Clone, Copy)]
pub(crate) struct ThreadClock {
    #[cfg(unix)]
    clock: Option<libc::clockid_t>,
    #[cfg(target_os = "linux")]
    tid: libc::pid_t,
}

impl ThreadClock {
    /// The calling thread's.
    pub(crate) fn current() -> Self {
        ThreadClock {
            #[cfg(unix)]
            clock: {
                let mut clock: libc::clockid_t = 0;
                // SAFETY: `pthread_self` is the live calling thread; fills `clock`.
                let ok = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
                (ok == 0).then_some(clock)
            },
            #[cfg(target_os = "linux")]
            // SAFETY: no arguments; the calling thread's id.
            tid: unsafe { libc::gettid() },
        }
    }

    /// The thread's CPU time in nanoseconds; `None` where it cannot be read.
    pub(crate) fn cpu_ns(&self) -> Option<u64> {
        #[cfg(unix)]
        {
            read_clock(self.clock?)
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// The thread is running or waiting for a core (not asleep); `false` where unknown.
    pub(crate) fn runnable(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            // `/proc/self/task/<tid>/stat`: the state is the field after the name, which is in
            // parentheses and may hold spaces or parentheses itself.
            let path = format!("/proc/self/task/{}/stat", self.tid);
            std::fs::read_to_string(path).is_ok_and(|stat| {
                stat.rsplit_once(')')
                    .is_some_and(|(_, rest)| rest.trim_start().starts_with('R'))
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}
