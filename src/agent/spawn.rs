//! The agent as tools start runs of it (`tools::Spawner`): itself, or a fork of it built
//! from a `ForkSpec`.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{Agent, RunFailure, RunOptions, RunReport};
use crate::error::Error;
use crate::middleware::Chain;
use crate::model::ChatModel;
use crate::state::AgentState;
use crate::structured::StructuredOutput;
use crate::subagents::ForkSpec;
use crate::tools::{Spawner, Tool, ToolSet};

impl Spawner for Agent {
    fn run(
        &self,
        state: AgentState,
        options: RunOptions,
    ) -> BoxFuture<'_, Result<(AgentState, RunReport), RunFailure>> {
        Box::pin(Agent::run(self, state, options))
    }

    fn private_keys(&self) -> Arc<[String]> {
        self.private_keys.clone()
    }

    fn node_names(&self) -> Vec<String> {
        self.chain.node_names()
    }

    fn model(&self) -> Arc<dyn ChatModel> {
        self.model.clone()
    }

    fn release_unused(&self) {
        Agent::release_unused(self)
    }

    fn answering_in(&self, format: Option<Arc<dyn StructuredOutput>>) -> Arc<dyn Spawner> {
        Arc::new(self.clone().with_response_format(format))
    }

    fn fork(
        &self,
        name: &str,
        spec: &ForkSpec,
        format: Option<Arc<dyn StructuredOutput>>,
    ) -> Result<Arc<dyn Spawner>, Error> {
        Ok(Arc::new(
            self.forked(name, spec)?.with_response_format(format),
        ))
    }

    fn reducers(&self) -> Option<crate::state::Reducers> {
        self.reducers.get().cloned()
    }

    fn state_keys(&self) -> Option<Arc<[String]>> {
        self.state_keys.clone()
    }

    fn fork_nodes(&self, spec: &ForkSpec) -> Option<Vec<String>> {
        let (chain, _) = self.fork_base(spec).ok()?;
        Some(fork_chain(&chain, spec).ok()?.node_names())
    }
}

/// A fork's chain: its base run as a subagent's, with the spec's own middleware merged over
/// it by name and the entries it runs without left out.
fn fork_chain(base: &Chain, spec: &ForkSpec) -> Result<Chain, Error> {
    base.for_subagent()
        .merged(&spec.middleware)
        .and_then(|c| c.without(&spec.without))
}

impl Agent {
    /// The chain and tools a fork starts from: this agent's, rebuilt with the fork's own
    /// stack parts when a harness profile has a part in it.
    fn fork_base(&self, spec: &ForkSpec) -> Result<(Chain, ToolSet), Error> {
        match (&spec.stack, &self.recipe) {
            (Some(stack), Some(recipe)) => recipe.for_fork(stack),
            _ => Ok((self.chain.clone(), self.tools.clone())),
        }
    }

    /// This agent as the fork `spec` runs it, under the subagent's `name` (its structured
    /// output is set by the caller: the fork's own format or the one asked for).
    fn forked(&self, name: &str, spec: &ForkSpec) -> Result<Agent, Error> {
        let mut agent = self.clone();
        let (chain, tools) = self.fork_base(spec)?;
        agent.tools = tools;
        agent.chain = fork_chain(&chain, spec)?;
        // deepagents compiles each subagent under its own name, which its replies carry.
        agent.name = Some(name.to_owned());
        // A fork's graph has its caller's channels and its own middleware's: it takes all
        // the state its caller hands it.
        agent.state_keys = None;
        if let Some(model) = &spec.model {
            agent.model = model.clone();
        }
        let own: Vec<Arc<dyn Tool>> = spec
            .middleware
            .iter()
            .flat_map(|m| m.tools())
            .chain(spec.described_tools.iter().cloned())
            .collect();
        agent.tools = agent.tools.with_replaced(&own);
        if let Some(extra) = &spec.extra_tools {
            agent.tools = fork_tool_set(&agent.chain, &agent.tools, extra.clone())?;
        }
        // Its chain's tools (the file tools, `task`, its middleware's) stay callable.
        agent.allowed_tools = spec.allowed_tools.as_ref().map(|own| {
            let chain = agent.chain.entries().iter().flat_map(|m| m.tools());
            chain
                .map(|t| t.spec().name.clone())
                .chain(own.iter().cloned())
                .collect()
        });
        if !spec.private_keys.is_empty() {
            let mut keys = agent.private_keys.to_vec();
            keys.extend(spec.private_keys.iter().cloned());
            agent.private_keys = keys.into();
        }
        Ok(agent)
    }
}

/// The tool set of a fork that has tools its caller lacks: its chain's tools (the file tools
/// every deepagents subagent has, `task`, which refuses, and any its middleware offers), in
/// the caller's order, then those tools.
fn fork_tool_set(
    chain: &Chain,
    caller: &ToolSet,
    extra: Vec<Arc<dyn Tool>>,
) -> Result<ToolSet, Error> {
    let offered: Vec<String> = chain
        .entries()
        .iter()
        .flat_map(|m| m.tools())
        .map(|t| t.spec().name.clone())
        .collect();
    let mut tools: Vec<Arc<dyn Tool>> = caller
        .specs()
        .iter()
        .filter(|spec| offered.contains(&spec.name))
        .filter_map(|spec| caller.get(&spec.name).cloned())
        .collect();
    tools.extend(extra);
    ToolSet::new(tools)
}
