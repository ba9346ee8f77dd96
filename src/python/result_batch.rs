//! The results of `invoke` callers whose runs end together, made in batches.
//!
//! An `invoke` caller waits for its run without the GIL, then takes it to make its result: the
//! run's messages as LangChain objects, some 200 objects the cyclic collector tracks for a
//! 20-step run. Made one caller at a time, a thousand runs ending together filled the
//! collector's young generation every three results: about 400 young passes, 36 middle ones
//! and 3-4 full passes over every object the process holds, 0.84 s of CPU in the 1,000 x 20
//! bench under `invoke` (an eighth of its CPU; `ainvoke`, whose loop makes the results of a
//! drain under one pause, spent 0.31 s). Here a caller whose run ended leaves its state in a
//! queue before it waits for the GIL (no GIL needed), and whichever caller holds the GIL makes
//! every queued result under one pause of the collector (`DrainPause`, as the loop's drain
//! does): each later caller finds its own made when it gets its turn.
//!
//! A result is made with the GIL on whichever caller's thread takes the queue, in that
//! thread's context: making a run's messages reads nothing of the caller's context (the
//! `ainvoke` results are made on the loop's thread, outside any run's context, alike).

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use pyo3::prelude::*;

use super::agent_state::result_to_py;
use super::collector_pause::{DrainPause, as_left};
use super::input_messages::GivenObjects;
use crate::state::AgentState;

/// Where a queued run's result is left for its caller.
#[derive(Default)]
struct Slot {
    made: Mutex<Option<PyResult<Py<PyAny>>>>,
    ready: Condvar,
}

/// A finished run waiting for its result to be made.
struct Queued {
    state: AgentState,
    given: GivenObjects,
    slot: Handing,
}

/// A slot to fill: one let go unfilled (a panic while its batch was made) tells its caller the
/// result was lost, so no caller waits for it for ever.
struct Handing(Arc<Slot>);

impl Handing {
    fn give(self, made: PyResult<Py<PyAny>>) {
        *self.0.made.lock() = Some(made);
        self.0.ready.notify_one();
    }
}

impl Drop for Handing {
    fn drop(&mut self) {
        let mut made = self.0.made.lock();
        if made.is_none() {
            *made = Some(Err(pyo3::exceptions::PyRuntimeError::new_err(
                "invoke: the run's result was lost while it was made",
            )));
            self.0.ready.notify_one();
        }
    }
}

/// Finished runs whose results no caller has taken yet.
static QUEUE: Mutex<Vec<Queued>> = Mutex::new(Vec::new());

/// A caller's claim on its queued run's result (`result`).
pub(crate) struct Waiting(Arc<Slot>);

/// Leaves a finished run's state (and the caller's objects it was given) to be made into its
/// result by whichever caller holds the GIL first; called without it.
pub(crate) fn queue(state: AgentState, given: GivenObjects) -> Waiting {
    let slot = Arc::new(Slot::default());
    QUEUE.lock().push(Queued {
        state,
        given,
        slot: Handing(slot.clone()),
    });
    Waiting(slot)
}

/// The result of the run `waiting` stands for: made already by another caller, or made now
/// with every other queued one.
pub(crate) fn result(py: Python<'_>, Waiting(slot): Waiting) -> PyResult<Py<PyAny>> {
    loop {
        if let Some(made) = slot.made.lock().take() {
            return made;
        }
        let batch = std::mem::take(&mut *QUEUE.lock());
        if batch.is_empty() {
            // Taken by a caller still making its batch, which let the GIL go in Python code
            // it runs (`as_left`): waited for without the GIL, which it needs back.
            super::exit_gate::detach(py, || {
                let mut made = slot.made.lock();
                while made.is_none() {
                    slot.ready.wait(&mut made);
                }
            });
            continue;
        }
        make_all(py, batch);
    }
}

/// Makes each queued result and hands it to its caller, the collector paused across the
/// making of them all (objects only; the Python code it runs goes through `as_left`).
fn make_all(py: Python<'_>, batch: Vec<Queued>) {
    let _pause = DrainPause::start(py);
    for Queued { state, given, slot } in batch {
        let made = result_to_py(py, &state, &given);
        // Let go as `invoke` let them go once its result was made (a finalizer of the
        // caller's objects may run Python code).
        as_left(py, move || drop((state, given)));
        slot.give(made);
    }
}
