//! Message history shared between an agent and its forks.
//!
//! A persistent singly linked list, newest message first: `clone` and `push` are O(1), so a
//! fork costs the same whatever the parent's history length, and a fork's appends never touch
//! the parent's list. Reading the whole history is O(n), which every model request pays anyway
//! to serialize it.

use std::sync::{Arc, Weak};

use crate::messages::Message;

struct Node {
    message: Arc<Message>,
    prev: Option<Arc<Node>>,
    len: usize,
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
    fn dropping_a_long_history_does_not_overflow() {
        let h: History = (0..500_000).map(|_| Message::human("x")).collect();
        let shared = h.clone();
        drop(h);
        assert_eq!(shared.len(), 500_000);
        drop(shared);
    }
}
