//! The `task` tool: validates the call, picks the subagent, runs it, and returns its final
//! message as the tool result.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::prompts::{
    COMPILED_RESPONSE_SCHEMA, FORK_RECURSION_REFUSAL, FORKED_SUBAGENT_TOOL_NOTE, SUBAGENT_TYPE_ARG,
    TASK_DESCRIPTION_ARG, TASK_TOOL_DESCRIPTION, UNEXPECTED_TASK_ARGUMENT, UNKNOWN_SUBAGENT,
};
use super::{ChildInput, Mode, Subagent, SubagentKind, SubagentResume, fork_history};
use crate::error::{BoxError, Error, SharedError};
use crate::events::{Event, EventKind, TraceContext};
use crate::history::History;
use crate::messages::{HumanMessage, Message, Usage};
use crate::run::{DEFAULT_RECURSION_LIMIT, RunOptions, StartTask, new_id};
use crate::state::{AgentState, Extra, FilesSnapshot, FilesWrite};
use crate::tools::invocation_error::{invocation_error, str_repr};
use crate::tools::{
    CallPlace, Spawner, Tool, ToolContext, ToolError, ToolOutput, ToolSpec, call_index,
    call_task_id,
};
use crate::usage_sum::UsageSum;

pub struct TaskTool {
    spec: ToolSpec,
    subagents: Arc<[Subagent]>,
}

impl TaskTool {
    /// The node names of each subagent the core runs, by name, as a subgraph of the `task`
    /// call's task shows them: an isolated one's own graph, a fork's the caller's chain as
    /// forks run it. Compiled subagents are the host's own graphs and are left out.
    pub fn subagent_nodes(&self, caller: &dyn Spawner) -> Vec<(String, Vec<String>)> {
        self.subagents
            .iter()
            .filter_map(|s| {
                let nodes = match &s.kind {
                    SubagentKind::Isolated(agent) => agent.node_names(),
                    SubagentKind::Fork(spec) => caller.fork_nodes(spec)?,
                    SubagentKind::Compiled { .. } => return None,
                };
                Some((s.name.clone(), nodes))
            })
            .collect()
    }

    pub fn new(subagents: Vec<Subagent>) -> Result<Self, Error> {
        if subagents.is_empty() {
            return Err(Error::InvalidInput(
                "At least one subagent must be specified".into(),
            ));
        }
        for (i, s) in subagents.iter().enumerate() {
            if subagents[..i].iter().any(|o| o.name == s.name) {
                return Err(Error::InvalidInput(format!(
                    "Duplicate subagent name '{}'; each subagent must have a unique name.",
                    s.name
                )));
            }
        }
        let spec = ToolSpec {
            name: "task".into(),
            description: TASK_TOOL_DESCRIPTION.replace("{available_agents}", &listing(&subagents)),
            // Key order as deepagents' pydantic schema renders it: it is part of the cache prefix.
            parameters: json!({
                "properties": {
                    "description": {
                        "description": TASK_DESCRIPTION_ARG,
                        "type": "string"
                    },
                    "subagent_type": {
                        "description": SUBAGENT_TYPE_ARG,
                        "type": "string"
                    }
                },
                "required": ["description", "subagent_type"],
                "type": "object"
            }),
            provider_definition: None,
            json_spec: false,
            json_dict: None,
            defer_loading: false,
        };
        Ok(TaskTool {
            spec,
            subagents: subagents.into(),
        })
    }

    /// The subagents as the description lists them (deepagents' `{available_agents}`).
    pub fn listing(&self) -> String {
        listing(&self.subagents)
    }

    /// The tool with `description` in place of deepagents' (a harness profile's override).
    pub fn with_description(mut self, description: String) -> Self {
        self.spec.description = description;
        self
    }
}

fn listing(subagents: &[Subagent]) -> String {
    let lines: Vec<String> = subagents
        .iter()
        .map(|s| {
            let note = if s.mode() == Mode::Fork {
                FORKED_SUBAGENT_TOOL_NOTE
            } else {
                ""
            };
            format!("- {}: {}{note}", s.name, s.description)
        })
        .collect();
    lines.join("\n")
}

