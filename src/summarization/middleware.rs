//! deepagents' `SummarizationMiddleware` as a chain entry: around each model call it shows
//! the model the summarized conversation, truncates old file-writing arguments, and when a
//! trigger fires (or the provider says the prompt is too long) it saves the older part of
//! the conversation to the backend's history file, asks the model for a summary, and calls
//! the model on `[summary, *kept]`. The raw history stays in state; the event that says
//! where the summary stands goes into state beside it.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::counter::{TokenCounter, Tokens};
use super::event::{self, EVENT_KEY, Event, SESSION_KEY};
use super::gather::gather;
use super::policy::{self, Clause, ModelLimits, Size, TruncateArgs};
use super::summary::Target;
use super::texts;
use super::tokens::Counter;
use super::{media, overflow_clip};
use crate::error::{Error, ModelError};
use crate::files::backend::{Backend, FilesScope};
use crate::host::Opaque;
use crate::messages::Message;
use crate::middleware::{CommandWrite, Middleware, ModelHandler, ModelResponse};
use crate::model::{ChatModel, ModelRequest};
use crate::request_messages::Messages;
use crate::tools::HostContext;

/// The summary prompt, split where the transcript goes (`summary_prompt.format(messages=…)`).
#[derive(Clone, Debug)]
pub struct Prompt {
    pub head: String,
    pub tail: String,
}

impl Default for Prompt {
    fn default() -> Self {
        Prompt {
            head: texts::SUMMARY_PROMPT_HEAD.to_owned(),
            tail: texts::SUMMARY_PROMPT_TAIL.to_owned(),
        }
    }
}

impl Prompt {
    pub(super) fn render(&self, transcript: &str) -> String {
        format!("{}{transcript}{}", self.head, self.tail)
            .trim_end()
            .to_owned()
    }
}

/// What the entry is built from: deepagents' `create_summarization_middleware(model,
/// backend)` settings, with what the binding read of the model.
pub struct SummarizationConfig {
    pub trigger: Vec<Clause>,
    pub keep: Size,
    pub truncate_args: Option<TruncateArgs>,
    pub limits: ModelLimits,
    /// 3.3 for Anthropic's chat models, 4 otherwise (LangChain's tuning of the built-in
    /// counter).
    pub chars_per_token: f64,
    /// The user's own `token_counter`; `None` is the built-in approximate one.
    pub token_counter: Option<Arc<dyn TokenCounter>>,
    /// The model's own `max_tokens`, `max_completion_tokens`, `max_output_tokens`, which a
    /// call's settings override key by key; the largest is reserved for the reply.
    pub output_attrs: Map<String, Value>,
    pub prompt: Prompt,
    pub backend: Arc<dyn Backend>,
    /// `{artifacts_root}/conversation_history`.
    pub history_prefix: String,
    /// `{artifacts_root}/large_tool_results`, where clipped tool results go.
    pub large_tool_results_prefix: String,
    /// `trim_tokens_to_summarize`: the older history is cut to this many tokens (its newest
    /// part) before it is summarized; `None` summarizes all of it.
    pub trim_tokens_to_summarize: Option<u64>,
    /// A `summarizer` model writing the summaries in place of the agent's, and its input
    /// limit (for the overflow retry).
    pub summary_model: Option<(Arc<dyn ChatModel>, Option<u64>)>,
    /// The entry's own model (a user's `SummarizationMiddleware(model=...)`), which writes
    /// the summaries when there is no `summarizer`; `None` is the agent's.
    pub model: Option<Arc<dyn ChatModel>>,
    /// A `summarizer` that is not a chat model (a host function or runnable): it is handed
    /// the messages to summarize and answers the summary text; no prompt is used.
    pub summarizer: Option<Arc<dyn Summarizer>>,
    /// Steps the host replaced on its face, called in place of the entry's own.
    pub replaced: ReplacedSteps,
}

/// deepagents' `_create_summary` and `_offload_to_backend` as a host replaced them on its
/// middleware (a subclass, or a test's patch): the entry's summarization calls them.
#[derive(Clone, Default)]
pub struct ReplacedSteps {
    /// Handed the messages to summarize as they are (no trimming, no prompt).
    pub summary: Option<Arc<dyn Summarizer>>,
    pub offload: Option<Arc<dyn HistoryOffload>>,
}

/// A host's `_offload_to_backend(backend, messages, session_id)`: the history file's path,
/// or `None` when it was not saved.
pub trait HistoryOffload: Send + Sync {
    fn offload(
        &self,
        messages: Vec<Arc<Message>>,
        session: String,
        host: crate::tools::HostContext,
    ) -> futures::future::BoxFuture<'static, Result<Option<String>, ModelError>>;
}

