//! uuid4 ids, and a tool run's uuid7, from the system's random source read in batches.
//!
//! Every model step makes two ids on a tokio worker (the model call's run id and its reply's
//! message id), and each `Uuid::new_v4` was a `getrandom` system call: 2 of the workers' ~10
//! system calls a step, a couple of microseconds each on a virtual machine. Each thread keeps
//! a pool of random bytes filled by one read and hands out 16 at a time. A tool run's uuid7
//! (`now_v7`) took one read more a call, and another each new millisecond (`Uuid::now_v7`
//! reseeding its counter): it takes its random bits from the same pool.
//!
//! A forked child starts with a copy of the forking thread's pool: the ids it would hand out
//! are the ones the parent hands out too. A fork bumps `FORKS` (`pthread_atfork`), and a pool
//! filled before the last fork is thrown away.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::time::{SystemTime, UNIX_EPOCH};

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
    new_id_between("", "")
}

/// `format!("{prefix}{}{suffix}", new_id())` in one allocation of its size (formatted, the
/// id was a string of its own and the text grew twice).
pub fn new_id_between(prefix: &str, suffix: &str) -> String {
    let mut text = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = match random16() {
        Some(random) => uuid::Builder::from_random_bytes(random).into_uuid(),
        None => uuid::Uuid::new_v4(),
    };
    let id = id.hyphenated().encode_lower(&mut text);
    let mut out = String::with_capacity(prefix.len() + id.len() + suffix.len());
    out.push_str(prefix);
    out.push_str(id);
    out.push_str(suffix);
    out
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

/// A uuid7's counter: 42 bits (the 12 of `rand_a` and the first 30 of `rand_b`, RFC 9562's
/// method 1), seeded with 41 random bits each new millisecond so that it has room to count.
const COUNTER_MAX: u64 = (1 << 42) - 1;
const COUNTER_SEED: u64 = (1 << 41) - 1;

/// The last uuid7's millisecond and counter, for the whole process: ids made in one
/// millisecond, on any thread, count up from one random seed.
static LAST_V7: Mutex<(u64, u64)> = Mutex::new((0, 0));

/// The millisecond and counter of the uuid7 after `last`'s made at `now`: a new millisecond
/// seeds the counter, the same one (or one gone back) counts on, a counter run out moves on
/// to the next millisecond.
fn next_v7(last: (u64, u64), now: u64, seed: u64) -> (u64, u64) {
    if now > last.0 {
        (now, seed)
    } else if last.1 < COUNTER_MAX {
        (last.0, last.1 + 1)
    } else {
        (last.0 + 1, seed)
    }
}

/// A fresh uuid7, in order after every other this process made: the time in milliseconds,
/// a counter and 32 random bits, laid out as `uuid::Uuid::now_v7` lays them (LangChain's
/// `uuid7()` order: a clock that goes back keeps the last millisecond, a counter that runs
/// out moves to the next).
#[cfg_attr(not(feature = "python"), allow(dead_code))] // the binding's tool run ids
pub fn now_v7() -> uuid::Uuid {
    let Some(random) = random16() else {
        return uuid::Uuid::now_v7();
    };
    let random = u128::from_be_bytes(random);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let (millis, counter) = {
        let mut last = LAST_V7.lock().unwrap_or_else(|e| e.into_inner());
        *last = next_v7(*last, now, (random >> 64) as u64 & COUNTER_SEED);
        *last
    };
    let mut bytes = [0u8; 10];
    // rand_a: the counter's first 12 bits (the builder puts the version above them).
    bytes[..2].copy_from_slice(&((counter >> 30) as u16).to_be_bytes());
    // rand_b: the counter's other 30 bits below the variant's two, then 32 random bits.
    let tail = ((counter & ((1 << 30) - 1)) << 32) | (random as u64 & u64::from(u32::MAX));
    bytes[2..].copy_from_slice(&tail.to_be_bytes());
    uuid::Builder::from_unix_timestamp_millis(millis, &bytes).into_uuid()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Ids come from one read per pool, and each is a distinct uuid4.
    #[test]
    fn an_id_between_is_the_id_formatted_in_one_allocation() {
        let id = new_id_between("lc_run--", "-0");
        let uuid = id
            .strip_prefix("lc_run--")
            .and_then(|rest| rest.strip_suffix("-0"))
            .expect("the prefix and the suffix");
        let parsed = uuid::Uuid::parse_str(uuid).expect("a uuid");
        assert_eq!(parsed.get_version_num(), 4);
        assert_eq!(
            parsed.hyphenated().to_string(),
            uuid,
            "hyphenated, lower case"
        );
        assert_ne!(new_id_between("lc_run--", "-0"), id);
        // Made at its size: `format!` left room (and grew twice).
        assert_eq!(id.capacity(), id.len());
    }

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

    /// uuid7s come from the pool too (one read for 32), each in order after the last (the
    /// counter counting within a millisecond), version 7 of RFC 9562's variant, their time
    /// the clock's.
    #[test]
    fn v7_ids_come_from_the_pool_in_order() {
        let start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        let ids: Vec<uuid::Uuid> = (0..2 * POOL_IDS).map(|_| now_v7()).collect();
        let end = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        // The test's thread starts with an empty pool.
        assert_eq!(READS.get(), 2);
        for pair in ids.windows(2) {
            assert!(pair[0] < pair[1], "{} !< {}", pair[0], pair[1]);
        }
        for id in &ids {
            assert_eq!(id.get_version_num(), 7);
            assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
            let millis = (id.as_u128() >> 80) as u64;
            assert!(
                start <= millis && millis <= end + 1,
                "{start} {millis} {end}"
            );
        }
        // Made in one millisecond, the next id's counter is the last's plus one.
        let counter = |id: &uuid::Uuid| {
            let v = id.as_u128();
            (((v >> 64) & 0xfff) << 30 | ((v >> 32) & ((1 << 30) - 1))) as u64
        };
        let same_ms = ids
            .windows(2)
            .filter(|p| p[0].as_u128() >> 80 == p[1].as_u128() >> 80)
            .collect::<Vec<_>>();
        assert!(!same_ms.is_empty());
        for pair in same_ms {
            assert_eq!(counter(&pair[0]) + 1, counter(&pair[1]));
        }
    }

    /// A counter that has run out moves the id to the next millisecond; a clock gone back
    /// keeps the last millisecond and counts on.
    #[test]
    fn v7_counter_run_out_and_clock_back_keep_the_order() {
        assert_eq!(next_v7((100, 5), 101, 9), (101, 9));
        assert_eq!(next_v7((100, 5), 100, 9), (100, 6));
        assert_eq!(next_v7((100, 5), 40, 9), (100, 6));
        assert_eq!(next_v7((100, COUNTER_MAX), 100, 9), (101, 9));
        assert_eq!(next_v7((100, COUNTER_MAX), 99, 9), (101, 9));
    }
}
