//! deepagents' `UnsupportedContentMiddleware`, for the blocks no model profile describes:
//! a non-PDF document attached inline (what `read_file` returns for a binary file) is
//! replaced, in the request only, by a text saying it was not attached.
//!
//! Not yet: the profile checks (`image_inputs: False` and the like on a LangChain model's
//! `profile`), and OpenAI Responses models, which accept some inline documents.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{Middleware, ModelHandler, ModelResponse};
use crate::error::Error;
use crate::messages::{Content, Message};
use crate::model::ModelRequest;

pub struct UnsupportedContent;

fn is_inline_document(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("file")
        && block.get("base64").is_some()
        && block.get("mime_type").and_then(Value::as_str) != Some("application/pdf")
}

/// `_read_file_placeholder`.
fn placeholder(block: &Value, kwargs: &serde_json::Map<String, Value>) -> Value {
    let mime = block
        .get("mime_type")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let path = kwargs
        .get("read_file_path")
        .and_then(Value::as_str)
        .unwrap_or("the requested file");
    json!({
        "type": "text",
        "text": format!("[read_file: {path} was not attached because this model does not support file content ({mime}).]"),
    })
}

fn filtered(message: &Message) -> Option<Message> {
    let (content, kwargs) = match message {
        Message::Human(m) => (&m.content, &m.additional_kwargs),
        Message::Tool(m) => (&m.content, &m.additional_kwargs),
        _ => return None,
    };
    let Content::Blocks(blocks) = content else {
        return None;
    };
    if !blocks.iter().any(is_inline_document) {
        return None;
    }
    let blocks = blocks
        .iter()
        .map(|b| {
            if is_inline_document(b) {
                placeholder(b, kwargs)
            } else {
                b.clone()
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
        for m in request.messages.iter_mut() {
            if let Some(replaced) = filtered(m) {
                *m = Arc::new(replaced);
            }
        }
        next.call(request)
    }
}
