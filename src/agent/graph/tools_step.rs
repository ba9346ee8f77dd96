//! The `tools` node: the pending calls through the middleware's tool handlers, their
//! results written in LangGraph's order, and where their commands go.

use std::sync::Arc;

use super::node_report::{chain_start, node_end, report_message};
use super::{Outcome, Run};
use crate::agent::Agent;
use crate::agent::routing::{last_turn, tools_name};
use crate::error::Error;
use crate::events::{Event, EventKind, TraceData, Update};
use crate::messages::Message;
use crate::middleware::ToolCallRequest;
use crate::run::new_id;
use crate::state::{AgentState, MessagesDelta, StateDelta};
use crate::tools::SendTarget;
use crate::tools::{RunScope, ToolError};

impl Agent {
    /// The tools step. Normally each pending call is its own task, reported when it
    /// completes (LangGraph streams one `tools` update per call) while the state takes the
    /// results in call order. After a hook's `jump_to: "tools"`, LangGraph runs the tool node
    /// on the whole state instead: every call of the last AI message, one update. Returns
    /// its write and where the calls' commands go (`goto`, `Send`s).
    pub(super) async fn tools_step(
        &self,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
        whole: bool,
    ) -> Result<Outcome, Error> {
        let calls = if whole {
            // LangGraph's tool node's words, for a state with no messages or no AI message.
            if state.messages.is_empty() {
                return Err(Error::InvalidInput("No message found in input".into()));
            }
            let Some((ai, _, _)) = last_turn(state) else {
                return Err(Error::InvalidInput("No AIMessage found in input".into()));
            };
            ai.tool_calls.clone()
        } else {
            self.pending_calls(state)
        };
        let events = run.emitter(step);
        // After a jump, one `tools` chain runs every call; otherwise each call is a chain.
        let whole_trace = if whole {
            run.node_start("tools", step, TraceData::State(state)).await
        } else {
            None
        };
        let scope = Arc::new(RunScope {
            agent: run.shared_agent(self),
            history: state.messages.clone(),
            files: state.files.clone(),
            files_host: state.files_host.clone(),
            extra: state.extra.clone(),
            forked: run.options.forked,
            subagent_response_format: run.options.subagent_response_format.clone(),
            step,
            namespace: run.options.namespace.clone(),
            subagent: run.options.subagent.clone(),
            resume_subagents: run.options.resume_subagents.clone(),
            max_concurrency: run.options.max_concurrency,
        });
        let base: crate::middleware::ToolBase = {
            let (tools, host, events) =
                (self.tools.clone(), run.options.host.clone(), events.clone());
            let allowed = self.allowed_tools.clone();
            Arc::new(move |request: ToolCallRequest| {
                tools.run_one(
                    request.call,
                    request.tool,
                    host.clone(),
                    scope.clone(),
                    allowed.as_deref(),
                    events.clone(),
                    request.trace,
                )
            })
        };
        let handler = self.chain.tool_handler(base);
        let per_call = if whole { None } else { events.clone() };
        let before: &AgentState = state;
        // The calls are this step's own copies: each moves into its request.
        let futures = calls.into_iter().map(|call| {
            // The id only for a listener of routes (`CallRoute`), the one place it goes.
            let call_id = per_call
                .as_ref()
                .filter(|e| e.wants(EventKind::Routes))
                .and_then(|_| call.id.clone());
            let tool = call.name.clone();
            let mut request = ToolCallRequest {
                tool: self.tools.get(&call.name).cloned(),
                call,
                state: state.clone(),
                host: run.options.host.clone(),
                trace: whole_trace.clone(),
                place: Some(run.place(step)),
            };
            let (handler, events, seen) = (handler.clone(), per_call.clone(), run.seen.clone());
            let toolset = self.tools.clone();
            let (agent, host) = (self, &run.options.host);
            let root = if whole { None } else { run.root.clone() };
            let namespace = &run.options.namespace;
            async move {
                let trace = chain_start(
                    root.as_ref(),
                    namespace,
                    "tools",
                    step,
                    TraceData::ToolCall(&request.call),
                )
                .await;
                if trace.is_some() {
                    request.trace = trace.clone();
                }
                let mut result = match handler.call(request).await {
                    Ok(r) => r,
                    Err(ToolError::Fatal(source)) => {
                        let pauses = toolset.pauses(&tool, &source);
                        let e = Error::Tool { tool, source };
                        node_end(trace, Err(&e)).await;
                        return Err((e, pauses));
                    }
                };
                result.set_ids(new_id);
                if !whole && let Err(e) = agent.fold_call(before, &result, host).await {
                    // LangGraph's edge after the call reads the step's state with the call's
                    // writes (`local_read`): a reducer refusing them fails the call's task.
                    node_end(trace, Err(&e)).await;
                    return Err((e, false));
                }
                if trace.is_some() {
                    let update =
                        Update::Delta(Arc::new(result_delta(result.written_messages(), &result)));
                    if let Some(t) = trace {
                        t.tracer
                            .chain_end(t.run, TraceData::ToolUpdate(&update, result.command))
                            .await;
                    }
                }
                // A command for the parent ends the subagent's step: nothing of it is its own.
                if let Some(events) = events.as_ref().filter(|_| !result.write.to_parent) {
                    let messages = result.written_messages();
                    if events.wants(EventKind::Messages) {
                        for message in &messages {
                            report_message(events, &seen, tools_name(), message);
                        }
                    }
                    if let Some(call_id) = call_id {
                        let next = self.call_route(
                            before,
                            &messages,
                            &result.write.goto,
                            &result.write.sends,
                        );
                        events.emit(Event::CallRoute { call_id, next });
                    }
                    if events.wants(EventKind::Updates) {
                        events.emit(Event::Update {
                            node: tools_name(),
                            update: Some(call_update(messages, &result)),
                        });
                    }
                }
                Ok::<_, (Error, bool)>(result)
            }
        });
        let results = match join_calls(futures, run.options.max_concurrency).await {
            Ok(r) => r,
            Err(e) => {
                node_end(whole_trace, Err(&e)).await;
                return Err(e);
            }
        };
        if let Some(up) = results.iter().find(|r| r.write.to_parent) {
            // LangGraph's runner hands a subagent's parent command to the parent's task.
            let output = crate::tools::ToolOutput {
                files: up.files.clone(),
                extra: up.extra.clone(),
                command: true,
                write: up.write.clone(),
                ..Default::default()
            };
            let e = Error::ParentCommand(Box::new(output));
            node_end(whole_trace, Err(&e)).await;
            return Err(e);
        }
        if let Some(key) = self.twice_written(&results) {
            // The step's calls all finished; LangGraph's channel refuses their writes.
            let e = Error::InvalidUpdate { key };
            node_end(whole_trace, Err(&e)).await;
            return Err(e);
        }
        // The handler holds the step's `RunScope`, which shares the files: dropped now, the
        // write below updates the files in place instead of copying every file.
        drop(handler);
        // A command's messages go through the reducer (one with the id of a message already
        // there replaces it); plain answers, always new, are appended without a look-up.
        // Removals go through deepagents' reducer, each call's write in turn (in call order,
        // as LangGraph applies a step's writes).
        let commands = results.iter().any(|r| r.write != Default::default());
        let mut removing = results
            .iter()
            .any(|r| !r.write.removed.is_empty())
            .then(|| state.messages.to_vec());
        let mut messages = Vec::with_capacity(results.len());
        let mut delta = StateDelta::default();
        let (mut goto, mut sends) = (Vec::new(), Vec::new());
        for (index, mut result) in results.into_iter().enumerate() {
            self.warn_unknown_gotos(&result.write.goto, index, whole, &run.options.host)
                .await;
            goto.append(&mut result.write.goto);
            sends.append(&mut result.write.sends);
            if let Some(files) = &result.files {
                delta
                    .files
                    .get_or_insert_with(Default::default)
                    .extend(files);
            }
            if let Some(extra) = &result.extra {
                crate::state::merge_extra(&mut delta.extra, extra);
            }
            // Each call's writes, for the keys whose reducer takes them all.
            delta
                .writes
                .extend(result.key_writes().map(|(k, v)| (k.clone(), v.clone())));
            if let Some(usage) = &result.usage {
                run.report.lock().usage.add(usage);
            }
            let removed = std::mem::take(&mut result.write.removed);
            // The result is done with: its messages move into the write.
            let written = result.into_written_messages();
            if let Some(all) = &mut removing {
                *all = StateDelta::reduce_write(all, &written, &removed);
            }
            messages.extend(written);
        }
        delta.messages = if let Some(all) = removing {
            MessagesDelta::Replace(all)
        } else if commands && run.options.resumed_calls.is_empty() {
            StateDelta::add_messages(&state.messages, &messages)
        } else {
            in_call_order(state, messages, &run.options.resumed_calls)
        };
        delta.keys_first = true;
        let delta = if whole {
            // One task wrote everything: reported like any other node.
            self.finish_node(step, &tools_name(), delta, None, state, run, whole_trace)
                .await?
        } else {
            self.fold_write(state, &mut delta, run).await?;
            state.apply(&delta);
            if let Some(events) = events.as_ref().filter(|_| !run.side_by_side)
                && events.wants(EventKind::Values)
            {
                events.emit(Event::Values(state.clone()));
            }
            Arc::new(delta)
        };
        self.warn_unknown_sends(&sends, &run.options.host).await;
        Ok(Outcome {
            delta,
            goto,
            sends,
            jump: None,
        })
    }
}

