//! Each message encoded once per provider client: a conversation's messages are shared
//! `Arc`s that every later step and every fork sends again, so a client keeps what it
//! encoded for a message and reuses it while that message lives.
//!
//! The cache is a `MessageMemo`: keyed by the message's allocation, never read for another
//! message or a message changed in place, swept as its conversations end.

use std::sync::Arc;

use crate::message_memo::MessageMemo;
use crate::messages::Message;

pub(crate) struct MessageCache<T> {
    memo: MessageMemo<Arc<T>>,
}

impl<T> Default for MessageCache<T> {
    fn default() -> Self {
        MessageCache {
            memo: MessageMemo::default(),
        }
    }
}

impl<T> MessageCache<T> {
    /// Each message's encoding, from the cache or from `encode` (called outside the lock,
    /// so concurrent requests do not wait on each other's encoding).
    pub(crate) fn encode_all<E>(
        &self,
        messages: &[Arc<Message>],
        encode: impl Fn(&Message) -> Result<T, E>,
    ) -> Result<Vec<Arc<T>>, E> {
        self.memo.get_all(messages, |m| encode(m).map(Arc::new))
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
        for i in 0..3 * 1024 {
            let m = Arc::new(Message::human(format!("m{i}")));
            cache.encode_all(&[m], encode_with(&calls)).unwrap();
        }
        assert!(cache.memo.len() <= 1024);
    }
}
