//! The run: deepagents' graph walked node by node, as LangChain's `create_agent` wires it.
//!
//! `before_agent` nodes, then the loop (`before_model` nodes, `model`, `after_model` nodes,
//! `tools`), then `after_agent` nodes. Every node is one LangGraph super-step, writes to
//! the state, and is reported to the run's listener; a tool's `Command(goto=...)` adds
//! nodes to the next step beside the edge's destination (`side_by_side`). Where the loop
//! goes after `model` and `tools` is decided from the state alone, as LangChain's edges
//! decide it, so a hook that rewrites messages or asks for a `jump_to` steers the run the
//! same way.

//!
//! This file is the driver: the run's bookkeeping, the step loop and the edges. Each kind of
//! node runs in its own file (`hook_step`, `model_step`, `tools_step`), a step of several
//! tasks in `side_by_side`, and a node's report to the tracer and listener in `node_report`.

mod hook_step;
mod model_step;
mod node_report;
mod reduce;
mod side_by_side;
pub mod task_note;
mod tools_step;

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;

use super::routing::{Node, Task};
use super::{Agent, RunOptions, RunReport};
use crate::error::Error;
use crate::events::{Event, EventKind, NodeTrace, StepEmitter, TraceData, TraceHandle};
use crate::middleware::{Hook, NodePlace};
use crate::state::{AgentState, Jump, StateDelta};
use crate::tools::SendTarget;
use node_report::chain_start;

struct Run<'a> {
    options: &'a RunOptions,
    report: &'a Arc<Mutex<RunReport>>,
    steps: u64,
    /// Ids of messages already reported in `messages` mode (LangGraph reports each once).
    seen: Arc<Mutex<HashSet<String>>>,
    /// The invocation's chain run, when the run is traced.
    root: Option<NodeTrace>,
    /// The step runs several tasks: each node's write is the step's to apply and report as
    /// state (`side_by_side`), not the node's.
    side_by_side: bool,
    /// The agent as its tools' scope holds it (`RunScope::agent`), copied at the run's first
    /// tools step: a copy at each step was two allocations and a count for each tool.
    shared: std::sync::OnceLock<Arc<Agent>>,
}

/// What a node did: its write, a hook's jump, the tools' gotos and sends.
#[derive(Default)]
struct Outcome {
    delta: Arc<StateDelta>,
    jump: Option<Jump>,
    goto: Vec<String>,
    sends: Vec<SendTarget>,
}

impl Run<'_> {
    /// Starts a node's chain run (`None` when nobody traces).
    async fn node_start(&self, name: &str, step: u64, inputs: TraceData<'_>) -> Option<NodeTrace> {
        chain_start(
            self.root.as_ref(),
            &self.options.namespace,
            name,
            step,
            inputs,
        )
        .await
    }

    fn step(&mut self) -> Result<u64, Error> {
        self.steps += 1;
        if self.steps > self.options.recursion_limit {
            return Err(Error::RecursionLimit {
                limit: self.options.recursion_limit,
            });
        }
        Ok(self.steps + self.options.steps_before)
    }

    fn place(&self, step: u64) -> NodePlace {
        NodePlace {
            step,
            namespace: self.options.namespace.clone(),
            subagent: self.options.subagent.clone(),
        }
    }

    /// `agent`, shared (see `shared`).
    fn shared_agent(&self, agent: &Agent) -> Arc<Agent> {
        self.shared.get_or_init(|| Arc::new(agent.clone())).clone()
    }

    fn emitter(&self, step: u64) -> Option<StepEmitter> {
        self.options.events.as_ref().map(|e| StepEmitter {
            emitter: e.clone(),
            step,
        })
    }
}

impl Agent {
    /// Reports where the loop goes after `from`, before it goes there.
    fn report_route(
        &self,
        run: &Run<'_>,
        step: u64,
        from: Arc<str>,
        next: &[Task],
        state: &AgentState,
    ) {
        let Some(events) = run.emitter(step).filter(|e| e.wants(EventKind::Routes)) else {
            return;
        };
        let next = self.route_of_tasks(next, state);
        events.emit(Event::Route { node: from, next });
    }

