//! What is worked out once per message (its encoding for a provider, its token size) kept
//! by the message's allocation, for every later step and fork that sends it again.
//!
//! An entry holds a `Weak` to its message. The `Weak` keeps the allocation from being reused
//! for another message while the entry exists, so an address seen again with the same `Weak`
//! is the same message; a message changed in place (`Arc::make_mut` with only weak references
//! left) moves to a new allocation, so a stale value is never read. Dead entries are dropped
//! when the map has doubled since the last sweep, so a memo stays proportional to the live
//! conversations.
//!
//! Every step looks up each message of the conversation, thousands on a long history: they
//! are looked up under one lock per step, and hashed by address with a few multiplies (the
//! std hasher, SipHash, keyed against chosen keys, was most of a look-up; nobody outside
//! chooses an address).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::messages::Message;

/// Entries below this many are never swept (a sweep walks the whole map).
const MIN_SWEEP: usize = 1024;

#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `usize` keys are hashed; this is the fallback for anything else.
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, address: usize) {
        // MurmurHash3's finalizer: every bit of the address reaches both the high bits
        // (hashbrown's tag) and the low ones (its bucket index); aligned addresses have zero
        // low bits, which a plain multiply would leave to crowd a few buckets.
        let mut x = address as u64;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        self.0 = x ^ (x >> 33);
    }
}

type AddressMap<V> = HashMap<usize, V, BuildHasherDefault<AddressHasher>>;

pub(crate) struct MessageMemo<V> {
    inner: Mutex<Entries<V>>,
}

struct Entries<V> {
    map: AddressMap<(Weak<Message>, V)>,
    /// The map's size after the last sweep.
    swept_at: usize,
}

impl<V> Default for MessageMemo<V> {
    fn default() -> Self {
        MessageMemo {
            inner: Mutex::new(Entries {
                map: AddressMap::default(),
                swept_at: 0,
            }),
        }
    }
}

fn key(message: &Arc<Message>) -> usize {
    Arc::as_ptr(message) as usize
}

impl<V: Clone> MessageMemo<V> {
    /// Each message's value, from the memo or from `make` (called outside the lock, so
    /// concurrent steps do not wait on each other's work).
    pub(crate) fn get_all<E>(
        &self,
        messages: &[Arc<Message>],
        make: impl Fn(&Message) -> Result<V, E>,
    ) -> Result<Vec<V>, E> {
        let mut found: Vec<Option<V>> = {
            let entries = self.inner.lock();
            messages
                .iter()
                .map(|m| {
                    entries
                        .map
                        .get(&key(m))
                        .filter(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(m)))
                        .map(|(_, value)| value.clone())
                })
                .collect()
        };
        let mut fresh = Vec::new();
        for (message, slot) in messages.iter().zip(found.iter_mut()) {
            if slot.is_none() {
                let value = make(message)?;
                fresh.push((key(message), Arc::downgrade(message), value.clone()));
                *slot = Some(value);
            }
        }
        if !fresh.is_empty() {
            let mut entries = self.inner.lock();
            for (k, weak, value) in fresh {
                entries.map.insert(k, (weak, value));
            }
            entries.sweep_if_grown();
        }
        Ok(found.into_iter().flatten().collect())
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().map.len()
    }
}

impl<V> Entries<V> {
    fn sweep_if_grown(&mut self) {
        if self.map.len() < MIN_SWEEP.max(2 * self.swept_at) {
            return;
        }
        self.map.retain(|_, (weak, _)| weak.strong_count() > 0);
        self.swept_at = self.map.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(address: usize) -> u64 {
        let mut h = AddressHasher::default();
        h.write_usize(address);
        h.finish()
    }

    #[test]
    fn neighbouring_addresses_spread_over_tags_and_buckets() {
        let addresses = (0..64).map(|i| 0x7f00_0000_0000 + 16 * i);
        // hashbrown takes its tag from the top 7 bits and its bucket from the low ones.
        let tags: std::collections::HashSet<u64> = addresses.clone().map(|a| hash(a) >> 57).collect();
        let buckets: std::collections::HashSet<u64> = addresses.map(|a| hash(a) & 63).collect();
        assert!(tags.len() > 40, "{} distinct tags", tags.len());
        assert!(buckets.len() > 32, "{} distinct buckets", buckets.len());
    }

    #[test]
    fn a_value_is_made_once_while_its_message_lives() {
        let memo: MessageMemo<usize> = MessageMemo::default();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let make = |m: &Message| -> Result<usize, ()> {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(m.content().text().len())
        };
        let a = Arc::new(Message::human("a"));
        let bb = Arc::new(Message::human("bb"));
        assert_eq!(memo.get_all(std::slice::from_ref(&a), make), Ok(vec![1]));
        assert_eq!(memo.get_all(&[a.clone(), bb.clone()], make), Ok(vec![1, 2]));
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
        drop(bb);
        for i in 0..3 * MIN_SWEEP {
            let m = Arc::new(Message::human(format!("m{i}")));
            memo.get_all(&[m], make).unwrap();
        }
        assert!(memo.len() <= MIN_SWEEP);
    }
}
