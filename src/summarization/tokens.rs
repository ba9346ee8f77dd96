//! LangChain's `count_tokens_approximately`, as deepagents' summarization tunes it: per
//! message `ceil(chars / chars_per_token) + 3`, 85 per image block, the tool schemas'
//! `json.dumps` length, and the usage-metadata scaling of the whole count.
//!
//! A message's character count never changes, so it is measured once and kept by the
//! message's address (as the Python objects of messages are): a step measures only its new
//! messages, however long the conversation.

use std::sync::{Arc, Weak};

use parking_lot::Mutex;
use serde_json::{Map, Value};

use super::counter::{Counting, TokenCounter, Tokens};
use crate::message_memo::MessageMemo;
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
        map.insert("type".into(), Value::String(call.r#type.clone()));
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

/// The counter of one agent: its characters per token (3.3 for Anthropic's chat models, 4
/// otherwise) and the sizes it has measured.
pub struct Counter {
    chars_per_token: f64,
    sizes: MessageMemo<Size>,
    /// The last tool list measured, by address: an agent offers the same list on every call
    /// (a middleware that changes it makes a new one), so its schemas are written once.
    tools: Mutex<Option<(Weak<[ToolSpec]>, usize)>>,
}

impl Counter {
    pub fn new(chars_per_token: f64) -> Self {
        Counter {
            chars_per_token,
            sizes: MessageMemo::default(),
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
        let mut provider: Option<Option<&str>> = None;
        let mut mixed = false;
        let mut last_total: Option<u64> = None;
        let mut at_last = 0.0;
        for (m, size) in messages.iter().zip(self.sizes(messages)) {
            total += size.tokens(self.chars_per_token);
            if let Message::Ai(ai) = &**m {
                let p = ai
                    .response_metadata
                    .get("model_provider")
                    .and_then(Value::as_str);
                match provider {
                    None | Some(None) => provider = Some(p),
                    Some(seen) if seen != p => mixed = true,
                    Some(_) => {}
                }
                if let Some(u) = &ai.usage_metadata {
                    last_total = Some(u.total_tokens);
                    at_last = total;
                }
            }
        }
        if n > 1
            && !mixed
            && provider.flatten().is_some()
            && let Some(reported) = last_total
            && at_last > 0.0
        {
            total *= (reported as f64 / at_last).clamp(1.0, 1.25);
        }
        total.ceil() as u64
    }
}

/// The built-in counter answers at once, from the sizes it keeps.
impl TokenCounter for Counter {
    fn request<'a>(&'a self, request: RequestParts<'a>, _host: &'a HostContext) -> Counting<'a> {
        let tools_chars = Some(self.tools_chars(request.tools));
        let system = request.system.map(|s| &**s);
        let n = self.count(system, request.messages, tools_chars);
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

    #[test]
    fn titles_follow_pydantic() {
        assert_eq!(pydantic_title("file_path"), "File Path");
        assert_eq!(pydantic_title("old_string2x"), "Old String2X");
    }
}
