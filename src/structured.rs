//! Structured output through a tool (LangChain's `ToolStrategy`): the schema is offered as
//! one more tool, the model is made to call a tool, and a call to the schema tool ends the
//! run with the parsed response.

use serde_json::Value;

use crate::error::BoxError;
use crate::host::HostValue;
use crate::tools::{HostContext, ToolSpec};

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

pub trait StructuredOutput: Send + Sync {
    /// The schema, as the tool the model must call.
    fn spec(&self) -> &ToolSpec;
    fn parse(&self, args: &Value, host: &HostContext) -> Result<Parsed, ParseError>;

    /// The tool message for several schema calls in one reply, or the error ending the run.
    fn multiple(&self, names: &[&str], _host: &HostContext) -> Result<String, ParseError> {
        Ok(multiple_responses_error(names))
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
