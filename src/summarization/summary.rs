//! Writing a summary and keeping the history it stands for: shared by the automatic
//! summarization around model calls and the `compact_conversation` tool.

use std::sync::Arc;
use std::time::Duration;

use super::middleware::Inner;
use super::{event, texts, transcript, trim};
use crate::error::{Error, ModelError};
use crate::events::{ModelInfo, NodeTrace, TraceData};
use crate::files::backend::{Backend, FilesScope};
use crate::messages::{AiMessage, Content, Message};
use crate::model::{ChatModel, ModelRequest};
use crate::state::AgentState;
use crate::tools::HostContext;

/// How many of the last messages are summarized when trimming them failed (LangChain's
/// `_DEFAULT_FALLBACK_MESSAGE_COUNT`).
const FALLBACK: usize = 15;

/// Whose model a summary is asked of (when the entry has none of its own), from which run.
pub(super) struct Target {
    pub model: Arc<dyn ChatModel>,
    pub host: HostContext,
    pub state: AgentState,
    /// The run the summary call is reported inside (the model node's, or
    /// `compact_conversation`'s tool run), when traced.
    pub trace: Option<NodeTrace>,
}

impl Inner {
    /// `_offload_to_backend`: appends the summarized messages to the session's history file;
    /// the path, or `None` when the backend refused.
    pub(super) async fn offload(
        &self,
        messages: &[Arc<Message>],
        session: &str,
        backend: &Arc<dyn Backend>,
        scope: Arc<FilesScope>,
    ) -> Option<String> {
        let path = format!("{}/{session}.md", self.config.history_prefix);
        let kept = messages.iter().filter(|m| !event::is_summary(m));
        let section = texts::SECTION
            .replace("{timestamp}", &crate::files::file_data::now_iso())
            .replace("{messages}", &transcript::xml(kept.map(|m| &**m)));
        // deepagents reads the file as it stands; any failure (a missing file, bytes that
        // are not text) starts it afresh.
        let existing = backend
            .download_text(scope.clone(), vec![path.clone()])
            .await
            .ok()
            .and_then(|answers| answers.into_iter().next())
            .filter(|d| d.error.is_none())
            .and_then(|d| d.content)
            .filter(|e| !e.is_empty());
        let outcome = match existing {
            Some(existing) => {
                let combined = format!("{existing}{section}");
                backend
                    .edit(scope, path.clone(), existing, combined, false)
                    .await
                    .map(|r| r.error)
            }
            None => backend
                .write(scope, path.clone(), section)
                .await
                .map(|r| r.error),
        };
        match outcome {
            Ok(None) => Some(path),
            Ok(Some(e)) if e.is_empty() => Some(path),
            Ok(Some(e)) => {
                tracing::warn!("Failed to offload conversation history to {path}: {e}");
                None
            }
            Err(e) => {
                tracing::warn!("Exception offloading conversation history to {path}: {e}");
                None
            }
        }
    }

    /// `_create_summary`: the model asked with the summary prompt alone, retried as
    /// LangChain's `with_retry` retries (three attempts), and once more with the middle of
    /// the transcript left out if the prompt itself is too long.
    pub(super) async fn summarize(
        &self,
        on: &Target,
        messages: &[Arc<Message>],
    ) -> Result<String, ModelError> {
        match &self.config.replaced.summary {
            Some(own) => {
                own.summarize(messages.to_vec(), on.host.clone(), on.trace.clone())
                    .await
            }
            None => self.own_summary(on, messages).await,
        }
    }

