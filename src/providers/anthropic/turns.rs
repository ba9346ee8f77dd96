//! The request's messages assembled into Anthropic turns from their encodings (the one
//! place a message's neighbours matter): merged user turns, the final assistant turn
//! trimmed, empty assistant turns dropped, and system messages where `system_turns` says.

use std::borrow::Borrow;
use std::ops::Range;
use std::sync::Arc;

use serde_json::{Value, json};

use super::messages::{Encoded, Part, Role, assistant_content, rstrip_last_text, to_json};
use super::system_turns::{self, SystemContent};
use crate::error::ModelError;
use crate::messages::Message;

/// Where the request's system messages may go: the model (named in warnings), whether its
/// profile takes system messages in the middle of the conversation, and whether the
/// top-level `system` field is already the agent's.
pub(super) struct Placement<'a> {
    pub model: &'a str,
    pub in_place: bool,
    pub has_system: bool,
}

/// The conversation as the request sends it.
///
/// The encodings are held as the caller has them (`E`): shared from a cache, or a request's
/// own, made for it alone (a run's first request encodes a whole history: an `Arc` each was
/// an allocation and a free a message).
pub(super) struct Formatted<'a, E = Arc<Encoded>> {
    /// The turns, written as a JSON array by `write_turns`.
    turns: Turns<'a, E>,
    /// The blocks of the system messages opening the conversation, which follow the agent's
    /// own in `system`.
    pub leading: Vec<Value>,
    /// A later system message moved into `system` (only when nothing else is there).
    pub hoisted: Option<Value>,
    /// The beta the `system` turns need (see `system_turns::tool_change_beta`).
    pub beta: Option<&'static str>,
}

/// What the turns are written from: the messages, their encodings, and the slots and order
/// `format_turns` worked out.
struct Turns<'a, E> {
    messages: &'a [Arc<Message>],
    encoded: &'a [E],
    slots: Vec<Slot>,
    last: Option<usize>,
    order: Vec<Out>,
}

impl<E: Borrow<Encoded>> Formatted<'_, E> {
    /// The turns' JSON array, written at the end of `out` (straight into the request body:
    /// a long conversation's turns are not copied from a string of their own).
    pub(super) fn write_turns(&self, out: &mut Vec<u8>) -> Result<(), ModelError> {
        out.push(b'[');
        self.write_items(out, true, None)?;
        out.push(b']');
        Ok(())
    }

    /// The turns without the array's brackets, appended to `out` (after turns written
    /// before them when not `first`), each turn's first message (by its index in the
    /// request, `offset` more than in these turns') and where it starts in `out` added to
    /// `starts`: what `KeptTurns` keeps to write them again.
    pub(super) fn write_items(
        &self,
        out: &mut Vec<u8>,
        first: bool,
        starts: Option<(&mut Vec<TurnStart>, usize)>,
    ) -> Result<(), ModelError> {
        self.turns.render(out, first, starts)
    }

    /// Whether the conversation holds a system message (sent at its start, in place or
    /// hoisted), whose place depends on messages far from it.
    pub(super) fn has_system(&self) -> bool {
        self.turns
            .slots
            .iter()
            .any(|s| matches!(s, Slot::Systems(_)))
    }

    /// About how many bytes `write_turns` writes.
    pub(super) fn turns_len(&self) -> usize {
        self.turns
            .encoded
            .iter()
            .zip(self.turns.messages)
            .map(|(e, m)| e.borrow().json_len(m) + 32)
            .sum()
    }

    /// The turns' JSON array as a string.
    #[cfg(test)]
    pub(super) fn turns(&self) -> String {
        let mut out = Vec::new();
        self.write_turns(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}

/// Where a written turn starts: the index of its first message, and its offset in the
/// bytes (before the comma that separates it from the turn before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TurnStart {
    pub message: usize,
    pub byte: usize,
}

/// A run of messages that becomes one turn (or, for system messages, one system message):
/// their indices, always consecutive, so a range (a request builds one slot per turn, and
/// a `Vec` each was an allocation per message of the history on every step).
enum Slot {
    Systems(Range<usize>),
    Turn(Role, Range<usize>),
}

/// What is written, in order: a turn (by slot) or a `system` turn's content (boxed: a
/// `Value` in place made every item of a long history's list 80 bytes, not 16).
enum Out {
    Turn(usize),
    System(Box<Value>),
}

