//! What was last made of each conversation's messages (a Python list of their objects,
//! running token counts, their encodings), kept with those messages, so that the
//! conversation's next request costs its new messages only: the next step appends to what the
//! last one sent, and a fork starts with its caller's messages, so its first request shares
//! all of them but the last.
//!
//! A conversation is known by its first message. A request is matched against what was kept
//! by comparing message addresses, a few nanoseconds a message, where making the value again
//! would touch every message. An address stands for one message only while its allocation
//! lives, so each kept message is held by a `Weak`: the allocation cannot be reused for
//! another message while it is kept, and a message changed in place (`Arc::make_mut` with
//! only weak references left) moves to a new allocation.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use crate::messages::Message;

/// Messages a kept prefix has room for beyond those it was made with (and an eighth more):
/// a few steps' worth.
const ROOM: usize = 16;

fn address(message: &Arc<Message>) -> usize {
    Arc::as_ptr(message) as usize
}

/// The messages a value was made for, and the value.
struct Prefix<T> {
    /// Hold the messages' allocations (see the module doc).
    messages: Vec<Weak<Message>>,
    /// The same messages' addresses, compared with a request's: a `Weak`'s address is
    /// behind a check for the dangling `Weak::new`, a branch per message that keeps the
    /// compare from running a block of messages at a time.
    addresses: Vec<usize>,
    /// Changes with every edit, so an edit prepared outside a lock can tell whether another
    /// thread changed the prefix meanwhile.
    stamp: u64,
    value: T,
}

impl<T> Prefix<T> {
    fn found(&self, messages: &[Arc<Message>]) -> Found {
        Found {
            shared: shared_len(&self.addresses, messages),
            kept: self.addresses.len(),
            stamp: self.stamp,
        }
    }

    fn truncate(&mut self, len: usize) {
        self.messages.truncate(len);
        self.addresses.truncate(len);
    }
}

/// How many of `messages` lead with the addresses `kept`. Every step compares its whole
/// history here, several times (each cache keyed on the conversation), so the compare runs
/// a block at a time: a block's differences are or-ed together, with no branch per message,
/// which the compiler turns into vector instructions (measured alone: 2.8 instructions a
/// message, where comparing one by one until the first difference took 7).
fn shared_len(kept: &[usize], messages: &[Arc<Message>]) -> usize {
    const BLOCK: usize = 16;
    let n = kept.len().min(messages.len());
    let (kept, messages) = (&kept[..n], &messages[..n]);
    let mut shared = 0;
    for (k, m) in kept.chunks_exact(BLOCK).zip(messages.chunks_exact(BLOCK)) {
        if k.iter().zip(m).fold(0, |d, (a, m)| d | (a ^ address(m))) != 0 {
            break;
        }
        shared += BLOCK;
    }
    shared
        + kept[shared..]
            .iter()
            .zip(&messages[shared..])
            .take_while(|(a, m)| **a == address(m))
            .count()
}

/// What a look-up found: how many of the request's messages the kept value covers, how
/// many it was made for, and the value's stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub shared: usize,
    pub kept: usize,
    stamp: u64,
}

/// The values kept per conversation. Not locked itself: its owner keeps it under the lock
/// that also guards what the values refer to.
pub(crate) struct Prefixes<T> {
    by_first: HashMap<usize, Prefix<T>>,
    stamps: u64,
    /// Conversations kept after the last prune: dead ones are pruned when the map has
    /// doubled since, so the map stays proportional to the live conversations.
    live_after_prune: usize,
}

impl<T> Default for Prefixes<T> {
    fn default() -> Self {
        Prefixes {
            by_first: HashMap::new(),
            stamps: 0,
            live_after_prune: 0,
        }
    }
}

impl<T> Prefixes<T> {
    /// The value kept for `messages`' conversation, and how much of `messages` it covers.
    pub(crate) fn find(&self, messages: &[Arc<Message>]) -> Option<(&T, Found)> {
        let prefix = self.by_first.get(&address(messages.first()?))?;
        let found = prefix.found(messages);
        Some((&prefix.value, found))
    }

