//! The state an agent run reads and returns: the message history plus the keys deepagents
//! keeps beside it.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::history::History;
use crate::host::{HostValue, Opaque};
use crate::messages::Message;

mod files;
mod reducers;
/// LangGraph's `REMOVE_ALL_MESSAGES`: the id of a `RemoveMessage` that clears the list.
pub const REMOVE_ALL_MESSAGES: &str = "__remove_all__";

pub use files::{FilesHost, FilesSnapshot, FilesWrite};
pub use reducers::{FoldHost, KeyWrite, Reducers};

/// State keys the core carries without reading them.
pub type Extra = indexmap::IndexMap<String, Opaque>;

/// Writes `from`'s keys into `into`, each replacing the value there (a key with a reducer
/// is folded beforehand: see `reducers`).
pub fn merge_extra(into: &mut Extra, from: &Extra) {
    for (k, v) in from {
        into.insert(k.clone(), v.clone());
    }
}

#[derive(Clone, Debug, Default)]
pub struct AgentState {
    pub messages: History,
    /// The StateBackend's files, `{path: FileData}`, as deepagents returns them.
    /// Shared, not copied: subagents start from the caller's files.
    pub files: Arc<Map<String, Value>>,
    pub structured_response: Option<Value>,
    /// The structured response rendered for a `task` result, when the host rendered it.
    pub structured_rendered: Option<String>,
    /// The structured response as the host's own object, when the host parsed it.
    pub structured_host: Option<HostValue>,
    /// Keys the caller passed that the harness does not interpret; returned unchanged.
    pub extra: Extra,
    /// The host's objects beside `files` (see `FilesHost`).
    pub files_host: Arc<FilesHost>,
}

impl AgentState {
    // The integration tests start from it.
    #[cfg_attr(dead_code_check, allow(dead_code))]
    pub fn with_messages(messages: History) -> Self {
        AgentState {
            messages,
            ..Default::default()
        }
    }
}

/// How a node changes the messages, as deepagents' reducer applies a write.
#[derive(Clone, Debug, Default)]
pub enum MessagesDelta {
    #[default]
    None,
    /// New messages at the end (the common write).
    Append(Vec<Arc<Message>>),
    /// The whole list replaced (a write starting with `RemoveMessage(REMOVE_ALL)`, or one
    /// that replaced or removed messages by id, resolved by the host's reducer).
    Replace(Vec<Arc<Message>>),
}

/// Where a hook asks the graph to go next (LangChain's `jump_to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jump {
    Model,
    Tools,
    End,
}

impl Jump {
    pub fn parse(s: &str) -> Option<Jump> {
        match s {
            "model" => Some(Jump::Model),
            "tools" => Some(Jump::Tools),
            "end" => Some(Jump::End),
            _ => None,
        }
    }
}

/// One node's write.
#[derive(Clone, Debug, Default)]
pub struct StateDelta {
    pub messages: MessagesDelta,
    /// Merged into `files` (a `null` value deletes).
    pub files: Option<FilesWrite>,
    pub structured_response: Option<Value>,
    pub structured_rendered: Option<String>,
    pub structured_host: Option<HostValue>,
    /// Other keys, as written (and streamed): the last write of each.
    pub extra: Extra,
    /// Every key write `extra` was made of, in the order LangGraph applies them, when the
    /// write combines several (a tools step's calls, a model step's commands); empty when
    /// `extra` is one write. A key with a reducer takes each of them.
    pub writes: Vec<(String, crate::host::Opaque)>,
    /// Keys whose write replaces the value past its reducer (LangGraph's `Overwrite`).
    pub overwrites: Vec<String>,
    /// The values of the keys with a reducer after this write, folded onto the state the
    /// write is applied to (`Reducers::fold`): `apply` writes these in place of `extra`'s.
    pub folded: Extra,
    pub jump_to: Option<Jump>,
    /// `RemoveMessage`s of the write, each `(index, id)` standing before the `index`-th
    /// message of `messages` (an `Append`): a tool's `Command` written as it gave them, for
    /// the reducer (`reduce_write`) and the stream.
    pub removed: Vec<(usize, String)>,
    /// The write is a tool's `Command`: its other keys come before its messages, in the
    /// order deepagents' tools (and `task`) build their updates, which is the order
    /// LangGraph streams and checkpoints them in.
    pub keys_first: bool,
}