    /// The entry's own `_create_summary` (what a host's replacement may call back).
    pub(super) async fn own_summary(
        &self,
        on: &Target,
        messages: &[Arc<Message>],
    ) -> Result<String, ModelError> {
        if messages.is_empty() {
            return Ok(texts::NO_HISTORY.to_owned());
        }
        let trimmed = match self.config.trim_tokens_to_summarize {
            // LangChain summarizes the last messages when the trimming fails (a host counter
            // that raised).
            Some(max) => trim::trim_last(messages, max, &*self.counter, &on.host)
                .await
                .unwrap_or_else(|_| messages[messages.len().saturating_sub(FALLBACK)..].to_vec()),
            None => messages.to_vec(),
        };
        if trimmed.is_empty() {
            return Ok(texts::TOO_LONG_TO_SUMMARIZE.to_owned());
        }
        if let Some(summarizer) = &self.config.summarizer {
            return summarizer
                .summarize(trimmed, on.host.clone(), on.trace.clone())
                .await;
        }
        let transcript = transcript::xml(trimmed.iter().map(|m| &**m));
        let prompt = self.config.prompt.render(&transcript);
        match self.ask(on, prompt).await {
            Err(e) if e.is_context_overflow() => {
                match self.overflow_prompt(&transcript, &on.host).await? {
                    Some(retry) => self.ask(on, retry).await,
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    /// `_overflow_retry_prompt`: head and tail of the transcript within half its tokens
    /// (and 40% of the model's input limit).
    async fn overflow_prompt(
        &self,
        transcript: &str,
        host: &HostContext,
    ) -> Result<Option<String>, ModelError> {
        let as_message = Arc::new(Message::human(transcript));
        let counted = self
            .counter
            .partial(std::slice::from_ref(&as_message), host)
            .await?;
        // Whole tokens, as the built-in counter answers (a host's fraction is cut off).
        let tokens = counted.max(0.0) as u64;
        if counted <= 0.0 {
            return Ok(None);
        }
        let mut budget = tokens / 2;
        let max_input = match &self.config.summary_model {
            Some((_, max)) => *max,
            None => self.config.limits.max_input_tokens,
        };
        if let Some(max) = max_input {
            budget = budget.min(max * 2 / 5);
        }
        let chars: Vec<char> = transcript.chars().collect();
        let keep = (chars.len() as u64 * budget / tokens.max(1)) as usize;
        if keep == 0 {
            return Ok(None);
        }
        let head = keep / 4;
        let tail = keep - head;
        let text: String = chars[..head]
            .iter()
            .chain(std::iter::once(&'\u{0}'))
            .chain(chars[chars.len().saturating_sub(tail)..].iter())
            .collect::<String>()
            .replace('\u{0}', "\n\n[... middle of conversation omitted ...]\n\n");
        Ok(Some(self.config.prompt.render(&text)))
    }

    /// One summary call with LangChain's retries: up to three attempts, waiting about 1 s,
    /// then 2 s (tenacity's exponential jitter), for errors worth retrying. Traced as
    /// LangChain's `with_retry` runs: one chain run around the attempts.
    async fn ask(&self, on: &Target, prompt: String) -> Result<String, ModelError> {
        let model = match (&self.config.summary_model, &self.config.model) {
            (Some((m, _)), _) | (None, Some(m)) => m.clone(),
            (None, None) => on.model.clone(),
        };
        let info = ModelInfo {
            params: model.ls_params(),
        };
        let retry = match &on.trace {
            Some(t) => t
                .tracer
                .internal_call_start(t.run.clone(), model.host_handle(), &info, &prompt)
                .await
                .map(|run| NodeTrace {
                    tracer: t.tracer.clone(),
                    run,
                }),
            None => None,
        };
        let mut outcome = self
            .attempts(&model, &info, on, &prompt, retry.as_ref())
            .await;
        if let Some(r) = retry {
            outcome = match outcome {
                Ok(reply) => {
                    let message = Message::Ai(reply.clone());
                    r.tracer
                        .chain_end(r.run, TraceData::Message(&message))
                        .await;
                    Ok(reply)
                }
                Err(e) => {
                    let e = Error::Model(e);
                    r.tracer.chain_error(r.run, TraceData::Failure(&e)).await;
                    Err(model_error(e))
                }
            };
        }
        outcome.map(|reply| Content::text(&reply.content).trim().to_owned())
    }

    /// The attempts of `ask`, each reported inside the retry run (a model that does not
    /// report itself, a native client, is reported here).
    async fn attempts(
        &self,
        model: &Arc<dyn ChatModel>,
        info: &ModelInfo,
        on: &Target,
        prompt: &str,
        retry: Option<&NodeTrace>,
    ) -> Result<AiMessage, ModelError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let trace = match retry {
                Some(r) => r
                    .tracer
                    .retry_attempt(r.run.clone(), attempt)
                    .await
                    .map(|run| NodeTrace {
                        tracer: r.tracer.clone(),
                        run,
                    }),
                None => None,
            };
            let message = Arc::new(Message::human(prompt));
            let llm = match trace.as_ref().filter(|_| !model.traces_itself()) {
                Some(t) => t
                    .tracer
                    .llm_start(
                        t.run.clone(),
                        info,
                        TraceData::Messages(std::slice::from_ref(&message)),
                    )
                    .await
                    .map(|run| NodeTrace {
                        tracer: t.tracer.clone(),
                        run,
                    }),
                None => None,
            };
            let messages = vec![message].into();
            let call = ModelRequest {
                state: on.state.clone(),
                host: on.host.clone(),
                trace,
                ..ModelRequest::new(model.clone(), None, messages, Arc::from(Vec::new()))
            };
            let mut outcome = model.invoke(call, on.host.clone()).await;
            if let Some(l) = llm {
                outcome = match outcome {
                    Ok(reply) => {
                        let message = Message::Ai(reply.clone());
                        l.tracer.llm_end(l.run, TraceData::Message(&message)).await;
                        Ok(reply)
                    }
                    Err(e) => {
                        let e = Error::Model(e);
                        l.tracer.llm_error(l.run, TraceData::Failure(&e)).await;
                        Err(model_error(e))
                    }
                };
            }
            match outcome {
                Ok(reply) => return Ok(reply),
                Err(e) if attempt < 3 && e.is_retryable() => {
                    let jitter = f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 255.0;
                    let wait = 2f64.powi(attempt as i32 - 1) + jitter;
                    tokio::time::sleep(Duration::from_secs_f64(wait)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// The model error a reported failure was made of (reports take the run's error type).
fn model_error(e: Error) -> ModelError {
    match e {
        Error::Model(e) => e,
        other => ModelError::host(other.to_string().into()),
    }
}
