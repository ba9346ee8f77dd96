//! Tools the model can call, and their dispatch for one model turn.

use std::any::Any;
use std::sync::Arc;

use futures::future::{BoxFuture, join_all};
use serde::Serialize;
use serde_json::Value;

use crate::error::{BoxError, Error};
use crate::messages::{Content, ToolCall, ToolMessage, ToolStatus};

/// What the model is told about a tool. `parameters` is kept exactly as the tool defined it:
/// key order in the schema is part of the provider's cache prefix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// Opaque per-run data owned by the host (the Python binding keeps its event loop here). The
/// core only carries it from the entry point to tools and models.
pub type HostContext = Option<Arc<dyn Any + Send + Sync>>;

/// What a tool returns when it completes.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolOutput {
    pub content: Content,
    pub status: ToolStatus,
    pub artifact: Option<Value>,
}

impl ToolOutput {
    pub fn text(s: impl Into<String>) -> Self {
        ToolOutput {
            content: Content::Text(s.into()),
            status: ToolStatus::Success,
            artifact: None,
        }
    }

    pub fn error(s: impl Into<String>) -> Self {
        ToolOutput {
            content: Content::Text(s.into()),
            status: ToolStatus::Error,
            artifact: None,
        }
    }
}

/// How a tool can fail. `Fatal` ends the run and reaches the caller, as an exception raised by
/// a deepagents tool does; every other failure is reported to the model as an error result.
#[derive(Debug)]
pub enum ToolError {
    Fatal(BoxError),
}

pub struct ToolContext {
    pub tool_call_id: String,
    pub host: HostContext,
}

pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;
    /// False for a tool that is only shown to the model (a provider-side tool given as a
    /// JSON spec): a call to it is answered like a call to an unknown tool.
    fn executable(&self) -> bool {
        true
    }
    fn call(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;
}

/// The tools of one agent, in the order the model sees them.
#[derive(Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
    specs: Arc<[ToolSpec]>,
}

impl ToolSet {
    pub fn new(tools: Vec<Arc<dyn Tool>>) -> Result<Self, Error> {
        let mut seen = std::collections::HashSet::new();
        for t in &tools {
            if !seen.insert(t.spec().name.clone()) {
                return Err(Error::InvalidInput(format!(
                    "duplicate tool name '{}': tool names must be unique",
                    t.spec().name
                )));
            }
        }
        let specs = tools.iter().map(|t| t.spec().clone()).collect();
        Ok(ToolSet { tools, specs })
    }

    pub fn specs(&self) -> Arc<[ToolSpec]> {
        self.specs.clone()
    }

    /// The executable tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools
            .iter()
            .find(|t| t.executable() && t.spec().name == name)
    }

    /// Runs every call of one model turn concurrently and returns the results in call order.
    /// The first fatal failure (in call order) wins, as in LangGraph's tool node.
    pub async fn run_calls(
        &self,
        calls: &[ToolCall],
        host: &HostContext,
    ) -> Result<Vec<ToolMessage>, Error> {
        let futures = calls.iter().map(|call| self.run_one(call, host.clone()));
        let mut out = Vec::with_capacity(calls.len());
        for (call, result) in calls.iter().zip(join_all(futures).await) {
            match result {
                Ok(msg) => out.push(msg),
                Err(ToolError::Fatal(source)) => {
                    return Err(Error::Tool {
                        tool: call.name.clone(),
                        source,
                    });
                }
            }
        }
        Ok(out)
    }

    fn run_one(
        &self,
        call: &ToolCall,
        host: HostContext,
    ) -> BoxFuture<'static, Result<ToolMessage, ToolError>> {
        let call_id = call.id.clone().unwrap_or_default();
        let name = call.name.clone();
        let Some(tool) = self.get(&call.name).cloned() else {
            let names: Vec<&str> = self
                .tools
                .iter()
                .filter(|t| t.executable())
                .map(|t| t.spec().name.as_str())
                .collect();
            // LangGraph's INVALID_TOOL_NAME_ERROR_TEMPLATE, which models have learned to read.
            let text = format!(
                "Error: {} is not a valid tool, try one of [{}].",
                call.name,
                names.join(", ")
            );
            return Box::pin(async move { Ok(to_message(ToolOutput::error(text), call_id, name)) });
        };
        let args = call.args.clone();
        Box::pin(async move {
            let ctx = ToolContext {
                tool_call_id: call_id.clone(),
                host,
            };
            let output = tool.call(args, ctx).await?;
            Ok(to_message(output, call_id, name))
        })
    }
}

fn to_message(output: ToolOutput, tool_call_id: String, name: String) -> ToolMessage {
    ToolMessage {
        content: output.content,
        tool_call_id,
        name: Some(name),
        status: output.status,
        id: None,
        artifact: output.artifact,
        additional_kwargs: Default::default(),
    }
}
