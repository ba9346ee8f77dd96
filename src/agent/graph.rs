//! The run: deepagents' graph walked node by node, as LangChain's `create_agent` wires it.
//!
//! `before_agent` nodes, then the loop (`before_model` nodes, `model`, `after_model` nodes,
//! `tools`), then `after_agent` nodes. Every node is one LangGraph super-step, writes to
//! the state, and is reported to the run's listener. Where the loop goes after `model` and
//! `tools` is decided from the state alone, as LangChain's edges decide it, so a hook that
//! rewrites messages or asks for a `jump_to` steers the run the same way.

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::try_join_all;
use parking_lot::Mutex;

use super::structured::answer_schema_calls;
use super::{Agent, RunOptions, RunReport, new_id};
use crate::error::Error;
use crate::events::{
    Event, EventKind, MessageEvent, MessagePayload, ModelInfo, StepEmitter, Update,
};
use crate::messages::{AiMessage, Message, ToolCall};
use crate::middleware::{Hook, HookContext, ModelResponse, ToolCallRequest};
use crate::model::{ModelRequest, TokenSink};
use crate::state::{AgentState, Jump, MessagesDelta, StateDelta};
use crate::tools::{RunScope, ToolError};

#[derive(Clone, Copy, Debug)]
enum Node {
    /// The `position`-th node of `hook` in running order.
    Hook(Hook, usize),
    Model,
    /// `true`: on the whole state, after a hook's `jump_to: "tools"`.
    Tools(bool),
    End,
}

struct Run<'a> {
    options: &'a RunOptions,
    report: &'a Arc<Mutex<RunReport>>,
    steps: u64,
    /// Ids of messages already reported in `messages` mode (LangGraph reports each once).
    seen: Arc<Mutex<HashSet<String>>>,
}

impl Run<'_> {
    fn step(&mut self) -> Result<u64, Error> {
        self.steps += 1;
        if self.steps > self.options.recursion_limit {
            return Err(Error::RecursionLimit {
                limit: self.options.recursion_limit,
            });
        }
        Ok(self.steps)
    }

    fn emitter(&self, step: u64) -> Option<StepEmitter> {
        self.options.events.as_ref().map(|e| StepEmitter {
            emitter: e.clone(),
            step,
        })
    }
}

/// The newest AI message and the ids of the tool results after it.
fn last_turn(state: &AgentState) -> Option<(&AiMessage, HashSet<&str>, Vec<&str>)> {
    let mut answered = HashSet::new();
    let mut names = Vec::new();
    for m in state.messages.iter_newest_first() {
        match m.as_ref() {
            Message::Tool(t) => {
                answered.insert(t.tool_call_id.as_str());
                names.extend(t.name.as_deref());
            }
            Message::Ai(ai) => return Some((ai, answered, names)),
            _ => {}
        }
    }
    None
}

impl Agent {
    fn schema_tool(&self) -> Option<&str> {
        self.response_format
            .as_ref()
            .map(|rf| rf.parser.spec().name.as_str())
    }

    /// The calls of the last AI message that still need running.
    fn pending_calls(&self, state: &AgentState) -> Vec<ToolCall> {
        let schema = self.schema_tool();
        let Some((ai, answered, _)) = last_turn(state) else {
            return Vec::new();
        };
        ai.tool_calls
            .iter()
            .filter(|c| Some(c.name.as_str()) != schema)
            .filter(|c| !c.id.as_deref().is_some_and(|id| answered.contains(id)))
            .cloned()
            .collect()
    }

    fn first(&self, hook: Hook) -> Option<Node> {
        (!self.chain.nodes(hook).is_empty()).then_some(Node::Hook(hook, 0))
    }

    fn loop_entry(&self) -> Node {
        self.first(Hook::BeforeModel).unwrap_or(Node::Model)
    }

    fn exit(&self) -> Node {
        self.first(Hook::AfterAgent).unwrap_or(Node::End)
    }