    /// `find`, with the value to take or change (a change made here is not an `update`:
    /// the stamp stays, so the caller keeps the messages and the value in step).
    pub(crate) fn find_mut(&mut self, messages: &[Arc<Message>]) -> Option<(&mut T, Found)> {
        let prefix = self.by_first.get_mut(&address(messages.first()?))?;
        let found = prefix.found(messages);
        Some((&mut prefix.value, found))
    }

    /// Makes the conversation's kept prefix `messages` (its first `found.shared` are kept
    /// already) and lets `edit` bring the value up to date, if the prefix is still as `find`
    /// found it; `false` (nothing changed) when another request changed it meanwhile. `edit`
    /// answers how many of `messages` the value now covers (all of them, unless it failed
    /// part of the way).
    pub(crate) fn update(
        &mut self,
        messages: &[Arc<Message>],
        found: Found,
        edit: impl FnOnce(&mut T) -> usize,
    ) -> bool {
        let stamp = self.next_stamp();
        let Some(prefix) = messages
            .first()
            .and_then(|m| self.by_first.get_mut(&address(m)))
            .filter(|p| p.stamp == found.stamp)
        else {
            return false;
        };
        prefix.truncate(found.shared);
        let fresh = &messages[found.shared..];
        prefix.messages.extend(fresh.iter().map(Arc::downgrade));
        prefix.addresses.extend(fresh.iter().map(address));
        prefix.stamp = stamp;
        let covered = edit(&mut prefix.value);
        prefix.truncate(covered);
        true
    }

    /// Keeps `value` for `messages`, in place of what was kept for their conversation.
    /// Returns the values let go (the replaced one, those of conversations that ended), for
    /// the caller to drop after releasing its lock.
    pub(crate) fn insert(&mut self, messages: &[Arc<Message>], value: T) -> Vec<T> {
        let Some(first) = messages.first() else {
            return Vec::new();
        };
        let stamp = self.next_stamp();
        // Room for the messages the next requests add: collected to their exact length, the
        // first `update` (the next step, a fork's start) moved both lists to a larger block,
        // a copy of the whole history each (two 80 KB copies per cache at 10,000 messages,
        // in every fork's start).
        let room = messages.len() + messages.len() / 8 + ROOM;
        let mut kept = Vec::with_capacity(room);
        kept.extend(messages.iter().map(Arc::downgrade));
        let mut addresses = Vec::with_capacity(room);
        addresses.extend(messages.iter().map(address));
        let prefix = Prefix {
            messages: kept,
            addresses,
            stamp,
            value,
        };
        let mut gone: Vec<T> = self
            .by_first
            .insert(address(first), prefix)
            .map(|p| p.value)
            .into_iter()
            .collect();
        if self.by_first.len() > 2 * self.live_after_prune + 16 {
            gone.extend(self.prune());
        }
        gone
    }

    /// Lets go of the values of conversations whose first message is gone (the messages of
    /// a finished run die with it).
    pub(crate) fn prune(&mut self) -> Vec<T> {
        let dead: Vec<usize> = self
            .by_first
            .iter()
            .filter(|(_, p)| p.messages.first().is_none_or(|w| w.strong_count() == 0))
            .map(|(k, _)| *k)
            .collect();
        let gone = dead
            .iter()
            .filter_map(|k| self.by_first.remove(k))
            .map(|p| p.value)
            .collect();
        self.live_after_prune = self.by_first.len();
        gone
    }