/// A summary written by the host's own code from the messages to summarize.
pub trait Summarizer: Send + Sync {
    fn summarize(
        &self,
        messages: Vec<Arc<Message>>,
        host: crate::tools::HostContext,
        trace: Option<crate::events::NodeTrace>,
    ) -> futures::future::BoxFuture<'static, Result<String, ModelError>>;
}

/// The entry; its settings and counter are shared by every call (and every fork).
#[derive(Clone)]
pub struct Summarization(Arc<Inner>);

pub(super) struct Inner {
    pub(super) config: SummarizationConfig,
    pub(super) counter: Arc<dyn TokenCounter>,
}

impl Summarization {
    pub fn new(config: SummarizationConfig) -> Self {
        let counter = match &config.token_counter {
            Some(own) => own.clone(),
            None => Arc::new(Counter::new(config.chars_per_token)),
        };
        Summarization(Arc::new(Inner { config, counter }))
    }

    pub(super) fn inner(&self) -> Arc<Inner> {
        self.0.clone()
    }
}

/// deepagents' `_is_context_overflow`, for an error that is not typed as one.
pub fn says_context_overflow(text: &str) -> bool {
    let text = text.to_lowercase();
    texts::CONTEXT_OVERFLOW_MARKERS
        .iter()
        .any(|m| text.contains(m))
}

fn still_does_not_fit() -> Error {
    ModelError::ContextOverflow(texts::STILL_DOES_NOT_FIT.into()).into()
}

fn is_overflow(e: &Error) -> bool {
    matches!(e, Error::Model(m) if m.is_context_overflow())
}

/// The response with the files a state backend wrote during the call (the history file,
/// clipped results), which go to the state before the reply.
fn with_files(mut response: ModelResponse, scope: &FilesScope) -> ModelResponse {
    if let Some(files) = scope.take_update() {
        response
            .files_before
            .get_or_insert_with(Default::default)
            .extend(&files);
    }
    response
}

/// What one model call works on, shared by its steps.
struct Call {
    config: Arc<Inner>,
    next: ModelHandler,
}

impl Middleware for Summarization {
    fn name(&self) -> &str {
        "SummarizationMiddleware"
    }

    fn wraps_model_call(&self) -> bool {
        true
    }

    fn wrap_model_call(
        &self,
        request: ModelRequest,
        next: ModelHandler,
    ) -> BoxFuture<'static, Result<ModelResponse, Error>> {
        let call = Call {
            config: self.0.clone(),
            next,
        };
        Box::pin(call.run(request))
    }
}

impl Call {
    fn cfg(&self) -> &SummarizationConfig {
        &self.config.config
    }

    /// `_count_tokens`: the request's system message and tools with `messages`.
    async fn count(
        &self,
        request: &ModelRequest,
        messages: &Messages,
    ) -> Result<Tokens, ModelError> {
        (self.config.counter)
            .request(request.parts_with(messages), &request.host)
            .await
    }

    fn over_budget(&self, request: &ModelRequest, count: Tokens) -> bool {
        self.budget(request).is_some_and(|b| count > b as Tokens)
    }

    /// `_input_budget`: the input limit less 5% and the reply's reserve.
    fn budget(&self, request: &ModelRequest) -> Option<u64> {
        let limit = self.cfg().limits.max_input_tokens?;
        let reserve = ["max_tokens", "max_completion_tokens", "max_output_tokens"]
            .iter()
            .filter_map(|k| {
                request
                    .model_settings
                    .get(*k)
                    .or_else(|| self.cfg().output_attrs.get(*k))
                    .and_then(Value::as_u64)
            })
            .max()
            .unwrap_or(0);
        Some(((limit as f64 * 0.95) as u64).saturating_sub(reserve))
    }

