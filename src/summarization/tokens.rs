//! LangChain's `count_tokens_approximately`, as deepagents' summarization tunes it: per
//! message `ceil(chars / chars_per_token) + 3`, 85 per image block, the tool schemas'
//! `json.dumps` length, and the usage-metadata scaling of the whole count.
//!
//! A message's character count never changes, so it is measured once and kept by the
//! message's address (as the Python objects of messages are): a step measures only its new
//! messages, however long the conversation.

use std::borrow::Cow;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use serde_json::{Map, Value};

use super::counter::{Counting, TokenCounter, Tokens};
use crate::message_memo::MessageMemo;
use crate::message_prefix::{Conversation, Prefixes};
use crate::messages::{Content, Message, SystemMessage, ToolCall};
use crate::model::RequestParts;
use crate::pyrepr::{json_dumps, py_len, repr, write_map_repr};
use crate::tools::{HostContext, ToolSpec};

const EXTRA_TOKENS_PER_MESSAGE: f64 = 3.0;
const TOKENS_PER_IMAGE: f64 = 85.0;

/// What the counter reads of one message, independent of the characters-per-token ratio.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Size {
    chars: usize,
    images: usize,
}

impl Size {
    fn tokens(self, chars_per_token: f64) -> f64 {
        (self.chars as f64 / chars_per_token).ceil()
            + EXTRA_TOKENS_PER_MESSAGE
            + TOKENS_PER_IMAGE * self.images as f64
    }
}

fn content_size(content: &Content) -> Size {
    let mut size = Size::default();
    match content {
        Content::Text(s) => size.chars += py_len(s),
        Content::Blocks(blocks) => {
            for block in blocks {
                match block {
                    Value::String(s) => size.chars += py_len(s),
                    Value::Object(b) => match b.get("type").and_then(Value::as_str) {
                        Some("image" | "image_url") => size.images += 1,
                        Some("text") => size.chars += text_len(b.get("text")),
                        _ => size.chars += py_len(&repr(block)),
                    },
                    other => size.chars += py_len(&repr(other)),
                }
            }
        }
    }
    size
}

/// `len(block.get("text", ""))` of whatever the text is.
fn text_len(text: Option<&Value>) -> usize {
    match text {
        None => 0,
        Some(Value::String(s)) => py_len(s),
        Some(Value::Array(a)) => a.len(),
        Some(Value::Object(o)) => o.len(),
        Some(other) => py_len(&repr(other)),
    }
}

