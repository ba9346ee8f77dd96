//! deepagents' middleware stacks, built in one place: the main agent's and a declarative
//! subagent's (the general-purpose one included), as named slots in deepagents' order. A
//! fork runs its caller's chain (`Chain::for_subagent`), rebuilt from the caller's parts when
//! a harness profile has a part in it (`Recipe::for_fork`).
//!
//! The core slots come first; a user entry named like a slot replaces it in place (a later
//! one wins); the other user entries follow; then the tail: the harness profile's middleware,
//! skills, prompt caching, memory, human-in-the-loop and the unsupported-content filter, and
//! the profile's tool exclusion (`with_custom`). Slots the profile excludes are left out
//! before the user's entries are placed, so a user entry of that name is placed as a new one.

use std::sync::Arc;

use crate::error::Error;
use crate::middleware::{
    AnthropicPromptCaching, Chain, Middleware, ParentNotifier, PatchToolCalls, ProfileLayer, Slot,
    ToolExclusion, UnsupportedContent, with_custom,
};
use crate::subagents::ForkStack;
use crate::tools::{Tool, ToolSet};

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
#[derive(Clone, Default)]
pub struct StackParts {
    pub files: Option<Arc<dyn Middleware>>,
    /// The `task` tool's entry (`SubAgentMiddleware`); the main stack only.
    pub subagents: Option<Arc<dyn Middleware>>,
    pub summarization: Option<Arc<dyn Middleware>>,
    /// The user's `middleware=[...]`, in order.
    pub user: Vec<Arc<dyn Middleware>>,
    pub profile: ProfileLayer,
    pub skills: Option<Arc<dyn Middleware>>,
    /// The main stack only (deepagents gives isolated subagents no memory; forks inherit
    /// the caller's).
    pub memory: Option<Arc<dyn Middleware>>,
    /// LangChain's `HumanInTheLoopMiddleware` for the agent's `interrupt_on`.
    pub interrupts: Option<Arc<dyn Middleware>>,
}

fn slot(name: &str, entry: Option<Arc<dyn Middleware>>) -> Slot {
    (name.to_owned(), entry)
}

fn builtin(entry: Arc<dyn Middleware>) -> Slot {
    (entry.name().to_owned(), Some(entry))
}

/// The chain of `kind` from `parts`, in deepagents' order.
pub fn build_stack(kind: StackKind, parts: StackParts) -> Vec<Arc<dyn Middleware>> {
    let StackParts {
        files,
        subagents,
        summarization,
        user,
        profile,
        skills,
        memory,
        interrupts,
    } = parts;
    if kind == StackKind::Plain {
        return user;
    }
    let mut core: Vec<Slot> = vec![slot("FilesystemMiddleware", files)];
    if kind == StackKind::Main {
        core.push(slot("SubAgentMiddleware", subagents));
        core.push(builtin(Arc::new(ParentNotifier)));
    }
    core.push(slot("SummarizationMiddleware", summarization));
    core.push(builtin(Arc::new(PatchToolCalls::default())));
    let mut tail: Vec<Slot> = profile.extra.into_iter().map(builtin).collect();
    // Skills, memory and human-in-the-loop take a slot only when the agent has them: a user
    // entry of that name otherwise stays among the user's, where deepagents leaves it.
    tail.extend(skills.map(builtin));
    tail.push(builtin(Arc::new(AnthropicPromptCaching::default())));
    tail.extend(profile.caching.into_iter().map(builtin));
    let exclusion = (!profile.excluded_tools.is_empty())
        .then(|| builtin(Arc::new(ToolExclusion::new(profile.excluded_tools))));
    match kind {
        StackKind::Main => {
            tail.extend(memory.map(builtin));
            tail.extend(interrupts.map(builtin));
            tail.push(builtin(Arc::new(UnsupportedContent::default())));
            tail.extend(exclusion);
        }
        // deepagents' subagent gets its gate and the content filter after the profile's part.
        StackKind::Subagent => {
            tail.extend(exclusion);
            tail.extend(interrupts.map(builtin));
            tail.push(builtin(Arc::new(UnsupportedContent::default())));
        }
        // Returned above: none of deepagents' own slots.
        StackKind::Plain => {}
    }
    let kept = |slots: Vec<Slot>| -> Vec<Slot> {
        slots
            .into_iter()
            .filter(|(name, _)| !profile.excluded.contains(name))
            .collect()
    };
    with_custom(kept(core), user, kept(tail))
}