/// The conversation as Anthropic turns, as langchain-anthropic's `_format_messages` makes
/// them: tool results become user turns, consecutive user turns merge, the final assistant
/// turn's text is right-trimmed, empty assistant turns before it are dropped, and system
/// messages go where `system_turns` says.
pub(super) fn format_turns<'a, E: Borrow<Encoded>>(
    messages: &'a [Arc<Message>],
    encoded: &'a [E],
    placement: &Placement<'_>,
) -> Result<Formatted<'a, E>, ModelError> {
    let mut slots: Vec<Slot> = Vec::with_capacity(messages.len());
    for (i, enc) in encoded.iter().enumerate() {
        match (&enc.borrow().part, slots.last_mut()) {
            (Part::System(_), Some(Slot::Systems(held))) => held.end = i + 1,
            (Part::System(_), _) => slots.push(Slot::Systems(i..i + 1)),
            (Part::Turn(Role::User), Some(Slot::Turn(Role::User, held))) => held.end = i + 1,
            (Part::Turn(role), _) => slots.push(Slot::Turn(*role, i..i + 1)),
        }
    }
    let last = slots.iter().rposition(|s| matches!(s, Slot::Turn(..)));
    let model = placement.model;
    let system_of =
        |held: &Range<usize>| {
            system_turns::merged(encoded[held.clone()].iter().filter_map(
                |e| match &e.borrow().part {
                    Part::System(content) => Some(content),
                    Part::Turn(_) => None,
                },
            ))
        };
    let mut leading = Vec::new();
    let mut hoisted = None;
    let mut taken = placement.has_system;
    let mut hoist = |content: &SystemContent, taken: &mut bool| -> Result<(), ModelError> {
        if *taken {
            return Err(ModelError::Config(
                "Received multiple non-consecutive system messages.".into(),
            ));
        }
        *taken = true;
        hoisted = Some(content.formatted(false, model)?);
        system_turns::warn_hoisted(model)
    };
    let mut out: Vec<Out> = Vec::with_capacity(slots.len());
    let mut pending: Vec<SystemContent> = Vec::new();
    // The last turn written: a user turn, or an assistant turn ending in a server tool
    // result, may be followed by a system turn.
    let mut open = false;
    for (s, slot) in slots.iter().enumerate() {
        let (role, held) = match slot {
            Slot::Systems(held) if s == 0 => {
                // They join the agent's prompt, so a string is a text block.
                leading = match system_of(held).formatted(true, model)? {
                    Value::Array(blocks) => blocks,
                    text => vec![json!({"type": "text", "text": text})],
                };
                taken = true;
                continue;
            }
            Slot::Systems(held) => {
                let content = system_of(held);
                if placement.in_place && (!pending.is_empty() || open) {
                    pending.push(content);
                } else {
                    hoist(&content, &mut taken)?;
                }
                continue;
            }
            Slot::Turn(role, held) => (*role, held),
        };
        // The API rejects empty assistant turns except a final prefill.
        if role == Role::Assistant
            && Some(s) != last
            && encoded[held.clone()].iter().all(|e| e.borrow().empty)
        {
            continue;
        }
        for content in pending.drain(..) {
            if role == Role::Assistant {
                in_place(&content, model, &mut out)?;
            } else {
                hoist(&content, &mut taken)?;
            }
        }
        open = role == Role::User
            || encoded[held.clone()]
                .iter()
                .any(|e| e.borrow().server_result_last);
        out.push(Out::Turn(s));
    }
    for content in pending {
        in_place(&content, model, &mut out)?;
    }
    let system_turns: Vec<Value> = out
        .iter()
        .filter_map(|o| match o {
            Out::System(v) => Some(Value::clone(v)),
            Out::Turn(_) => None,
        })
        .collect();
    Ok(Formatted {
        turns: Turns {
            messages,
            encoded,
            slots,
            last,
            order: out,
        },
        leading,
        hoisted,
        beta: system_turns::tool_change_beta(&system_turns),
    })
}

/// A system message sent in place; one left with no content is not sent (the API refuses
/// an empty `system` turn).
fn in_place(content: &SystemContent, model: &str, out: &mut Vec<Out>) -> Result<(), ModelError> {
    let content = content.formatted(true, model)?;
    if content.as_array().is_some_and(Vec::is_empty) {
        return Ok(());
    }
    out.push(Out::System(Box::new(content)));
    Ok(())
}

impl<E: Borrow<Encoded>> Turns<'_, E> {
    fn render(
        &self,
        out: &mut Vec<u8>,
        mut first_turn: bool,
        mut starts: Option<(&mut Vec<TurnStart>, usize)>,
    ) -> Result<(), ModelError> {
        let (messages, encoded, slots, last) =
            (self.messages, self.encoded, &self.slots, self.last);
        for item in &self.order {
            if let (Some((starts, offset)), Out::Turn(s)) = (starts.as_mut(), item)
                && let Slot::Turn(_, held) = &slots[*s]
            {
                starts.push(TurnStart {
                    message: held.start + *offset,
                    byte: out.len(),
                });
            }
            if !first_turn {
                out.push(b',');
            }
            first_turn = false;
            let s = match item {
                Out::System(content) => {
                    out.extend_from_slice(br#"{"role":"system","content":"#);
                    out.extend_from_slice(to_json(content)?.as_bytes());
                    out.push(b'}');
                    continue;
                }
                Out::Turn(s) => *s,
            };
            let Slot::Turn(role, held) = &slots[s] else {
                continue;
            };
            out.extend_from_slice(br#"{"role":""#);
            out.extend_from_slice(match role {
                Role::User => b"user",
                Role::Assistant => b"assistant",
            });
            out.extend_from_slice(br#"","content":"#);
            match held.len() {
                1 if *role == Role::Assistant && Some(s) == last => {
                    if let Message::Ai(m) = messages[held.start].as_ref() {
                        let mut content = assistant_content(m);
                        rstrip_last_text(&mut content);
                        out.extend_from_slice(to_json(&content)?.as_bytes());
                    }
                }
                1 => encoded[held.start]
                    .borrow()
                    .write_json(&messages[held.start], out),
                _ => {
                    out.push(b'[');
                    let mut first = true;
                    for (e, m) in encoded[held.clone()].iter().zip(&messages[held.clone()]) {
                        let at = out.len();
                        if !first {
                            out.push(b',');
                        }
                        if e.borrow().write_blocks(m, out) {
                            first = false;
                        } else {
                            out.truncate(at);
                        }
                    }
                    out.push(b']');
                }
            }
            out.push(b'}');
        }
        Ok(())
    }
}
