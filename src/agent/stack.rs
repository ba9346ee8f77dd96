//! deepagents' middleware stacks, built in one place: the main agent's and a declarative
//! subagent's (the general-purpose one included), as named slots in deepagents' order. A
//! fork runs its caller's chain (`Chain::for_subagent`), so it has no stack of its own.
//!
//! The core slots come first; a user entry named like one replaces it in place (a later one
//! wins); the other user entries follow; then skills, prompt caching, memory and the
//! unsupported-content filter, in that order (`with_custom`).

use std::sync::Arc;

use crate::middleware::{
    AnthropicPromptCaching, Middleware, ParentNotifier, PatchToolCalls, UnsupportedContent,
    with_custom,
};

/// Which of deepagents' stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackKind {
    /// `create_deep_agent`'s own agent.
    Main,
    /// A declarative subagent (`SubAgent` or the general-purpose one), isolated.
    Subagent,
    /// LangChain's `create_agent`, which deepagents builds its rubric grader with: the
    /// user's middleware alone, none of deepagents' own.
    Plain,
}

/// What fills the slots: the entries the caller built (from the user's configuration), each
/// `None` when the agent has no such feature.
#[derive(Default)]
pub struct StackParts {
    pub files: Option<Arc<dyn Middleware>>,
    /// The `task` tool's entry (`SubAgentMiddleware`); the main stack only.
    pub subagents: Option<Arc<dyn Middleware>>,
    pub summarization: Option<Arc<dyn Middleware>>,
    /// The user's `middleware=[...]`, in order.
    pub user: Vec<Arc<dyn Middleware>>,
    pub skills: Option<Arc<dyn Middleware>>,
    /// The main stack only (deepagents gives isolated subagents no memory; forks inherit
    /// the caller's).
    pub memory: Option<Arc<dyn Middleware>>,
}

type Slot = (&'static str, Option<Arc<dyn Middleware>>);

/// The chain of `kind` from `parts`, in deepagents' order.
pub fn build_stack(kind: StackKind, parts: StackParts) -> Vec<Arc<dyn Middleware>> {
    let StackParts {
        files,
        subagents,
        summarization,
        user,
        skills,
        memory,
    } = parts;
    if kind == StackKind::Plain {
        return user;
    }
    let mut core: Vec<Slot> = vec![("FilesystemMiddleware", files)];
    if kind == StackKind::Main {
        core.push(("SubAgentMiddleware", subagents));
        core.push(("_ParentNotifierMiddleware", Some(Arc::new(ParentNotifier))));
    }
    core.push(("SummarizationMiddleware", summarization));
    core.push(("PatchToolCallsMiddleware", Some(Arc::new(PatchToolCalls))));
    let mut tail: Vec<Slot> = Vec::new();
    // Skills and memory take a slot only when the agent has them: a user entry of that
    // name otherwise stays among the user's, where deepagents leaves it.
    if skills.is_some() {
        tail.push(("SkillsMiddleware", skills));
    }
    tail.push((
        "AnthropicPromptCachingMiddleware",
        Some(Arc::new(AnthropicPromptCaching::default())),
    ));
    if kind == StackKind::Main && memory.is_some() {
        tail.push(("MemoryMiddleware", memory));
    }
    tail.push((
        "UnsupportedContentMiddleware",
        Some(Arc::new(UnsupportedContent)),
    ));
    with_custom(core, user, tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::middleware::ToolProvider;

    fn names(chain: &[Arc<dyn Middleware>]) -> Vec<&str> {
        chain.iter().map(|m| m.name()).collect()
    }

    #[test]
    fn stacks_follow_deepagents_order() {
        let main = build_stack(
            StackKind::Main,
            StackParts {
                subagents: Some(Arc::new(ToolProvider::new("SubAgentMiddleware", vec![]))),
                user: vec![Arc::new(ToolProvider::new("Mine", vec![]))],
                ..Default::default()
            },
        );
        assert_eq!(
            names(&main),
            [
                "SubAgentMiddleware",
                "_ParentNotifierMiddleware",
                "PatchToolCallsMiddleware",
                "Mine",
                "AnthropicPromptCachingMiddleware",
                "UnsupportedContentMiddleware"
            ]
        );
        let sub = build_stack(
            StackKind::Subagent,
            StackParts {
                user: vec![Arc::new(ToolProvider::new(
                    "PatchToolCallsMiddleware",
                    vec![],
                ))],
                memory: Some(Arc::new(ToolProvider::new("MemoryMiddleware", vec![]))),
                ..Default::default()
            },
        );
        // A user entry of a core slot's name takes its place; a subagent has no memory.
        assert_eq!(
            names(&sub),
            [
                "PatchToolCallsMiddleware",
                "AnthropicPromptCachingMiddleware",
                "UnsupportedContentMiddleware"
            ]
        );
    }
}
