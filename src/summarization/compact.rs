//! deepagents' `SummarizationToolMiddleware`: the `compact_conversation` tool, with which
//! the model compacts the conversation itself (once it is at least half way to a trigger),
//! and the entry that offers it and adds its system-prompt text.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::event::{self, EVENT_KEY, Event, SESSION_KEY};
use super::middleware::{Inner, Summarization};
use super::policy::{self, Clause, ModelLimits, Size};
use super::summary::Target;
use super::texts;
use crate::error::{Error, ModelError};
use crate::files::backend::FilesScope;
use crate::host::Opaque;
use crate::messages::Message;
use crate::middleware::system_prompt::append_to_system;
use crate::middleware::{Middleware, ModelHandler, ModelResponse};
use crate::model::ModelRequest;
use crate::tools::{Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

/// The entry: the tool over a summarization's settings, and an optional prompt text.
pub struct SummarizationTool {
    tool: Arc<dyn Tool>,
    system_prompt: Option<String>,
}

impl SummarizationTool {
    pub fn new(summarization: &Summarization, system_prompt: Option<String>) -> Self {
        SummarizationTool {
            tool: Arc::new(CompactTool {
                inner: summarization.inner(),
                spec: ToolSpec {
                    name: "compact_conversation".into(),
                    description: texts::COMPACT_DESCRIPTION.into(),
                    parameters: json!({"properties": {}, "type": "object"}),
                    provider_definition: None,
                    json_spec: false,
                    json_dict: None,
                    defer_loading: false,
                },
            }),
            system_prompt,
        }
    }
}

impl Middleware for SummarizationTool {
    fn name(&self) -> &str {
        "SummarizationToolMiddleware"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![self.tool.clone()]
    }

    fn wraps_model_call(&self) -> bool {
        self.system_prompt.is_some()
    }

    fn wrap_model_call(
        &self,
        mut request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        if let Some(text) = &self.system_prompt {
            request.system = Some(append_to_system(request.system.take(), text));
        }
        next.call(request)
    }
}

struct CompactTool {
    inner: Arc<Inner>,
    spec: ToolSpec,
}

/// `_compact_threshold`: half of a trigger value, at least 1.
fn half(value: f64) -> u64 {
    ((value * 0.5) as u64).max(1)
}

/// One conversation the compact tool works on: the run's history and state keys, and the
/// model, host and trace its summary call goes with.
struct CompactRun {
    messages: Vec<Arc<Message>>,
    extra: crate::state::Extra,
    files: crate::state::FilesSnapshot,
    model: Arc<dyn crate::model::ChatModel>,
    host: crate::tools::HostContext,
    trace: Option<crate::events::NodeTrace>,
}

/// `_is_eligible_for_compaction`: some trigger clause half met by `count` messages, the
/// token kinds by the last reply's `reported` usage only.
pub(super) fn eligible(
    clauses: &[Clause],
    limits: &ModelLimits,
    count: usize,
    reported: Option<u64>,
) -> bool {
    clauses.iter().any(|clause| {
        clause.iter().all(|size| match *size {
            Size::Messages(n) => count as u64 >= half(n as f64),
            Size::Tokens(n) => reported.is_some_and(|r| r >= half(n as f64)),
            Size::Fraction(f) => match limits.max_input_tokens {
                Some(max) => reported.is_some_and(|r| r >= half(max as f64 * f)),
                None => false,
            },
        })
    })
}

/// The tool's result; a failing token counter fails the tool (deepagents asks it outside
/// the part whose errors become the tool's answer).
async fn compact(inner: &Inner, run: CompactRun) -> Result<ToolOutput, ModelError> {
    let messages = run.messages;
    let previous = Event::read(run.extra.get(EVENT_KEY));
    let effective = event::apply(previous.as_ref(), &messages);
    let cfg = &inner.config;
    let reported = policy::reported_tokens(&effective, &cfg.limits);
    if !eligible(&cfg.trigger, &cfg.limits, effective.len(), reported) {
        return Ok(ToolOutput::text(texts::NOTHING_TO_COMPACT));
    }
    let counter = &*inner.counter;
    let cutoff = policy::cutoff(cfg.keep, &effective, counter, &cfg.limits, &run.host).await?;
    if cutoff == 0 {
        return Ok(ToolOutput::text(texts::NOTHING_TO_COMPACT));
    }
    let session = event::session_id(&run.extra);
    let older = &effective[..cutoff];
    let target = Target {
        model: run.model,
        host: run.host.clone(),
        state: Default::default(),
        // The tool's own run: the summary call is reported inside it.
        trace: run.trace,
    };
    let summary = match inner.summarize(&target, older).await {
        Ok(s) => s,
        Err(e) => {
            let failed = texts::COMPACT_FAILED.replace("{error}", &describe(&e));
            return Ok(ToolOutput::text(failed));
        }
    };
    let scope = FilesScope::new(run.files, run.host);
    let file_path = inner
        .offload(older, &session, &cfg.backend, scope.clone())
        .await;
    let new_event = Event {
        cutoff_index: event::state_cutoff(previous.as_ref(), cutoff),
        summary: Arc::new(event::summary_message(&summary, file_path.as_deref())),
        file_path,
        created_at_index: Some(messages.len()),
    };
    let mut extra = crate::state::Extra::new();
    extra.insert(EVENT_KEY.into(), new_event.to_opaque());
    extra.insert(SESSION_KEY.into(), Opaque::Json(json!(session)));
    Ok(ToolOutput {
        extra: Some(extra),
        files: scope.take_update(),
        command: true,
        ..ToolOutput::text(texts::COMPACTED.replace("{n}", &older.len().to_string()))
    })
}

/// `{type(exc).__name__}: {exc}` of a failed summary call: a host exception shows itself
/// so; a provider error by its kind.
fn describe(e: &ModelError) -> String {
    match e.host_source() {
        Some(source) => source.to_string(),
        None => e.to_string(),
    }
}

impl Tool for CompactTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(
        &self,
        _args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let tool = CompactTool {
            inner: self.inner.clone(),
            spec: self.spec.clone(),
        };
        Box::pin(async move {
            let run = &ctx.run;
            let input = CompactRun {
                messages: run.history.to_vec(),
                extra: run.extra.clone(),
                files: (run.files.clone(), run.files_host.clone()),
                model: run.agent.model(),
                host: ctx.host.clone(),
                trace: ctx.trace.clone(),
            };
            compact(&tool.inner, input)
                .await
                .map_err(|e| ToolError::Fatal(Box::new(Error::Model(e))))
        })
    }
}
