//! When to summarize and where to cut: LangChain's `SummarizationMiddleware` rules as
//! deepagents uses them (trigger clauses, the keep policy, and the cutoff that never parts
//! a tool call from its results).

use std::collections::HashSet;
use std::sync::Arc;

use super::counter::{TokenCounter, Tokens};
use crate::error::ModelError;
use crate::messages::Message;
use crate::tools::HostContext;

/// LangChain's `ContextSize`: `("messages", n)`, `("tokens", n)` or `("fraction", f)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    Messages(u64),
    Tokens(u64),
    Fraction(f64),
}

/// One trigger clause: all its thresholds must be met (a dict trigger); a tuple trigger is
/// a clause of one. A list of clauses fires when any does.
pub type Clause = Vec<Size>;

/// What the model tells the policy.
#[derive(Clone, Debug, Default)]
pub struct ModelLimits {
    /// `model.profile["max_input_tokens"]`.
    pub max_input_tokens: Option<u64>,
    /// The model's `ls_provider`, which a reply's reported usage must match to count.
    pub ls_provider: Option<String>,
}

/// `threshold = int(max_input * fraction)`, at least 1.
fn fraction_threshold(max_input: u64, fraction: f64) -> u64 {
    ((max_input as f64 * fraction) as u64).max(1)
}

/// LangChain's providers whose messages another `ls_provider` name traces under.
fn provider_matches(message_provider: &str, ls_provider: Option<&str>) -> bool {
    let Some(ls) = ls_provider else { return false };
    message_provider == ls || (ls == "anthropic-mantle" && message_provider == "anthropic")
}

/// The last AI reply's reported `total_tokens`, when its provider is the model's.
pub(super) fn reported_tokens(messages: &[Arc<Message>], limits: &ModelLimits) -> Option<u64> {
    let ai = messages.iter().rev().find_map(|m| m.as_ai())?;
    let reported = ai.usage_metadata.as_ref()?.total_tokens;
    let provider = ai
        .response_metadata
        .get_str("model_provider")
        .filter(|p| !p.is_empty())?;
    (reported > 0 && provider_matches(&provider, limits.ls_provider.as_deref())).then_some(reported)
}

/// `_should_summarize`.
pub fn should_summarize(
    clauses: &[Clause],
    messages: &[Arc<Message>],
    total_tokens: Tokens,
    limits: &ModelLimits,
) -> bool {
    let over = |threshold: u64| {
        total_tokens >= threshold as Tokens
            || reported_tokens(messages, limits).is_some_and(|r| r >= threshold)
    };
    clauses.iter().any(|clause| {
        clause.iter().all(|size| match *size {
            Size::Messages(n) => messages.len() as u64 >= n,
            Size::Tokens(n) => over(n),
            Size::Fraction(f) => limits
                .max_input_tokens
                .is_some_and(|max| over(fraction_threshold(max, f))),
        })
    })
}

/// `_determine_cutoff_index`: how many of `messages` go into the summary.
pub async fn cutoff(
    keep: Size,
    messages: &[Arc<Message>],
    counter: &dyn TokenCounter,
    limits: &ModelLimits,
    host: &HostContext,
) -> Result<usize, ModelError> {
    let target = match keep {
        Size::Messages(n) => return Ok(safe_cutoff(messages, n as usize)),
        Size::Tokens(n) => n,
        Size::Fraction(f) => match limits.max_input_tokens {
            Some(max) => (max as f64 * f) as u64,
            None => return Ok(safe_cutoff(messages, 20)),
        },
    }
    .max(1) as Tokens;
    if messages.is_empty() || counter.scaled(messages, host).await? <= target {
        return Ok(0);
    }
    // The earliest index whose suffix fits the budget.
    let (mut left, mut right) = (0usize, messages.len());
    let mut candidate = messages.len();
    let iterations = usize::BITS - messages.len().leading_zeros() + 1;
    for _ in 0..iterations {
        if left >= right {
            break;
        }
        let mid = (left + right) / 2;
        if counter.partial(&messages[mid..], host).await? <= target {
            candidate = mid;
            right = mid;
        } else {
            left = mid + 1;
        }
    }
    if candidate == messages.len() {
        candidate = left;
    }
    if candidate >= messages.len() {
        if messages.len() == 1 {
            return Ok(0);
        }
        candidate = messages.len() - 1;
    }
    Ok(safe_point(messages, candidate))
}

/// `_find_safe_cutoff`: keep the last `keep` messages, then make the cut safe.
fn safe_cutoff(messages: &[Arc<Message>], keep: usize) -> usize {
    if messages.len() <= keep {
        return 0;
    }
    safe_point(messages, messages.len() - keep)
}

/// `_find_safe_cutoff_point`: a cut at a tool result moves back to the AI message that
/// asked for it, or, with none, forward past the results.
pub fn safe_point(messages: &[Arc<Message>], cutoff: usize) -> usize {
    if cutoff >= messages.len() || !matches!(&*messages[cutoff], Message::Tool(_)) {
        return cutoff;
    }
    let mut ids = HashSet::new();
    let mut idx = cutoff;
    while let Some(Message::Tool(t)) = messages.get(idx).map(|m| &**m) {
        if !t.tool_call_id.is_empty() {
            ids.insert(t.tool_call_id.as_str());
        }
        idx += 1;
    }
    for i in (0..cutoff).rev() {
        if let Message::Ai(ai) = &*messages[i]
            && ai.tool_calls.iter().any(|c| {
                c.id.as_deref()
                    .is_some_and(|id| !id.is_empty() && ids.contains(id))
            })
        {
            return i;
        }
    }
    idx
}

/// The old tool-call arguments rule (`truncate_args_settings`): when it fires, and which
/// messages it may touch.
#[derive(Clone, Debug)]
pub struct TruncateArgs {
    pub trigger: Size,
    pub keep: Size,
    pub max_length: usize,
    pub truncation_text: String,
}

impl TruncateArgs {
    /// `_should_truncate_args`.
    pub fn fires(&self, messages: &[Arc<Message>], total: Tokens, limits: &ModelLimits) -> bool {
        match self.trigger {
            Size::Messages(n) => messages.len() as u64 >= n,
            Size::Tokens(n) => total >= n as Tokens,
            Size::Fraction(f) => limits
                .max_input_tokens
                .is_some_and(|max| total >= fraction_threshold(max, f) as Tokens),
        }
    }

    /// `_determine_truncate_cutoff_index`: messages before it may be truncated.
    pub async fn cutoff(
        &self,
        messages: &[Arc<Message>],
        counter: &dyn TokenCounter,
        limits: &ModelLimits,
        host: &HostContext,
    ) -> Result<usize, ModelError> {
        let keep_last = |n: usize| messages.len().saturating_sub(n);
        let target = match self.keep {
            Size::Messages(n) => return Ok(keep_last(n as usize)),
            Size::Tokens(n) => n,
            Size::Fraction(f) => match limits.max_input_tokens {
                Some(max) => (max as f64 * f) as u64,
                None => return Ok(keep_last(20)),
            },
        }
        .max(1) as Tokens;
        let mut kept = 0.0;
        for i in (0..messages.len()).rev() {
            let tokens = counter.partial(&messages[i..=i], host).await?;
            if kept + tokens > target {
                return Ok(i + 1);
            }
            kept += tokens;
        }
        Ok(0)
    }
}
