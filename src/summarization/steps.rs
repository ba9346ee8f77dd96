//! Each step of a summarization on its own, for a caller that runs the steps itself: the
//! Python face's private methods (`_determine_cutoff_index`, `_create_summary`,
//! `_offload_to_backend`, `_offload_inline_media`, `_count_tokens`, the compact tool's
//! eligibility), which deepagents' callers may call or replace one by one. Each is the
//! same function the entry and the core tool run.

use std::sync::Arc;

use super::counter::Tokens;
use super::middleware::Summarization;
use super::policy::{self, Clause};
use super::summary::Target;
use super::{compact, media};
use crate::error::ModelError;
use crate::events::NodeTrace;
use crate::files::backend::{Backend, FilesScope};
use crate::messages::Message;
use crate::model::{ChatModel, RequestParts};
use crate::tools::HostContext;

impl Summarization {
    /// `_determine_cutoff_index`: how many of `messages` the keep policy summarizes.
    pub async fn cutoff_of(
        &self,
        messages: &[Arc<Message>],
        host: &HostContext,
    ) -> Result<usize, ModelError> {
        let inner = self.inner();
        let cfg = &inner.config;
        policy::cutoff(cfg.keep, messages, &*inner.counter, &cfg.limits, host).await
    }

    /// `_create_summary`: the summary text of `messages`, asked of the entry's summarizer
    /// (or `model` when it has none of its own).
    pub async fn summary_of(
        &self,
        messages: &[Arc<Message>],
        model: Arc<dyn ChatModel>,
        host: HostContext,
        trace: Option<NodeTrace>,
    ) -> Result<String, ModelError> {
        let target = Target {
            model,
            host,
            state: Default::default(),
            trace,
        };
        self.inner().own_summary(&target, messages).await
    }

    /// `_offload_to_backend`: `messages` appended to the session's history file on
    /// `backend` (the entry's own when `None`); the path, or `None` when it failed.
    pub async fn offload_history(
        &self,
        messages: &[Arc<Message>],
        session: &str,
        backend: Option<Arc<dyn Backend>>,
        scope: Arc<FilesScope>,
    ) -> Option<String> {
        let inner = self.inner();
        let backend = backend.unwrap_or_else(|| inner.config.backend.clone());
        inner.offload(messages, session, &backend, scope).await
    }

    /// `_offload_inline_media`: `messages` with their inline media stored on `backend` (the
    /// entry's own when `None`) and referenced by path, and how many blocks failed; the
    /// exception LangChain raises on a message it cannot read.
    pub async fn offload_media(
        &self,
        messages: &[Arc<Message>],
        backend: Option<Arc<dyn Backend>>,
        scope: Arc<FilesScope>,
    ) -> Result<(Vec<Arc<Message>>, usize), crate::error::Builtin> {
        let inner = self.inner();
        let backend = backend.unwrap_or_else(|| inner.config.backend.clone());
        let prefix = format!("{}/media", inner.config.history_prefix);
        media::offload(messages, &backend, &prefix, scope).await
    }

    /// `_count_tokens`: the system message, messages and tools, as counted before a call.
    pub async fn count_request(
        &self,
        parts: RequestParts<'_>,
        host: &HostContext,
    ) -> Result<Tokens, ModelError> {
        self.inner().counter.request(parts, host).await
    }

    /// `_is_eligible_for_compaction` for `count` messages whose last AI reply is `last_ai`,
    /// against `clauses` (the trigger as the caller holds it).
    pub fn compact_eligible(
        &self,
        clauses: &[Clause],
        count: usize,
        last_ai: Option<Arc<Message>>,
    ) -> bool {
        let inner = self.inner();
        let limits = &inner.config.limits;
        let reported = last_ai.and_then(|m| policy::reported_tokens(&[m], limits));
        compact::eligible(clauses, limits, count, reported)
    }
}