    fn next_stamp(&mut self) -> u64 {
        self.stamps += 1;
        self.stamps
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_first.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(n: usize) -> Vec<Arc<Message>> {
        (0..n)
            .map(|i| Arc::new(Message::human(format!("m{i}"))))
            .collect()
    }

    #[test]
    fn a_fork_and_the_next_step_share_what_was_kept() {
        let mut prefixes: Prefixes<usize> = Prefixes::default();
        let parent = messages(5);
        assert!(prefixes.find(&parent).is_none());
        assert!(prefixes.insert(&parent, 5).is_empty());
        // The fork: the parent's messages but the last, then its task.
        let mut fork = parent[..4].to_vec();
        fork.push(Arc::new(Message::human("task")));
        let (value, found) = prefixes.find(&fork).unwrap();
        assert_eq!((*value, found.shared, found.kept), (5, 4, 5));
        assert!(prefixes.update(&fork, found, |v| {
            *v = 50;
            5
        }));
        // A stale look-up edits nothing.
        assert!(!prefixes.update(&fork, found, |v| {
            *v = 0;
            5
        }));
        let (value, found) = prefixes.find(&parent).unwrap();
        assert_eq!((*value, found.shared, found.kept), (50, 4, 5));
        // Another conversation is kept beside it.
        let other = messages(2);
        prefixes.insert(&other, 2);
        assert_eq!(prefixes.len(), 2);
        assert_eq!(
            prefixes.find(&other).map(|(v, f)| (*v, f.shared)),
            Some((2, 2))
        );
    }

    #[test]
    fn a_kept_prefix_has_room_for_a_fork_and_the_next_steps() {
        let mut prefixes: Prefixes<()> = Prefixes::default();
        let parent = messages(1000);
        prefixes.insert(&parent, ());
        let buffers = |p: &Prefixes<()>| {
            let kept = &p.by_first[&address(&parent[0])];
            assert!(kept.messages.capacity() > kept.messages.len());
            assert!(kept.addresses.capacity() > kept.addresses.len());
            (kept.messages.as_ptr(), kept.addresses.as_ptr())
        };
        let before = buffers(&prefixes);
        // The fork: the parent's messages but the last, then its task; then the parent's
        // next step, two messages on.
        let mut fork = parent[..999].to_vec();
        fork.push(Arc::new(Message::human("task")));
        let mut next = parent.clone();
        next.extend(messages(2));
        for request in [&fork, &next] {
            let found = prefixes.find(request).unwrap().1;
            assert!(prefixes.update(request, found, |_| request.len()));
            assert_eq!(buffers(&prefixes), before, "extended in place, not moved");
        }
    }

    #[test]
    fn a_new_message_at_a_freed_address_is_not_taken_for_the_kept_one() {
        let mut prefixes: Prefixes<()> = Prefixes::default();
        let mut conversation = messages(3);
        prefixes.insert(&conversation, ());
        // The kept `Weak` holds the allocation: the replacement gets another address.
        let replaced = Arc::as_ptr(&conversation[2]);
        conversation[2] = Arc::new(Message::human("new"));
        assert!(!std::ptr::eq(replaced, Arc::as_ptr(&conversation[2])));
        assert_eq!(prefixes.find(&conversation).unwrap().1.shared, 2);
    }

    #[test]
    fn the_shared_messages_end_at_the_first_that_differs_wherever_it_is() {
        let kept = messages(40);
        for len in [0, 1, 15, 16, 17, 33, 40] {
            let mut prefixes: Prefixes<()> = Prefixes::default();
            prefixes.insert(&kept[..len.max(1)], ());
            let kept_len = len.max(1);
            // The request as long as the kept messages, shorter, and longer.
            for request_len in [1, kept_len / 2 + 1, kept_len, 40] {
                let request = &kept[..request_len.min(40)];
                let shared = prefixes.find(request).unwrap().1.shared;
                assert_eq!(shared, request.len().min(kept_len), "{len} {request_len}");
                for at in 1..request.len() {
                    let mut changed = request.to_vec();
                    changed[at] = Arc::new(Message::human("other"));
                    let found = prefixes.find(&changed).unwrap().1;
                    assert_eq!(found.shared, at.min(kept_len), "{len} {request_len} {at}");
                    assert_eq!(found.kept, kept_len);
                }
            }
        }
    }

    #[test]
    fn ended_conversations_are_pruned() {
        let mut prefixes: Prefixes<usize> = Prefixes::default();
        let live = messages(1);
        prefixes.insert(&live, 0);
        let mut gone = 0;
        for i in 0..100 {
            gone += prefixes.insert(&messages(2), i).len();
        }
        assert!(gone >= 80, "{gone} pruned");
        assert!(prefixes.find(&live).is_some());
        assert!(prefixes.len() <= 20);
    }
}