    /// Not an `async fn`: one would keep its `request` twice in its state (the argument and
    /// the body's binding of it), and a `ModelRequest` (~700 bytes) is held this way by every
    /// conversation in flight.
    #[allow(clippy::manual_async_fn)]
    fn run(
        self,
        mut request: ModelRequest,
    ) -> impl Future<Output = Result<ModelResponse, Error>> + Send + 'static {
        async move {
            let previous = Event::read(request.state.extra.get(EVENT_KEY));
            let raw = std::mem::take(&mut request.messages);
            let raw_len = raw.len();
            // Without an event the model sees the raw messages: shared, not copied (a copy is a
            // count increment per message, thousands in a long conversation or a fork of one).
            let effective: Messages = match &previous {
                None => raw,
                Some(_) => event::apply(previous.as_ref(), &raw).into(),
            };
            let mut total = self.count(&request, &effective).await?;
            let (messages, truncated) = self.truncate_args(effective, total, &request.host).await?;
            if truncated {
                total = self.count(&request, &messages).await?;
            }
            let limits = &self.cfg().limits;
            let should = policy::should_summarize(&self.cfg().trigger, &messages, total, limits)
                || self.over_budget(&request, total);
            let mut overflow = None;
            if !should {
                let mut plain = request.clone();
                plain.messages = messages.clone();
                match self.next.call(plain).await {
                    Err(e) if is_overflow(&e) => overflow = Some(e),
                    other => return other,
                }
            }
            // Boxed: the summarizing path (offload, a summary call, a retry with a budget) is a
            // future several KB large, and inline it would size every call's state, held by
            // each conversation in flight, for a path most calls never take.
            Box::pin(self.summarized_call(request, messages, previous, raw_len, overflow)).await
        }
    }

    /// The call once the messages should be summarized (or the model found them too long):
    /// the older ones offloaded and summarized, the call made with the summary and the kept
    /// ones.
    async fn summarized_call(
        &self,
        mut request: ModelRequest,
        messages: Messages,
        previous: Option<Event>,
        raw_len: usize,
        overflow: Option<Error>,
    ) -> Result<ModelResponse, Error> {
        let limits = &self.cfg().limits;
        let scope = FilesScope::new(
            (
                request.state.files.clone(),
                request.state.files_host.clone(),
            ),
            request.host.clone(),
        );
        let counter = &*self.config.counter;
        let cutoff =
            policy::cutoff(self.cfg().keep, &messages, counter, limits, &request.host).await?;
        if cutoff == 0 {
            request.messages = messages;
            let (mut response, replaced) = self
                .call_with_budget(request, overflow, None, scope.clone())
                .await?;
            if !replaced.is_empty() {
                response.commands.push(CommandWrite {
                    messages: replaced,
                    ..Default::default()
                });
            }
            return Ok(with_files(response, &scope));
        }
        let (older, kept) = messages.split_at(cutoff);
        // Inline media go to the backend first, so that both the history file and the
        // summary prompt see them by path (the state keeps the raw messages).
        let media_prefix = format!("{}/media", self.cfg().history_prefix);
        let (older, failed_media) =
            media::offload(older, &self.cfg().backend, &media_prefix, scope.clone())
                .await
                .map_err(Error::Builtin)?;
        let older = &older[..];
        let session = event::session_id(&request.state.extra);
        let offload = async {
            match &self.cfg().replaced.offload {
                Some(own) => (own.offload(older.to_vec(), session.clone(), request.host.clone()))
                    .await
                    .map_err(Error::Model),
                None => Ok(self
                    .config
                    .offload(older, &session, &self.cfg().backend, scope.clone())
                    .await),
            }
        };
        let target = Target {
            model: request.model.clone(),
            host: request.host.clone(),
            state: request.state.clone(),
            trace: request.trace.clone(),
        };
        let (file_path, summary) = if crate::host::is_async(&request.host) {
            // deepagents' async path writes the history and asks for the summary at once
            // (`asyncio.gather`), and warns only when both are done.
            let summary = async { Ok(self.config.summarize(&target, older).await?) };
            let (file_path, summary) = gather(offload, summary).await?;
            offload_warning(file_path.as_deref(), failed_media, &request.host).await?;
            (file_path, summary)
        } else {
            // The sync path warns before the summary is asked for (a warning made an error
            // stops the run there).
            let file_path = offload.await?;
            offload_warning(file_path.as_deref(), failed_media, &request.host).await?;
            (file_path, self.config.summarize(&target, older).await?)
        };
        let summary = Arc::new(event::summary_message(&summary, file_path.as_deref()));
        let new_event = Event {
            cutoff_index: event::state_cutoff(previous.as_ref(), cutoff),
            summary: summary.clone(),
            file_path,
            created_at_index: Some(raw_len),
        };
        let mut rejected = request.clone();
        rejected.messages = messages.clone();
        let mut summarized = request;
        summarized.messages = std::iter::once(summary)
            .chain(kept.iter().map(event::drop_bound_reasoning))
            .collect();
        let (mut response, replaced) = self
            .call_with_budget(summarized, overflow, Some(rejected), scope.clone())
            .await?;
        let mut extra = crate::state::Extra::new();
        extra.insert(EVENT_KEY.into(), new_event.to_opaque());
        extra.insert(SESSION_KEY.into(), Opaque::Json(json!(session)));
        response.commands.push(CommandWrite {
            extra,
            messages: replaced,
            ..Default::default()
        });
        Ok(with_files(response, &scope))
    }

    /// `_truncate_args`: long string arguments of old `write_file`/`edit_file` calls cut
    /// short in what the model sees (the state keeps them).
    async fn truncate_args(
        &self,
        messages: Messages,
        total: Tokens,
        host: &HostContext,
    ) -> Result<(Messages, bool), ModelError> {
        let Some(rule) = &self.cfg().truncate_args else {
            return Ok((messages, false));
        };
        let limits = &self.cfg().limits;
        if !rule.fires(&messages, total, limits) {
            return Ok((messages, false));
        }
        let counter = &*self.config.counter;
        let cutoff = rule.cutoff(&messages, counter, limits, host).await?;
        if cutoff >= messages.len() {
            return Ok((messages, false));
        }
        let mut changed = false;
        let out = messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let Message::Ai(ai) = &**m else {
                    return m.clone();
                };
                if i >= cutoff || ai.tool_calls.is_empty() {
                    return m.clone();
                }
                let mut copy = ai.clone();
                let mut touched = false;
                for call in &mut copy.tool_calls {
                    if !matches!(call.name.as_str(), "write_file" | "edit_file") {
                        continue;
                    }
                    if let Value::Object(args) = &mut call.args {
                        for v in args.values_mut() {
                            if let Value::String(s) = v
                                && s.chars().count() > rule.max_length
                            {
                                let head: String = s.chars().take(20).collect();
                                *s = format!("{head}{}", rule.truncation_text);
                                touched = true;
                            }
                        }
                    }
                }
                if touched {
                    changed = true;
                    Arc::new(Message::Ai(copy))
                } else {
                    m.clone()
                }
            })
            .collect();
        Ok((out, changed))
    }

    /// `_call_with_budget`: the call made only if it fits the budget (its trailing tool
    /// results clipped first when it does not, or after a context-window error), and after
    /// such an error tried once more only if the request got smaller. The clipped results
    /// come back to be written to the state.
    async fn call_with_budget(
        &self,
        mut request: ModelRequest,
        error: Option<Error>,
        rejected: Option<ModelRequest>,
        scope: Arc<FilesScope>,
    ) -> Result<(ModelResponse, Vec<Message>), Error> {
        let over = error.is_none()
            && self.budget(&request).is_some()
            && self.over_budget(&request, self.count(&request, &request.messages).await?);
        let mut replaced = Vec::new();
        if error.is_some() || over {
            let original = rejected.unwrap_or_else(|| request.clone());
            let (messages, clipped) = overflow_clip::clip_tail(
                &request.messages,
                &self.cfg().backend,
                &self.cfg().large_tool_results_prefix,
                (&*self.config.counter, &request.host),
                scope.clone(),
            )
            .await?;
            request.messages = messages.into();
            replaced = clipped;
            // `_check_reduction`: the reduced request first, then the one it replaces.
            let count = self.count(&request, &request.messages).await?;
            if error.is_some() && count >= self.count(&original, &original.messages).await? {
                return Err(still_does_not_fit());
            }
            if self.over_budget(&request, count) {
                return Err(ModelError::ContextOverflow(texts::ABOVE_BUDGET.into()).into());
            }
        }
        match self.next.call(request.clone()).await {
            Ok(response) => Ok((response, replaced)),
            Err(e) if is_overflow(&e) => {
                if error.is_some() || !replaced.is_empty() {
                    return Err(still_does_not_fit());
                }
                Box::pin(self.call_with_budget(request, Some(e), None, scope)).await
            }
            Err(e) => Err(e),
        }
    }
}

/// deepagents logs and warns the user (`warnings.warn`) when the history was not saved, or
/// was saved with media that could not be.
async fn offload_warning(
    file_path: Option<&str>,
    failed_media: usize,
    host: &crate::tools::HostContext,
) -> Result<(), Error> {
    let warning = match file_path {
        None => {
            tracing::error!("{}", texts::OFFLOAD_FAILED);
            texts::OFFLOAD_FAILED.to_owned()
        }
        Some(path) if failed_media > 0 => texts::MEDIA_OFFLOAD_FAILED
            .replace("{file_path}", path)
            .replace("{n}", &failed_media.to_string()),
        Some(_) => return Ok(()),
    };
    // Issued where the run's Python runs: this runs on a tokio worker.
    crate::error::warn_on_host(host, &warning)
        .await
        .map_err(|e| Error::Model(ModelError::host(e)))
}
