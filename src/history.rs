//! Message history shared between an agent and its forks.
//!
//! A persistent singly linked list, newest message first: `clone` and `push` are O(1), so a
//! fork costs the same whatever the parent's history length, and a fork's appends never touch
//! the parent's list. Reading the whole history is O(n), which every model request pays anyway
//! to serialize it.
//!
//! A model request reads the history as a list (`messages`). That list is kept on the node
//! it was read at, and the next read from a later node (the next step's, or a fork's, whose
//! history continues its caller's) takes it and appends the messages after it: a step or a
//! fork start costs its new messages, where copying the list touched every message's count.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::messages::Message;
use crate::request_messages::Messages;

/// Messages a read list has room for beyond those it holds (and an eighth more).
const ROOM: usize = 16;

struct Node {
    message: Arc<Message>,
    prev: Option<Arc<Node>>,
    len: usize,
    /// The messages up to this node as a list, when a request was last read here. Taken by
    /// the next read after it, so one conversation keeps one list, extended in place.
    list: Mutex<Option<Arc<Vec<Arc<Message>>>>>,
}

#[derive(Clone, Default)]
pub struct History {
    head: Option<Arc<Node>>,
}

impl History {
    pub fn new() -> Self {
        History { head: None }
    }

    pub fn len(&self) -> usize {
        self.head.as_ref().map_or(0, |n| n.len)
    }

    // Beside `len`, as clippy asks of a public type.
    #[cfg_attr(dead_code_check, allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    pub fn push(&mut self, message: impl Into<Arc<Message>>) {
        let prev = self.head.take();
        let len = prev.as_ref().map_or(0, |n| n.len) + 1;
        self.head = Some(Arc::new(Node {
            message: message.into(),
            prev,
            len,
            list: Mutex::new(None),
        }));
    }

    pub fn last(&self) -> Option<&Arc<Message>> {
        self.head.as_ref().map(|n| &n.message)
    }

    /// The history without its newest message, sharing everything before it.
    pub fn without_last(&self) -> History {
        History {
            head: self.head.as_ref().and_then(|n| n.prev.clone()),
        }
    }

    /// The messages, newest first, without copying.
    pub fn iter_newest_first(&self) -> impl Iterator<Item = &Arc<Message>> {
        let mut cur = self.head.as_deref();
        std::iter::from_fn(move || {
            let node = cur?;
            cur = node.prev.as_deref();
            Some(&node.message)
        })
    }

    /// The messages newest first, each with its node's address: the name of the history up
    /// to that message, which a fork shares with its caller (see `Mark`).
    pub fn iter_addressed_newest_first(&self) -> impl Iterator<Item = (usize, &Arc<Message>)> {
        let mut cur = self.head.as_deref();
        std::iter::from_fn(move || {
            let node = cur?;
            cur = node.prev.as_deref();
            Some((node as *const Node as usize, &node.message))
        })
    }

    /// The newest node, held weakly: what was found in this history can be kept under its
    /// address, and found again by any history that holds the node.
    pub fn mark(&self) -> Option<Mark> {
        self.head.as_ref().map(|n| Mark(Arc::downgrade(n)))
    }

    /// The messages, oldest first, as a model request holds them: the list read last at an
    /// earlier node of this history (nearest first), taken and extended by the messages
    /// after it, and kept here for the next read. A list still held elsewhere (a request not
    /// yet dropped) is copied, as is the whole history when no earlier node keeps one (a
    /// run's first read; or a node whose list a fork took: its caller reads whole once).
    pub fn messages(&self) -> Messages {
        let Some(head) = self.head.as_deref() else {
            return Messages::default();
        };
        if let Some(kept) = head.list.lock().as_ref() {
            return Messages::read(kept.clone(), self);
        }
        let mut after: Vec<&Arc<Message>> = Vec::new();
        let mut found = None;
        let mut cur = Some(head);
        while let Some(node) = cur {
            if let Some(list) = node.list.lock().take() {
                found = Some(list);
                break;
            }
            after.push(&node.message);
            cur = node.prev.as_deref();
        }
        let mut list = found.unwrap_or_default();
        let all = Arc::make_mut(&mut list);
        let needed = all.len() + after.len();
        if all.capacity() < needed {
            // With room for the next reads' messages: a list made to its exact length moved to
            // a larger block on the next read, a fork's start or the next step, a copy of the
            // whole history (80 KB at 10,000 messages) where the read costs its new messages.
            all.reserve_exact(after.len() + needed / 8 + ROOM);
        }
        all.extend(after.into_iter().rev().cloned());
        debug_assert_eq!(all.len(), head.len);
        *head.list.lock() = Some(list.clone());
        Messages::read(list, self)
    }

    /// Whether this history's first `len` messages are the history `mark` was taken of:
    /// its node `len` messages from the start is the mark's (a node names its messages up
    /// to it). Walks back from the newest node, at most `steps` nodes; `false` farther.
    pub fn continues(&self, mark: &Mark, len: usize, steps: usize) -> bool {
        let Some(back) = self.len().checked_sub(len).filter(|b| *b <= steps) else {
            return false;
        };
        let mut cur = self.head.as_deref();
        for _ in 0..back {
            cur = cur.and_then(|n| n.prev.as_deref());
        }
        cur.is_some_and(|n| std::ptr::eq(n, mark.0.as_ptr()))
    }

    /// The messages, oldest first.
    pub fn to_vec(&self) -> Vec<Arc<Message>> {
        let mut out = Vec::with_capacity(self.len());
        let mut cur = self.head.as_deref();
        while let Some(node) = cur {
            out.push(node.message.clone());
            cur = node.prev.as_deref();
        }
        out.reverse();
        out
    }
}

