//! What a value holds of the heap, for tests: the test build's global allocator tallies the
//! bytes each thread allocates and frees, so a test can assert what a structure keeps (a
//! conversation keeps every message it was given). Counted per thread, so the tests
//! running beside it on other threads are not counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // `const`: reading it allocates nothing (this runs inside the allocator).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    // Every byte allocated, freed or not (a realloc counted as allocating its new size).
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

fn add(bytes: usize, sign: isize) {
    // A thread being torn down has no slot left: its last frees go uncounted.
    let _ = LIVE.try_with(|live| live.set(live.get() + sign * bytes as isize));
    if sign > 0 {
        let _ = ALLOCATED.try_with(|all| all.set(all.get() + bytes));
    }
}

// SAFETY: every call is passed to the system allocator unchanged; only sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size(), 1);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        add(layout.size(), -1);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(layout.size(), -1);
            add(new_size, 1);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// What `make` returns, and the bytes of heap it holds: those allocated while making it
/// less those freed, with the value still alive.
pub(crate) fn held_by<T>(make: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    let value = make();
    let after = LIVE.with(Cell::get);
    (value, usize::try_from(after - before).unwrap_or(0))
}

/// What `make` returns, and the bytes it allocated, whether it kept them or not (the
/// buffers a step writes and lets go count: each is memory written and faulted in).
pub(crate) fn allocated_by<T>(make: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATED.with(Cell::get);
    let value = make();
    (value, ALLOCATED.with(Cell::get) - before)
}

/// The bytes of heap `drop_it` gives back: what the values it drops held.
pub(crate) fn freed_by(drop_it: impl FnOnce()) -> usize {
    let before = LIVE.with(Cell::get);
    drop_it();
    let after = LIVE.with(Cell::get);
    usize::try_from(before - after).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_a_value_keeps_and_not_what_it_freed() {
        let (v, held) = held_by(|| {
            let scratch = vec![0u8; 4096];
            drop(scratch);
            let mut kept = Vec::with_capacity(8);
            kept.push(1u64);
            kept
        });
        assert_eq!(held, 64);
        assert_eq!(v.len(), 1);
        let (_, none) = held_by(|| drop(vec![0u8; 100]));
        assert_eq!(none, 0);
        assert_eq!(freed_by(|| drop(v)), 64);
    }
}
