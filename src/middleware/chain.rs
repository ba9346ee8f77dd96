//! The chain of one agent: its entries, which of them hook where, and the `next` handlers
//! through which wrappers reach the model or the tool.

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Hook, Middleware, ModelResponse, ToolCallRequest};
use crate::error::Error;
use crate::model::ModelRequest;
use crate::tools::{ToolError, ToolResult};

pub type ModelBase =
    Arc<dyn Fn(ModelRequest) -> BoxFuture<'static, Result<ModelResponse, Error>> + Send + Sync>;
pub type ToolBase =
    Arc<dyn Fn(ToolCallRequest) -> BoxFuture<'static, Result<ToolResult, ToolError>> + Send + Sync>;

#[derive(Clone, Default)]
pub struct Chain {
    entries: Arc<[Arc<dyn Middleware>]>,
    /// Per hook, the entries' indices in the order their nodes run.
    before_agent: Arc<[usize]>,
    before_model: Arc<[usize]>,
    after_model: Arc<[usize]>,
    after_agent: Arc<[usize]>,
    model_wrappers: Arc<[Arc<dyn Middleware>]>,
    tool_wrappers: Arc<[Arc<dyn Middleware>]>,
}

/// A named place in a stack, with the entry filling it (`None`: empty, yet a custom entry of
/// that name still takes it).
pub type Slot = (String, Option<Arc<dyn Middleware>>);

/// deepagents' `_apply_custom_middleware`: a custom entry named like a core or tail slot
/// replaces it in place (a later one wins); the others follow the core entries, in order, and
/// the tail follows them. Core slots without an entry (deepagents' middleware this core has
/// no counterpart for yet) still take a replacement at their position.
pub fn with_custom(
    core: Vec<Slot>,
    custom: Vec<Arc<dyn Middleware>>,
    tail: Vec<Slot>,
) -> Vec<Arc<dyn Middleware>> {
    let mut slots = core;
    let mut tail = tail;
    let mut rest = Vec::new();
    for entry in custom {
        let slot = slots
            .iter_mut()
            .chain(tail.iter_mut())
            .find(|(name, _)| name == entry.name());
        match slot {
            Some(slot) => slot.1 = Some(entry),
            None => rest.push(entry),
        }
    }
    let head = slots.into_iter().filter_map(|(_, e)| e);
    head.chain(rest)
        .chain(tail.into_iter().filter_map(|(_, e)| e))
        .collect()
}

impl Chain {
    pub fn new(entries: Vec<Arc<dyn Middleware>>) -> Result<Self, Error> {
        let mut seen = HashSet::new();
        for e in &entries {
            if !seen.insert(e.name().to_owned()) {
                return Err(Error::InvalidInput(format!(
                    "Please remove duplicate middleware instances: {}",
                    e.name()
                )));
            }
        }
        Ok(Self::of_unique(entries))
    }

    /// The built-in stack with no user parts: its entries' names are distinct by
    /// construction.
    pub(crate) fn builtin(entries: Vec<Arc<dyn Middleware>>) -> Self {
        Self::of_unique(entries)
    }

    /// A chain of entries whose names are known to be unique (a subset of a chain's, or
    /// the built-in stack's).
    fn of_unique(entries: Vec<Arc<dyn Middleware>>) -> Self {
        let with = |hook: Hook, reverse: bool| -> Arc<[usize]> {
            let mut idx: Vec<usize> = (0..entries.len())
                .filter(|&i| entries[i].has_hook(hook))
                .collect();
            if reverse {
                idx.reverse();
            }
            idx.into()
        };
        Chain {
            before_agent: with(Hook::BeforeAgent, false),
            before_model: with(Hook::BeforeModel, false),
            after_model: with(Hook::AfterModel, true),
            after_agent: with(Hook::AfterAgent, true),
            model_wrappers: entries
                .iter()
                .filter(|e| e.wraps_model_call())
                .cloned()
                .collect(),
            tool_wrappers: entries
                .iter()
                .filter(|e| e.wraps_tool_call())
                .cloned()
                .collect(),
            entries: entries.into(),
        }
    }

    pub fn entries(&self) -> &[Arc<dyn Middleware>] {
        &self.entries
    }

    /// The entries a fork keeps when it runs on its caller's chain.
    pub fn for_subagent(&self) -> Self {
        let kept: Vec<_> = self
            .entries
            .iter()
            .filter(|e| e.inherited_by_subagents())
            .cloned()
            .collect();
        Chain::of_unique(kept)
    }