impl StateDelta {
    // The integration tests write with it.
    #[cfg_attr(dead_code_check, allow(dead_code))]
    pub fn append(messages: Vec<Message>) -> Self {
        StateDelta {
            messages: MessagesDelta::Append(messages.into_iter().map(Arc::new).collect()),
            ..Default::default()
        }
    }

    /// A write of `messages` as LangGraph's `add_messages` applies it: one whose id is
    /// already in `current` replaces that message in place, the others are appended.
    pub fn add_messages(current: &History, written: &[Arc<Message>]) -> MessagesDelta {
        // The common write is one fresh AI reply: nothing to look up, so no scan of the
        // history on every step.
        let fresh_reply = written.len() == 1 && matches!(&*written[0], Message::Ai(_));
        if fresh_reply || written.iter().all(|m| m.id().is_none()) {
            return MessagesDelta::Append(written.to_vec());
        }
        let ids: std::collections::HashMap<&str, usize> = written
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.id().map(|id| (id, i)))
            .collect();
        if !current
            .iter_newest_first()
            .any(|m| m.id().is_some_and(|id| ids.contains_key(id)))
        {
            return MessagesDelta::Append(written.to_vec());
        }
        let mut used = vec![false; written.len()];
        let mut all: Vec<Arc<Message>> = current
            .to_vec()
            .into_iter()
            .map(|m| match m.id().and_then(|id| ids.get(id)) {
                Some(&i) => {
                    used[i] = true;
                    written[i].clone()
                }
                None => m,
            })
            .collect();
        all.extend(
            written
                .iter()
                .zip(&used)
                .filter(|(_, used)| !**used)
                .map(|(m, _)| m.clone()),
        );
        MessagesDelta::Replace(all)
    }

    /// deepagents' messages reducer on one write holding `RemoveMessage`s: `written` with
    /// the removals of `removed` (see `StateDelta::removed`) in their places, in order. A
    /// message whose id is there replaces it in place, a new one is appended, a removal drops
    /// the message with its id (one written again later is new, so appended), a removal of
    /// an id that is not there does nothing, and `REMOVE_ALL_MESSAGES` drops the state's
    /// messages and everything the write gave before it.
    pub fn reduce_write(
        current: &[Arc<Message>],
        written: &[Arc<Message>],
        removed: &[(usize, String)],
    ) -> Vec<Arc<Message>> {
        let mut items: Vec<Result<&Arc<Message>, &str>> = Vec::new();
        let mut removals = removed.iter().peekable();
        for index in 0..=written.len() {
            while let Some((_, id)) = removals.next_if(|(at, _)| *at <= index) {
                items.push(Err(id.as_str()));
            }
            items.extend(written.get(index).map(Ok));
        }
        let cut = items
            .iter()
            .rposition(|i| matches!(i, Err(id) if *id == REMOVE_ALL_MESSAGES));
        let (current, items) = match cut {
            Some(last) => (&[][..], &items[last + 1..]),
            None => (current, &items[..]),
        };
        let mut slots: Vec<Option<Arc<Message>>> = current.iter().cloned().map(Some).collect();
        let mut by_id: std::collections::HashMap<&str, usize> = current
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.id().map(|id| (id, i)))
            .collect();
        for item in items {
            match *item {
                Err(id) => {
                    if let Some(at) = by_id.remove(id) {
                        slots[at] = None;
                    }
                }
                Ok(m) => match m.id() {
                    Some(id) if by_id.contains_key(id) => slots[by_id[id]] = Some(m.clone()),
                    id => {
                        if let Some(id) = id {
                            by_id.insert(id, slots.len());
                        }
                        slots.push(Some(m.clone()));
                    }
                },
            }
        }
        slots.into_iter().flatten().collect()
    }

    /// Several writes of one node (LangChain's model node returns a list of commands)
    /// applied as one: messages by `add_messages` in order, files merged, keys replaced.
    pub fn combine(current: &History, writes: &[StateDelta]) -> StateDelta {
        let mut out = StateDelta::default();
        let mut messages: Vec<Arc<Message>> = Vec::new();
        for w in writes {
            if let MessagesDelta::Append(m) = &w.messages {
                messages.extend(m.iter().cloned());
            }
            if let Some(f) = &w.files {
                out.files.get_or_insert_with(FilesWrite::default).extend(f);
            }
            merge_extra(&mut out.extra, &w.extra);
            out.writes
                .extend(w.extra.iter().map(|(k, v)| (k.clone(), v.clone())));
            if w.structured_response.is_some() {
                out.structured_response.clone_from(&w.structured_response);
                out.structured_rendered.clone_from(&w.structured_rendered);
                out.structured_host.clone_from(&w.structured_host);
            }
        }
        out.messages = StateDelta::add_messages(current, &messages);
        out
    }

    /// How LangGraph streams several writes of one node (`map_output_updates`): one dict of
    /// them all, unless a key is written more than once; then one single-key dict per
    /// write, in order.
    pub fn streamed(writes: &[StateDelta]) -> Result<StateDelta, Vec<StateDelta>> {
        let channels = |w: &StateDelta| -> Vec<String> {
            let mut c = Vec::new();
            if !matches!(w.messages, MessagesDelta::None) {
                c.push("messages".to_owned());
            }
            if w.files.is_some() {
                c.push("files".to_owned());
            }
            if w.structured_response.is_some() {
                c.push("structured_response".to_owned());
            }
            c.extend(w.extra.keys().cloned());
            c
        };
        let all: Vec<String> = writes.iter().flat_map(channels).collect();
        let unique: std::collections::HashSet<&String> = all.iter().collect();
        if unique.len() == all.len() {
            let mut merged = StateDelta::default();
            for w in writes {
                if !matches!(w.messages, MessagesDelta::None) {
                    merged.messages = w.messages.clone();
                }
                if w.files.is_some() {
                    merged.files.clone_from(&w.files);
                }
                if w.structured_response.is_some() {
                    merged
                        .structured_response
                        .clone_from(&w.structured_response);
                    merged
                        .structured_rendered
                        .clone_from(&w.structured_rendered);
                    merged.structured_host.clone_from(&w.structured_host);
                }
                merged.extra.extend(w.extra.clone());
            }
            return Ok(merged);
        }
        let mut split = Vec::new();
        for w in writes {
            if !matches!(w.messages, MessagesDelta::None) {
                split.push(StateDelta {
                    messages: w.messages.clone(),
                    ..Default::default()
                });
            }
            if w.files.is_some() {
                split.push(StateDelta {
                    files: w.files.clone(),
                    ..Default::default()
                });
            }
            if w.structured_response.is_some() {
                split.push(StateDelta {
                    structured_response: w.structured_response.clone(),
                    structured_rendered: w.structured_rendered.clone(),
                    structured_host: w.structured_host.clone(),
                    ..Default::default()
                });
            }
            for (k, v) in &w.extra {
                let mut d = StateDelta::default();
                d.extra.insert(k.clone(), v.clone());
                split.push(d);
            }
        }
        Err(split)
    }

    /// This write of a node that ran on `input`, as the reducers apply it to `onto` (the
    /// state of a step whose other tasks wrote first): its messages go through
    /// `add_messages` again; a write resolved into the whole list (replacements and
    /// removals by id) gives back the messages it wrote, and drops those it removed.
    pub fn rebased(&self, input: &AgentState, onto: &AgentState) -> StateDelta {
        let mut out = self.clone();
        out.messages = match &self.messages {
            MessagesDelta::None => MessagesDelta::None,
            MessagesDelta::Append(new) if self.removed.is_empty() => {
                StateDelta::add_messages(&onto.messages, new)
            }
            MessagesDelta::Append(_) => return out,
            MessagesDelta::Replace(all) => {
                let before: Vec<Arc<Message>> = input.messages.to_vec();
                let kept: HashSet<&str> = all.iter().filter_map(|m| m.id()).collect();
                let removed: HashSet<&str> = before
                    .iter()
                    .filter_map(|m| m.id())
                    .filter(|id| !kept.contains(id))
                    .collect();
                let written: Vec<Arc<Message>> = all
                    .iter()
                    .filter(|m| !before.iter().any(|b| Arc::ptr_eq(b, m)))
                    .cloned()
                    .collect();
                let base: History = onto
                    .messages
                    .to_vec()
                    .into_iter()
                    .filter(|m| !m.id().is_some_and(|id| removed.contains(id)))
                    .collect();
                let mut all: Vec<Arc<Message>> = base.to_vec();
                match StateDelta::add_messages(&base, &written) {
                    MessagesDelta::Append(w) => all.extend(w),
                    MessagesDelta::Replace(replaced) => all = replaced,
                    MessagesDelta::None => {}
                }
                MessagesDelta::Replace(all)
            }
        };
        out
    }

    /// Whether the write changes nothing (LangGraph streams such an update as `None`).
    pub fn is_empty(&self) -> bool {
        matches!(self.messages, MessagesDelta::None)
            && self.files.is_none()
            && self.structured_response.is_none()
            && self.extra.is_empty()
            && self.jump_to.is_none()
    }
}