/// `repr(message.tool_calls)`: LangChain's tool-call dicts, `name, args, id, type`.
pub fn tool_calls_repr(calls: &[ToolCall]) -> String {
    let mut out = String::from("[");
    for (i, call) in calls.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let mut map = Map::new();
        map.insert("name".into(), Value::String(call.name.clone()));
        map.insert("args".into(), call.args.clone());
        map.insert(
            "id".into(),
            call.id.clone().map_or(Value::Null, Value::String),
        );
        map.insert("type".into(), Value::String(call.r#type.to_string()));
        write_map_repr(&mut out, map.iter());
    }
    out.push(']');
    out
}

/// The size of one message as the counter reads it.
pub fn message_size(message: &Message) -> Size {
    let mut size = content_size(message.content());
    let (role, name) = match message {
        Message::System(_) => ("system", None),
        Message::Human(m) => ("user", m.name.as_deref()),
        Message::Ai(m) => {
            // Tool calls in list content are already in the content (Anthropic's format).
            if matches!(m.content, Content::Text(_)) && !m.tool_calls.is_empty() {
                size.chars += py_len(&tool_calls_repr(&m.tool_calls));
            }
            ("assistant", m.name.as_deref())
        }
        Message::Tool(m) => {
            size.chars += py_len(&m.tool_call_id);
            ("tool", m.name.as_deref())
        }
    };
    size.chars += role.len();
    if let Some(name) = name.filter(|n| !n.is_empty()) {
        size.chars += py_len(name);
    }
    size
}

/// Whether a message's size is the length of its texts only (text content, no tool calls
/// written out as their repr): cheaper to measure again than to keep.
fn measured_afresh(message: &Message) -> bool {
    matches!(message.content(), Content::Text(_))
        && message.as_ai().is_none_or(|ai| ai.tool_calls.is_empty())
}

/// The characters the counter charges for a tool list: each tool's dict as `json.dumps`
/// writes it: a JSON-spec tool's as given, a tool object's its `langchain_tool` dict.
pub fn tools_chars(tools: &[ToolSpec]) -> usize {
    tools
        .iter()
        .map(|t| match &t.json_dict {
            Some(dict) => json_dumps(dict, true).len(),
            None => json_dumps(&langchain_tool(t), true).len(),
        })
        .sum()
}

/// A tool as LangChain's counter reads a tool object: `{"name", "description",
/// "parameters"}`, with the parameter schema as its `tool_call_schema` has it (a pydantic
/// title per property, the schema's own title and description left out).
pub fn langchain_tool(t: &ToolSpec) -> Value {
    let mut parameters = match &t.parameters {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    parameters.remove("title");
    parameters.remove("description");
    if let Some(Value::Object(props)) = parameters.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            if let Value::Object(p) = prop {
                p.entry("title")
                    .or_insert_with(|| Value::String(pydantic_title(name)));
            }
        }
    }
    let mut dict = Map::new();
    dict.insert("name".into(), Value::String(t.name.clone()));
    dict.insert("description".into(), Value::String(t.description.clone()));
    dict.insert("parameters".into(), Value::Object(parameters));
    Value::Object(dict)
}

/// Pydantic's default field title: underscores to spaces, then Python's `str.title`.
fn pydantic_title(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut prev_cased = false;
    for c in name.replace('_', " ").chars() {
        if c.is_alphabetic() {
            if prev_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            prev_cased = true;
        } else {
            out.push(c);
            prev_cased = false;
        }
    }
    out
}

/// `count`'s sums over a conversation's first messages. The tokens are whole numbers (kept
/// in an `f64`, as the count is), so adding the system message and the tools to a sum made
/// without them gives the same count as adding them first.
#[derive(Clone, Default)]
struct Running {
    tokens: f64,
    /// The first AI message's `model_provider`, or `Some(None)` while the AI messages so far
    /// had none.
    provider: Option<Option<String>>,
    mixed: bool,
    /// The last reported usage's total, and `tokens` up to that message.
    last_total: Option<u64>,
    at_last: f64,
}

