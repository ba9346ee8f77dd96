//! Small built-in entries: deepagents' named middleware whose only effect here is a node or
//! a tool list.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::system_prompt::{SystemMemo, tag_message};
use super::{Hook, HookContext, HookOutput, Middleware, ModelHandler, ModelResponse};
use crate::error::Error;
use crate::model::ModelRequest;
use crate::tools::Tool;

/// deepagents' `_ParentNotifierMiddleware`: notifies a parent only when the run was started
/// as an async subagent on an Agent Server, where the Python entry of that name takes this
/// slot (`graph._with_parent_notifier`); elsewhere no run can be woken, so its `after_agent`
/// node writes nothing. It is kept for the node it adds: streams and step counts show it.
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

/// deepagents' `AnthropicPromptCachingMiddleware`: on a model that takes them, tags the
/// system prompt's last block as it stands here, and asks for the other breakpoints (the last
/// tool, a top-level marker), which the provider places. It sits after the user's entries, as
/// in deepagents, so their changes to the request are cached too, and before memory, whose
/// block (changing as memory does) must stay out of this breakpoint's prefix.
pub struct AnthropicPromptCaching {
    /// Shared with each request it tags (one count, not a copy of the map at each call).
    cache_control: Arc<serde_json::Value>,
    tagged: SystemMemo<()>,
}

impl Default for AnthropicPromptCaching {
    fn default() -> Self {
        AnthropicPromptCaching {
            cache_control: Arc::new(serde_json::json!({"type": "ephemeral", "ttl": "5m"})),
            tagged: SystemMemo::default(),
        }
    }
}

impl Middleware for AnthropicPromptCaching {
    fn name(&self) -> &str {
        "AnthropicPromptCachingMiddleware"
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        if request.model.supports_prompt_cache() {
            request.system = request.system.take().map(|system| {
                let cache_control = &self.cache_control;
                self.tagged
                    .edit(system, (), |s, _| tag_message(s, cache_control))
            });
            request.cache_control = Some(self.cache_control.clone());
        }
        next.call(request)
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
