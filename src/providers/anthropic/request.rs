//! The Messages API request body, built as deepagents builds it through langchain-anthropic
//! with its prompt caching middleware: the system prompt's blocks as the chain tagged them
//! (`cache_control`), the last tool tagged, and a top-level `cache_control` for the automatic
//! tail breakpoint. Keeping that layout byte-stable across turns (and between a parent and
//! its forks) is what makes the provider's prompt cache hit.

use std::borrow::Cow;

use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::AnthropicConfig;
use super::kept_fields::KeptFields;
use super::kept_turns::KeptTurns;
use super::messages::system_blocks;
use super::output_format::output_format;
use super::profiles;
use super::turns::{Placement, format_turns};
use crate::error::ModelError;
use crate::messages::Content;
use crate::model::ModelRequest;
use crate::providers::BodyField;
use crate::providers::payload::Payload;
use crate::tools::ToolSpec;

/// The body keys in the order the official SDK writes them (`messages.create`).
const KEY_ORDER: &[&str] = &[
    "max_tokens",
    "messages",
    "model",
    "cache_control",
    "container",
    "diagnostics",
    "inference_geo",
    "metadata",
    "output_config",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "system",
    "thinking",
    "tool_choice",
    "tools",
];

/// One call's request: the body, and the beta it needs (sent as the official SDK sends
/// `betas`: an `anthropic-beta` header).
pub(super) struct Request {
    pub payload: Payload,
    pub beta: Option<&'static str>,
}

/// The request for one call, its turns written from those `kept` for its conversation (or,
/// with a system message among them, formatted whole from each message's encoding kept
/// there): a step re-sends the history its previous step sent. The system prompt and the
/// tools are spliced in as `fields` kept them.
pub(super) fn request_bytes(
    config: &AnthropicConfig,
    request: &ModelRequest,
    stream: bool,
    kept: &KeptTurns,
    fields: &KeptFields,
) -> Result<Request, ModelError> {
    // Breakpoints where the chain's caching entry asked for them, on a model configured to
    // take them.
    let cache = request
        .cache_control
        .as_deref()
        .filter(|_| config.cache_control.is_some());
    let placement = Placement {
        model: &config.model,
        in_place: profiles::mid_conversation_system_messages(&config.model),
        has_system: request.system.is_some(),
    };
    let written = kept.turns(&request.messages, &placement)?;
    let encoded = match written {
        Some(_) => Vec::new(),
        None => kept.encode_all(&request.messages)?,
    };
    let mut formatted = match written {
        Some(_) => None,
        None => Some(format_turns(&request.messages, &encoded, &placement)?),
    };
    let extra_system = formatted
        .as_mut()
        .map(|f| std::mem::take(&mut f.leading))
        .unwrap_or_default();
    // The body's fields, set as langchain-anthropic sets its payload's keys (a later one
    // replaces an earlier in its place), then sorted as the SDK writes them: a list, not a
    // map, as no key is hashed and the model's name and the marker are not copied (about 7K
    // instructions a request on the workers).
    let mut body = Body(Vec::with_capacity(KEY_ORDER.len()));
    body.set("model", BodyField::Str(&config.model));
    body.set("max_tokens", owned(json!(config.max_tokens)));
    // Held by its key's place; the turns go there at the end.
    body.set("messages", owned(Value::Null));
    match &request.system {
        // The pieces written as kept.
        Some(system) if extra_system.is_empty() => {
            let bytes = fields.system(system, || {
                crate::providers::to_bytes(&format_system(&system.content, Vec::new()))
            })?;
            body.set("system", BodyField::Piece(bytes));
        }
        Some(system) => {
            body.set(
                "system",
                owned(format_system(&system.content, extra_system)),
            );
        }
        // No system message of the agent's: only those merged in from the input.
        None if !extra_system.is_empty() => {
            body.set("system", owned(Value::Array(extra_system)));
        }
        // Or a later one moved up (an empty block list is not sent).
        None => match formatted.as_mut().and_then(|f| f.hoisted.take()) {
            Some(Value::Array(blocks)) if blocks.is_empty() => {}
            Some(hoisted) => body.set("system", owned(hoisted)),
            None => {}
        },
    }
    if !request.tools.is_empty() {
        let tagged = request.schema_tools_at.unwrap_or(request.tools.len());
        let bytes = fields.tools(&request.tools, tagged, cache, || {
            crate::providers::to_bytes(&format_tools(&request.tools, tagged, cache))
        })?;
        body.set("tools", BodyField::Piece(bytes));
    } else if request.response_format.is_some() {
        // LangChain binds a native format with the agent's tools, none here
        // (`bind_tools([])`): langchain-anthropic sends the empty list.
        body.set("tools", owned(json!([])));
    }
    if let Some(choice) = &request.tool_choice {
        let choice = match choice.as_str() {
            "auto" | "any" | "none" => json!({ "type": choice }),
            name => json!({ "type": "tool", "name": name }),
        };
        body.set("tool_choice", owned(choice));
    }
    if let Some(cc) = cache {
        body.set("cache_control", BodyField::Value(Cow::Borrowed(cc)));
    }
    // Bound call parameters go to the top level, as langchain-anthropic sends them (one
    // named `messages` leaves the turns in place, as the turns were always written there).
    for (k, v) in &request.model_settings {
        if k != "messages" {
            body.set(k, BodyField::Value(Cow::Borrowed(v)));
        }
    }
    // A native response format (a call's own setting wins, as LangChain binds them) is the
    // structured-output format, beside any other output settings.
    let format = match body.remove("response_format") {
        Some(BodyField::Value(v)) => Some(v.into_owned()),
        _ => request.response_format.clone(),
    };
    if let Some(format) = format {
        body.set_output_format(output_format(&format));
    }
    if stream {
        body.set("stream", owned(json!(true)));
    }
    // The kept turns go out as the pieces they were kept in; turns formatted whole, as one.
    let turns = match (&written, &formatted) {
        (Some(w), _) => w.written.pieces().collect(),
        (_, Some(f)) => {
            let mut out = Vec::with_capacity(f.turns_len());
            f.write_turns(&mut out)?;
            vec![Bytes::from(out)]
        }
        _ => Vec::new(),
    };
    body.set("messages", BodyField::Pieces(turns));
    let mut body = body.0;
    crate::providers::sort_in_sdk_order(&mut body, KEY_ORDER);
    let payload = crate::providers::to_pieces_spliced(body)?;
    let beta = formatted.as_ref().and_then(|f| f.beta);
    if let Some(written) = written {
        kept.keep(&request.messages, written);
    }
    Ok(Request { payload, beta })
}