    /// This chain with `custom` entries: one named like an entry takes its place, the others
    /// follow (deepagents' `{m.name: m for m in [*parent, *spec]}` for a fork).
    pub fn merged(&self, custom: &[Arc<dyn Middleware>]) -> Result<Self, Error> {
        if custom.is_empty() {
            return Ok(self.clone());
        }
        let mut entries: Vec<Arc<dyn Middleware>> = self.entries.to_vec();
        for entry in custom {
            match entries.iter_mut().find(|e| e.name() == entry.name()) {
                Some(slot) => *slot = entry.clone(),
                None => entries.push(entry.clone()),
            }
        }
        Chain::new(entries)
    }

    /// The chain without the entries of these names.
    pub fn without(self, names: &[String]) -> Result<Self, Error> {
        if names.is_empty() {
            return Ok(self);
        }
        let entries: Vec<Arc<dyn Middleware>> = self
            .entries
            .iter()
            .filter(|e| !names.iter().any(|n| *n == e.name()))
            .cloned()
            .collect();
        Ok(Chain::of_unique(entries))
    }

    /// The entry indices whose `hook` nodes run, in running order.
    pub fn nodes(&self, hook: Hook) -> &[usize] {
        match hook {
            Hook::BeforeAgent => &self.before_agent,
            Hook::BeforeModel => &self.before_model,
            Hook::AfterModel => &self.after_model,
            Hook::AfterAgent => &self.after_agent,
        }
    }

    /// The graph's nodes, as LangChain adds them: `before_agent` hooks, `before_model`
    /// hooks, `model`, `after_model` hooks, `tools`, `after_agent` hooks.
    pub fn node_names(&self) -> Vec<String> {
        let hooks = |hook: Hook| {
            self.nodes(hook)
                .iter()
                .map(move |&i| format!("{}.{}", self.entries[i].name(), hook.as_str()))
        };
        let mut names: Vec<String> = hooks(Hook::BeforeAgent)
            .chain(hooks(Hook::BeforeModel))
            .collect();
        names.push("model".into());
        names.extend(hooks(Hook::AfterModel));
        names.push("tools".into());
        names.extend(hooks(Hook::AfterAgent));
        names
    }

    /// The graph's nodes in the order LangChain's `create_agent` adds them to its graph:
    /// `model`, `tools`, then each entry's hook nodes, entry by entry. LangGraph lists a
    /// graph's nodes, and the tasks of a saved step, in this order.
    pub fn registered_node_names(&self) -> Vec<String> {
        let mut names = vec!["model".to_owned(), "tools".to_owned()];
        for (i, entry) in self.entries.iter().enumerate() {
            for hook in Hook::ALL {
                if self.nodes(hook).contains(&i) {
                    names.push(format!("{}.{}", entry.name(), hook.as_str()));
                }
            }
        }
        names
    }

    pub fn entry(&self, index: usize) -> &Arc<dyn Middleware> {
        &self.entries[index]
    }

    pub fn model_handler(&self, base: ModelBase) -> ModelHandler {
        ModelHandler {
            wrappers: self.model_wrappers.clone(),
            next: 0,
            base,
        }
    }

    pub fn tool_handler(&self, base: ToolBase) -> ToolHandler {
        ToolHandler {
            wrappers: self.tool_wrappers.clone(),
            next: 0,
            base,
        }
    }
}

/// The rest of the model-call chain from one wrapper inward: calling it runs the next
/// wrapper, or the model itself after the last. It may be called any number of times (a
/// wrapper that retries).
#[derive(Clone)]
pub struct ModelHandler {
    wrappers: Arc<[Arc<dyn Middleware>]>,
    next: usize,
    base: ModelBase,
}

impl ModelHandler {
    pub fn call(&self, request: ModelRequest) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        match self.wrappers.get(self.next) {
            Some(w) => {
                let inner = ModelHandler {
                    wrappers: self.wrappers.clone(),
                    next: self.next + 1,
                    base: self.base.clone(),
                };
                w.wrap_model_call(request, inner)
            }
            None => (self.base)(request),
        }
    }
}

/// The rest of the tool-call chain from one wrapper inward.
#[derive(Clone)]
pub struct ToolHandler {
    wrappers: Arc<[Arc<dyn Middleware>]>,
    next: usize,
    base: ToolBase,
}

impl ToolHandler {
    pub fn call(
        &self,
        request: ToolCallRequest,
    ) -> BoxFuture<'static, Result<ToolResult, ToolError>> {
        match self.wrappers.get(self.next) {
            Some(w) => {
                let inner = ToolHandler {
                    wrappers: self.wrappers.clone(),
                    next: self.next + 1,
                    base: self.base.clone(),
                };
                w.wrap_tool_call(request, inner)
            }
            None => (self.base)(request),
        }
    }
}