impl Agent {
    /// The first key that takes one write per step (`Agent::last_value_keys`) written by
    /// more than one of the step's calls, as LangGraph's `apply_writes` finds it: over the
    /// keys in the order they were first written (calls in order), the first written twice.
    fn twice_written(&self, results: &[crate::tools::ToolResult]) -> Option<String> {
        let single = self.last_value_keys.get().filter(|keys| !keys.is_empty())?;
        let mut writes: indexmap::IndexMap<&str, usize> = indexmap::IndexMap::new();
        for key in results
            .iter()
            .flat_map(|r| r.extra.iter().flat_map(|e| e.keys()))
        {
            if single.iter().any(|k| k == key) {
                *writes.entry(key.as_str()).or_default() += 1;
            }
        }
        writes
            .into_iter()
            .find(|(_, count)| *count > 1)
            .map(|(key, _)| key.to_owned())
    }
}

/// The tools step's write to `messages`: its results at the end; or, when the step resumes
/// with some of its calls answered before it stopped (`resumed`), the step's answers in the
/// AI message's call order, as LangGraph applies a superstep's writes in task order whichever
/// task finished first. Earlier messages (a reviewer's rejections) keep their places.
fn in_call_order(state: &AgentState, new: Vec<Arc<Message>>, resumed: &[String]) -> MessagesDelta {
    if resumed.is_empty() {
        return MessagesDelta::Append(new);
    }
    let Some((ai, _, _)) = last_turn(state) else {
        return MessagesDelta::Append(new);
    };
    let order: Vec<Option<String>> = ai.tool_calls.iter().map(|c| c.id.clone()).collect();
    let is_resumed = |m: &Arc<Message>| match m.as_ref() {
        Message::Tool(t) => resumed.contains(&t.tool_call_id),
        _ => false,
    };
    let all = state.messages.to_vec();
    let (mut kept, mut step): (Vec<Arc<Message>>, Vec<Arc<Message>>) =
        all.into_iter().partition(|m| !is_resumed(m));
    step.extend(new);
    let position = |m: &Arc<Message>| match m.as_ref() {
        Message::Tool(t) => order
            .iter()
            .position(|id| id.as_deref() == Some(t.tool_call_id.as_str()))
            .unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    step.sort_by_key(position);
    kept.extend(step);
    MessagesDelta::Replace(kept)
}

/// Every call's result, in call order. A failing call cancels the others, as LangGraph
/// cancels a superstep's tasks on an error; a pausing one (`Tool::pauses`: the host's
/// interrupt) lets them finish and report first, then pauses the step, as LangGraph lets the
/// other tasks of an interrupted superstep finish and keeps their writes.
async fn join_calls<F>(
    futures: impl IntoIterator<Item = F>,
    limit: Option<usize>,
) -> Result<Vec<crate::tools::ToolResult>, Error>
where
    F: std::future::Future<Output = Result<crate::tools::ToolResult, (Error, bool)>>,
{
    use futures::stream::StreamExt;

    // Boxed: the list keeps its buffer while the calls run, so a call's state machine held
    // inline would be held twice (here and in the running set) for as long as the step lasts.
    let mut calls: Vec<_> = futures
        .into_iter()
        .enumerate()
        .map(|(i, f)| Box::pin(async move { (i, f.await) }))
        .collect();
    if calls.len() == 1
        && let Some(call) = calls.pop()
    {
        // One call (most steps) is awaited as it is: a `FuturesUnordered` that has polled
        // each of its futures wakes its own task before it returns pending (so that it does
        // not starve others), and with a single call that is every time the call waits.
        // tokio then polls the run's whole future once more and, with two workers, wakes the
        // other one for nothing (strace: a futex wake and a sleep of a worker a step).
        return match call.await.1 {
            Ok(result) => Ok(vec![result]),
            Err((e, _)) => Err(e),
        };
    }
    let mut answered: Vec<Option<crate::tools::ToolResult>> =
        (0..calls.len()).map(|_| None).collect();
    // Calls start in order, `limit` at a time (all at once without one).
    let limit = limit.unwrap_or(calls.len()).max(1);
    let mut pending = futures::stream::iter(calls).buffer_unordered(limit);
    let mut paused = None;
    while let Some((i, outcome)) = pending.next().await {
        match outcome {
            Ok(result) => answered[i] = Some(result),
            Err((e, true)) => {
                paused.get_or_insert(e);
            }
            Err((e, false)) => return Err(e),
        }
    }
    match paused {
        Some(e) => Err(e),
        None => Ok(answered.into_iter().flatten().collect()),
    }
}

/// One tool call's write, as its `tools` update streams it.
/// A call's update as LangGraph streams a task's writes (`map_output_updates`): one dict,
/// or, when the call wrote a key more than once, one single-key dict per write, in order
/// (the keys its task sent, then its update's keys, then its messages).
fn call_update(messages: Vec<Arc<Message>>, result: &crate::tools::ToolResult) -> Update {
    if result.write.sent.is_empty() {
        return Update::Delta(Arc::new(result_delta(messages, result)));
    }
    let mut writes: Vec<Arc<StateDelta>> = result
        .key_writes()
        .map(|(k, v)| {
            Arc::new(StateDelta {
                extra: [(k.clone(), v.clone())].into_iter().collect(),
                ..Default::default()
            })
        })
        .collect();
    if let Some(files) = &result.files {
        writes.push(Arc::new(StateDelta {
            files: Some(files.clone()),
            ..Default::default()
        }));
    }
    writes.push(Arc::new(StateDelta {
        messages: MessagesDelta::Append(messages),
        removed: result.write.removed.clone(),
        ..Default::default()
    }));
    Update::Writes(writes)
}

fn result_delta(messages: Vec<Arc<Message>>, result: &crate::tools::ToolResult) -> StateDelta {
    StateDelta {
        messages: MessagesDelta::Append(messages),
        removed: result.write.removed.clone(),
        files: result.files.clone(),
        extra: result.extra.clone().unwrap_or_default(),
        keys_first: true,
        ..Default::default()
    }
}

impl Agent {
    /// LangGraph's warning for a goto naming no node of the graph: the write to that node's
    /// branch channel is ignored when the step's writes are applied (`__end__` is no write).
    /// Logged where the run's Python runs, never on the worker running the step.
    async fn warn_unknown_gotos(
        &self,
        goto: &[String],
        index: usize,
        whole: bool,
        host: &crate::tools::HostContext,
    ) {
        for name in goto {
            if name == "__end__" || self.node_named(name).is_ok() {
                continue;
            }
            // The task's path as LangGraph prints it: a tool call is a sent task, a goto
            // to `tools` the node itself.
            let path = if whole {
                "('__pregel_pull', 'tools')".to_owned()
            } else {
                format!("('__pregel_push', {index}, False)")
            };
            crate::error::log_on_host(
                host,
                "langgraph",
                &format!(
                    "Task tools with path {path} wrote to unknown channel branch:to:{name}, ignoring it."
                ),
            )
            .await;
        }
    }

    /// LangGraph's warning for a `Send` to no node of the graph, dropped when the next
    /// step's tasks are made (`destinations`): after the step's goto warnings, as LangGraph
    /// applies the writes before it prepares the tasks.
    async fn warn_unknown_sends(&self, sends: &[SendTarget], host: &crate::tools::HostContext) {
        for send in sends.iter().filter(|s| self.node_named(&s.node).is_err()) {
            let text = format!("Ignoring unknown node name {} in pending sends", send.node);
            crate::error::log_on_host(host, "langgraph", &text).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll, Wake, Waker};

    use super::join_calls;
    use crate::error::Error;
    use crate::tools::ToolResult;

    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A step's single call that waits leaves the step waiting, not woken: the step's task is
    /// polled again only when the call's wait ends.
    #[test]
    fn a_single_waiting_call_does_not_wake_the_step() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let call = async move {
            let _ = rx.await;
            Err::<ToolResult, _>((Error::InvalidInput("ended".into()), false))
        };
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let mut joined = pin!(join_calls([call], None));
        assert!(joined.as_mut().poll(&mut cx).is_pending());
        assert_eq!(wakes.0.load(Ordering::Relaxed), 0);
        drop(tx);
        assert_eq!(wakes.0.load(Ordering::Relaxed), 1);
        match joined.as_mut().poll(&mut cx) {
            Poll::Ready(Err(Error::InvalidInput(m))) => assert_eq!(m, "ended"),
            other => panic!("{:?}", other.map(|r| r.map(|v| v.len()))),
        }
    }
}
