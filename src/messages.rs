//! Conversation messages, shaped like LangChain's so they cross the Python boundary as plain
//! dicts with the same field names (`type`, `content`, `tool_calls`, ...).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::compact_map::CompactMap;
use crate::host::{HostValue, Origin};
use crate::rare_map::RareMap;

/// Message content: a plain string, or a list of content blocks (LangChain allows both, and
/// providers care about the difference only when blocks carry extra fields).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Blocks(Vec<Value>),
}

impl Default for Content {
    fn default() -> Self {
        Content::Text(String::new())
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Content::Text(s.to_owned())
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Content::Text(s)
    }
}

impl Content {
    /// The text of the content, joining text blocks, as LangChain's `.text` does.
    pub fn text(&self) -> String {
        match self {
            Content::Text(s) => s.clone(),
            Content::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                        o.get("text").and_then(Value::as_str)
                    }
                    _ => None,
                })
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Content::Text(s) => s.is_empty(),
            Content::Blocks(b) => b.is_empty(),
        }
    }
}

/// A tool call requested by the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub name: String,
    #[serde(default)]
    pub args: Value,
    #[serde(default)]
    pub id: Option<String>,
    /// Always `"tool_call"` in practice: kept as the static text, not an allocation per call
    /// (a conversation keeps every reply's calls).
    #[serde(default = "tool_call_type", deserialize_with = "call_type")]
    pub r#type: Cow<'static, str>,
    /// The host's own arguments object, when its reading was not exact.
    #[serde(skip)]
    pub args_origin: Option<Origin>,
}

fn tool_call_type() -> Cow<'static, str> {
    Cow::Borrowed(TOOL_CALL)
}

const TOOL_CALL: &str = "tool_call";

/// A call's `type` as read: LangChain's one value as the static text, any other kept as given.
fn call_type<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Cow<'static, str>, D::Error> {
    let text = String::deserialize(d)?;
    Ok(if text == TOOL_CALL {
        Cow::Borrowed(TOOL_CALL)
    } else {
        Cow::Owned(text)
    })
}

impl ToolCall {
    pub fn new(name: impl Into<String>, args: Value, id: impl Into<String>) -> Self {
        ToolCall {
            name: name.into(),
            args,
            id: Some(id.into()),
            r#type: tool_call_type(),
            args_origin: None,
        }
    }
}

