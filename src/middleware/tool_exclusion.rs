//! A harness profile's `excluded_tools`: the last entry of a stack, so it sees every tool the
//! other entries offer. The model is not shown the excluded tools, and a call naming one
//! anyway is answered with an error instead of running (the tool stays registered, so this
//! keeps what runs in line with what was offered; it is model calibration, not security).

use std::collections::HashSet;

use futures::future::BoxFuture;

use super::{Middleware, ModelHandler, ModelResponse, ToolCallRequest, ToolHandler};
use crate::error::Error;
use crate::model::ModelRequest;
use crate::tools::{ToolError, ToolOutput, ToolResult, result_for};

/// `_ToolExclusionMiddleware`'s answer to a call naming an excluded tool (`{name}`: the tool).
pub const TOOL_NOT_AVAILABLE: &str = "Error: {name} is not available.";

pub struct ToolExclusion {
    excluded: HashSet<String>,
}

impl ToolExclusion {
    pub fn new(excluded: impl IntoIterator<Item = String>) -> Self {
        ToolExclusion {
            excluded: excluded.into_iter().collect(),
        }
    }
}

impl Middleware for ToolExclusion {
    fn name(&self) -> &str {
        "_ToolExclusionMiddleware"
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        if request
            .tools
            .iter()
            .any(|t| self.excluded.contains(&t.name))
        {
            request.tools = request
                .tools
                .iter()
                .filter(|t| !self.excluded.contains(&t.name))
                .cloned()
                .collect();
        }
        next.call(request)
    }

    fn wraps_tool_call(&self) -> bool {
        true
    }

    fn wrap_tool_call(
        &self,
        request: ToolCallRequest,
        next: ToolHandler,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        let name = &request.call.name;
        if !self.excluded.contains(name) {
            return next.call(request);
        }
        let refusal = ToolOutput::error(TOOL_NOT_AVAILABLE.replace("{name}", name));
        let result = result_for(refusal, &request.call);
        Box::pin(async move { Ok(result) })
    }
}