impl AgentState {
    /// Applies a node's write.
    pub fn apply(&mut self, delta: &StateDelta) {
        match &delta.messages {
            MessagesDelta::None => {}
            MessagesDelta::Append(new) if !delta.removed.is_empty() => {
                // A write that removes messages: the reducer's result.
                let current = self.messages.to_vec();
                let mut h = History::new();
                for m in StateDelta::reduce_write(&current, new, &delta.removed) {
                    h.push(m);
                }
                self.messages = h;
            }
            MessagesDelta::Append(new) => {
                for m in new {
                    self.messages.push(m.clone());
                }
            }
            MessagesDelta::Replace(all) => {
                let mut h = History::new();
                for m in all {
                    h.push(m.clone());
                }
                self.messages = h;
            }
        }
        if let Some(files) = &delta.files {
            files.apply(&mut self.files, &mut self.files_host);
        }
        if delta.structured_response.is_some() {
            self.structured_response
                .clone_from(&delta.structured_response);
            self.structured_rendered
                .clone_from(&delta.structured_rendered);
            self.structured_host.clone_from(&delta.structured_host);
        }
        merge_extra(&mut self.extra, &delta.extra);
        merge_extra(&mut self.extra, &delta.folded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, HumanMessage};

    fn human(id: &str, text: &str) -> Message {
        Message::Human(HumanMessage {
            content: text.into(),
            id: Some(id.into()),
            ..Default::default()
        })
    }

    fn ai(id: &str) -> Arc<Message> {
        Arc::new(Message::Ai(AiMessage {
            id: Some(id.into()),
            ..Default::default()
        }))
    }

    #[test]
    fn add_messages_replaces_by_id_in_place_and_appends_the_rest() {
        let history: History = [human("h1", "big"), human("h2", "next")]
            .into_iter()
            .collect();
        // The common write: one fresh reply, appended without a scan.
        assert!(matches!(
            StateDelta::add_messages(&history, &[ai("a1")]),
            MessagesDelta::Append(_)
        ));
        let tagged = Arc::new(human("h1", "tagged"));
        let MessagesDelta::Replace(all) = StateDelta::add_messages(&history, &[ai("a1"), tagged])
        else {
            panic!("a write with a known id replaces the list");
        };
        let ids: Vec<_> = all.iter().map(|m| m.id().unwrap_or_default()).collect();
        assert_eq!(ids, ["h1", "h2", "a1"]);
        assert_eq!(all[0].content().text(), "tagged");
    }

    fn ids(all: &[Arc<Message>]) -> Vec<&str> {
        all.iter().map(|m| m.id().unwrap_or_default()).collect()
    }

    #[test]
    fn a_write_with_removals_is_reduced_in_its_order() {
        let current = vec![ai("a1"), Arc::new(human("h1", "x")), ai("a2")];
        let written = vec![
            Arc::new(human("t1", "answer")),
            Arc::new(human("a2", "back")),
        ];
        // a2 replaced in place; h1 removed, and an unknown id ignored.
        let removed = [(0, "h1".to_owned()), (0, "nowhere".to_owned())];
        let all = StateDelta::reduce_write(&current, &written, &removed);
        assert_eq!(ids(&all), ["a1", "a2", "t1"]);
        assert_eq!(all[1].content().text(), "back");
        // Removed, then written again: a new message at the end.
        let all = StateDelta::reduce_write(&current, &written, &[(1, "a2".to_owned())]);
        assert_eq!(ids(&all), ["a1", "h1", "t1", "a2"]);
        // A removal of a message the same write added before it.
        let all = StateDelta::reduce_write(&current, &written, &[(1, "t1".to_owned())]);
        assert_eq!(ids(&all), ["a1", "h1", "a2"]);
        // Clearing keeps only what the write adds after it, its removals applied.
        let removed = [(0, REMOVE_ALL_MESSAGES.to_owned()), (2, "t1".to_owned())];
        let all = StateDelta::reduce_write(&current, &written, &removed);
        assert_eq!(ids(&all), ["a2"]);
    }

    #[test]
    fn applying_a_write_with_removals_reduces_it() {
        let mut state = AgentState::default();
        state.apply(&StateDelta::append(vec![
            human("h1", "x"),
            human("h2", "y"),
        ]));
        state.apply(&StateDelta {
            messages: MessagesDelta::Append(vec![Arc::new(human("h3", "z"))]),
            removed: vec![(1, "h1".into())],
            ..Default::default()
        });
        assert_eq!(ids(&state.messages.to_vec()), ["h2", "h3"]);
    }

    #[test]
    fn several_writes_stream_as_langgraph_streams_them() {
        let reply = StateDelta {
            messages: MessagesDelta::Append(vec![ai("a1")]),
            ..Default::default()
        };
        let mut note = StateDelta::default();
        note.extra
            .insert("note".into(), serde_json::json!("x").into());
        // Distinct keys: one dict.
        let merged = StateDelta::streamed(&[reply.clone(), note]).expect("merged");
        assert!(merged.extra.contains_key("note"));
        assert!(matches!(merged.messages, MessagesDelta::Append(_)));
        // `messages` written twice: one single-key write each, in order.
        let tag = StateDelta {
            messages: MessagesDelta::Append(vec![Arc::new(human("h1", "t"))]),
            ..Default::default()
        };
        let split = StateDelta::streamed(&[reply, tag]).expect_err("split");
        assert_eq!(split.len(), 2);
    }

    #[test]
    fn a_write_s_folded_values_replace_its_raw_ones() {
        let json = |v: serde_json::Value| Opaque::Json(v);
        let mut state = AgentState::default();
        let mut write = StateDelta::default();
        write
            .extra
            .insert("acc".into(), json(serde_json::json!([2])));
        write
            .extra
            .insert("note".into(), json(serde_json::json!("x")));
        // Without a fold the write replaces the key.
        state.apply(&write);
        assert_eq!(state.extra["acc"].as_json(), Some(&serde_json::json!([2])));
        // With one, the folded value lands; other keys are replaced as written.
        write
            .folded
            .insert("acc".into(), json(serde_json::json!([1, 2])));
        state.apply(&write);
        assert_eq!(
            state.extra["acc"].as_json(),
            Some(&serde_json::json!([1, 2]))
        );
        assert_eq!(state.extra["note"].as_json(), Some(&serde_json::json!("x")));
    }

    #[test]
    fn a_write_rebased_onto_a_step_s_earlier_writes_keeps_theirs() {
        let input = AgentState::with_messages(
            [human("h1", "big"), human("h2", "next")]
                .into_iter()
                .collect(),
        );
        // One task of the step appended a reply; another replaced `h1` by id and removed `h2`
        // (its write resolved against its own input into the whole list).
        let mut merged = input.clone();
        merged.apply(&StateDelta {
            messages: MessagesDelta::Append(vec![ai("a1")]),
            ..Default::default()
        });
        let replaced = StateDelta {
            messages: MessagesDelta::Replace(vec![Arc::new(human("h1", "tagged"))]),
            ..Default::default()
        };
        merged.apply(&replaced.rebased(&input, &merged));
        let all = merged.messages.to_vec();
        assert_eq!(ids(&all), ["h1", "a1"]);
        assert_eq!(all[0].content().text(), "tagged");
        // An append goes through `add_messages` onto what the step wrote first.
        let again = StateDelta {
            messages: MessagesDelta::Append(vec![Arc::new(human("a1", "over"))]),
            ..Default::default()
        };
        merged.apply(&again.rebased(&input, &merged));
        let all = merged.messages.to_vec();
        assert_eq!(ids(&all), ["h1", "a1"]);
        assert_eq!(all[1].content().text(), "over");
    }
}
