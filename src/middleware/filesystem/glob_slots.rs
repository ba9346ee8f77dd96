//! The bound on `glob` calls a synchronous run keeps going: deepagents runs a sync `glob`
//! on a pool of `_SYNC_GLOB_WORKERS` threads guarded by a semaphore, and a call that timed
//! out keeps its thread (and its slot) until the backend returns, so once that many are
//! running a new call is refused instead of queueing behind them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// deepagents' `_SYNC_GLOB_WORKERS`.
const SYNC_GLOB_WORKERS: usize = 4;

/// The slots of one `FilesystemMiddleware`, shared by its `glob` tool's calls.
#[derive(Default)]
pub(super) struct GlobSlots(AtomicUsize);

/// A taken slot, given back when dropped (when the backend's call has returned).
pub(super) struct GlobSlot(Arc<GlobSlots>);

impl GlobSlots {
    /// A slot, or `None` when every one is held.
    pub(super) fn take(self: &Arc<Self>) -> Option<GlobSlot> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                (held < SYNC_GLOB_WORKERS).then_some(held + 1)
            })
            .ok()
            .map(|_| GlobSlot(self.clone()))
    }
}

impl Drop for GlobSlot {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_comes_back_when_its_call_ends() {
        let slots = Arc::new(GlobSlots::default());
        let held: Vec<GlobSlot> = (0..SYNC_GLOB_WORKERS)
            .filter_map(|_| slots.take())
            .collect();
        assert_eq!(held.len(), SYNC_GLOB_WORKERS);
        assert!(slots.take().is_none());
        drop(held);
        assert!(slots.take().is_some());
    }
}
