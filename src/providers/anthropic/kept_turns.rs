//! The turns each conversation last sent, kept as written, so that its next request (the
//! next step, or a fork, which starts with its caller's messages) writes the bytes of the
//! turns it shares and renders only the turns after them: a step costs a compare of message
//! addresses, where it touched every message's encoding; the kept bytes are sent as the
//! pieces they were written in, not copied.
//!
//! A turn is reused only when the message after it is shared too: then its neighbours, and
//! so its merging (consecutive user messages are one turn) and its being the final turn
//! (trimmed, or kept when an empty prefill), are as they were. A conversation holding a
//! system message is not kept: where one goes depends on messages far from it.

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;

use super::messages::{Encoded, Part, encode_for_request, encode_message};
use super::turns::{Placement, TurnStart, format_turns};
use crate::error::ModelError;
use crate::message_prefix::{Conversation, Found, Prefixes};
use crate::messages::Message;
use crate::providers::message_cache::MessageCache;

/// One conversation's turns as last written: `[` and the turns, without the closing `]`,
/// as pieces each step appended (sent as they are, see `providers::payload`: copying them
/// into one buffer was most of a long conversation's step).
#[derive(Default)]
pub(super) struct Written {
    pieces: Vec<Bytes>,
    /// The pieces' total length.
    len: usize,
    starts: Vec<TurnStart>,
}

/// A step's new piece is merged with the one before it while that one is at most this many
/// times its size: a conversation keeps a few pieces (the history it started with, then a
/// handful of geometrically smaller ones), each byte copied a few times in all, not once a
/// step.
const MERGE_RATIO: usize = 4;

impl Written {
    /// The turns' JSON array, appended to `out`.
    #[cfg(test)]
    pub(super) fn write(&self, out: &mut Vec<u8>) {
        for p in &self.pieces {
            out.extend_from_slice(p);
        }
        out.push(b']');
    }

    /// The turns' JSON array as pieces to send.
    pub(super) fn pieces(&self) -> impl Iterator<Item = Bytes> + '_ {
        self.pieces
            .iter()
            .cloned()
            .chain(std::iter::once(Bytes::from_static(b"]")))
    }

    #[cfg(test)]
    fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out.pop();
        out
    }

    /// Keeps the first `len` bytes.
    fn truncate(&mut self, len: usize) {
        let mut at = 0;
        let mut kept = 0;
        for p in &mut self.pieces {
            if at + p.len() >= len {
                p.truncate(len - at);
                kept += 1;
                break;
            }
            at += p.len();
            kept += 1;
        }
        self.pieces.truncate(kept);
        self.pieces.retain(|p| !p.is_empty());
        self.len = len;
    }

    /// Appends a step's newly written turns (`fresh`, whose starts from `from` on are
    /// offsets in it).
    fn append(&mut self, fresh: Vec<u8>, from: usize) {
        for s in &mut self.starts[from..] {
            s.byte += self.len;
        }
        self.len += fresh.len();
        let mut piece = Bytes::from(fresh);
        while let Some(last) = self.pieces.last()
            && last.len() <= MERGE_RATIO * piece.len()
        {
            let last = self.pieces.pop().unwrap_or_default();
            let mut merged = Vec::with_capacity(last.len() + piece.len());
            merged.extend_from_slice(&last);
            merged.extend_from_slice(&piece);
            piece = Bytes::from(merged);
        }
        if !piece.is_empty() {
            self.pieces.push(piece);
        }
    }

    /// Keeps the turns that end before message `shared` with a shared message after them;
    /// returns the index of the first message left to render.
    fn keep_before(&mut self, shared: usize) -> usize {
        let kept = self.starts.partition_point(|s| s.message < shared);
        // The last turn starting in the shared messages may run past them, or be the final
        // turn: it is rendered again.
        let kept = kept.saturating_sub(1);
        match self.starts.get(kept).copied() {
            Some(start) if kept > 0 => {
                self.truncate(start.byte);
                self.starts.truncate(kept);
                start.message
            }
            // Nothing kept: not even the opening bracket, which `KeptTurns::turns` writes
            // at the head of the step's new bytes. Kept apart as a piece of its own, the
            // next `append` merged the whole history into one new buffer with it (at 2,000
            // messages a second 0.4 MB buffer written and faulted in at a conversation's
            // first step).
            _ => {
                self.pieces.clear();
                self.len = 0;
                self.starts.clear();
                0
            }
        }
    }
}

