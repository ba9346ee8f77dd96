//! Whether any message of a request matches a test, looking only at the messages its
//! conversation did not send before: a middleware that asks it of every request (is any
//! human message tagged?) would otherwise read every message of the history on every step,
//! a cache miss each on a long one, and a fork would read its caller's whole history.
//!
//! What was found is kept per conversation (`Prefixes`): the index of the first match among
//! the messages last looked at. A request sharing those messages up to past that index
//! matches at once; otherwise only its messages after the shared ones are tested.

use parking_lot::Mutex;

use crate::message_prefix::{Conversation, Prefixes};
use crate::messages::Message;

#[derive(Default)]
pub(crate) struct AnyMessage {
    first_match: Mutex<Prefixes<Option<usize>>>,
}

impl AnyMessage {
    /// Whether `test` holds for a message of `messages`; the same test on every call.
    pub(crate) fn any<'a>(
        &self,
        request: impl Into<Conversation<'a>>,
        test: impl Fn(&Message) -> bool,
    ) -> bool {
        let request = request.into();
        let messages = request.messages();
        let (from, found) = match self.first_match.lock().find(request) {
            Some((first, found)) => {
                if first.is_some_and(|i| i < found.shared) {
                    return true;
                }
                (found.shared, Some(found))
            }
            None => (0, None),
        };
        let first = messages[from..]
            .iter()
            .position(|m| test(m))
            .map(|i| i + from);
        let mut kept = self.first_match.lock();
        let gone = match found {
            Some(found) => {
                kept.update(request, found, |value| {
                    *value = first;
                    messages.len()
                });
                Vec::new()
            }
            None => kept.insert(request, first),
        };
        drop(kept);
        drop(gone);
        first.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::sync::Arc;

    fn human(text: &str) -> Arc<Message> {
        Arc::new(Message::human(text))
    }

    #[test]
    fn only_messages_not_looked_at_before_are_tested() {
        let any = AnyMessage::default();
        let tested = Cell::new(0);
        let is_x = |m: &Message| {
            tested.set(tested.get() + 1);
            m.content().text() == "x"
        };
        let mut history: Vec<_> = (0..100).map(|i| human(&format!("m{i}"))).collect();
        assert!(!any.any(&history, is_x));
        assert_eq!(tested.replace(0), 100);
        // The next step and a fork: their new messages only.
        history.push(human("m100"));
        assert!(!any.any(&history, is_x));
        assert_eq!(tested.replace(0), 1);
        let mut fork = history[..100].to_vec();
        fork.push(human("x"));
        assert!(any.any(&fork, is_x));
        assert_eq!(tested.replace(0), 1);
        // A match among the shared messages answers without a test.
        fork.push(human("y"));
        assert!(any.any(&fork, is_x));
        assert_eq!(tested.replace(0), 0);
        // The caller again: the match was in what it does not share.
        assert!(!any.any(&history, is_x));
        assert_eq!(tested.replace(0), 1);
        // A message replaced in the middle: tested from there on.
        history[50] = human("x");
        assert!(any.any(&history, is_x));
        assert_eq!(tested.replace(0), 1);
        history[50] = human("m50");
        assert!(!any.any(&history, is_x));
        assert_eq!(tested.replace(0), 51);
    }
}