    fn resolve(&self, jump: Jump) -> Node {
        match jump {
            Jump::Model => self.loop_entry(),
            Jump::Tools => Node::Tools(true),
            Jump::End => self.exit(),
        }
    }

    /// LangChain's edge after the model (and its `after_model` nodes).
    fn route_after_model(&self, state: &AgentState) -> Node {
        let Some((ai, _, _)) = last_turn(state) else {
            return self.exit();
        };
        if ai.tool_calls.is_empty() {
            return self.exit();
        }
        if !self.pending_calls(state).is_empty() {
            return Node::Tools(false);
        }
        if state.structured_response.is_some() {
            return self.exit();
        }
        // Only the schema tool was called, and it must be called again.
        self.loop_entry()
    }

    /// LangChain's edge after the tools: end when every tool called returns directly, or
    /// when a structured response was answered in this turn.
    fn route_after_tools(&self, state: &AgentState) -> Node {
        let Some((ai, _, answered_names)) = last_turn(state) else {
            return self.loop_entry();
        };
        let schema = self.schema_tool();
        let mut calls = ai
            .tool_calls
            .iter()
            .filter(|c| Some(c.name.as_str()) != schema)
            .peekable();
        if calls.peek().is_some() && calls.all(|c| self.tools.returns_directly(&c.name)) {
            return self.exit();
        }
        if schema.is_some_and(|s| answered_names.contains(&s)) {
            return self.exit();
        }
        self.loop_entry()
    }

    fn after_hook(
        &self,
        hook: Hook,
        position: usize,
        jump: Option<Jump>,
        state: &AgentState,
    ) -> Node {
        if let Some(jump) = jump.filter(|_| hook != Hook::AfterAgent) {
            return self.resolve(jump);
        }
        if position + 1 < self.chain.nodes(hook).len() {
            return Node::Hook(hook, position + 1);
        }
        match hook {
            Hook::BeforeAgent => self.loop_entry(),
            Hook::BeforeModel => Node::Model,
            Hook::AfterModel => self.route_after_model(state),
            Hook::AfterAgent => Node::End,
        }
    }

    pub(super) async fn run_graph(
        &self,
        state: &mut AgentState,
        report: &Arc<Mutex<RunReport>>,
        options: &RunOptions,
    ) -> Result<(), Error> {
        let mut run = Run {
            options,
            report,
            steps: 0,
            seen: Arc::default(),
        };
        if let Some(e) = &options.events
            && e.wants(EventKind::Values)
        {
            e.emit(0, Event::Values(state.clone()));
        }
        let mut node = self
            .first(Hook::BeforeAgent)
            .unwrap_or_else(|| self.loop_entry());
        loop {
            node = match node {
                Node::End => {
                    // The step in which LangGraph finds nothing left to run counts too.
                    run.step()?;
                    return Ok(());
                }
                Node::Hook(hook, position) => {
                    let step = run.step()?;
                    let jump = self.hook_step(hook, position, step, state, &run).await?;
                    self.after_hook(hook, position, jump, state)
                }
                Node::Model => {
                    let step = run.step()?;
                    self.model_step(step, state, &run).await?;
                    match self.first(Hook::AfterModel) {
                        Some(n) => n,
                        None => self.route_after_model(state),
                    }
                }
                Node::Tools(whole) => {
                    let step = run.step()?;
                    self.tools_step(step, state, &run, whole).await?;
                    self.route_after_tools(state)
                }
            };
        }
    }

