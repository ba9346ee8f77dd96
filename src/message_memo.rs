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
//!
//! A step sends the list its conversation's previous step sent, plus its new messages, so
//! before any look-up the list is compared with the last one seen for its conversation
//! (`Prefixes`, the same record the model adapter and the token counter keep): the shared
//! prefix's values are taken from that list; only the messages after it are looked up. A
//! step then costs a compare per message of the history (no hashing, no probing of a map far
//! larger than the cache) and a look-up per new message.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::message_prefix::Prefixes;
use crate::messages::Message;

/// Entries below this many are never swept (a sweep walks the whole map).
const MIN_SWEEP: usize = 1024;

#[derive(Default)]
pub(crate) struct AddressHasher(u64);

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

pub(crate) type AddressMap<V> = HashMap<usize, V, BuildHasherDefault<AddressHasher>>;

pub(crate) struct MessageMemo<V> {
    inner: Mutex<Entries<V>>,
}

struct Entries<V> {
    map: AddressMap<(Weak<Message>, V)>,
    /// The map's size after the last sweep.
    swept_at: usize,
    /// Each conversation's last list looked up, with its values.
    lists: Prefixes<Vec<V>>,
}

impl<V> Default for MessageMemo<V> {
    fn default() -> Self {
        MessageMemo {
            inner: Mutex::new(Entries {
                map: AddressMap::default(),
                swept_at: 0,
                lists: Prefixes::default(),
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
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        // The shared prefix's values are copied under the lock (a reference count each);
        // the rest is looked up, and made outside the lock.
        let (mut out, kept) = {
            let entries = self.inner.lock();
            match entries.lists.find(messages) {
                Some((values, found)) => {
                    debug_assert!(found.shared <= values.len());
                    (values[..found.shared].to_vec(), Some(found))
                }
                None => (Vec::new(), None),
            }
        };
        let shared = out.len();
        out.reserve(messages.len() - shared);
        self.look_up(&messages[shared..], &make, &mut out)?;
        let mut entries = self.inner.lock();
        // A conversation another call changed meanwhile keeps that call's list: the values
        // are right either way, this only decides which list the next step compares with.
        let gone = match kept {
            Some(found) => {
                entries.lists.update(messages, found, |values| {
                    values.truncate(found.shared);
                    values.extend_from_slice(&out[found.shared..]);
                    values.len()
                });
                Vec::new()
            }
            None => entries.lists.insert(messages, out.clone()),
        };
        drop(entries);
        drop(gone);
        Ok(out)
    }

    /// Each message's value, looked up one by one, no list kept: for a caller that keeps
    /// what it made of the conversation's earlier messages itself and asks for the new ones.
    pub(crate) fn get_each<E>(
        &self,
        messages: &[Arc<Message>],
        make: impl Fn(&Message) -> Result<V, E>,
    ) -> Result<Vec<V>, E> {
        let mut out = Vec::with_capacity(messages.len());
        self.look_up(messages, &make, &mut out)?;
        Ok(out)
    }

    /// `rest`'s values pushed onto `out`: from the map under one lock, the missing ones made
    /// outside it, then kept.
    fn look_up<E>(
        &self,
        rest: &[Arc<Message>],
        make: &impl Fn(&Message) -> Result<V, E>,
        out: &mut Vec<V>,
    ) -> Result<(), E> {
        let found: Vec<Option<V>> = if rest.is_empty() {
            Vec::new()
        } else {
            let entries = self.inner.lock();
            rest.iter()
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
        for (message, slot) in rest.iter().zip(found) {
            let value = match slot {
                Some(value) => value,
                None => {
                    let value = make(message)?;
                    fresh.push((key(message), Arc::downgrade(message), value.clone()));
                    value
                }
            };
            out.push(value);
        }
        if !fresh.is_empty() {
            let mut entries = self.inner.lock();
            for (k, weak, value) in fresh {
                entries.map.insert(k, (weak, value));
            }
            entries.sweep_if_grown();
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.inner.lock().map.len()
    }

    /// The conversations whose last list is kept.
    #[cfg(test)]
    fn listed(&self) -> usize {
        self.inner.lock().lists.len()
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
        let tags: std::collections::HashSet<u64> =
            addresses.clone().map(|a| hash(a) >> 57).collect();
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

    /// A memo of text lengths, counting the values it makes.
    #[derive(Default)]
    struct Counted {
        memo: MessageMemo<usize>,
        made: std::sync::atomic::AtomicUsize,
    }

    impl Counted {
        fn get(&self, messages: &[Arc<Message>]) -> Vec<usize> {
            let make = |m: &Message| -> Result<usize, ()> {
                self.made.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(m.content().text().len())
            };
            self.memo.get_all(messages, make).unwrap()
        }

        fn made(&self) -> usize {
            self.made.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    fn messages(texts: &[&str]) -> Vec<Arc<Message>> {
        texts.iter().map(|t| Arc::new(Message::human(*t))).collect()
    }

    #[test]
    fn a_later_step_takes_the_shared_prefix_and_makes_only_its_new_messages() {
        let memo = Counted::default();
        let mut step = messages(&["a", "bb"]);
        assert_eq!(memo.get(&step), [1, 2]);
        step.extend(messages(&["ccc", "dddd"]));
        assert_eq!(memo.get(&step), [1, 2, 3, 4]);
        assert_eq!(memo.made(), 4);
        assert_eq!(memo.memo.listed(), 1);
    }

    #[test]
    fn a_message_replaced_inside_the_list_gets_its_own_value() {
        let memo = Counted::default();
        let mut step = messages(&["a", "bb", "ccc"]);
        memo.get(&step);
        // Replaced by id, as a reducer does: another allocation at the same place.
        step[1] = Arc::new(Message::human("xxxxx"));
        assert_eq!(memo.get(&step), [1, 5, 3]);
        // `ccc` still came from the memo, `xxxxx` was made.
        assert_eq!(memo.made(), 4);
        // A shorter list (a message removed) is a prefix too.
        assert_eq!(memo.get(&step[..1]), [1]);
        assert_eq!(memo.get(&step), [1, 5, 3]);
        assert_eq!(memo.made(), 4);
    }

    #[test]
    fn a_fork_and_its_parent_sharing_a_first_message_keep_their_own_values() {
        let memo = Counted::default();
        let parent = messages(&["a", "bb", "ccc"]);
        let mut fork = parent[..2].to_vec();
        fork.extend(messages(&["fffffff"]));
        for _ in 0..3 {
            assert_eq!(memo.get(&parent), [1, 2, 3]);
            assert_eq!(memo.get(&fork), [1, 2, 7]);
        }
        assert_eq!(memo.made(), 4);
    }

    #[test]
    fn the_lists_of_ended_conversations_are_swept() {
        let memo = Counted::default();
        for _ in 0..40 {
            memo.get(&messages(&["x"; 1000]));
        }
        // Each list's messages died with it: at most twice the live ones (none) and a margin.
        let listed = memo.memo.listed();
        assert!(listed <= 17, "{listed} listed");
    }
}