    pub(super) async fn run_graph(
        &self,
        state: &mut AgentState,
        report: &Arc<Mutex<RunReport>>,
        options: &RunOptions,
        root: Option<TraceHandle>,
    ) -> Result<(), Error> {
        let mut run = Run {
            options,
            report,
            steps: 0,
            seen: Arc::default(),
            root: options.trace.as_ref().zip(root).map(|(t, run)| NodeTrace {
                tracer: t.tracer.clone(),
                run,
            }),
            side_by_side: false,
            shared: std::sync::OnceLock::new(),
        };
        if let Some(e) = &options.events
            && e.wants(EventKind::Values)
        {
            e.emit(0, Event::Values(state.clone()));
        }
        let start = if options.start.is_empty() {
            vec![Task::pull(
                self.first(Hook::BeforeAgent)
                    .unwrap_or_else(|| self.loop_entry()),
            )]
        } else {
            options
                .start
                .iter()
                .map(|task| self.start_task(task))
                .collect::<Result<_, _>>()?
        };
        let mut tasks = self.next_step(start);
        let mut first = true;
        loop {
            // LangGraph's `interrupt_before`/`interrupt_after`: the run ends at the boundary
            // (a resumed run starts past it, at the node it stopped before).
            let names: Vec<Arc<str>> = if options.stops.at_nodes() {
                tasks
                    .iter()
                    .filter_map(|t| self.node_name(&t.node))
                    .collect()
            } else {
                Vec::new()
            };
            if !first && names.iter().any(|n| options.stops.before(n)) {
                return Ok(());
            }
            // A drain is asked for after LangGraph's breakpoints, before any step but the
            // end (its loop checks once it has tasks to run). The first step is the thread
            // graph's to stop at: the core starts only once that step runs.
            if let Some(drain) = &options.stops.drain
                && !first
                && !tasks.is_empty()
                && drain.requested().await
            {
                return Ok(());
            }
            first = false;
            // The step in which LangGraph finds nothing left to run counts too.
            let step = run.step()?;
            let branches = match tasks.as_slice() {
                [] => return Ok(()),
                [task] if task.own.is_none() && task.done.is_none() => {
                    let out = self.run_node(task.node, step, state, &run).await?;
                    let next = self.edges(task.node, &out, state);
                    let name = self
                        .node_name(&task.node)
                        .unwrap_or_else(|| "__end__".into());
                    self.report_route(&run, step, name, &next, state);
                    next
                }
                // Boxed: nodes side by side are rare, and their future (larger than a node's)
                // would size every run's state.
                _ => Box::pin(self.side_by_side(&tasks, step, state, &mut run)).await?,
            };
            tasks = self.next_step(branches);
            if names.iter().any(|n| options.stops.after(n)) && !tasks.is_empty() {
                return Ok(());
            }
        }
    }

    /// Runs one node on `state`, writing to it.
    async fn run_node(
        &self,
        node: Node,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<Outcome, Error> {
        // Each node's future boxed: inline, this one would be as large as the largest (a few
        // KB), and a conversation in flight holds it whichever node it is in. Boxed, it holds
        // the one it runs (one allocation a step).
        Ok(match node {
            Node::Hook(hook, position) => {
                let (jump, delta) =
                    Box::pin(self.hook_step(hook, position, step, state, run)).await?;
                Outcome {
                    jump,
                    delta,
                    ..Default::default()
                }
            }
            Node::Model => Outcome {
                delta: Box::pin(self.model_step(step, state, run)).await?,
                ..Default::default()
            },
            Node::Tools(whole) => Box::pin(self.tools_step(step, state, run, whole)).await?,
            Node::End => Outcome::default(),
        })
    }

    /// Where a node goes after it ran (`out`), by its edge on `state`, and, after the tools,
    /// its calls' commands.
    fn edges(&self, node: Node, out: &Outcome, state: &AgentState) -> Vec<Task> {
        let next = match node {
            Node::Hook(hook, position) => self.after_hook(hook, position, out.jump, state),
            Node::Model => match self.first(Hook::AfterModel) {
                Some(n) => n,
                None => self.route_after_model(state),
            },
            Node::Tools(_) => {
                return self.destinations(self.route_after_tools(state), &out.goto, &out.sends);
            }
            Node::End => Node::End,
        };
        vec![Task::pull(next)]
    }
}
