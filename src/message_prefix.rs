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
//!
//! A request read from a history as it is (`Messages::read_from`) is matched without the
//! compare: the history node the kept messages were read at names them all, so a request
//! whose history passes through that node shares them, found by walking its few new nodes
//! back (a fork's one; a step's two or three), whatever the history's length.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use crate::history::{History, Mark};
use crate::messages::Message;
use crate::request_messages::Messages;

/// Messages a kept prefix has room for beyond those it was made with (and an eighth more):
/// a few steps' worth.
const ROOM: usize = 16;

/// New messages a request may have beyond the kept ones and still be matched by its history
/// (see the module doc); more are compared.
const WALK: usize = 64;

/// A request's messages, with the history they were read from when they are its messages
/// as read (`Messages::read_from`).
#[derive(Clone, Copy)]
pub(crate) struct Conversation<'a> {
    messages: &'a [Arc<Message>],
    read_from: Option<&'a History>,
}

impl<'a> Conversation<'a> {
    /// `messages`, as read from `read_from` if they are its messages as read.
    pub(crate) fn new(messages: &'a [Arc<Message>], read_from: Option<&'a History>) -> Self {
        Conversation {
            messages,
            read_from,
        }
    }

    pub(crate) fn messages(&self) -> &'a [Arc<Message>] {
        self.messages
    }

    /// The history node these messages were read at, if they were.
    fn mark(&self) -> Option<Mark> {
        self.read_from
            .filter(|h| h.len() == self.messages.len())
            .and_then(History::mark)
    }
}

impl<'a> From<&'a [Arc<Message>]> for Conversation<'a> {
    fn from(messages: &'a [Arc<Message>]) -> Self {
        Conversation {
            messages,
            read_from: None,
        }
    }
}

impl<'a> From<&'a Vec<Arc<Message>>> for Conversation<'a> {
    fn from(messages: &'a Vec<Arc<Message>>) -> Self {
        Conversation::from(messages.as_slice())
    }
}

impl<'a> From<&'a Messages> for Conversation<'a> {
    fn from(messages: &'a Messages) -> Self {
        Conversation {
            messages,
            read_from: messages.read_from(),
        }
    }
}

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
    /// The history node the kept messages were read at, all of them (see the module doc).
    read_at: Option<Mark>,
    /// Changes with every edit, so an edit prepared outside a lock can tell whether another
    /// thread changed the prefix meanwhile.
    stamp: u64,
    value: T,
}

impl<T> Prefix<T> {
    fn found(&self, request: Conversation<'_>) -> Found {
        let kept = self.addresses.len();
        let messages = request.messages();
        let read_here = |history: &History| {
            let at = self.read_at.as_ref()?;
            (history.len() == messages.len() && history.continues(at, kept, WALK)).then_some(kept)
        };
        let shared = request
            .read_from
            .and_then(read_here)
            .unwrap_or_else(|| shared_len(&self.addresses, messages));
        Found {
            shared,
            kept,
            stamp: self.stamp,
        }
    }

    fn truncate(&mut self, len: usize) {
        if len < self.addresses.len() {
            self.read_at = None;
        }
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
    pub(crate) fn find<'a>(&self, request: impl Into<Conversation<'a>>) -> Option<(&T, Found)> {
        let request = request.into();
        let prefix = self.by_first.get(&address(request.messages().first()?))?;
        let found = prefix.found(request);
        Some((&prefix.value, found))
    }