/// How an agent's chain was built, kept so that a fork can run it with a harness profile of
/// its own: the same parts with the profile's part swapped.
pub struct Recipe {
    pub kind: StackKind,
    pub parts: StackParts,
    /// The tools the caller gave the agent, after the chain's own.
    pub user_tools: Vec<Arc<dyn Tool>>,
}

impl Recipe {
    /// The chain and tool set built from these parts with a fork's own in place of theirs.
    pub fn for_fork(&self, fork: &ForkStack) -> Result<(Chain, ToolSet), Error> {
        let parts = StackParts {
            user: fork.user.clone(),
            profile: fork.profile.clone(),
            ..self.parts.clone()
        };
        let chain = Chain::new(build_stack(self.kind, parts))?;
        let mut tools: Vec<Arc<dyn Tool>> =
            chain.entries().iter().flat_map(|m| m.tools()).collect();
        tools.extend(self.user_tools.iter().cloned());
        Ok((chain, ToolSet::new(tools)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::middleware::ToolProvider;

    fn names(chain: &[Arc<dyn Middleware>]) -> Vec<&str> {
        chain.iter().map(|m| m.name()).collect()
    }

    fn entry(name: &str) -> Arc<dyn Middleware> {
        Arc::new(ToolProvider::new(name, vec![]))
    }

    #[test]
    fn stacks_follow_deepagents_order() {
        let main = build_stack(
            StackKind::Main,
            StackParts {
                subagents: Some(entry("SubAgentMiddleware")),
                user: vec![entry("Mine")],
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
                user: vec![entry("PatchToolCallsMiddleware")],
                memory: Some(entry("MemoryMiddleware")),
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

    #[test]
    fn a_profile_adds_after_the_user_and_excludes_before_placing_it() {
        let profile = ProfileLayer {
            extra: vec![entry("Extra")],
            excluded: vec!["PatchToolCallsMiddleware".into()],
            excluded_tools: vec!["ls".into()],
            caching: vec![entry("BedrockPromptCachingMiddleware")],
        };
        let parts = StackParts {
            user: vec![entry("Mine"), entry("Extra2")],
            interrupts: Some(entry("HumanInTheLoopMiddleware")),
            profile,
            ..Default::default()
        };
        let main = build_stack(StackKind::Main, parts.clone());
        assert_eq!(
            names(&main),
            [
                "_ParentNotifierMiddleware",
                "Mine",
                "Extra2",
                "Extra",
                "AnthropicPromptCachingMiddleware",
                "BedrockPromptCachingMiddleware",
                "HumanInTheLoopMiddleware",
                "UnsupportedContentMiddleware",
                "_ToolExclusionMiddleware"
            ]
        );
        let sub = build_stack(StackKind::Subagent, parts);
        assert_eq!(
            names(&sub)[3..],
            [
                "AnthropicPromptCachingMiddleware",
                "BedrockPromptCachingMiddleware",
                "_ToolExclusionMiddleware",
                "HumanInTheLoopMiddleware",
                "UnsupportedContentMiddleware"
            ]
        );
        // A user entry named like a profile entry takes its place; an excluded slot's name
        // places the user's entry among the others.
        let replaced = build_stack(
            StackKind::Subagent,
            StackParts {
                user: vec![entry("Extra"), entry("PatchToolCallsMiddleware")],
                profile: ProfileLayer {
                    extra: vec![entry("Extra"), entry("Later")],
                    excluded: vec!["PatchToolCallsMiddleware".into()],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        assert_eq!(
            names(&replaced),
            [
                "PatchToolCallsMiddleware",
                "Extra",
                "Later",
                "AnthropicPromptCachingMiddleware",
                "UnsupportedContentMiddleware"
            ]
        );
    }
}
