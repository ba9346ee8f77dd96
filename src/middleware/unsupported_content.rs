//! deepagents' `UnsupportedContentMiddleware`: each input block of a human or tool message
//! that the request's model cannot take is replaced, in the request only, by a text naming
//! what was not attached; the thread keeps the original. The model's profile decides
//! (`image_inputs: False` and the like, read as LangChain reads `ModelProfile`: only an
//! explicit `False` refuses), and an inline non-PDF document is refused unless the model is
//! an OpenAI Responses model that takes its type.
//!
//! The blocks are read as LangChain's `content_blocks` reads them: a message with a block
//! replaced goes with all its blocks in that standard form. The provider forms converted are
//! plain strings, OpenAI's `image_url` and `input_audio`, and Anthropic's base64 `source`
//! blocks; any other block goes as it is.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::{Middleware, ModelHandler, ModelResponse};
use crate::error::Error;
use crate::message_scan::AnyMessage;
use crate::messages::{Content, HumanMessage, Message, ToolMessage};
use crate::model::{InputProfile, ModelRequest};

#[derive(Default)]
pub struct UnsupportedContent {
    /// Whether a request holds a message this entry could change at all (a human or tool
    /// message of blocks), asked of its new messages only: on a long text history every
    /// step would otherwise read every message.
    with_blocks: AnyMessage,
}

/// A message whose blocks `filtered` reads (any other goes unchanged, whatever the model).
fn has_blocks(message: &Message) -> bool {
    matches!(
        message,
        Message::Human(HumanMessage {
            content: Content::Blocks(_),
            ..
        }) | Message::Tool(ToolMessage {
            content: Content::Blocks(_),
            ..
        })
    )
}

const PDF: &str = "application/pdf";

fn str_of<'a>(block: &'a Value, key: &str) -> Option<&'a str> {
    block.get(key).and_then(Value::as_str)
}

/// What the profile checks of a block, as `content_blocks` would give it: its type, whether
/// it carries its data inline, and its MIME type. Read without copying the block.
struct View<'a> {
    kind: &'a str,
    inline: bool,
    mime: Option<std::borrow::Cow<'a, str>>,
}

fn view(block: &Value) -> Option<View<'_>> {
    let map = block.as_object()?;
    let kind = map.get("type").and_then(Value::as_str)?;
    Some(match kind {
        "image_url" => {
            let url = map
                .get("image_url")
                .and_then(|u| u.get("url").or(Some(u)))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let data = data_url(url);
            View {
                kind: "image",
                inline: data.is_some(),
                mime: data.map(|(mime, _)| mime.into()),
            }
        }
        "input_audio" => View {
            kind: "audio",
            inline: true,
            mime: map
                .get("input_audio")
                .and_then(|a| a.get("format"))
                .and_then(Value::as_str)
                .map(|f| format!("audio/{f}").into()),
        },
        "image" | "document" if anthropic_base64(map) => View {
            kind: if kind == "document" { "file" } else { kind },
            inline: true,
            mime: map["source"]
                .get("media_type")
                .and_then(Value::as_str)
                .map(Into::into),
        },
        _ => View {
            kind,
            inline: map.contains_key("base64"),
            mime: map.get("mime_type").and_then(Value::as_str).map(Into::into),
        },
    })
}

fn anthropic_base64(map: &Map<String, Value>) -> bool {
    map.get("source").and_then(|s| s.get("type")) == Some(&json!("base64"))
}

/// `_is_supported`: whether the model takes the block (in a tool message or not).
fn accepts(block: &Value, profile: &InputProfile, in_tool_message: bool) -> bool {
    let Some(v) = view(block) else {
        return true;
    };
    let mime = v.mime.as_deref();
    if v.kind == "file" && v.inline && mime != Some(PDF) {
        // An inline document no profile field describes.
        return profile
            .inline_documents
            .iter()
            .any(|t| Some(t.as_str()) == mime);
    }
    let field = match v.kind {
        "image" => profile.image_inputs,
        "audio" => profile.audio_inputs,
        "video" => profile.video_inputs,
        "file" => profile.pdf_inputs,
        _ => return true,
    };
    if v.kind == "file" && !v.inline {
        // A document by URL or file id: the provider's business.
        return true;
    }
    if in_tool_message {
        let tool_field = match v.kind {
            "image" => profile.image_tool_message,
            "file" => profile.pdf_tool_message,
            _ => None,
        };
        if tool_field == Some(false) {
            return false;
        }
    }
    field != Some(false)
}

/// `_read_file_placeholder`.
fn placeholder(block: &Value, kwargs: &Map<String, Value>) -> Value {
    let kind = str_of(block, "type").unwrap_or_default();
    let mime = str_of(block, "mime_type").unwrap_or("unknown");
    let path = kwargs
        .get("read_file_path")
        .and_then(Value::as_str)
        .unwrap_or("the requested file");
    json!({
        "type": "text",
        "text": format!("[read_file: {path} was not attached because this model does not support {kind} content ({mime}).]"),
    })
}

fn lc_id() -> Value {
    json!(format!("lc_{}", uuid::Uuid::new_v4()))
}