/// The arguments, or the validation errors deepagents' pydantic schema would report.
fn parse_args(args: &Value) -> Result<(String, String), Vec<String>> {
    let empty = Map::new();
    let map = args.as_object().unwrap_or(&empty);
    let mut unknown: Vec<&String> = map
        .keys()
        .filter(|k| !matches!(k.as_str(), "description" | "subagent_type" | "runtime"))
        .collect();
    if !unknown.is_empty() {
        unknown.sort();
        return Err(unknown
            .into_iter()
            .map(|k| {
                format!(
                    "{k}: Value error, {}",
                    UNEXPECTED_TASK_ARGUMENT.replace("{key}", &str_repr(k))
                )
            })
            .collect());
    }
    let mut errors = Vec::new();
    let mut field = |name: &str| match map.get(name) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            errors.push(format!("{name}: Input should be a valid string"));
            None
        }
        None => {
            errors.push(format!("{name}: Field required"));
            None
        }
    };
    let description = field("description");
    let subagent_type = field("subagent_type");
    match (description, subagent_type) {
        (Some(d), Some(t)) => Ok((d, t)),
        _ => Err(errors),
    }
}

/// The subagent's answer: the last AI message with text, right-stripped, as deepagents
/// returns it.
fn final_text(messages: &[Arc<Message>]) -> String {
    messages
        .iter()
        .rev()
        .filter_map(|m| m.as_ai())
        .map(|ai| ai.content.text().trim_end().to_owned())
        .find(|t| !t.is_empty())
        .unwrap_or_default()
}

/// Runs a declarative subagent on `messages` and the caller's files: (messages, files,
/// rendered structured response, usage).
async fn run_child(
    agent: &dyn Spawner,
    messages: History,
    ctx: &ToolContext,
    mut options: RunOptions,
    resume: Option<SubagentResume>,
) -> Result<ChildRun, ToolError> {
    // deepagents hands the child the caller's state minus its messages, private keys and
    // a few of its own, and takes back the keys the child changed.
    let mut inherited = shareable(&ctx.run.extra, &ctx.run.agent.private_keys());
    // A fork's graph takes the caller's loaded skills as input (deepagents excludes them
    // from isolated subagents only), so it does not load them again.
    if options.forked
        && let Some(skills) = ctx.run.extra.get(FORK_INHERITED_KEY)
    {
        inherited.insert(FORK_INHERITED_KEY.into(), skills.clone());
    }
    let state = match resume {
        // It goes on from its own checkpoint, in its own task's context.
        Some(resume) => {
            options.start = vec![StartTask::named(resume.start)];
            options.steps_before = resume.steps_before;
            options.host = resume.host;
            options.resumed_calls = resume.resumed_calls;
            resume.state
        }
        None => AgentState {
            messages,
            files: ctx.run.files.clone(),
            files_host: ctx.run.files_host.clone(),
            extra: input_keys(agent, &inherited, &options.host).await?,
            ..Default::default()
        },
    };
    if let Some(events) = options
        .events
        .as_ref()
        .filter(|e| e.wants(EventKind::Routes))
    {
        events.emit(
            options.steps_before,
            Event::SubagentStart {
                call_id: ctx.tool_call_id.clone(),
                input: Box::new(state.clone()),
                nodes: agent.node_names(),
            },
        );
    }
    let events = options.events.clone();
    let (state, report) = match agent.run(state, options).await {
        Ok(done) => done,
        Err(f) => {
            let error = Arc::new(f.error);
            if let Some(events) = events
                .as_ref()
                .filter(|e| error.is_pause() && e.wants(EventKind::Routes))
            {
                events.emit(
                    0,
                    Event::SubagentPaused {
                        call_id: ctx.tool_call_id.clone(),
                        error: error.clone(),
                    },
                );
            }
            return Err(ToolError::Fatal(Box::new(SharedError(error))));
        }
    };
    let mut changed = shareable(&state.extra, &agent.private_keys());
    changed.retain(|k, v| inherited.get(k) != Some(v));
    drop_equal(agent, &mut changed, &inherited, ctx).await?;
    Ok((
        state.messages.to_vec(),
        (state.files, state.files_host),
        render(state.structured_rendered, state.structured_response),
        Some(report.usage.usage()),
        changed,
    ))
}

