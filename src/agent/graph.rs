//! The run: deepagents' graph walked node by node, as LangChain's `create_agent` wires it.
//!
//! `before_agent` nodes, then the loop (`before_model` nodes, `model`, `after_model` nodes,
//! `tools`), then `after_agent` nodes. Every node is one LangGraph super-step, writes to
//! the state, and is reported to the run's listener; a tool's `Command(goto=...)` adds
//! nodes to the next step beside the edge's destination (`side_by_side`). Where the loop
//! goes after `model` and `tools` is decided from the state alone, as LangChain's edges
//! decide it, so a hook that rewrites messages or asks for a `jump_to` steers the run the
//! same way.

use std::collections::HashSet;
use std::sync::Arc;

use parking_lot::Mutex;

use super::routing::{Node, Task, last_turn};
use super::{Agent, RunOptions, RunReport, new_id};
use crate::error::Error;
use crate::events::{
    Event, EventKind, MessageEvent, MessagePayload, ModelInfo, NodeTrace, StepEmitter, TraceData,
    TraceHandle, Update,
};
use crate::messages::Message;
use crate::middleware::{Hook, HookContext, ModelResponse, NodePlace, ToolCallRequest};
use crate::model::{ModelRequest, TokenSink};
use crate::state::{AgentState, Jump, MessagesDelta, StateDelta};
use crate::tools::{RunScope, SendTarget, ToolError};

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
}

/// What a node did: its write, a hook's jump, the tools' gotos and sends.
#[derive(Default)]
struct Outcome {
    delta: Arc<StateDelta>,
    jump: Option<Jump>,
    goto: Vec<String>,
    sends: Vec<SendTarget>,
}

/// A task of a step run side by side: the task, its own state, its write, where it goes.
type Ran = (Task, Option<Arc<AgentState>>, Arc<StateDelta>, Vec<Task>);

impl Run<'_> {
    /// Starts a node's chain run (`None` when nobody traces).
    async fn node_start(&self, name: &str, step: u64, inputs: TraceData<'_>) -> Option<NodeTrace> {
        chain_start(self.root.as_ref(), name, step, inputs).await
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

    fn emitter(&self, step: u64) -> Option<StepEmitter> {
        self.options.events.as_ref().map(|e| StepEmitter {
            emitter: e.clone(),
            step,
        })
    }
}

async fn chain_start(
    root: Option<&NodeTrace>,
    name: &str,
    step: u64,
    inputs: TraceData<'_>,
) -> Option<NodeTrace> {
    let root = root?;
    let run = root
        .tracer
        .chain_start(Some(root.run.clone()), name, Some(step), inputs)
        .await?;
    Some(NodeTrace {
        tracer: root.tracer.clone(),
        run,
    })
}

