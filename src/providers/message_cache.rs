//! Each message encoded once per provider client: a conversation's messages are shared
//! `Arc`s that every later step and every fork sends again, so a client keeps what it
//! encoded for a message and reuses it while that message lives.
//!
//! The cache is keyed by the message's allocation and holds a `Weak` to it. The `Weak` keeps
//! the allocation from being reused for another message while the entry exists, so an
//! address seen again with the same `Weak` is the same message; a message changed in place
//! (`Arc::make_mut` with only weak references left) moves to a new allocation, so a stale
//! encoding is never read. Dead entries are dropped when the map has doubled since the last
//! sweep, so the cache stays proportional to the live conversations.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use crate::messages::Message;

/// Entries below this many are never swept (a sweep walks the whole map).
const MIN_SWEEP: usize = 1024;

pub(crate) struct MessageCache<T> {
    inner: Mutex<Entries<T>>,
}

struct Entries<T> {
    map: HashMap<usize, (Weak<Message>, Arc<T>)>,
    /// The map's size after the last sweep.
    swept_at: usize,
}

impl<T> Default for MessageCache<T> {
    fn default() -> Self {
        MessageCache {
            inner: Mutex::new(Entries {
                map: HashMap::new(),
                swept_at: 0,
            }),
        }
    }
}

fn key(message: &Arc<Message>) -> usize {
    Arc::as_ptr(message) as usize
}

impl<T> MessageCache<T> {
    /// Each message's encoding, from the cache or from `encode` (called outside the lock,
    /// so concurrent requests do not wait on each other's encoding).
    pub(crate) fn encode_all<E>(
        &self,
        messages: &[Arc<Message>],
        encode: impl Fn(&Message) -> Result<T, E>,
    ) -> Result<Vec<Arc<T>>, E> {
        let mut found: Vec<Option<Arc<T>>> = {
            let entries = self.inner.lock();
            messages
                .iter()
                .map(|m| {
                    entries
                        .map
                        .get(&key(m))
                        .filter(|(weak, _)| std::ptr::eq(weak.as_ptr(), Arc::as_ptr(m)))
                        .map(|(_, encoded)| encoded.clone())
                })
                .collect()
        };
        let mut fresh = Vec::new();
        for (message, slot) in messages.iter().zip(found.iter_mut()) {
            if slot.is_none() {
                let encoded = Arc::new(encode(message)?);
                fresh.push((key(message), Arc::downgrade(message), encoded.clone()));
                *slot = Some(encoded);
            }
        }
        if !fresh.is_empty() {
            let mut entries = self.inner.lock();
            for (k, weak, encoded) in fresh {
                entries.map.insert(k, (weak, encoded));
            }
            entries.sweep_if_grown();
        }
        Ok(found.into_iter().flatten().collect())
    }
}

impl<T> Entries<T> {
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

    fn counting() -> (
        MessageCache<String>,
        std::sync::Arc<std::sync::atomic::AtomicUsize>,
    ) {
        (MessageCache::default(), Default::default())
    }

    fn encode_with(
        calls: &std::sync::atomic::AtomicUsize,
    ) -> impl Fn(&Message) -> Result<String, ()> + '_ {
        move |m| {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(m.content().text())
        }
    }

    #[test]
    fn a_message_is_encoded_once_while_it_lives() {
        let (cache, calls) = counting();
        let a = Arc::new(Message::human("a"));
        let b = Arc::new(Message::human("b"));
        let first = cache
            .encode_all(std::slice::from_ref(&a), encode_with(&calls))
            .unwrap();
        let both = cache
            .encode_all(&[a.clone(), b.clone()], encode_with(&calls))
            .unwrap();
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert!(Arc::ptr_eq(&first[0], &both[0]));
        assert_eq!(*both[1], "b");
    }

    #[test]
    fn a_message_changed_in_place_is_encoded_again() {
        let (cache, calls) = counting();
        let mut a = Arc::new(Message::human("before"));
        cache
            .encode_all(std::slice::from_ref(&a), encode_with(&calls))
            .unwrap();
        // Only the cache's weak reference is left: make_mut moves the value.
        *Arc::make_mut(&mut a) = Message::human("after");
        let again = cache
            .encode_all(std::slice::from_ref(&a), encode_with(&calls))
            .unwrap();
        assert_eq!(*again[0], "after");
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[test]
    fn dead_messages_are_swept() {
        let (cache, calls) = counting();
        for i in 0..3 * MIN_SWEEP {
            let m = Arc::new(Message::human(format!("m{i}")));
            cache.encode_all(&[m], encode_with(&calls)).unwrap();
        }
        assert!(cache.inner.lock().map.len() <= MIN_SWEEP);
    }
}