/// A `data:<mime>;base64,<payload>` URL's MIME type and payload.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let (header, payload) = url.strip_prefix("data:")?.split_once(',')?;
    let mime = header.strip_suffix(";base64")?;
    Some((mime, payload))
}

/// One block as LangChain's `content_blocks` gives it (see the module's note).
fn standard(block: &Value) -> Value {
    let Some(map) = block.as_object() else {
        return match block {
            Value::String(text) => json!({"type": "text", "text": text}),
            other => other.clone(),
        };
    };
    match map.get("type").and_then(Value::as_str) {
        Some("image_url") => {
            let url = map
                .get("image_url")
                .and_then(|u| u.get("url").or(Some(u)))
                .and_then(Value::as_str)
                .unwrap_or_default();
            match data_url(url) {
                Some((mime, payload)) => {
                    json!({"type": "image", "id": lc_id(), "base64": payload, "mime_type": mime})
                }
                None => json!({"type": "image", "id": lc_id(), "url": url}),
            }
        }
        Some("input_audio") => {
            let audio = map.get("input_audio");
            let data = audio
                .and_then(|a| a.get("data"))
                .cloned()
                .unwrap_or(Value::Null);
            let format = audio
                .and_then(|a| a.get("format"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            json!({"type": "audio", "id": lc_id(), "base64": data, "mime_type": format!("audio/{format}")})
        }
        Some(kind @ ("image" | "document")) if anthropic_base64(map) => {
            let source = &map["source"];
            let kind = if kind == "document" { "file" } else { kind };
            json!({"type": kind, "base64": source.get("data"), "mime_type": source.get("media_type")})
        }
        _ => block.clone(),
    }
}

/// The message with the blocks the model cannot take replaced, or `None` when it takes them
/// all (the message then goes unchanged, in its own form).
fn filtered(message: &Message, profile: &InputProfile) -> Option<Message> {
    let (content, kwargs, in_tool) = match message {
        Message::Human(m) => (&m.content, &m.additional_kwargs, false),
        Message::Tool(m) => (&m.content, &m.additional_kwargs, true),
        _ => return None,
    };
    let Content::Blocks(blocks) = content else {
        return None;
    };
    if blocks.iter().all(|b| accepts(b, profile, in_tool)) {
        return None;
    }
    let blocks = blocks
        .iter()
        .map(|b| {
            let b = standard(b);
            if accepts(&b, profile, in_tool) {
                b
            } else {
                placeholder(&b, kwargs)
            }
        })
        .collect();
    let mut out = message.clone();
    match &mut out {
        Message::Human(m) => m.content = Content::Blocks(blocks),
        Message::Tool(m) => m.content = Content::Blocks(blocks),
        _ => {}
    }
    Some(out)
}

impl Middleware for UnsupportedContent {
    fn name(&self) -> &str {
        "UnsupportedContentMiddleware"
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        if !self.with_blocks.any(&request.messages, has_blocks) {
            return next.call(request);
        }
        let profile = request.model.input_profile();
        // Read first, edited only when a message changes: an edit copies the request's
        // list, which it shares with the history.
        let replaced: Vec<(usize, Message)> = request
            .messages
            .iter()
            .enumerate()
            .filter_map(|(i, m)| filtered(m, &profile).map(|r| (i, r)))
            .collect();
        if !replaced.is_empty() {
            let all = request.messages.to_mut();
            for (i, m) in replaced {
                all[i] = Arc::new(m);
            }
        }
        next.call(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(block: Value) -> Message {
        let mut kwargs = Map::new();
        kwargs.insert("read_file_path".into(), json!("/x"));
        Message::Tool(ToolMessage {
            content: Content::Blocks(vec![block]),
            tool_call_id: "1".into(),
            name: Some("read_file".into()),
            status: Default::default(),
            id: None,
            artifact: None,
            artifact_host: None,
            response_metadata: Default::default(),
            additional_kwargs: kwargs.into(),
            origin: None,
            content_origin: None,
        })
    }

    #[test]
    fn a_native_claude_takes_images_and_pdfs_but_not_audio() {
        let profile = crate::providers::anthropic::profiles::input_profile("claude-sonnet-4-5");
        let image = json!({"type": "image", "base64": "eA==", "mime_type": "image/png"});
        let pdf = json!({"type": "file", "base64": "eA==", "mime_type": PDF});
        let audio =
            json!({"type": "input_audio", "input_audio": {"data": "eA==", "format": "wav"}});
        assert!(filtered(&read(image), &profile).is_none());
        assert!(filtered(&read(pdf), &profile).is_none());
        let Some(Message::Tool(t)) = filtered(&read(audio), &profile) else {
            panic!("audio replaced")
        };
        assert_eq!(
            t.content,
            Content::Blocks(vec![
                json!({"type": "text", "text": "[read_file: /x was not attached because this model does not support audio content (audio/wav).]"})
            ])
        );
        // A model the tables do not know takes everything but inline non-PDF documents.
        let unknown = crate::providers::anthropic::profiles::input_profile("claude-unknown");
        let docx = json!({"type": "file", "base64": "eA==", "mime_type": "application/msword"});
        assert!(filtered(&read(json!({"type": "audio", "base64": "eA=="})), &unknown).is_none());
        assert!(filtered(&read(docx), &unknown).is_some());
    }
}