#[cfg(test)]
thread_local! {
    /// Messages added up by this thread's counts.
    static ADDED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Running {
    fn add(&mut self, message: &Message, size: Size, chars_per_token: f64) {
        #[cfg(test)]
        ADDED.with(|a| a.set(a.get() + 1));
        self.tokens += size.tokens(chars_per_token);
        if let Message::Ai(ai) = message {
            let p = ai.response_metadata.get_str("model_provider");
            match &self.provider {
                // Owned once, when first seen; later replies are compared borrowed.
                None | Some(None) => self.provider = Some(p.map(Cow::into_owned)),
                Some(seen) if seen.as_deref() != p.as_deref() => self.mixed = true,
                Some(_) => {}
            }
            if let Some(u) = &ai.usage_metadata {
                self.last_total = Some(u.total_tokens);
                self.at_last = self.tokens;
            }
        }
    }
}

/// A conversation's sums are kept every this many messages, so a request that shares all
/// but a conversation's last messages (a fork's first, its caller's next) adds up at most
/// this many again.
const MARK_EVERY: usize = 64;

/// A conversation's sums before message `i * MARK_EVERY`, and after its last message.
#[derive(Default)]
struct Marks {
    every: Vec<Running>,
    end: Running,
}

/// The counter of one agent: its characters per token (3.3 for Anthropic's chat models, 4
/// otherwise) and the sizes it has measured.
pub struct Counter {
    chars_per_token: f64,
    sizes: MessageMemo<Size>,
    /// The sums of each conversation's last count: a step adds its new messages only.
    sums: Mutex<Prefixes<Marks>>,
    /// The last tool list measured, by address: an agent offers the same list on every call
    /// (a middleware that changes it makes a new one), so its schemas are written once.
    tools: Mutex<Option<(Weak<[ToolSpec]>, usize)>>,
}

impl Counter {
    pub fn new(chars_per_token: f64) -> Self {
        Counter {
            chars_per_token,
            sizes: MessageMemo::default(),
            sums: Mutex::default(),
            tools: Mutex::default(),
        }
    }

    /// `tools_chars` of `tools`, measured once per list.
    pub fn tools_chars(&self, tools: &Arc<[ToolSpec]>) -> usize {
        if let Some((w, n)) = &*self.tools.lock()
            && w.upgrade().is_some_and(|t| Arc::ptr_eq(&t, tools))
        {
            return *n;
        }
        let n = tools_chars(tools);
        *self.tools.lock() = Some((Arc::downgrade(tools), n));
        n
    }

    /// Each message's size, measured once while it lives.
    fn sizes(&self, messages: &[Arc<Message>]) -> Vec<Size> {
        let measured: Result<Vec<Size>, std::convert::Infallible> =
            self.sizes.get_all(messages, |m| Ok(message_size(m)));
        measured.unwrap_or_else(|never| match never {})
    }

    /// Each message's size: a plain one (`measured_afresh`) measured again, the others from
    /// the memo. A long history's first count measured and kept every message: the look-up,
    /// the `Weak` and the map's slot (grown, and later swept) cost several times the
    /// measuring of a text, and a conversation's sums (`sums`) already spare its later steps
    /// any measuring of what it sent before.
    fn sizes_each(&self, messages: &[Arc<Message>]) -> Vec<Size> {
        let afresh: Vec<bool> = messages.iter().map(|m| measured_afresh(m)).collect();
        let kept: Vec<Arc<Message>> = messages
            .iter()
            .zip(&afresh)
            .filter(|(_, afresh)| !**afresh)
            .map(|(m, _)| m.clone())
            .collect();
        // A text-only history asks the memo nothing (no look-up, no lock).
        let kept = if kept.is_empty() {
            Vec::new()
        } else {
            let kept: Result<Vec<Size>, std::convert::Infallible> =
                self.sizes.get_each(&kept, |m| Ok(message_size(m)));
            kept.unwrap_or_else(|never| match never {})
        };
        let mut kept = kept.into_iter();
        messages
            .iter()
            .zip(afresh)
            .map(|(m, afresh)| match afresh {
                true => message_size(m),
                false => kept.next().unwrap_or_default(),
            })
            .collect()
    }

    /// `count_tokens_approximately(messages)` without usage scaling (LangChain's
    /// `_partial_token_counter`).
    pub fn unscaled(&self, messages: &[Arc<Message>]) -> u64 {
        let total: f64 = self
            .sizes(messages)
            .into_iter()
            .map(|s| s.tokens(self.chars_per_token))
            .sum();
        total.ceil() as u64
    }

    /// The whole request as the summarization trigger counts it: the system message, the
    /// messages, the tools, and the scaling by the last reported usage.
    pub fn count(
        &self,
        system: Option<&SystemMessage>,
        messages: &[Arc<Message>],
        tools_chars: Option<usize>,
    ) -> u64 {
        self.count_read(system, messages.into(), tools_chars)
    }

    /// `count`, of messages that may be a history's as read (matched by its node, see
    /// `message_prefix`).
    fn count_read(
        &self,
        system: Option<&SystemMessage>,
        request: Conversation<'_>,
        tools_chars: Option<usize>,
    ) -> u64 {
        let messages = request.messages();
        let mut total = tools_chars
            .filter(|c| *c > 0)
            .map_or(0.0, |c| (c as f64 / self.chars_per_token).ceil());
        let mut n = messages.len();
        if let Some(system) = system {
            let mut size = content_size(&system.content);
            size.chars += "system".len();
            total += size.tokens(self.chars_per_token);
            n += 1;
        }
        let sums = self.running(request);
        // The system message and the tools come first: the usage was reported after them.
        let at_last = total + sums.at_last;
        total += sums.tokens;
        if n > 1
            && !sums.mixed
            && sums.provider.flatten().is_some()
            && let Some(reported) = sums.last_total
            && at_last > 0.0
        {
            total *= (reported as f64 / at_last).clamp(1.0, 1.25);
        }
        total.ceil() as u64
    }

    /// `count`'s sums over `messages`, from those kept for the part of them the
    /// conversation's last count shared.
    fn running(&self, request: Conversation<'_>) -> Running {
        let messages = request.messages();
        let (mut sums, from, found) = match self.sums.lock().find(request) {
            Some((marks, found)) if found.shared == found.kept => {
                (marks.end.clone(), found.shared, Some(found))
            }
            Some((marks, found)) => {
                let i = found.shared / MARK_EVERY;
                (marks.every[i].clone(), i * MARK_EVERY, Some(found))
            }
            None => (Running::default(), 0, None),
        };
        let mut marks = Vec::new();
        let rest = &messages[from..];
        // Looked up one by one: `sums` is this conversation's kept list, and a list kept by
        // the memo for `rest` would be keyed by a message in its middle, a new one each step.
        let sizes = self.sizes_each(rest);
        for (at, (m, size)) in (from..).zip(rest.iter().zip(sizes)) {
            if at % MARK_EVERY == 0 {
                marks.push(sums.clone());
            }
            sums.add(m, size, self.chars_per_token);
        }
        let mut kept = self.sums.lock();
        match found {
            Some(found) => {
                kept.update(request, found, |kept| {
                    kept.every.truncate(from.div_ceil(MARK_EVERY));
                    kept.every.append(&mut marks);
                    kept.end = sums.clone();
                    messages.len()
                });
            }
            None => {
                let end = sums.clone();
                drop(kept.insert(request, Marks { every: marks, end }));
            }
        }
        sums
    }
}

/// The built-in counter answers at once, from the sizes it keeps.
impl TokenCounter for Counter {
    fn request<'a>(&'a self, request: RequestParts<'a>, _host: &'a HostContext) -> Counting<'a> {
        let tools_chars = Some(self.tools_chars(request.tools));
        let system = request.system.map(|s| &**s);
        let messages = Conversation::new(request.messages, request.read_from);
        let n = self.count_read(system, messages, tools_chars);
        Box::pin(std::future::ready(Ok(n as Tokens)))
    }

    /// `count_tokens_approximately(messages, use_usage_metadata_scaling=True)`.
    fn scaled<'a>(&'a self, messages: &'a [Arc<Message>], _host: &'a HostContext) -> Counting<'a> {
        let n = self.count(None, messages, None);
        Box::pin(std::future::ready(Ok(n as Tokens)))
    }

    fn partial<'a>(&'a self, messages: &'a [Arc<Message>], _host: &'a HostContext) -> Counting<'a> {
        Box::pin(std::future::ready(Ok(self.unscaled(messages) as Tokens)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::AiMessage;
    use serde_json::json;

    #[test]
    fn a_string_reply_with_calls_counts_their_repr() {
        let ai = Message::Ai(AiMessage {
            content: Content::Text(String::new()),
            tool_calls: vec![ToolCall::new("a", json!({"x": 1.5e-7, "y": "é\n"}), "1")],
            ..Default::default()
        });
        let expected =
            "[{'name': 'a', 'args': {'x': 1.5e-07, 'y': 'é\\n'}, 'id': '1', 'type': 'tool_call'}]";
        assert_eq!(tool_calls_repr(&ai.as_ai().unwrap().tool_calls), expected);
        assert_eq!(
            message_size(&ai).chars,
            py_len(expected) + "assistant".len()
        );
    }

    /// A conversation of `n` messages: user turns, and AI replies with a provider and usage.
    fn conversation(n: usize) -> Vec<Arc<Message>> {
        (0..n)
            .map(|i| {
                Arc::new(if i % 2 == 0 {
                    Message::human(format!("question {i} ").repeat(1 + i % 7))
                } else {
                    let mut ai = AiMessage {
                        content: Content::Text(format!("answer {i}")),
                        ..Default::default()
                    };
                    let mut meta = Map::new();
                    meta.insert("model_provider".into(), json!("anthropic"));
                    ai.response_metadata = meta.into();
                    ai.usage_metadata = Some(Box::new(crate::messages::Usage {
                        total_tokens: 40 * i as u64,
                        ..Default::default()
                    }));
                    Message::Ai(ai)
                })
            })
            .collect()
    }

    #[test]
    fn a_fork_and_the_next_step_count_as_a_fresh_counter_does() {
        let system = SystemMessage {
            content: Content::Text("You help.".into()),
            ..Default::default()
        };
        let parent = conversation(300);
        let mut fork = parent[..299].to_vec();
        fork.push(Arc::new(Message::human("the task")));
        let mut next = parent.clone();
        next.push(Arc::new(Message::human("go on")));
        let mut rewritten = next.clone();
        rewritten[10] = Arc::new(Message::human("edited"));
        let warm = Counter::new(3.3);
        for request in [&parent, &fork, &next, &rewritten, &parent[..5].to_vec()] {
            let fresh = Counter::new(3.3);
            assert_eq!(
                warm.count(Some(&system), request, Some(120)),
                fresh.count(Some(&system), request, Some(120))
            );
            assert_eq!(
                warm.count(None, request, None),
                fresh.count(None, request, None)
            );
        }
    }

    #[test]
    fn a_fork_adds_up_only_what_its_caller_did_not() {
        let counter = Counter::new(4.0);
        // The caller's request; its reply is the `task` call, which the fork leaves out.
        let parent = conversation(1000);
        counter.count(None, &parent, None);
        let mut fork = parent.clone();
        fork.push(Arc::new(Message::human("the task")));
        counter.count(None, &fork, None);
        let mut next = parent.clone();
        next.push(Arc::new(Message::human("the task call")));
        next.push(Arc::new(Message::human("its result")));
        counter.count(None, &next, None);
        // The caller's 1000, the fork's task, then the caller's next request from the last
        // mark before the 1000 it shares with the fork's (960) on.
        assert_eq!(ADDED.with(|a| a.get()), 1000 + 1 + (1002 - 960));
    }

    /// A history's texts are measured, not kept: its first count made and kept an entry
    /// per message (the look-up and the entry cost more than measuring a text again). A
    /// message whose size writes its calls out is kept.
    #[test]
    fn texts_are_measured_and_calls_kept() {
        let counter = Counter::new(4.0);
        let mut history = conversation(500);
        let fresh = Counter::new(4.0).count(None, &history, None);
        assert_eq!(counter.count(None, &history, None), fresh);
        assert_eq!(counter.sizes.len(), 0);
        history.push(Arc::new(Message::Ai(AiMessage {
            content: Content::Text(String::new()),
            tool_calls: vec![ToolCall::new("ls", json!({"path": "/"}), "c1")],
            ..Default::default()
        })));
        let fresh = Counter::new(4.0).count(None, &history, None);
        assert_eq!(counter.count(None, &history, None), fresh);
        assert_eq!(counter.sizes.len(), 1);
    }

    #[test]
    fn titles_follow_pydantic() {
        assert_eq!(pydantic_title("file_path"), "File Path");
        assert_eq!(pydantic_title("old_string2x"), "Old String2X");
    }
}
