//! Small built-in entries: deepagents' named middleware whose only effect here is a node or
//! a tool list.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Hook, HookContext, HookOutput, Middleware};
use crate::error::Error;
use crate::tools::Tool;

/// deepagents' `_ParentNotifierMiddleware`: notifies a parent only when the run was started
/// as an async subagent (not supported here), so its `after_agent` node writes nothing. It
/// is kept for the node it adds: streams and step counts show it.
pub struct ParentNotifier;

impl Middleware for ParentNotifier {
    fn name(&self) -> &str {
        "_ParentNotifierMiddleware"
    }

    fn has_hook(&self, hook: Hook) -> bool {
        hook == Hook::AfterAgent
    }

    fn run_hook(
        &self,
        _hook: Hook,
        _cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        Box::pin(async { Ok(None) })
    }

    fn inherited_by_subagents(&self) -> bool {
        false
    }
}

/// An entry that only offers tools (deepagents' `SubAgentMiddleware` offers `task`).
pub struct ToolProvider {
    name: String,
    tools: Vec<Arc<dyn Tool>>,
}

impl ToolProvider {
    pub fn new(name: impl Into<String>, tools: Vec<Arc<dyn Tool>>) -> Self {
        ToolProvider {
            name: name.into(),
            tools,
        }
    }
}

impl Middleware for ToolProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }

    fn release_unused(&self) {
        for t in &self.tools {
            t.release_unused();
        }
    }
}