    async fn hook_step(
        &self,
        hook: Hook,
        position: usize,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<Option<Jump>, Error> {
        let entry = self.chain.entry(self.chain.nodes(hook)[position]).clone();
        let cx = HookContext {
            state: state.clone(),
            host: run.options.host.clone(),
            events: run.emitter(step),
        };
        let out = entry.run_hook(hook, cx).await?;
        let (delta, reported, declared) =
            out.map_or_else(Default::default, |o| (o.delta, o.reported, o.jump_declared));
        // Only a declared jump (`can_jump_to`) is followed, except on the edge after the
        // model's last `after_model` node, which always reads `jump_to` (LangChain's
        // `model_to_tools` edge).
        let loop_exit = hook == Hook::AfterModel && position + 1 == self.chain.nodes(hook).len();
        let jump = delta.jump_to.filter(|_| declared || loop_exit);
        let node: Arc<str> = format!("{}.{}", entry.name(), hook.as_str()).into();
        self.finish_node(step, &node, delta, reported, state, run);
        Ok(jump)
    }

    async fn model_step(
        &self,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
    ) -> Result<(), Error> {
        let tokens = run
            .emitter(step)
            .filter(|e| e.emitter.streams_tokens())
            .map(TokenSink::new);
        let (tools, tool_choice) = match &self.response_format {
            // LangChain forces a tool call while a structured response is expected.
            Some(rf) => (rf.request_tools.clone(), Some("any".to_owned())),
            None => (self.tools.specs(), None),
        };
        let request = ModelRequest {
            model: self.model.clone(),
            system: Some(self.system.clone()),
            messages: state.messages.to_vec(),
            tools,
            tool_choice,
            model_settings: Default::default(),
            cache_control: None,
            state: state.clone(),
            tokens,
            host: run.options.host.clone(),
        };
        let response = self
            .chain
            .model_handler(self.model_base(run))
            .call(request)
            .await?;
        let mut messages = response.messages;
        // The reducer gives a message without an id (one a middleware made) a fresh one.
        for m in &mut messages {
            m.set_id_if_missing(new_id);
        }
        let mut delta = StateDelta::append(messages);
        delta.extra = response.extra;
        if let Some(s) = response.structured {
            delta.structured_response = Some(s.value);
            delta.structured_rendered = s.rendered;
            delta.structured_host = s.host;
        }
        self.finish_node(step, &Arc::from("model"), delta, None, state, run);
        Ok(())
    }

    /// The innermost model handler: the call itself, the reply's name and id, its report
    /// to the listener, and LangChain's structured-output handling.
    fn model_base(&self, run: &Run<'_>) -> crate::middleware::ModelBase {
        let name = self.name.clone();
        let parser = self.response_format.as_ref().map(|rf| rf.parser.clone());
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
                let model = request.model.clone();
                let tokens = request.tokens.take().map(|t| {
                    t.for_model(Arc::new(ModelInfo {
                        params: model.ls_params(),
                    }))
                });
                request.tokens = tokens.clone();
                let mut reply = model.invoke(request, host.clone()).await?;
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
                let (answers, structured) = match &parser {
                    Some(p) => answer_schema_calls(p.as_ref(), &reply.tool_calls, &host)?,
                    None => (Vec::new(), None),
                };
                let mut messages = vec![Message::Ai(reply)];
                messages.extend(answers);
                Ok(ModelResponse {
                    messages,
                    structured,
                    extra: Default::default(),
                })
            })
        })
    }

    /// The tools step. Normally each pending call is its own task, reported when it
    /// completes (LangGraph streams one `tools` update per call) while the state takes the
    /// results in call order. After a hook's `jump_to: "tools"`, LangGraph runs the tool node
    /// on the whole state instead: every call of the last AI message, one update.
    async fn tools_step(
        &self,
        step: u64,
        state: &mut AgentState,
        run: &Run<'_>,
        whole: bool,
    ) -> Result<(), Error> {
        let calls = if whole {
            let Some((ai, _, _)) = last_turn(state) else {
                return Err(Error::InvalidInput("No AIMessage found in input".into()));
            };
            ai.tool_calls.clone()
        } else {
            self.pending_calls(state)
        };
        let events = run.emitter(step);
        let scope = Arc::new(RunScope {
            agent: self.clone(),
            history: state.messages.clone(),
            files: state.files.clone(),
            extra: state.extra.clone(),
            forked: run.options.forked,
            subagent_response_format: run.options.subagent_response_format.clone(),
        });
        let base: crate::middleware::ToolBase = {
            let (tools, host, events) =
                (self.tools.clone(), run.options.host.clone(), events.clone());
            let allowed = self.allowed_tools.clone();
            Arc::new(move |request: ToolCallRequest| {
                tools.run_one(
                    &request.call,
                    host.clone(),
                    scope.clone(),
                    allowed.as_deref(),
                    events.clone(),
                )
            })
        };
        let handler = self.chain.tool_handler(base);
        let per_call = if whole { None } else { events.clone() };
        let futures = calls.iter().map(|call| {
            let request = ToolCallRequest {
                call: call.clone(),
                state: state.clone(),
                host: run.options.host.clone(),
            };
            let (handler, events, seen) = (handler.clone(), per_call.clone(), run.seen.clone());
            let tool = call.name.clone();
            async move {
                let mut result = handler
                    .call(request)
                    .await
                    .map_err(|ToolError::Fatal(source)| Error::Tool { tool, source })?;
                result.message.id.get_or_insert_with(new_id);
                if let Some(events) = &events {
                    let message = Arc::new(Message::Tool(result.message.clone()));
                    if events.wants(EventKind::Messages) {
                        report_message(events, &seen, "tools".into(), &message);
                    }
                    if events.wants(EventKind::Updates) {
                        events.emit(Event::Update {
                            node: "tools".into(),
                            update: Some(Update::Delta(Arc::new(result_delta(
                                vec![message],
                                &result,
                            )))),
                        });
                    }
                }
                Ok::<_, Error>(result)
            }
        });
        let results = try_join_all(futures).await?;
        let mut messages = Vec::with_capacity(results.len());
        let mut delta = StateDelta::default();
        for result in &results {
            messages.push(Arc::new(Message::Tool(result.message.clone())));
            if let Some(files) = &result.files {
                delta
                    .files
                    .get_or_insert_with(Default::default)
                    .extend(files.clone());
            }
            if let Some(extra) = &result.extra {
                delta.extra.extend(extra.clone());
            }
            if let Some(usage) = &result.usage {
                run.report.lock().usage.add(usage);
            }
        }
        delta.messages = MessagesDelta::Append(messages);
        if whole {
            // One task wrote everything: reported like any other node.
            self.finish_node(step, &Arc::from("tools"), delta, None, state, run);
            return Ok(());
        }
        state.apply(&delta);
        if let Some(events) = &events
            && events.wants(EventKind::Values)
        {
            events.emit(Event::Values(state.clone()));
        }
        Ok(())
    }

    /// Applies a node's write and reports it: the update, the messages it added that were
    /// not reported yet, and the state after it.
    fn finish_node(
        &self,
        step: u64,
        node: &Arc<str>,
        delta: StateDelta,
        reported: Option<Update>,
        state: &mut AgentState,
        run: &Run<'_>,
    ) {
        let Some(events) = run.emitter(step) else {
            state.apply(&delta);
            return;
        };
        if events.wants(EventKind::Messages) {
            let new: Vec<Arc<Message>> = match &delta.messages {
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
            };
            for m in &new {
                report_message(&events, &run.seen, node.clone(), m);
            }
        }
        let wrote = !delta.is_empty();
        let delta = Arc::new(delta);
        state.apply(&delta);
        if events.wants(EventKind::Updates) {
            let update = reported.or_else(|| wrote.then(|| Update::Delta(delta.clone())));
            events.emit(Event::Update {
                node: node.clone(),
                update,
            });
        }
        if wrote && events.wants(EventKind::Values) {
            events.emit(Event::Values(state.clone()));
        }
    }
}

/// One tool call's write, as its `tools` update streams it.
fn result_delta(messages: Vec<Arc<Message>>, result: &crate::tools::ToolResult) -> StateDelta {
    StateDelta {
        messages: MessagesDelta::Append(messages),
        files: result.files.clone(),
        extra: result.extra.clone().unwrap_or_default(),
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