/// Each conversation's turns as last written; and, for the conversations whose turns are
/// formatted whole (those holding a system message), each message's encoding.
#[derive(Default)]
pub(super) struct KeptTurns {
    encoded: MessageCache<Encoded>,
    written: Mutex<Prefixes<Option<Written>>>,
}

/// A request's turns written from what was kept, to keep again once sent.
pub(super) struct WrittenTurns {
    pub written: Written,
    found: Option<Found>,
    /// The first message rendered (those before it were written from the kept bytes).
    #[cfg(test)]
    from: usize,
}

impl KeptTurns {
    /// The encodings of every message of a request: for the requests `turns` cannot write
    /// (a conversation with a system message), whose turns are formatted whole.
    pub(super) fn encode_all(
        &self,
        messages: &[Arc<Message>],
    ) -> Result<Vec<Arc<Encoded>>, ModelError> {
        self.encoded.encode_all(messages, encode_message)
    }

    /// The request's turns, from the kept turns of its conversation and its new messages;
    /// `None` when the conversation holds a system message.
    pub(super) fn turns<'a>(
        &self,
        request: impl Into<Conversation<'a>>,
        placement: &Placement<'_>,
    ) -> Result<Option<WrittenTurns>, ModelError> {
        let request = request.into();
        let messages = request.messages();
        // The value is taken out under the lock, so a concurrent request on the same
        // conversation (a fork beside its caller) writes its own whole.
        let (mut written, found) = match self.written.lock().find_mut(request) {
            Some((value, found)) => (value.take().unwrap_or_default(), Some(found)),
            None => (Written::default(), None),
        };
        let shared = found.map_or(0, |f| f.shared);
        let from = written.keep_before(shared);
        let rest = &messages[from..];
        // Encoded afresh, not memoized: from here on the kept bytes hold these turns, so a
        // memoized encoding would hold each message's text a second time for as long as the
        // message lives (about 15 KB a 20-step conversation). A later step renders again
        // only the turn these end with: a message or two encoded again.
        // Held by the request alone, not shared: no `Arc` (an allocation a message of a
        // run's whole history at its first step), and a text escaped only as it is written.
        let encoded = rest
            .iter()
            .map(|m| encode_for_request(m))
            .collect::<Result<Vec<_>, _>>()?;
        if encoded.iter().any(|e| matches!(e.part, Part::System(_))) {
            return Ok(None);
        }
        let formatted = format_turns(rest, &encoded, placement)?;
        debug_assert!(!formatted.has_system());
        let first = written.starts.is_empty();
        let kept = written.starts.len();
        let mut fresh = Vec::with_capacity(formatted.turns_len() + 1);
        if first {
            fresh.push(b'[');
        }
        formatted.write_items(&mut fresh, first, Some((&mut written.starts, from)))?;
        written.append(fresh, kept);
        Ok(Some(WrittenTurns {
            written,
            found,
            #[cfg(test)]
            from,
        }))
    }

    /// Keeps what `turns` wrote for the request's conversation, unless another request
    /// changed the conversation's kept messages meanwhile.
    pub(super) fn keep<'a>(&self, request: impl Into<Conversation<'a>>, turns: WrittenTurns) {
        let request = request.into();
        let messages = request.messages();
        let WrittenTurns { written, found, .. } = turns;
        let mut kept = self.written.lock();
        let gone = match found {
            Some(found) => {
                let mut written = Some(written);
                kept.update(request, found, |value| {
                    *value = written.take();
                    messages.len()
                });
                written.map(Some).into_iter().collect()
            }
            None => kept.insert(request, Some(written)),
        };
        drop(kept);
        // Large buffers are let go outside the lock.
        drop(gone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, Content, SystemMessage, ToolCall};
    use serde_json::json;

    const PLACEMENT: Placement<'static> = Placement {
        model: "claude-test",
        in_place: false,
        has_system: true,
    };

    /// What the request sends for `messages` through `kept`, checked against the turns
    /// formatted whole from fresh encodings; and the first message it rendered.
    fn send(kept: &KeptTurns, messages: &[Arc<Message>]) -> usize {
        let turns = kept
            .turns(messages, &PLACEMENT)
            .unwrap()
            .expect("no system message");
        let mut out = Vec::new();
        turns.written.write(&mut out);
        let (whole, _) = super::super::messages::format_messages(messages).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&whole).unwrap(),
            "{} messages",
            messages.len()
        );
        let from = turns.from;
        kept.keep(messages, turns);
        from
    }

    fn ai(text: &str, call: Option<&str>) -> Arc<Message> {
        Arc::new(Message::Ai(AiMessage {
            content: Content::Text(text.into()),
            tool_calls: call
                .map(|id| vec![ToolCall::new("read_file", json!({"path": id}), id)])
                .unwrap_or_default(),
            ..Default::default()
        }))
    }

    fn tool(id: &str) -> Arc<Message> {
        // Read as the binding reads one: every other field at its default.
        let message: Message = serde_json::from_value(json!({
            "type": "tool", "content": format!("result of {id}"), "tool_call_id": id,
            "name": "read_file", "status": "success",
        }))
        .unwrap();
        Arc::new(message)
    }

    fn human(text: &str) -> Arc<Message> {
        Arc::new(Message::human(text))
    }

    #[test]
    fn each_step_renders_its_new_turns_and_the_turn_before_them() {
        let kept = KeptTurns::default();
        let mut history = vec![human("task"), human("more")];
        assert_eq!(send(&kept, &history), 0);
        for i in 0..5 {
            let id = format!("t{i}");
            history.push(ai("  reading  ", Some(&id)));
            history.push(tool(&id));
            let before = history.len() - 2;
            let from = send(&kept, &history);
            // The last turn sent before (the tool result, a user turn the next one may have
            // merged with) is rendered again; nothing before it.
            assert!(
                from < before && from + 2 >= before,
                "from {from}, {before} kept"
            );
        }
        // A final assistant turn is trimmed; sent again before a user turn, it is not.
        history.push(ai("Done.  \n", None));
        send(&kept, &history);
        history.push(human("and then?"));
        let from = send(&kept, &history);
        assert_eq!(from, history.len() - 2);
    }

    /// A conversation keeps its turns once, as the bytes it wrote: not also each message's
    /// encoding, which the next steps do not read (1,000 conversations at once keep theirs).
    #[test]
    fn a_conversation_keeps_its_turns_once() {
        use crate::heap_count::held_by;
        let kept = KeptTurns::default();
        let text = "a result of a few hundred characters, as a tool returns them. ".repeat(5);
        let mut history = vec![human(&text)];
        for i in 0..20 {
            let id = format!("t{i}");
            history.push(ai(&text, Some(&id)));
            history.push(tool(&id));
        }
        // Each step sends the conversation so far; only what the sending keeps is counted.
        let ((), held) = held_by(|| {
            for step in 1..=20 {
                send(&kept, &history[..1 + 2 * step]);
            }
        });
        let written = {
            let kept = kept.written.lock();
            kept.find(&history).unwrap().0.as_ref().unwrap().len
        };
        assert!(written > 20 * text.len(), "{written}");
        // The bytes (their buffers a few bytes a message over), and less than as much again:
        // their turns' starts, the messages' `Weak`s, the maps' slots. Each message's
        // encoding kept as well held about twice the bytes more.
        assert!(
            held < 2 * written,
            "{held} held for {written} bytes written"
        );
    }

    #[test]
    fn a_fork_writes_its_callers_turns_and_renders_its_task() {
        let kept = KeptTurns::default();
        let mut parent = vec![human("task")];
        for i in 0..20 {
            let id = format!("t{i}");
            parent.push(ai("", Some(&id)));
            parent.push(tool(&id));
        }
        send(&kept, &parent);
        // The fork: the caller's messages (its `task` call dropped) and the task, a user
        // message merged with the tool result before it.
        let mut fork = parent.clone();
        fork.push(human("the fork's task"));
        let from = send(&kept, &fork);
        assert_eq!(from, parent.len() - 1, "the merged turn only");
        // The fork's steps, then the caller again: each shares the conversation's start.
        fork.push(ai("answer", None));
        send(&kept, &fork);
        parent.push(ai("", Some("task")));
        parent.push(tool("task"));
        let from = send(&kept, &parent);
        assert!(from >= parent.len() - 4, "from {from}");
    }

    #[test]
    fn an_edited_message_is_rendered_again_with_what_follows() {
        let kept = KeptTurns::default();
        let mut history = vec![
            human("a"),
            ai("b", None),
            human("c"),
            ai("d", None),
            human("e"),
        ];
        send(&kept, &history);
        history[2] = human("c, edited");
        // The turn before it ends at the edited message: rendered again too.
        assert_eq!(send(&kept, &history), 1);
        // An empty assistant turn is dropped unless it is the final one.
        history.insert(3, ai("", None));
        history.push(ai("", None));
        send(&kept, &history);
        history.push(human("f"));
        send(&kept, &history);
        // A conversation started afresh renders whole.
        assert_eq!(send(&kept, &history[1..]), 0);
    }

    #[test]
    fn a_conversation_with_a_system_message_is_formatted_whole() {
        let kept = KeptTurns::default();
        let mut history = vec![human("a"), ai("b", None)];
        send(&kept, &history);
        history.push(Arc::new(Message::System(SystemMessage {
            content: Content::Text("note".into()),
            ..Default::default()
        })));
        history.push(human("c"));
        assert!(kept.turns(&history, &PLACEMENT).unwrap().is_none());
        // Without it again, the conversation is written from scratch.
        history.truncate(2);
        history.push(human("c"));
        assert_eq!(send(&kept, &history), 0);
    }

    #[test]
    fn keeping_before_a_shared_count_keeps_whole_turns_followed_by_a_shared_message() {
        let start = |message, byte| TurnStart { message, byte };
        // Written in two steps: two pieces.
        let mut w = Written {
            starts: vec![start(0, 1), start(2, 3)],
            ..Default::default()
        };
        w.append(b"[AA,BBB".to_vec(), 0);
        w.starts.push(start(5, 0));
        w.append(b",CC".to_vec(), 2);
        assert_eq!(w.starts[2], start(5, 7));
        assert_eq!(w.bytes(), b"[AA,BBB,CC");
        // 6 shared: the turn from message 5 may run on, the one from 2 ends before 5.
        assert_eq!(w.keep_before(6), 5);
        assert_eq!(w.bytes(), b"[AA,BBB");
        assert_eq!(w.keep_before(5), 2);
        assert_eq!(w.bytes(), b"[AA");
        assert_eq!(w.keep_before(5), 0);
        // Nothing kept, not even the bracket: the next step's bytes start with it.
        assert_eq!(w.bytes(), b"");
        assert!(w.pieces.is_empty() && w.starts.is_empty());
    }

    /// A conversation's first step writes its turns once, into the buffer that is sent:
    /// they were merged with the opening bracket into a second buffer of the same size.
    #[test]
    fn a_first_step_writes_its_turns_into_one_buffer_once() {
        use crate::heap_count::allocated_by;
        let text =
            "an earlier message of a few hundred characters, as a long session holds. ".repeat(4);
        let history: Vec<_> = (0..2000)
            .map(|i| {
                if i % 2 == 0 {
                    human(&text)
                } else {
                    ai(&text, None)
                }
            })
            .collect();
        let kept = KeptTurns::default();
        let (turns, allocated) = allocated_by(|| kept.turns(&history, &PLACEMENT));
        let turns = turns.unwrap().expect("no system message");
        let written = turns.written.len;
        assert_eq!(turns.written.pieces.len(), 1, "one piece");
        // The turns' bytes, and the turns' layout on the way, each text escaped straight into
        // them (measured: 1.74 times the bytes in all). Each text escaped into a string of
        // its own first, it was 2.66; a copy of the turns made it 3.66.
        assert!(
            allocated < written * 9 / 5,
            "{allocated} allocated for {written} bytes written"
        );
        let mut out = Vec::new();
        turns.written.write(&mut out);
        let (whole, _) = super::super::messages::format_messages(&history).unwrap();
        assert_eq!(out, serde_json::to_vec(&whole).unwrap());
    }
}