/// A history's newest node, held weakly. Its allocation outlives the history, so no other
/// node takes its address while the mark is kept.
pub struct Mark(Weak<Node>);

impl Mark {
    pub fn address(&self) -> usize {
        self.0.as_ptr() as usize
    }

    /// Whether a history still holds the node.
    pub fn alive(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl FromIterator<Message> for History {
    fn from_iter<I: IntoIterator<Item = Message>>(iter: I) -> Self {
        let mut h = History::new();
        for m in iter {
            h.push(m);
        }
        h
    }
}

impl FromIterator<Arc<Message>> for History {
    fn from_iter<I: IntoIterator<Item = Arc<Message>>>(iter: I) -> Self {
        let mut h = History::new();
        for m in iter {
            h.push(m);
        }
        h
    }
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

impl Drop for History {
    // The default drop would recurse once per node and overflow the stack on long histories;
    // unlink iteratively while we hold the only reference.
    fn drop(&mut self) {
        let mut cur = self.head.take();
        while let Some(node) = cur {
            match Arc::try_unwrap(node) {
                Ok(mut node) => cur = node.prev.take(),
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_clone_and_fork_share_prefix() {
        let mut parent: History = (0..3).map(|i| Message::human(format!("m{i}"))).collect();
        let mut fork = parent.clone();
        fork.push(Message::human("fork"));
        parent.push(Message::human("parent"));
        let texts = |h: &History| -> Vec<String> {
            h.to_vec().iter().map(|m| m.content().text()).collect()
        };
        assert_eq!(texts(&parent), ["m0", "m1", "m2", "parent"]);
        assert_eq!(texts(&fork), ["m0", "m1", "m2", "fork"]);
        assert!(Arc::ptr_eq(&parent.to_vec()[0], &fork.to_vec()[0]));
        assert_eq!(texts(&fork.without_last()), ["m0", "m1", "m2"]);
    }

    #[test]
    fn a_read_extends_the_list_an_earlier_read_kept() {
        let mut history: History = (0..3).map(|i| Message::human(format!("m{i}"))).collect();
        let first = history.messages();
        let at = first.list_id();
        drop(first);
        history.push(Message::human("m3"));
        let fork_base = history.clone();
        let second = history.messages();
        assert_eq!(second.len(), 4);
        assert_eq!(second.list_id(), at, "extended in place, not copied");
        // Read again at the same node: the same list.
        assert_eq!(history.messages().list_id(), at);
        drop(second);
        // A fork continuing the history takes the list; its caller, read after it, is
        // read whole and stays as it was.
        let mut fork = fork_base.clone();
        fork.push(Message::human("task"));
        let forked = fork.messages();
        assert_eq!(forked.list_id(), at, "taken by the fork");
        history.push(Message::human("m4"));
        let texts =
            |m: &[Arc<Message>]| -> Vec<String> { m.iter().map(|m| m.content().text()).collect() };
        assert_eq!(texts(&forked), ["m0", "m1", "m2", "m3", "task"]);
        assert_eq!(texts(&history.messages()), ["m0", "m1", "m2", "m3", "m4"]);
        // A list still held (a request alive) is copied, never changed under its holder.
        let held = fork.messages();
        fork.push(Message::human("more"));
        let next = fork.messages();
        assert_eq!((held.len(), next.len()), (5, 6));
        assert_eq!(texts(&held), texts(&next[..5]));
        assert_eq!(History::new().messages().len(), 0);
    }

    #[test]
    fn a_read_list_has_room_for_the_next_reads() {
        let history: History = (0..1000).map(|i| Message::human(format!("m{i}"))).collect();
        let capacity = |h: &History| {
            let head = h.head.as_ref().unwrap();
            head.list
                .lock()
                .as_ref()
                .map(|l| (l.capacity(), l.as_ptr()))
        };
        drop(history.messages());
        let (room, buffer) = capacity(&history).unwrap();
        assert!(room > 1000, "{room}");
        // A fork's read extends the same buffer (its caller's next read is then whole, as
        // `a_read_extends_the_list_an_earlier_read_kept` shows), and so does its next step's.
        let mut fork = history.clone();
        fork.push(Message::human("task"));
        drop(fork.messages());
        assert_eq!(capacity(&fork).unwrap().1, buffer);
        fork.push(Message::human("answer"));
        drop(fork.messages());
        assert_eq!(capacity(&fork).unwrap().1, buffer);
    }

    #[test]
    fn dropping_a_long_history_does_not_overflow() {
        let h: History = (0..500_000).map(|_| Message::human("x")).collect();
        let shared = h.clone();
        drop(h);
        assert_eq!(shared.len(), 500_000);
        drop(shared);
    }
}
