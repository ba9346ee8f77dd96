//! Structured output (LangChain's `response_format`). A strategy says how the request asks
//! for the response and answers the reply: through a tool (`ToolStrategy`, the schema is
//! one more tool the model is made to call, see [`SchemaTool`]) or natively (the provider is
//! sent the JSON schema and the reply's text is the response).

mod provider;

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::error::{BoxError, Error};
use crate::host::HostValue;
use crate::messages::{AiMessage, Message, ToolCall};
use crate::middleware::Structured;
use crate::tools::{HostContext, ToolSpec};

pub use provider::{ProviderStrategy, ReplyParser};

/// LangChain's wording for a structured response the model must fix.
pub const STRUCTURED_OUTPUT_ERROR_TEMPLATE: &str = "Error: {error}\n Please fix your mistakes.";

/// A parsed structured response.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The response as JSON, kept in the state.
    pub value: Value,
    /// The response as a subagent's `task` result (pydantic's `model_dump_json`, ...).
    pub rendered: String,
    /// The tool message that answers the schema tool's call.
    pub tool_message: String,
    /// The host's own parsed object, returned to the user as is.
    pub host_value: Option<HostValue>,
}

pub enum ParseError {
    /// Tell the model, and let it try again (the text is the whole tool message).
    Retry(String),
    /// End the run with this error.
    Fatal(BoxError),
}

/// The messages a reply adds after itself, and the structured response it holds, if any.
pub type Answer = (Vec<Message>, Option<Structured>);

/// What a request carries for a structured response.
#[derive(Clone)]
pub struct FormatRequest {
    /// The tools the model is sent.
    pub tools: Arc<[ToolSpec]>,
    pub tool_choice: Option<String>,
    /// The provider-native format, in LangChain's form (`{"type": "json_schema",
    /// "json_schema": {"name", "schema", "strict"?}}`), which each client translates.
    pub response_format: Option<Value>,
}

/// A structured-output strategy: how the request asks for the response, and how the reply
/// is answered.
pub trait StructuredOutput: Send + Sync {
    /// The request's tools, tool choice and native format, given the agent's tools.
    fn request(&self, tools: &[ToolSpec]) -> FormatRequest;
    /// Whether `name` is a schema tool, which the tools step never runs.
    fn is_schema_tool(&self, name: &str) -> bool;
    /// The error a model call ends with, before the model is called, when the request
    /// cannot carry the format (`None`: it can, known without asking the host).
    fn refusal(&self) -> Option<BoxFuture<'static, Error>> {
        None
    }
    /// The messages the reply adds after itself, and the structured response when the
    /// reply holds one; an error ends the run. Async: the host's parsing runs on a thread of
    /// its own, not on the runtime's worker that awaits it.
    fn answer<'a>(
        &'a self,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Answer, Error>>;
}

/// Structured output through a tool (LangChain's `ToolStrategy`).
pub trait SchemaTool: Send + Sync {
    /// The schemas (one, or each of a union's), as the tools the model must call one of.
    fn specs(&self) -> &[ToolSpec];
    /// A schema tool's call in `reply`, parsed with the schema it names (an error ending
    /// the run carries the reply, as LangChain's do).
    fn parse<'a>(
        &'a self,
        call: &'a ToolCall,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Parsed, ParseError>>;

    /// The tool message for several schema calls in `reply`, or the error ending the run.
    fn multiple<'a>(
        &'a self,
        names: Vec<String>,
        _reply: &'a AiMessage,
        _host: &'a HostContext,
    ) -> BoxFuture<'a, Result<String, ParseError>> {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = multiple_responses_error(&names);
        Box::pin(async move { Ok(text) })
    }
}

/// The retry message for several schema calls in one reply.
pub fn multiple_responses_error(names: &[&str]) -> String {
    STRUCTURED_OUTPUT_ERROR_TEMPLATE.replace(
        "{error}",
        &format!(
            "Model incorrectly returned multiple structured responses ({}) when only one is expected.",
            names.join(", ")
        ),
    )
}

impl<T: SchemaTool> StructuredOutput for T {
    /// LangChain offers the schema tools after the agent's and forces a tool call.
    fn request(&self, tools: &[ToolSpec]) -> FormatRequest {
        let mut specs = tools.to_vec();
        specs.extend(self.specs().iter().cloned());
        FormatRequest {
            tools: specs.into(),
            tool_choice: Some("any".to_owned()),
            response_format: None,
        }
    }

    fn is_schema_tool(&self, name: &str) -> bool {
        self.specs().iter().any(|s| s.name == name)
    }

    fn answer<'a>(
        &'a self,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Answer, Error>> {
        Box::pin(crate::agent::answer_schema_calls(self, reply, host))
    }
}
