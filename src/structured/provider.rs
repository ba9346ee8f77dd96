//! Provider-native structured output (LangChain's `ProviderStrategy`): the request carries
//! the JSON schema as a response format, no tool is added and no tool call forced; a reply
//! without tool calls is the response, its text parsed with the user's schema. A reply that
//! does not parse ends the run (LangChain gives the model no second try here).

use futures::future::BoxFuture;
use serde_json::Value;

use crate::error::{BoxError, Error};
use crate::messages::{AiMessage, Content};
use crate::middleware::Structured;
use crate::tools::{HostContext, ToolSpec};

use super::{Answer, FormatRequest, Parsed, StructuredOutput};

/// Parses a reply's text into the structured response (the host's schema validation).
pub trait ReplyParser: Send + Sync {
    /// The response, or the error ending the run.
    fn parse_text<'a>(
        &'a self,
        text: String,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Parsed, BoxError>>;

    /// Why the schema cannot be a native format (a union, say), when it cannot: whether it
    /// can is known without the host, the error made by it.
    fn refusal(&self) -> Option<BoxFuture<'static, BoxError>> {
        None
    }
}

pub struct ProviderStrategy {
    /// The format in LangChain's form: `{"type": "json_schema", "json_schema": {...}}`.
    response_format: Value,
    /// The name the run's errors carry (the schema's name).
    name: String,
    parser: Box<dyn ReplyParser>,
}

impl ProviderStrategy {
    pub fn new(response_format: Value, name: String, parser: Box<dyn ReplyParser>) -> Self {
        ProviderStrategy {
            response_format,
            name,
            parser,
        }
    }
}

impl StructuredOutput for ProviderStrategy {
    fn request(&self, tools: &[ToolSpec]) -> FormatRequest {
        FormatRequest {
            tools: tools.to_vec().into(),
            tool_choice: None,
            response_format: Some(self.response_format.clone()),
        }
    }

    fn is_schema_tool(&self, _name: &str) -> bool {
        false
    }

    fn refusal(&self) -> Option<BoxFuture<'static, Error>> {
        let source = self.parser.refusal()?;
        let tool = self.name.clone();
        Some(Box::pin(async move {
            Error::Tool {
                tool,
                source: source.await,
            }
        }))
    }

    fn answer<'a>(
        &'a self,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Answer, Error>> {
        Box::pin(async move {
            // A reply calling tools is an ordinary step: its tools run and the model answers
            // again.
            if !reply.tool_calls.is_empty() {
                return Ok((Vec::new(), None));
            }
            let parsed = self
                .parser
                .parse_text(reply_text(&reply.content), reply, host)
                .await
                .map_err(|source| Error::Tool {
                    tool: self.name.clone(),
                    source,
                })?;
            Ok((
                Vec::new(),
                Some(Structured {
                    value: parsed.value,
                    rendered: Some(parsed.rendered),
                    host: parsed.host_value,
                }),
            ))
        })
    }
}

/// The reply's text as the response: text blocks' text, and blocks carrying their text as
/// `content`, joined.
fn reply_text(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                    o.get("text").map(display)
                }
                Value::Object(o) => o.get("content").and_then(Value::as_str).map(str::to_owned),
                other => Some(display(other)),
            })
            .collect(),
    }
}

fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
