//! A node's report: its chain run for the tracer, and its write to the run's listener
//! (update, new messages, state), in the order LangGraph reports them.

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;

use super::Run;
use crate::agent::Agent;
use crate::error::Error;
use crate::events::{
    Event, EventKind, MessageEvent, MessagePayload, NodeTrace, StepEmitter, TraceData, Update,
};
use crate::messages::Message;
use crate::state::{AgentState, MessagesDelta, StateDelta};

pub(super) async fn chain_start(
    root: Option<&NodeTrace>,
    namespace: &[String],
    name: &str,
    step: u64,
    inputs: TraceData<'_>,
) -> Option<NodeTrace> {
    let root = root?;
    let run = root
        .tracer
        .chain_start(Some(root.run.clone()), name, Some(step), namespace, inputs)
        .await?;
    Some(NodeTrace {
        tracer: root.tracer.clone(),
        run,
    })
}

pub(super) async fn node_end(trace: Option<NodeTrace>, outcome: Result<Option<&Update>, &Error>) {
    if let Some(t) = trace {
        match outcome {
            Ok(update) => t.tracer.chain_end(t.run, TraceData::Update(update)).await,
            Err(e) => t.tracer.chain_error(t.run, TraceData::Failure(e)).await,
        }
    }
}

impl Agent {
    /// Applies a node's write and reports it: the node's end to the tracer, then the update,
    /// the messages it added that were not reported yet, and the state after it (LangGraph
    /// ends a node's run before its write reaches the stream). A reducer that fails on the
    /// write ends the run after the node's end, the state left as it was.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn finish_node(
        &self,
        step: u64,
        node: &Arc<str>,
        mut delta: StateDelta,
        reported: Option<Update>,
        state: &mut AgentState,
        run: &Run<'_>,
        trace: Option<NodeTrace>,
    ) -> Result<Arc<StateDelta>, Error> {
        let wrote = !delta.is_empty();
        if let Err(e) = self.fold_write(state, &mut delta, run).await {
            let delta = Arc::new(delta);
            let update = reported.or_else(|| wrote.then(|| Update::Delta(delta)));
            node_end(trace, Ok(update.as_ref())).await;
            return Err(e);
        }
        let delta = Arc::new(delta);
        let Some(events) = run.emitter(step) else {
            state.apply(&delta);
            if trace.is_some() {
                // The tracer reports the node's write too.
                let update = reported.or_else(|| wrote.then(|| Update::Delta(delta.clone())));
                node_end(trace, Ok(update.as_ref())).await;
            }
            return Ok(delta);
        };
        let new: Vec<Arc<Message>> = if events.wants(EventKind::Messages) {
            match &delta.messages {
                MessagesDelta::None => Vec::new(),
                MessagesDelta::Append(m) => m.clone(),
                MessagesDelta::Replace(all) => {
                    let before: HashSet<&str> = state
                        .messages
                        .iter_newest_first()
                        .filter_map(|m| m.id())
                        .collect();
                    all.iter()
                        .filter(|m| !m.id().is_some_and(|id| before.contains(id)))
                        .cloned()
                        .collect()
                }
            }
        } else {
            Vec::new()
        };
        state.apply(&delta);
        let update = reported.or_else(|| wrote.then(|| Update::Delta(delta.clone())));
        node_end(trace, Ok(update.as_ref())).await;
        for m in &new {
            report_message(&events, &run.seen, node.clone(), m);
        }
        if events.wants(EventKind::Updates) {
            events.emit(Event::Update {
                node: node.clone(),
                update,
            });
        }
        // A step of several tasks reports its state once, every write applied.
        if wrote && !run.side_by_side && events.wants(EventKind::Values) {
            events.emit(Event::Values(state.clone()));
        }
        Ok(delta)
    }
}

/// Reports a whole message once.
pub(super) fn report_message(
    events: &StepEmitter,
    seen: &Mutex<HashSet<String>>,
    node: Arc<str>,
    message: &Arc<Message>,
) {
    if let Some(id) = message.id()
        && !seen.lock().insert(id.to_owned())
    {
        return;
    }
    events.emit(Event::Message(MessageEvent {
        node,
        payload: MessagePayload::Whole(message.clone()),
        model: None,
    }));
}