/// Token usage of one model call in LangChain's `usage_metadata` format.
/// `input_tokens` is the whole prompt, cached or not (LangChain's convention, not Anthropic's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_token_details: Option<CompactMap>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_token_details: Option<CompactMap>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemMessage {
    pub content: Content,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_kwargs: RareMap,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub response_metadata: RareMap,
    /// The host's own message this one was read from, when the reading was not exact.
    #[serde(skip)]
    pub origin: Option<Origin>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HumanMessage {
    pub content: Content,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_kwargs: RareMap,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub response_metadata: RareMap,
    /// The host's own message this one was read from, when the reading was not exact.
    #[serde(skip)]
    pub origin: Option<Origin>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AiMessage {
    pub content: Content,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_tool_calls: Vec<Value>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Boxed: every reply has one, but a `Usage` in place (80 bytes) would make every
    /// message that large too (a `Message` is as large as its largest kind).
    #[serde(default)]
    pub usage_metadata: Option<Box<Usage>>,
    /// Stored as its text: a conversation keeps every reply's (see `compact_map`).
    #[serde(default)]
    pub response_metadata: CompactMap,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_kwargs: RareMap,
    /// The host's own message this one was read from, when the reading was not exact.
    #[serde(skip)]
    pub origin: Option<Origin>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    #[default]
    Success,
    Error,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolMessage {
    pub content: Content,
    pub tool_call_id: String,
    #[serde(default)]
    pub name: Option<String>,
    pub status: ToolStatus,
    #[serde(default)]
    pub id: Option<String>,
    /// Boxed: rare, and a `Value` in place would make every message 72 bytes larger (a
    /// `Message` is as large as its largest kind, and a conversation keeps every message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Box<Value>>,
    /// An artifact that is not JSON (any object a tool returned), kept as the host's object.
    #[serde(skip)]
    pub artifact_host: Option<HostValue>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub response_metadata: RareMap,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub additional_kwargs: RareMap,
    /// The host's own message this one was read from, when the reading was not exact.
    #[serde(skip)]
    pub origin: Option<Origin>,
    /// The tool's own return value, when its reading as content was not exact.
    #[serde(skip)]
    pub content_origin: Option<Origin>,
}

impl ToolMessage {
    /// The core's own answer to a tool call (a patched dangling call, a structured-output
    /// call): a fresh id (the reducer's form of one), no artifact, no metadata.
    pub fn answer(
        tool_call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<Content>,
        status: ToolStatus,
    ) -> Self {
        ToolMessage {
            content: content.into(),
            tool_call_id: tool_call_id.into(),
            name: Some(name.into()),
            status,
            id: Some(crate::run::new_id()),
            artifact: None,
            artifact_host: None,
            response_metadata: RareMap::new(),
            additional_kwargs: RareMap::new(),
            origin: None,
            content_origin: None,
        }
    }
}

/// One conversation message. The tag values are LangChain's `message.type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Message {
    #[serde(rename = "system")]
    System(SystemMessage),
    #[serde(rename = "human")]
    Human(HumanMessage),
    #[serde(rename = "ai")]
    Ai(AiMessage),
    #[serde(rename = "tool")]
    Tool(ToolMessage),
}

impl Message {
    pub fn human(content: impl Into<Content>) -> Self {
        Message::Human(HumanMessage {
            content: content.into(),
            ..Default::default()
        })
    }

    pub fn content(&self) -> &Content {
        match self {
            Message::System(m) => &m.content,
            Message::Human(m) => &m.content,
            Message::Ai(m) => &m.content,
            Message::Tool(m) => &m.content,
        }
    }

    /// A copy with other content; every other field as it was.
    pub fn with_content(&self, content: Content) -> Message {
        let mut out = self.clone();
        match &mut out {
            Message::System(m) => m.content = content,
            Message::Human(m) => m.content = content,
            Message::Ai(m) => m.content = content,
            Message::Tool(m) => m.content = content,
        }
        out
    }

    pub fn id(&self) -> Option<&str> {
        match self {
            Message::System(m) => m.id.as_deref(),
            Message::Human(m) => m.id.as_deref(),
            Message::Ai(m) => m.id.as_deref(),
            Message::Tool(m) => m.id.as_deref(),
        }
    }

    pub fn set_id_if_missing(&mut self, make: impl FnOnce() -> String) {
        let slot = match self {
            Message::System(m) => &mut m.id,
            Message::Human(m) => &mut m.id,
            Message::Ai(m) => &mut m.id,
            Message::Tool(m) => &mut m.id,
        };
        if slot.is_none() {
            *slot = Some(make());
        }
    }

    /// The host's message this one was read from, if it still is what the core holds.
    /// The id is left out of the comparison: the reducer gives a message without one a
    /// fresh id, which the host's object then takes.
    pub fn origin(&self) -> Option<&Origin> {
        let origin = match self {
            Message::System(m) => m.origin.as_ref(),
            Message::Human(m) => m.origin.as_ref(),
            Message::Ai(m) => m.origin.as_ref(),
            Message::Tool(m) => m.origin.as_ref(),
        }?;
        origin.matches(&self.without_id()).then_some(origin)
    }

    /// Whether the message was read from a host's object inexactly (it may hold a stand-in,
    /// such as `crate::stand_ins`' for bytes), even if the core has changed it since.
    pub fn read_inexactly(&self) -> bool {
        match self {
            Message::System(m) => m.origin.is_some(),
            Message::Human(m) => m.origin.is_some(),
            Message::Ai(m) => m.origin.is_some(),
            Message::Tool(m) => m.origin.is_some(),
        }
    }

    /// Keeps `object` as the host's form of this message (see `origin`).
    pub fn set_origin(&mut self, object: HostValue) {
        let origin = Some(Origin::new(object, &self.without_id()));
        match self {
            Message::System(m) => m.origin = origin,
            Message::Human(m) => m.origin = origin,
            Message::Ai(m) => m.origin = origin,
            Message::Tool(m) => m.origin = origin,
        }
    }

    fn without_id(&self) -> Message {
        let mut m = self.clone();
        match &mut m {
            Message::System(m) => m.id = None,
            Message::Human(m) => m.id = None,
            Message::Ai(m) => m.id = None,
            Message::Tool(m) => m.id = None,
        }
        m
    }

    pub fn as_ai(&self) -> Option<&AiMessage> {
        match self {
            Message::Ai(m) => Some(m),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A conversation keeps every reply's calls: a call's `type` allocates nothing, made or
    /// read, and reads back as the same JSON (keys, order, values).
    #[test]
    fn a_tool_calls_type_is_held_as_static_text() {
        use crate::heap_count::held_by;
        let (call, held) = held_by(|| ToolCall::new("echo", Value::Null, "toolu_01"));
        assert_eq!(held, "echo".len() + "toolu_01".len());
        let json = r#"{"name":"echo","args":{"text":"step 1"},"id":"toolu_01","type":"tool_call"}"#;
        let (read, _) = held_by(|| serde_json::from_str::<ToolCall>(json).unwrap());
        assert!(matches!(read.r#type, Cow::Borrowed(TOOL_CALL)));
        assert_eq!(serde_json::to_string(&read).unwrap(), json);
        assert_eq!(read.r#type, call.r#type);
        let other: ToolCall = serde_json::from_str(r#"{"name":"x","type":"other"}"#).unwrap();
        assert_eq!(other.r#type, "other");
        let absent: ToolCall = serde_json::from_str(r#"{"name":"x"}"#).unwrap();
        assert_eq!(absent.r#type, TOOL_CALL);
    }

    /// A conversation keeps every message, each as large as the largest kind: the rare
    /// parts are out of line (the tool message's artifact, the maps that are usually empty,
    /// the host's object, a reply's usage), so the AI message sets the size, and it is about
    /// half of what the fields in place made it (336 bytes).
    #[test]
    fn a_message_is_as_large_as_an_ai_message() {
        eprintln!(
            "Message {}, AiMessage {}, ToolMessage {}, HumanMessage {}",
            size_of::<Message>(),
            size_of::<AiMessage>(),
            size_of::<ToolMessage>(),
            size_of::<HumanMessage>()
        );
        assert!(size_of::<ToolMessage>() <= size_of::<AiMessage>());
        assert!(size_of::<Message>() <= size_of::<AiMessage>() + 8);
        assert!(size_of::<Message>() <= 176, "{}", size_of::<Message>());
    }
}
