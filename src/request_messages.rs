//! A model request's messages, shared copy-on-write: the request, its clones (a middleware
//! calling on with a copy of the request) and the history it was read from hold one list, so
//! handing a long conversation down the chain costs a count increment, not one per message.
//! A middleware that edits the list gets its own copy on its first edit.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::history::History;
use crate::messages::Message;

#[derive(Clone, Default)]
pub struct Messages {
    list: Arc<Vec<Arc<Message>>>,
    /// The history the list was read from, until its first edit: while the list is that
    /// history's messages as read, a cache keyed on the conversation matches it by the
    /// history's node (`message_prefix`), where comparing every message's address touched
    /// all of them (five caches a request, 10,000 addresses each in a fork of a long run).
    read_from: Option<History>,
}

impl Messages {
    /// The list to edit: the shared one when nothing else holds it, else a copy. No longer
    /// the history's messages as read.
    pub fn to_mut(&mut self) -> &mut Vec<Arc<Message>> {
        self.read_from = None;
        Arc::make_mut(&mut self.list)
    }

    /// The history these are the messages of, as read (`History::messages`), unless edited.
    pub(crate) fn read_from(&self) -> Option<&History> {
        self.read_from.as_ref()
    }

    /// Which list this is: the same for the copies that share it.
    #[cfg(test)]
    pub(crate) fn list_id(&self) -> *const Vec<Arc<Message>> {
        Arc::as_ptr(&self.list)
    }

    /// The shared list `history` keeps of its messages (`History::messages`).
    pub(crate) fn read(list: Arc<Vec<Arc<Message>>>, history: &History) -> Self {
        debug_assert_eq!(list.len(), history.len());
        Messages {
            list,
            read_from: Some(history.clone()),
        }
    }
}

impl Deref for Messages {
    type Target = [Arc<Message>];

    fn deref(&self) -> &[Arc<Message>] {
        &self.list
    }
}

impl DerefMut for Messages {
    fn deref_mut(&mut self) -> &mut [Arc<Message>] {
        self.to_mut()
    }
}

impl From<Vec<Arc<Message>>> for Messages {
    fn from(list: Vec<Arc<Message>>) -> Self {
        Messages {
            list: Arc::new(list),
            read_from: None,
        }
    }
}

impl FromIterator<Arc<Message>> for Messages {
    fn from_iter<I: IntoIterator<Item = Arc<Message>>>(iter: I) -> Self {
        Messages::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_shared_until_edited() {
        let list: Messages = vec![Arc::new(Message::human("a"))].into();
        let mut copy = list.clone();
        assert_eq!(list.list_id(), copy.list_id(), "shared");
        copy[0] = Arc::new(Message::human("b"));
        assert_eq!(list[0].content().text(), "a", "the original is untouched");
        assert_eq!(copy[0].content().text(), "b");
        copy.to_mut().push(Arc::new(Message::human("c")));
        assert_eq!((list.len(), copy.len()), (1, 2));
    }
}