    /// `find`, with the value to take or change (a change made here is not an `update`:
    /// the stamp stays, so the caller keeps the messages and the value in step).
    pub(crate) fn find_mut<'a>(
        &mut self,
        request: impl Into<Conversation<'a>>,
    ) -> Option<(&mut T, Found)> {
        let request = request.into();
        let prefix = self
            .by_first
            .get_mut(&address(request.messages().first()?))?;
        let found = prefix.found(request);
        Some((&mut prefix.value, found))
    }

    /// Makes the conversation's kept prefix `messages` (its first `found.shared` are kept
    /// already) and lets `edit` bring the value up to date, if the prefix is still as `find`
    /// found it; `false` (nothing changed) when another request changed it meanwhile. `edit`
    /// answers how many of `messages` the value now covers (all of them, unless it failed
    /// part of the way).
    pub(crate) fn update<'a>(
        &mut self,
        request: impl Into<Conversation<'a>>,
        found: Found,
        edit: impl FnOnce(&mut T) -> usize,
    ) -> bool {
        let request = request.into();
        let messages = request.messages();
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
        prefix.read_at = request.mark();
        prefix.stamp = stamp;
        let covered = edit(&mut prefix.value);
        prefix.truncate(covered);
        true
    }

    /// Keeps `value` for `messages`, in place of what was kept for their conversation.
    /// Returns the values let go (the replaced one, those of conversations that ended), for
    /// the caller to drop after releasing its lock.
    pub(crate) fn insert<'a>(&mut self, request: impl Into<Conversation<'a>>, value: T) -> Vec<T> {
        let request = request.into();
        let messages = request.messages();
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
            read_at: request.mark(),
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

    fn history(n: usize) -> History {
        messages(n).into_iter().collect()
    }

    /// The kept addresses made unreadable: only a match by the history node finds them.
    fn blind(prefixes: &mut Prefixes<()>) {
        for p in prefixes.by_first.values_mut() {
            p.addresses.iter_mut().for_each(|a| *a = 0);
        }
    }

    #[test]
    fn a_fork_and_the_next_step_read_from_the_history_are_matched_by_its_node() {
        let mut prefixes: Prefixes<()> = Prefixes::default();
        let parent = history(1000);
        let read = parent.messages();
        prefixes.insert(&read, ());
        drop(read);
        blind(&mut prefixes);
        // The fork continues the parent's node with its task; the next step with two more.
        let mut fork = parent.clone();
        fork.push(Message::human("task"));
        let mut next = parent.clone();
        next.push(Message::human("answer"));
        next.push(Message::human("more"));
        for request in [fork.messages(), next.messages()] {
            let found = prefixes.find(&request).unwrap().1;
            assert_eq!((found.shared, found.kept), (1000, 1000));
        }
        // Kept after an update, at the request's own node: the next step from there too.
        let read = fork.messages();
        let found = prefixes.find(&read).unwrap().1;
        assert!(prefixes.update(&read, found, |_| read.len()));
        drop(read);
        blind(&mut prefixes);
        fork.push(Message::human("answer"));
        let found = prefixes.find(&fork.messages()).unwrap().1;
        assert_eq!((found.shared, found.kept), (1001, 1001));
    }

    #[test]
    fn a_request_not_as_read_from_the_kept_node_is_compared() {
        let parent = history(40);
        let setup = || {
            let mut prefixes: Prefixes<()> = Prefixes::default();
            prefixes.insert(&parent.messages(), ());
            prefixes
        };
        // Edited after the read: its history no longer stands for it.
        let mut edited = parent.messages();
        edited[10] = Arc::new(Message::human("other"));
        assert_eq!(setup().find(&edited).unwrap().1.shared, 10);
        // A history beside the kept one (the parent without its last message, then another):
        // its node is not the kept one's, so its messages are compared.
        let mut beside = parent.without_last();
        beside.push(Message::human("other"));
        assert_eq!(setup().find(&beside.messages()).unwrap().1.shared, 39);
        // Farther from the kept node than the walk goes: compared, and found whole.
        let mut far = parent.clone();
        for i in 0..WALK + 1 {
            far.push(Message::human(format!("n{i}")));
        }
        let mut prefixes = setup();
        assert_eq!(prefixes.find(&far.messages()).unwrap().1.shared, 40);
        blind(&mut prefixes);
        assert_eq!(prefixes.find(&far.messages()).unwrap().1.shared, 0);
        // A value that covers part of its request keeps no node.
        let mut prefixes = setup();
        let read = parent.messages();
        let found = prefixes.find(&read).unwrap().1;
        assert!(prefixes.update(&read, found, |_| 20));
        blind(&mut prefixes);
        assert_eq!(
            prefixes.find(&read).unwrap().1,
            Found {
                shared: 0,
                kept: 20,
                stamp: found.stamp + 1
            }
        );
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
