//! The token counter summarization measures with: the built-in approximate one
//! (`tokens::Counter`, LangChain's `count_tokens_approximately` with each message measured
//! once) or the host's own (`SummarizationMiddleware(token_counter=...)`).
//!
//! deepagents asks its counter three questions; each is one method here, so a host counter
//! is called with exactly what deepagents hands it. Counts are `f64`: a host counter may
//! answer any number, and Python compares it with the thresholds as it is.

use std::sync::Arc;

use futures::future::BoxFuture;

use crate::error::ModelError;
use crate::messages::Message;
use crate::model::RequestParts;
use crate::tools::HostContext;

/// A token count. The built-in counter's are whole numbers.
pub type Tokens = f64;

/// One count, answered now (the built-in counter) or after a call into the host.
pub type Counting<'a> = BoxFuture<'a, Result<Tokens, ModelError>>;

pub trait TokenCounter: Send + Sync {
    /// The whole request, as deepagents' `_count_tokens` measures it before each model call:
    /// the system message first, then the messages, and the tools' schemas.
    fn request<'a>(&'a self, request: RequestParts<'a>, host: &'a HostContext) -> Counting<'a>;

    /// `token_counter(messages)`: the keep-by-tokens check, the summary's trimming and the
    /// overflow tail's size (usage scaling on, for the built-in counter).
    fn scaled<'a>(&'a self, messages: &'a [Arc<Message>], host: &'a HostContext) -> Counting<'a>;

    /// LangChain's `_partial_token_counter(messages)`: the cutoff search, the argument
    /// truncation's keep and the summary's overflow retry. The built-in counter leaves usage
    /// scaling out; any other counter is the same as `scaled`.
    fn partial<'a>(&'a self, messages: &'a [Arc<Message>], host: &'a HostContext) -> Counting<'a>;
}