async fn node_end(trace: Option<NodeTrace>, outcome: Result<Option<&Update>, &Error>) {
    if let Some(t) = trace {
        match outcome {
            Ok(update) => t.tracer.chain_end(t.run, TraceData::Update(update)).await,
            Err(e) => t.tracer.chain_error(t.run, TraceData::Failure(e)).await,
        }
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
        };
        if let Some(e) = &options.events
            && e.wants(EventKind::Values)
        {
            e.emit(0, Event::Values(state.clone()));
        }
        let start = match &options.start {
            Some(name) => self.node_named(name)?,
            None => self
                .first(Hook::BeforeAgent)
                .unwrap_or_else(|| self.loop_entry()),
        };
        let mut tasks = self.next_step(vec![Task::pull(start)]);
        let mut first = true;
        loop {
            // LangGraph's `interrupt_before`/`interrupt_after`: the run ends at the boundary
            // (a resumed run starts past it, at the node it stopped before).
            let names: Vec<Arc<str>> = tasks.iter().filter_map(|t| self.node_name(&t.node)).collect();
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
                [task] if task.own.is_none() => {
                    let out = self.run_node(task.node, step, state, &run).await?;
                    let next = self.edges(task.node, &out, state);
                    let name = self.node_name(&task.node).unwrap_or_else(|| "__end__".into());
                    self.report_route(&run, step, name, &next, state);
                    next
                }
                _ => self.side_by_side(&tasks, step, state, &mut run).await?,
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
        Ok(match node {
            Node::Hook(hook, position) => {
                let (jump, delta) = self.hook_step(hook, position, step, state, run).await?;
                Outcome {
                    jump,
                    delta,
                    ..Default::default()
                }
            }
            Node::Model => Outcome {
                delta: self.model_step(step, state, run).await?,
                ..Default::default()
            },
            Node::Tools(whole) => self.tools_step(step, state, run, whole).await?,
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

    /// A step of several tasks (a tool's command named nodes beside the tools edge's
    /// destination, or sent one its own state), as LangGraph runs a superstep: each node on
    /// the step's state (a sent one on its own), seeing none of the others' writes; each
    /// edge on the step's state with its own node's write; then every write applied, the
    /// named nodes' in name order and then the sent ones', in LangGraph's task order. The
    /// tasks run one after another, in the order LangGraph starts them.
    async fn side_by_side(
        &self,
        tasks: &[Task],
        step: u64,
        state: &mut AgentState,
        run: &mut Run<'_>,
    ) -> Result<Vec<Task>, Error> {
        run.side_by_side = true;
        let ran = self.run_tasks(tasks, step, state, run).await;
        run.side_by_side = false;
        let ran = ran?;
        let snapshot = std::mem::take(state);
        let mut merged = snapshot.clone();
        let mut wrote = false;
        let in_write_order = ran
            .iter()
            .filter(|r| !r.0.is_pushed())
            .chain(ran.iter().filter(|r| r.0.is_pushed()));
        for (_, input, delta, _) in in_write_order {
            if delta.is_empty() {
                continue;
            }
            wrote = true;
            let input = input.as_deref().unwrap_or(&snapshot);
            merged.apply(&delta.rebased(input, &merged));
        }
        *state = merged;
        if wrote
            && let Some(events) = run.emitter(step)
            && events.wants(EventKind::Values)
        {
            events.emit(Event::Values(state.clone()));
        }
        Ok(ran.into_iter().flat_map(|r| r.3).collect())
    }

    /// Each task of a step side by side: the task, its own state if it was sent one, its
    /// write, and where it goes.
    async fn run_tasks(
        &self,
        tasks: &[Task],
        step: u64,
        snapshot: &AgentState,
        run: &Run<'_>,
    ) -> Result<Vec<Ran>, Error> {
        let mut ran = Vec::with_capacity(tasks.len());
        for task in tasks {
            let mut local = task.own.as_deref().unwrap_or(snapshot).clone();
            let out = self.run_node(task.node, step, &mut local, run).await?;
            // A sent node's edge reads the step's state with its write, not its own state.
            if let Some(own) = &task.own {
                let mut routing = snapshot.clone();
                routing.apply(&out.delta.rebased(own, snapshot));
                local = routing;
            }
            let next = self.edges(task.node, &out, &local);
            let name = self.node_name(&task.node).unwrap_or_else(|| "__end__".into());
            self.report_route(run, step, name, &next, &local);
            ran.push((task.clone(), task.own.clone(), out.delta, next));
        }
        Ok(ran)
    }

    async fn hook_step(
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
            Err(e) => {
                node_end(trace, Err(&e)).await;
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
            .await;
        Ok((jump, delta))
    }

    async fn model_step(
        &self,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<Arc<StateDelta>, Error> {
        let tokens = run
            .emitter(step)
            .filter(|e| e.emitter.streams_tokens())
            .map(TokenSink::new);
        let trace = run.node_start("model", step, TraceData::State(state)).await;
        let request = ModelRequest {
            model: self.model.clone(),
            system: Some(self.system.clone()),
            messages: state.messages.to_vec(),
            // The structured output's part is added when the model is called, after the
            // middleware: they see the agent's tools only, as LangChain's do.
            tools: self.tools.specs(),
            schema_tools_at: None,
            tool_choice: None,
            response_format: None,
            format_override: None,
            model_settings: Default::default(),
            cache_control: None,
            state: state.clone(),
            tokens,
            host: run.options.host.clone(),
            trace: trace.clone(),
            place: Some(run.place(step)),
        };
        let response = match self
            .chain
            .model_handler(self.model_base(run))
            .call(request)
            .await
        {
            Ok(r) => r,
            Err(e) => {
                node_end(trace, Err(&e)).await;
                return Err(e);
            }
        };
        // The reducer gives a message without an id (one a middleware made) a fresh one.
        let arcs = |messages: Vec<Message>| -> Vec<Arc<Message>> {
            messages
                .into_iter()
                .map(|mut m| {
                    m.set_id_if_missing(new_id);
                    Arc::new(m)
                })
                .collect()
        };
        // LangChain's model node returns its writes in order: files a backend wrote during
        // the call, the reply (with the structured response), then each middleware command.
        let mut writes: Vec<StateDelta> = Vec::new();
        if let Some(files) = response.files_before {
            writes.push(StateDelta {
                files: Some(files),
                ..Default::default()
            });
        }
        let mut reply = StateDelta {
            messages: MessagesDelta::Append(arcs(response.messages)),
            ..Default::default()
        };
        if let Some(s) = response.structured {
            reply.structured_response = Some(s.value);
            reply.structured_rendered = s.rendered;
            reply.structured_host = s.host;
        } else if self.response_format.is_some() {
            // LangChain's model node clears an earlier turn's response when this call made
            // none, on an agent with a format of its own.
            reply.structured_response = Some(serde_json::Value::Null);
        }
        writes.push(reply);
        for c in response.commands {
            writes.push(StateDelta {
                // A command that does not write messages leaves the key out.
                messages: if c.messages.is_empty() {
                    MessagesDelta::None
                } else {
                    MessagesDelta::Append(arcs(c.messages))
                },
                files: c.files,
                extra: c.extra,
                ..Default::default()
            });
        }
        let (delta, reported) = if writes.len() == 1 {
            // The common step: the reply alone, written and streamed as is.
            let mut delta = writes.pop().unwrap_or_default();
            let written = match &delta.messages {
                MessagesDelta::Append(w) => w.clone(),
                _ => Vec::new(),
            };
            delta.messages = StateDelta::add_messages(&state.messages, &written);
            // A reply replacing a message by id is streamed as written, not as the list.
            let reported = matches!(delta.messages, MessagesDelta::Replace(_)).then(|| {
                let mut w = delta.clone();
                w.messages = MessagesDelta::Append(written);
                Update::Delta(Arc::new(w))
            });
            (delta, reported)
        } else {
            let combined = StateDelta::combine(&state.messages, &writes);
            let reported = match StateDelta::streamed(&writes) {
                Ok(merged) => Update::Delta(Arc::new(merged)),
                Err(split) => Update::Writes(split.into_iter().map(Arc::new).collect()),
            };
            (combined, Some(reported))
        };
        Ok(self
            .finish_node(step, &"model".into(), delta, reported, state, run, trace)
            .await)
    }

    /// The innermost model handler: the call itself, the reply's name and id, its report
    /// to the listener, and LangChain's structured-output handling.
    fn model_base(&self, run: &Run<'_>) -> crate::middleware::ModelBase {
        let name = self.name.clone();
        let parser = self.response_format.clone();
        let host = run.options.host.clone();
        let report = run.report.clone();
        let seen = run.seen.clone();
        Arc::new(move |mut request: ModelRequest| {
            let (name, parser, host, report, seen) = (
                name.clone(),
                parser.clone(),
                host.clone(),
                report.clone(),
                seen.clone(),
            );
            Box::pin(async move {
                // A middleware's own format for this call wins over the agent's.
                let parser = match request.format_override.take() {
                    Some(own) => own,
                    None => parser,
                };
                // A format the provider cannot take is refused when the model is called, before
                // the model is (LangChain decides on native output only then).
                if let Some(refusal) = parser.as_ref().and_then(|p| p.refusal()) {
                    return Err(refusal);
                }
                // LangChain binds the format's tools after the request's (as middleware left
                // them), with its tool choice in place of the request's.
                if let Some(p) = &parser {
                    let format = p.request(&request.tools);
                    request.schema_tools_at =
                        (format.tools.len() > request.tools.len()).then_some(request.tools.len());
                    request.tools = format.tools;
                    request.tool_choice = format.tool_choice;
                    request.response_format = format.response_format;
                }
                let model = request.model.clone();
                let tokens = request.tokens.take().map(|t| {
                    t.for_model(Arc::new(ModelInfo {
                        params: model.ls_params(),
                    }))
                });
                request.tokens = tokens.clone();
                // A model that does not report itself (a native client) is reported here.
                let llm = match request.trace.as_ref().filter(|_| !model.traces_itself()) {
                    Some(t) => {
                        let info = ModelInfo {
                            params: model.ls_params(),
                        };
                        let mut prompt: Vec<Arc<Message>> = Vec::new();
                        if let Some(s) = &request.system {
                            prompt.push(Arc::new(Message::System(s.as_ref().clone())));
                        }
                        prompt.extend(request.messages.iter().cloned());
                        t.tracer
                            .llm_start(t.run.clone(), &info, TraceData::Messages(&prompt))
                            .await
                            .map(|run| NodeTrace {
                                tracer: t.tracer.clone(),
                                run,
                            })
                    }
                    None => None,
                };
                let mut reply = match model.invoke(request, host.clone()).await {
                    Ok(reply) => reply,
                    Err(e) => {
                        let e = Error::from(e);
                        if let Some(l) = llm {
                            l.tracer.llm_error(l.run, TraceData::Failure(&e)).await;
                        }
                        return Err(e);
                    }
                };
                {
                    let mut report = report.lock();
                    report.model_calls += 1;
                    if let Some(usage) = &reply.usage_metadata {
                        report.usage.add(usage);
                    }
                }
                // An agent's name wins over any name the model gave its reply.
                if name.is_some() {
                    reply.name.clone_from(&name);
                }
                // LangChain's id for a model reply: `lc_run--<run id>-<generation index>`.
                let id = reply
                    .id
                    .get_or_insert_with(|| format!("lc_run--{}-0", new_id()))
                    .clone();
                if let Some(tokens) = &tokens {
                    if !tokens.streamed() {
                        tokens.whole(Arc::new(Message::Ai(reply.clone())));
                    }
                    seen.lock().insert(id);
                }
                if let Some(l) = llm {
                    let message = Message::Ai(reply.clone());
                    l.tracer.llm_end(l.run, TraceData::Message(&message)).await;
                }
                let (answers, structured) = match &parser {
                    Some(p) => p.answer(&reply, &host)?,
                    None => (Vec::new(), None),
                };
                let mut messages = vec![Message::Ai(reply)];
                messages.extend(answers);
                Ok(ModelResponse {
                    messages,
                    structured,
                    ..Default::default()
                })
            })
        })
    }

    /// The tools step. Normally each pending call is its own task, reported when it
    /// completes (LangGraph streams one `tools` update per call) while the state takes the
    /// results in call order. After a hook's `jump_to: "tools"`, LangGraph runs the tool node
    /// on the whole state instead: every call of the last AI message, one update. Returns
    /// its write and where the calls' commands go (`goto`, `Send`s).
    async fn tools_step(
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
            agent: self.clone(),
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
                    &request.call,
                    request.tool.clone(),
                    host.clone(),
                    scope.clone(),
                    allowed.as_deref(),
                    events.clone(),
                    request.trace.clone(),
                )
            })
        };
        let handler = self.chain.tool_handler(base);
        let per_call = if whole { None } else { events.clone() };
        let futures = calls.iter().map(|call| {
            let mut request = ToolCallRequest {
                call: call.clone(),
                state: state.clone(),
                host: run.options.host.clone(),
                trace: whole_trace.clone(),
                place: Some(run.place(step)),
                tool: self.tools.get(&call.name).cloned(),
            };
            let (handler, events, seen) = (handler.clone(), per_call.clone(), run.seen.clone());
            let tool = call.name.clone();
            let toolset = self.tools.clone();
            let root = if whole { None } else { run.root.clone() };
            async move {
                let trace = chain_start(
                    root.as_ref(),
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
                            report_message(events, &seen, "tools".into(), message);
                        }
                    }
                    if events.wants(EventKind::Updates) {
                        events.emit(Event::Update {
                            node: "tools".into(),
                            update: Some(Update::Delta(Arc::new(result_delta(messages, &result)))),
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
        // The handler holds the step's `RunScope`, which shares the files: dropped now, the
        // write below updates the files in place instead of copying every file.
        drop(handler);
        let mut messages = Vec::with_capacity(results.len());
        let mut delta = StateDelta::default();
        let (mut goto, mut sends) = (Vec::new(), Vec::new());
        for result in &results {
            messages.extend(result.written_messages());
            goto.extend(result.write.goto.iter().cloned());
            sends.extend(result.write.sends.iter().cloned());
            if let Some(files) = &result.files {
                delta
                    .files
                    .get_or_insert_with(Default::default)
                    .extend(files);
            }
            if let Some(extra) = &result.extra {
                crate::state::merge_extra(&mut delta.extra, extra);
            }
            if let Some(usage) = &result.usage {
                run.report.lock().usage.add(usage);
            }
        }
        // A command's messages go through the reducer (one with the id of a message already
        // there replaces it); plain answers, always new, are appended without a look-up.
        // Removals go through deepagents' reducer, each call's write in turn (in call order,
        // as LangGraph applies a step's writes).
        let commands = results.iter().any(|r| r.write != Default::default());
        delta.messages = if results.iter().any(|r| !r.write.removed.is_empty()) {
            let mut all = state.messages.to_vec();
            for result in &results {
                let written = result.written_messages();
                all = StateDelta::reduce_write(&all, &written, &result.write.removed);
            }
            MessagesDelta::Replace(all)
        } else if commands && run.options.resumed_calls.is_empty() {
            StateDelta::add_messages(&state.messages, &messages)
        } else {
            in_call_order(state, messages, &run.options.resumed_calls)
        };
        delta.keys_first = true;
        let delta = if whole {
            // One task wrote everything: reported like any other node.
            self.finish_node(step, &"tools".into(), delta, None, state, run, whole_trace)
                .await
        } else {
            state.apply(&delta);
            if let Some(events) = events.as_ref().filter(|_| !run.side_by_side)
                && events.wants(EventKind::Values)
            {
                events.emit(Event::Values(state.clone()));
            }
            Arc::new(delta)
        };
        Ok(Outcome {
            delta,
            goto,
            sends,
            jump: None,
        })
    }

    /// Applies a node's write and reports it: the node's end to the tracer, then the update,
    /// the messages it added that were not reported yet, and the state after it (LangGraph
    /// ends a node's run before its write reaches the stream).
    #[allow(clippy::too_many_arguments)]
    async fn finish_node(
        &self,
        step: u64,
        node: &Arc<str>,
        delta: StateDelta,
        reported: Option<Update>,
        state: &mut AgentState,
        run: &Run<'_>,
        trace: Option<NodeTrace>,
    ) -> Arc<StateDelta> {
        let wrote = !delta.is_empty();
        let delta = Arc::new(delta);
        let Some(events) = run.emitter(step) else {
            state.apply(&delta);
            if trace.is_some() {
                // The tracer reports the node's write too.
                let update = reported.or_else(|| wrote.then(|| Update::Delta(delta.clone())));
                node_end(trace, Ok(update.as_ref())).await;
            }
            return delta;
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
        delta
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

    let calls: Vec<_> = futures
        .into_iter()
        .enumerate()
        .map(|(i, f)| async move { (i, f.await) })
        .collect();
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

/// Reports a whole message once.
fn report_message(
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