fn owned(value: Value) -> BodyField<'static> {
    BodyField::Value(Cow::Owned(value))
}

/// A body's fields as they are set: a key set again keeps its place and takes the new value
/// (as a map's insert does).
struct Body<'a>(Vec<(&'a str, BodyField<'a>)>);

impl<'a> Body<'a> {
    fn set(&mut self, key: &'a str, value: BodyField<'a>) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    /// The field under `key`, taken out (the others keep their order).
    fn remove(&mut self, key: &str) -> Option<BodyField<'a>> {
        let at = self.0.iter().position(|(k, _)| *k == key)?;
        Some(self.0.remove(at).1)
    }

    /// `format` as `output_config`'s `format`, beside the output settings already set (an
    /// `output_config` that is not an object is left as it is).
    fn set_output_format(&mut self, format: Value) {
        if !self.0.iter().any(|(k, _)| *k == "output_config") {
            self.0
                .push(("output_config", owned(Value::Object(Map::new()))));
        }
        if let Some(Value::Object(config)) = self.value_mut("output_config") {
            config.insert("format".into(), format);
        }
    }

    /// The value under `key`, made the body's own to change in its place (a setting's value
    /// is borrowed until then).
    fn value_mut(&mut self, key: &str) -> Option<&mut Value> {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, BodyField::Value(v))) => Some(v.to_mut()),
            _ => None,
        }
    }
}

/// The agent's system prompt, as the chain left it (its caching entry tagged a block, before
/// langchain-anthropic merges in system messages from the input, which follow untagged). A
/// prompt that is a string alone goes as a string, as langchain-anthropic sends it (with the
/// caching entry excluded from the stack, nothing made it blocks).
pub(super) fn format_system(content: &Content, extra: Vec<Value>) -> Value {
    let mut blocks = match (content, extra.is_empty()) {
        (Content::Text(text), true) => return json!(text),
        // Merged with messages after it, a string (even empty) is a text block.
        (Content::Text(text), false) => vec![json!({"type": "text", "text": text})],
        (blocks, _) => system_blocks(blocks),
    };
    if blocks.is_empty() && extra.is_empty() {
        // An empty prompt stays the empty string and carries no breakpoint, as deepagents
        // sends it.
        return json!("");
    }
    blocks.extend(extra);
    Value::Array(blocks)
}

/// The tools, with the breakpoint on the last of the first `tagged` (those the caching
/// middleware saw).
pub(super) fn format_tools(tools: &[ToolSpec], tagged: usize, cache: Option<&Value>) -> Value {
    Value::Array(
        tools
            .iter()
            .enumerate()
            .map(|(i, t)| {
                // deepagents tags the last tool only when it is a tool object.
                let last = i + 1 == tagged && !t.json_spec;
                // A provider-side tool (web search, ...) goes out as defined.
                if let Some(Value::Object(def)) = &t.provider_definition {
                    let mut def = def.clone();
                    if let (Some(cc), true) = (cache, last) {
                        def.insert("cache_control".into(), cc.clone());
                    }
                    return Value::Object(def);
                }
                let mut tool = Map::new();
                tool.insert("name".into(), json!(t.name));
                // The schema goes out exactly as the tool defined it: key order is part of the
                // cache prefix.
                tool.insert("input_schema".into(), t.parameters.clone());
                tool.insert("description".into(), json!(t.description));
                // langchain-anthropic sends a tool's `extras` after its description.
                if t.defer_loading {
                    tool.insert("defer_loading".into(), json!(true));
                }
                if let (Some(cc), true) = (cache, last) {
                    tool.insert("cache_control".into(), cc.clone());
                }
                Value::Object(tool)
            })
            .collect(),
    )
}
