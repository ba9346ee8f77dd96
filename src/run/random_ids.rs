//! uuid4 ids from the system's random source, read in batches.
//!
//! Every model step makes two ids on a tokio worker (the model call's run id and its reply's
//! message id), and each `Uuid::new_v4` was a `getrandom` system call: 2 of the workers' ~10
//! system calls a step, a couple of microseconds each on a virtual machine. Each thread keeps
//! a pool of random bytes filled by one read and hands out 16 at a time.
//!
//! A forked child starts with a copy of the forking thread's pool: the ids it would hand out
//! are the ones the parent hands out too. A fork bumps `FORKS` (`pthread_atfork`), and a pool
//! filled before the last fork is thrown away.

use std::cell::RefCell;
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

/// Ids a pool holds: one read a model call every 16 steps.
const POOL_IDS: usize = 32;

/// Forks of this process (in the child) since the binding loaded.
static FORKS: AtomicU64 = AtomicU64::new(0);

struct Pool {
    bytes: [u8; 16 * POOL_IDS],
    /// Bytes already handed out (all of them: refill).
    used: usize,
    /// `FORKS` when filled.
    forks: u64,
}

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool { bytes: [0; 16 * POOL_IDS], used: 16 * POOL_IDS, forks: 0 })
    };
}

#[cfg(test)]
thread_local! {
    /// This thread's reads of the random source (tests).
    static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

extern "C" fn forked_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

fn watch_forks() {
    static WATCH: Once = Once::new();
    WATCH.call_once(|| {
        #[cfg(unix)]
        // SAFETY: registers a handler that only bumps an atomic (async-signal-safe, as a
        // forked child's handler must be).
        unsafe {
            libc::pthread_atfork(None, None, Some(forked_child as unsafe extern "C" fn()));
        };
    });
}

/// 16 fresh random bytes; `None` if the system's source fails.
fn random16() -> Option<[u8; 16]> {
    watch_forks();
    POOL.with_borrow_mut(|pool| {
        let forks = FORKS.load(Ordering::Relaxed);
        if pool.used == pool.bytes.len() || pool.forks != forks {
            getrandom::fill(&mut pool.bytes).ok()?;
            #[cfg(test)]
            READS.set(READS.get() + 1);
            pool.used = 0;
            pool.forks = forks;
        }
        let mut out = [0u8; 16];
        out.copy_from_slice(&pool.bytes[pool.used..pool.used + 16]);
        // Handed out once: the copy left in the pool is never read again.
        pool.bytes[pool.used..pool.used + 16].fill(0);
        pool.used += 16;
        Some(out)
    })
}

/// A uuid4's text written straight into the string (`to_string` goes through the formatting
/// machinery, a visible share of reading a long input).
fn hyphenated(random: [u8; 16]) -> String {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = uuid::Builder::from_random_bytes(random).into_uuid();
    id.hyphenated().encode_lower(&mut text).to_owned()
}

/// A fresh uuid4 id, as `str(uuid.uuid4())` writes it.
pub fn new_id() -> String {
    match random16() {
        Some(random) => hyphenated(random),
        None => uuid::Uuid::new_v4().to_string(),
    }
}

/// `n` fresh uuid4 ids from one read of the system's random source (a read per id was a
/// visible share of a long input's conversion); empty if the source fails, and the caller
/// falls back to `new_id`.
pub fn new_ids(n: usize) -> Vec<String> {
    let mut bytes = vec![0u8; 16 * n];
    if getrandom::fill(&mut bytes).is_err() {
        bytes.clear();
    }
    bytes
        .chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            hyphenated(b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Ids come from one read per pool, and each is a distinct uuid4.
    #[test]
    fn ids_come_from_a_read_per_pool_and_differ() {
        let ids: Vec<String> = (0..4 * POOL_IDS).map(|_| new_id()).collect();
        // The test's thread starts with an empty pool.
        assert_eq!(READS.get(), 4);
        let distinct: HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        for id in &ids {
            let parsed = uuid::Uuid::parse_str(id).unwrap();
            assert_eq!(parsed.get_version_num(), 4);
            assert_eq!(&parsed.hyphenated().to_string(), id);
        }
    }

    /// A forked child never hands out an id its parent hands out: its copy of the pool is
    /// thrown away.
    #[cfg(unix)]
    #[test]
    fn a_forked_child_reads_afresh() {
        use std::io::{Read, Write};
        use std::os::fd::FromRawFd;
        // A pool partly used, so the child inherits ids still to hand out.
        let _ = new_id();
        let mut fds = [0; 2];
        // SAFETY: a pipe for the child's ids; fork's child only makes ids, writes and exits.
        unsafe {
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                let mut w = std::fs::File::from_raw_fd(fds[1]);
                let ids: String = (0..4).map(|_| new_id()).collect();
                let _ = w.write_all(ids.as_bytes());
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut child = String::new();
            std::fs::File::from_raw_fd(fds[0])
                .read_to_string(&mut child)
                .unwrap();
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            let parent: String = (0..4).map(|_| new_id()).collect();
            assert_eq!(child.len(), parent.len());
            assert_ne!(child, parent);
        }
    }
}
