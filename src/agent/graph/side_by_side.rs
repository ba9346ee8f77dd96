//! A step of several tasks: LangGraph's superstep, when a tool's command named nodes beside
//! the tools edge's destination or sent one a state of its own.

use std::sync::Arc;

use super::{Outcome, Run};
use crate::agent::Agent;
use crate::agent::routing::{Node, Task};
use crate::error::Error;
use crate::events::{Event, EventKind};
use crate::state::{AgentState, StateDelta};

/// A task of a step run side by side: the task, its own state, its write, where it goes.
type Ran = (Task, Option<Arc<AgentState>>, Arc<StateDelta>, Vec<Task>);

impl Agent {
    /// A step of several tasks (a tool's command named nodes beside the tools edge's
    /// destination, or sent one its own state), as LangGraph runs a superstep: each node on
    /// the step's state (a sent one on its own), seeing none of the others' writes; each
    /// edge on the step's state with its own node's write; then every write applied, the
    /// named nodes' in name order and then the sent ones', in LangGraph's task order. The
    /// tasks run one after another, in the order LangGraph starts them.
    pub(super) async fn side_by_side(
        &self,
        tasks: &[Task],
        step: u64,
        state: &mut AgentState,
        run: &mut Run<'_>,
    ) -> Result<Vec<Task>, Error> {
        run.side_by_side = true;
        let ran = self.run_tasks(tasks, step, state, run).await;
        run.side_by_side = false;
        let (ran, paused) = ran?;
        let snapshot = std::mem::take(state);
        let mut merged = snapshot.clone();
        let mut wrote = false;
        let in_write_order = ran
            .iter()
            .filter(|r| !r.0.is_pushed())
            .chain(ran.iter().filter(|r| r.0.is_pushed()));
        for (_, input, delta, _) in in_write_order.clone() {
            if delta.is_empty() {
                continue;
            }
            wrote = true;
            let input = input.as_deref().unwrap_or(&snapshot);
            merged.apply(&delta.rebased(input, &merged));
        }
        // Each task folded its writes onto its own state; the step's keys with a reducer
        // take every task's writes onto the step's state.
        match self
            .fold_step(&snapshot, in_write_order.map(|r| &*r.2), run)
            .await
        {
            Ok(folded) => crate::state::merge_extra(&mut merged.extra, &folded),
            Err(e) => {
                *state = snapshot;
                return Err(e);
            }
        }
        *state = merged;
        // The step stopped for an interrupt: the state holds the writes of the tasks that
        // finished, as LangGraph keeps them.
        if let Some(paused) = paused {
            return Err(paused);
        }
        if wrote
            && let Some(events) = run.emitter(step)
            && events.wants(EventKind::Values)
        {
            events.emit(Event::Values(state.clone()));
        }
        Ok(ran.into_iter().flat_map(|r| r.3).collect())
    }

    /// Each task of a step side by side: the task, its own state if it was sent one, its
    /// write, and where it goes; and the interrupt that stopped one of them. LangGraph runs
    /// the other tasks of a step on when one is interrupted (their writes are kept, and the
    /// step resumes with the interrupted ones only), but ends the step at another error. A
    /// task that had finished before a resumed step stopped (`done`) is not run again: its
    /// kept write goes where its edges go.
    async fn run_tasks(
        &self,
        tasks: &[Task],
        step: u64,
        snapshot: &AgentState,
        run: &Run<'_>,
    ) -> Result<(Vec<Ran>, Option<Error>), Error> {
        let mut ran = Vec::with_capacity(tasks.len());
        let mut paused = None;
        for (index, task) in tasks.iter().enumerate() {
            let mut local = task.own.as_deref().unwrap_or(snapshot).clone();
            if task.done.is_none() {
                self.report_place(run, step, tasks, index);
            }
            let out = match &task.done {
                Some(done) => {
                    local.apply(done);
                    Outcome {
                        delta: done.clone(),
                        jump: done.jump_to,
                        ..Default::default()
                    }
                }
                None => match self.run_node(task.node, step, &mut local, run).await {
                    Ok(out) => out,
                    Err(e) if e.is_pause() => {
                        paused.get_or_insert(e);
                        continue;
                    }
                    Err(e) => return Err(e),
                },
            };
            // A sent node's edge reads the step's state with its write, not its own state.
            if let Some(own) = &task.own {
                let mut routing = snapshot.clone();
                routing.apply(&out.delta.rebased(own, snapshot));
                local = routing;
            }
            let next = self.edges(task.node, &out, &local);
            if task.done.is_none() {
                let name = self
                    .node_name(&task.node)
                    .unwrap_or_else(|| "__end__".into());
                self.report_route(run, step, name, &next, &local);
            }
            ran.push((task.clone(), task.own.clone(), out.delta, next));
        }
        Ok((ran, paused))
    }

    /// Reports the place of `tasks[index]` among the step's tasks of its node (the model's
    /// calls, matched by call, have none), before it runs.
    fn report_place(&self, run: &Run<'_>, step: u64, tasks: &[Task], index: usize) {
        let task = &tasks[index];
        if matches!(task.node, Node::Tools(false)) {
            return;
        }
        let (Some(node), Some(events)) = (
            self.node_name(&task.node),
            run.emitter(step).filter(|e| e.wants(EventKind::Routes)),
        ) else {
            return;
        };
        let place = tasks[..index]
            .iter()
            .filter(|t| !matches!(t.node, Node::Tools(false)))
            .filter(|t| self.node_name(&t.node).as_deref() == Some(&*node))
            .count();
        events.emit(Event::TaskPlace { node, place });
    }
}
