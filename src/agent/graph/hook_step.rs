//! A middleware hook's node (`before_agent`, `before_model`, `after_model`, `after_agent`).

use std::sync::Arc;

use super::Run;
use super::node_report::node_end;
use super::task_note::note_task_error;
use crate::agent::Agent;
use crate::error::Error;
use crate::events::TraceData;
use crate::middleware::{Hook, HookContext};
use crate::state::{AgentState, Jump, StateDelta};

impl Agent {
    pub(super) async fn hook_step(
        &self,
        hook: Hook,
        position: usize,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<(Option<Jump>, Arc<StateDelta>), Error> {
        let entry = self.chain.entry(self.chain.nodes(hook)[position]).clone();
        let node = self.hook_name(hook, position);
        let trace = run.node_start(&node, step, TraceData::State(state)).await;
        let cx = HookContext {
            state: state.clone(),
            host: run.options.host.clone(),
            events: run.emitter(step),
            place: Some(run.place(step)),
            trace: trace.clone(),
        };
        let out = match entry.run_hook(hook, cx).await {
            Ok(out) => out,
            Err(mut e) => {
                node_end(trace, Err(&e)).await;
                note_task_error(&mut e, &node, &run.place(step), &run.options.host).await;
                return Err(e);
            }
        };
        let (delta, reported, declared) =
            out.map_or_else(Default::default, |o| (o.delta, o.reported, o.jump_declared));
        // Only a declared jump (`can_jump_to`) is followed, except on the edge after the
        // model's last `after_model` node, which always reads `jump_to` (LangChain's
        // `model_to_tools` edge).
        let loop_exit = hook == Hook::AfterModel && position + 1 == self.chain.nodes(hook).len();
        let jump = delta.jump_to.filter(|_| declared || loop_exit);
        let delta = self
            .finish_node(step, &node, delta, reported, state, run, trace)
            .await?;
        Ok((jump, delta))
    }
}