/// The keys a fresh subagent run starts with: deepagents invokes it on `inherited`, which
/// its graph writes through its channels, so a key with a reducer is folded onto its empty
/// value.
async fn input_keys(
    agent: &dyn Spawner,
    inherited: &Extra,
    host: &crate::tools::HostContext,
) -> Result<Extra, ToolError> {
    // Its graph reads the caller's state through its own channels: the caller's other keys
    // (its middleware's) never reach it.
    let mut extra: Extra = match agent.state_keys() {
        Some(keys) => inherited
            .iter()
            .filter(|(k, _)| keys.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        None => inherited.clone(),
    };
    if let Some(reducers) = agent.reducers() {
        let writes = reducers.writes_in(inherited.iter());
        let folded = reducers
            .fold(&AgentState::default(), writes, host)
            .await
            .map_err(|e| ToolError::Fatal(Box::new(e)))?;
        crate::state::merge_extra(&mut extra, &folded);
    }
    Ok(extra)
}

/// Drops from `changed` the host's values equal to those the subagent was given: deepagents
/// hands back only keys whose value is not the given one or equal to it (a reducer key's
/// input, folded into a new object, comes back equal).
async fn drop_equal(
    agent: &dyn Spawner,
    changed: &mut Extra,
    inherited: &Extra,
    ctx: &ToolContext,
) -> Result<(), ToolError> {
    use crate::host::Opaque;
    let Some(reducers) = agent.reducers() else {
        return Ok(());
    };
    let pairs: Vec<_> = changed
        .iter()
        .filter_map(|(k, after)| match (inherited.get(k)?, after) {
            (before @ Opaque::Host(_), after) | (before, after @ Opaque::Host(_)) => {
                Some((k.clone(), before.clone(), after.clone()))
            }
            _ => None,
        })
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    let same = reducers
        .host
        .unchanged(ctx.host.clone(), pairs)
        .await
        .map_err(|e| ToolError::Fatal(Box::new(e)))?;
    changed.retain(|k, _| !same.contains(k));
    Ok(())
}

/// The conversation the caller's model sees: its history, or, after a summarization, the
/// summary and the messages kept (deepagents' `_fork_messages` applies the caller's event),
/// so a fork starts from the caller's compacted prompt.
fn seen_history(run: &crate::tools::RunScope) -> crate::history::History {
    use crate::summarization::event::{self, EVENT_KEY, Event};
    match Event::read(run.extra.get(EVENT_KEY)) {
        Some(ev) => event::apply(Some(&ev), &run.history.to_vec())
            .into_iter()
            .collect(),
        None => run.history.clone(),
    }
}

/// The excluded key a fork inherits all the same (skills' `skills_metadata`).
const FORK_INHERITED_KEY: &str = "skills_metadata";

/// deepagents' keys that never pass between an agent and its subagents: its excluded keys,
/// then the private state of its own middleware (summarization's event and session).
const EXCLUDED_STATE_KEYS: [&str; 10] = [
    "messages",
    "todos",
    "structured_response",
    "skills_metadata",
    "pinned_skills",
    "_skill_tools_disclosed",
    "_deepagents_forked_context",
    "rubric",
    "_summarization_event",
    "_summarization_session_id",
];

/// The state keys that pass to or from a subagent.
fn shareable(extra: &Extra, private: &[String]) -> Extra {
    extra
        .iter()
        .filter(|(k, _)| !EXCLUDED_STATE_KEYS.contains(&k.as_str()) && !private.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

type ChildRun = (
    Vec<Arc<Message>>,
    FilesSnapshot,
    Option<String>,
    Option<Usage>,
    Extra,
);

/// The structured response as the task result: as the host rendered it, or as JSON.
fn render(rendered: Option<String>, structured: Option<Value>) -> Option<String> {
    // A cleared response (`null`) is none, as deepagents reads it.
    let structured = structured.filter(|v| !v.is_null());
    rendered.or_else(|| structured.map(|v| serde_json::to_string(&v).unwrap_or_default()))
}

fn fatal(e: Error) -> ToolError {
    ToolError::Fatal(Box::new(e))
}

impl Tool for TaskTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// A subagent stopped by the host's interrupt pauses the step: the step's other calls
    /// (another subagent too) finish or stop first, as LangGraph lets a superstep's tasks.
    fn pauses(&self, error: &BoxError) -> bool {
        crate::error::is_pause_source(error)
    }

    fn release_unused(&self) {
        for s in self.subagents.iter() {
            match &s.kind {
                SubagentKind::Isolated(agent) => agent.release_unused(),
                SubagentKind::Fork(spec) => {
                    if let Some(model) = &spec.model {
                        model.release_unused();
                    }
                }
                SubagentKind::Compiled { .. } => {}
            }
        }
    }

    fn call(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let subagents = self.subagents.clone();
        Box::pin(async move {
            let (description, subagent_type) = match parse_args(&args) {
                Ok(parsed) => parsed,
                Err(details) => {
                    return Ok(ToolOutput::error(invocation_error("task", &args, &details)));
                }
            };
            if ctx.run.forked {
                return Ok(ToolOutput::text(FORK_RECURSION_REFUSAL));
            }
            let Some(subagent) = subagents.iter().find(|s| s.name == subagent_type) else {
                let allowed: Vec<String> =
                    subagents.iter().map(|s| format!("`{}`", s.name)).collect();
                return Ok(ToolOutput::text(
                    UNKNOWN_SUBAGENT
                        .replace("{subagent_type}", &subagent_type)
                        .replace("{allowed}", &allowed.join(", ")),
                ));
            };
            run_subagent(subagent, &description, &ctx)
                .await
                .or_else(parent_command)
        })
    }
}

/// A subagent's tool sent a `Command(graph=Command.PARENT)`: the subagent stopped at that
/// step, and the command is this call's write, with no answer to the call (LangGraph's
/// runner applies a parent command as the writes of the task that ran the subgraph).
fn parent_command(e: ToolError) -> Result<ToolOutput, ToolError> {
    let ToolError::Fatal(source) = &e;
    // A core subagent's run fails with it (shared); a compiled one's returns it.
    let error = match source.downcast_ref::<SharedError>() {
        Some(SharedError(error)) => Some(error.as_ref()),
        None => source.downcast_ref::<Error>(),
    };
    if let Some(Error::ParentCommand(output)) = error {
        let mut output = output.as_ref().clone();
        output.write.to_parent = false;
        return Ok(output);
    }
    Err(e)
}

async fn run_subagent(
    subagent: &Subagent,
    description: &str,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let run = &ctx.run;
    let resume = run.resume_subagents.take(&ctx.tool_call_id).await;
    // A subagent's graph is compiled with deepagents' own limit, which wins over the
    // caller's when the configs merge.
    // The subagent runs inside the call's `tools` task, as a LangGraph subgraph does: its
    // namespace is that task's, with the id the host gave the call's task everywhere else.
    let index = call_index(&run.history, &ctx.tool_call_id);
    let place = CallPlace {
        namespace: &run.namespace,
        step: run.step,
        call_id: &ctx.tool_call_id,
        index,
    };
    let task_ns = format!("tools:{}", call_task_id(&ctx.host, &place).await);
    let events = ctx
        .events
        .as_ref()
        .map(|e| e.emitter.child(task_ns.clone(), Some(&subagent.name)));
    let namespace: Vec<String> = run.namespace.iter().cloned().chain([task_ns]).collect();
    let options = |forked| RunOptions {
        recursion_limit: DEFAULT_RECURSION_LIMIT,
        host: ctx.host.clone(),
        forked,
        subagent_response_format: None,
        events: events.clone(),
        // The subagent's chain runs inside the `task` tool's run, as in deepagents.
        trace: ctx.trace.as_ref().map(|t| TraceContext {
            tracer: t.tracer.clone(),
            parent: Some(t.run.clone()),
        }),
        // A subgraph numbers its own steps, from its first node.
        steps_before: 0,
        start: Vec::new(),
        stops: Default::default(),
        resumed_calls: Vec::new(),
        namespace: namespace.clone(),
        subagent: Some(subagent.name.clone()),
        resume_subagents: Default::default(),
        max_concurrency: run.max_concurrency,
    };
    // A response format the caller asked for: deepagents compiles the declarative subagent
    // afresh with it, and refuses it for a compiled one.
    let dynamic = run.subagent_response_format.clone();
    let isolated_history = || {
        let mut h = History::new();
        h.push(Message::Human(HumanMessage {
            content: description.into(),
            id: Some(new_id()),
            ..Default::default()
        }));
        h
    };
    let (messages, files, structured, usage, extra) = match &subagent.kind {
        SubagentKind::Isolated(agent) => {
            let agent = match dynamic {
                Some(rf) => agent.answering_in(Some(rf)),
                None => agent.clone(),
            };
            run_child(
                agent.as_ref(),
                isolated_history(),
                ctx,
                options(false),
                resume,
            )
            .await?
        }
        SubagentKind::Fork(spec) => {
            // A fork answers in text unless the caller asks for a format: the caller's own
            // structured output is the caller's.
            let format = dynamic.or_else(|| spec.response_format.clone());
            let agent = run
                .agent
                .fork(&subagent.name, spec, format)
                .map_err(fatal)?;
            let history = fork_history(
                &seen_history(run),
                description,
                spec.instructions.as_deref(),
            );
            run_child(agent.as_ref(), history, ctx, options(true), resume).await?
        }
        SubagentKind::Compiled { .. } if dynamic.is_some() => {
            return Err(fatal(Error::InvalidInput(
                COMPILED_RESPONSE_SCHEMA.replace("{name}", &subagent.name),
            )));
        }
        SubagentKind::Compiled { mode, runnable } => {
            let messages = match mode {
                Mode::Isolated => isolated_history(),
                Mode::Fork => fork_history(&seen_history(run), description, None),
            };
            let input = ChildInput {
                call_id: ctx.tool_call_id.clone(),
                namespace: namespace.clone(),
                step: run.step,
                index,
                messages,
                files: run.files.clone(),
                files_host: run.files_host.clone(),
                trace: ctx.trace.clone(),
                events: ctx.events.clone(),
            };
            let out = runnable
                .invoke(input, ctx.host.clone())
                .await
                .map_err(fatal)?;
            let files = match out.files {
                Some(f) => (Arc::new(f.entries), Arc::new(f.host)),
                None => (run.files.clone(), run.files_host.clone()),
            };
            let mut usage = UsageSum::default();
            for m in &out.messages {
                if let Some(u) = m.as_ai().and_then(|ai| ai.usage_metadata.as_ref()) {
                    usage.add(u);
                }
            }
            let usage = usage.usage();
            let messages = out.messages.into_iter().map(Arc::new).collect();
            (messages, files, Some(out.result), Some(usage), Extra::new())
        }
    };
    let content = structured.unwrap_or_else(|| final_text(&messages));
    // deepagents hands back the child's whole files map; only when it changed, here, so an
    // untouched map is not written again.
    let (files, files_host) = files;
    fn changed<T: PartialEq>(a: &Arc<T>, b: &Arc<T>) -> bool {
        !Arc::ptr_eq(a, b) && a != b
    }
    let changed_files = (changed(&files, &run.files) || changed(&files_host, &run.files_host))
        .then(|| FilesWrite {
            entries: (*files).clone(),
            host: (*files_host).clone(),
        });
    let mut output = ToolOutput::text(content);
    output.files = changed_files;
    output.extra = (!extra.is_empty()).then_some(extra);
    output.command = true;
    if let Some(usage) = usage.filter(|u| u.total_tokens > 0 || u.input_tokens > 0) {
        output
            .response_metadata
            .insert("subagent".into(), json!(subagent.name));
        output.response_metadata.insert(
            "usage_metadata".into(),
            serde_json::to_value(&usage).unwrap_or(Value::Null),
        );
        output.usage = Some(usage);
    }
    Ok(output)
}
