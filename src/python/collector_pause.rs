//! The cyclic collector paused while objects only are made (a result's messages, a drain's
//! results), and resumed as the user left it around any Python code run meanwhile.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicU8, AtomicU32, Ordering};

/// The cyclic collector paused while a result's messages are made here, and resumed as it
/// was (`Drop`, on an error too; left off if the caller had turned it off).
///
/// A long history's result is thousands of new containers in one burst, no garbage among
/// them: every 700 allocations a young collection walks the objects made since the last
/// one, and every tenth a middle one walks them again, all found alive. Paused, the
/// messages are walked once by the first young collection after the burst. No Python code
/// runs while it is paused (the stretch makes objects only; Python code such as `from_core`
/// goes through `resumed`), so no other thread sees the collector off. Inside a drain's pause
/// (`DrainPause`) it finds the collector off and restores nothing itself.
pub(super) struct CollectorPaused(bool);

impl CollectorPaused {
    pub(super) fn start() -> CollectorPaused {
        // SAFETY: called with the GIL held (the caller holds a `Python` token); returns
        // whether the collector was on.
        CollectorPaused(unsafe { pyo3::ffi::PyGC_Disable() } != 0)
    }

    /// Runs `f`, which may run Python code, with the collector as the user left it, paused
    /// again after: see `as_left`. Outside a drain's pause the user's state is the one this
    /// pause found, and becomes the one `f` left (a `gc.disable()` in it stays).
    pub(super) fn resumed<R>(&mut self, _py: Python<'_>, f: impl FnOnce() -> R) -> R {
        if DRAIN.load(Ordering::Relaxed) != NO_DRAIN {
            return run_as_left(f);
        }
        if self.0 {
            // SAFETY: the GIL is held (`_py`).
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
        let out = f();
        // SAFETY: as above; returns whether the collector was on (as `f` left it).
        self.0 = unsafe { pyo3::ffi::PyGC_Disable() } != 0;
        out
    }
}

impl Drop for CollectorPaused {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: the GIL is still held (the value never leaves the function that made
            // it, which holds the token).
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

/// No drain's pause holds the collector.
const NO_DRAIN: u8 = 0;
/// A drain's pause holds it, and the user's state is on.
const DRAIN_USER_ON: u8 = 1;
/// A drain's pause holds it, and the user's state is off.
const DRAIN_USER_OFF: u8 = 2;

/// Whether a drain's pause holds the collector, and the state the user left it in (changed
/// by Python code run through `as_left` meanwhile). Read and written with the GIL held only.
static DRAIN: AtomicU8 = AtomicU8::new(NO_DRAIN);

/// The collector paused across the making of a drain's results (`loop_inbox`), which are
/// objects only: a thousand results ending together are walked once by the first young
/// collection after, not by one or more young passes each (and middle passes every tenth).
/// Python code the making runs goes through `as_left`, so no Python code (another thread's
/// included: none runs while no Python code runs here) sees the collector off. Its end puts
/// the collector as the user left it, `gc.enable()`/`gc.disable()` made meanwhile included.
///
/// Pauses nest: an `invoke` caller's batch (`result_batch`) may start while another batch or
/// the loop's drain let the GIL go in Python code run through `as_left`. They share the one
/// pause, counted: the first starts it, the last to end restores the user's state (were the
/// second a no-op, its `as_left` after the first's end would pause the collector again with
/// nobody left to restore it).
pub(super) struct DrainPause(());

/// How many drain pauses hold the collector. Read and written with the GIL held only.
static PAUSES: AtomicU32 = AtomicU32::new(0);

impl DrainPause {
    pub(super) fn start(_py: Python<'_>) -> DrainPause {
        if PAUSES.fetch_add(1, Ordering::Relaxed) == 0 {
            // SAFETY: the GIL is held (`_py`); returns whether the collector was on.
            let on = unsafe { pyo3::ffi::PyGC_Disable() } != 0;
            DRAIN.store(state_of(on), Ordering::Relaxed);
        }
        DrainPause(())
    }
}

impl Drop for DrainPause {
    fn drop(&mut self) {
        if PAUSES.fetch_sub(1, Ordering::Relaxed) == 1
            && DRAIN.swap(NO_DRAIN, Ordering::Relaxed) == DRAIN_USER_ON
        {
            // SAFETY: the GIL is held (the value never leaves the drain, which holds it).
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

fn state_of(on: bool) -> u8 {
    if on { DRAIN_USER_ON } else { DRAIN_USER_OFF }
}

/// Runs `f`, which may run Python code (a constructor, a finalizer of an object let go, an
/// import), with the collector as the user left it: inside a drain's pause, resumed if the
/// user had it on and paused again after, the state `f` left recorded as the user's; else
/// as it is.
pub(crate) fn as_left<R>(_py: Python<'_>, f: impl FnOnce() -> R) -> R {
    if DRAIN.load(Ordering::Relaxed) == NO_DRAIN {
        return f();
    }
    run_as_left(f)
}

/// `as_left` inside a drain's pause (the GIL held by the caller).
fn run_as_left<R>(f: impl FnOnce() -> R) -> R {
    if DRAIN.load(Ordering::Relaxed) == DRAIN_USER_ON {
        // SAFETY: the GIL is held by the caller (`as_left`, `resumed` take its token).
        unsafe { pyo3::ffi::PyGC_Enable() };
    }
    let out = f();
    // SAFETY: as above; returns whether the collector was on, as `f` left it.
    let on = unsafe { pyo3::ffi::PyGC_Disable() } != 0;
    DRAIN.store(state_of(on), Ordering::Relaxed);
    out
}
