//! `trim_tokens_to_summarize`: the older history cut to its most recent part within a token
//! budget before it is summarized, as LangChain's `trim_messages(strategy="last",
//! allow_partial=True, start_on="human", include_system=True)` cuts it with the
//! summarization counter (usage scaling on). A message that does not fit whole may keep
//! its last content blocks, or the last lines of its text.

use std::sync::Arc;

use serde_json::Value;

use super::tokens::Counter;
use crate::messages::{Content, Message};

/// The messages to summarize within `max_tokens`, the newest kept.
pub fn trim_last(
    messages: &[Arc<Message>],
    max_tokens: u64,
    counter: &Counter,
) -> Vec<Arc<Message>> {
    if messages.is_empty() {
        return Vec::new();
    }
    let (system, rest) = match &*messages[0] {
        Message::System(_) => (Some(messages[0].clone()), &messages[1..]),
        _ => (None, messages),
    };
    let mut budget = max_tokens;
    if let Some(s) = &system {
        budget = budget.saturating_sub(counter.scaled(std::slice::from_ref(s)));
    }
    let reversed: Vec<Arc<Message>> = rest.iter().rev().cloned().collect();
    let mut kept = first_within(reversed, budget, counter);
    kept.reverse();
    system.into_iter().chain(kept).collect()
}

fn is_human(m: &Message) -> bool {
    matches!(m, Message::Human(_))
}

/// `_first_max_tokens` over the reversed list with the partial strategy "last", ending on a
/// human message (the original list then starts on one).
fn first_within(mut messages: Vec<Arc<Message>>, max: u64, counter: &Counter) -> Vec<Arc<Message>> {
    if counter.scaled(&messages) <= max {
        while messages.last().is_some_and(|m| !is_human(m)) {
            messages.pop();
        }
        return messages;
    }
    let (mut left, mut right) = (0usize, messages.len());
    let iterations = usize::BITS - messages.len().leading_zeros();
    for _ in 0..iterations {
        if left >= right {
            break;
        }
        let mid = (left + right).div_ceil(2);
        if counter.scaled(&messages[..mid]) <= max {
            left = mid;
        } else {
            right = mid - 1;
        }
    }
    let mut idx = left;
    if idx < messages.len()
        && let Some(partial) = partial(&messages[..idx], &messages[idx], max, counter)
    {
        messages.truncate(idx);
        messages.push(Arc::new(partial));
        idx += 1;
    }
    while idx > 0 && !is_human(&messages[idx - 1]) {
        idx -= 1;
    }
    messages.truncate(idx);
    messages
}

/// What of `message` fits after `before`: its last content blocks, or else the last lines
/// of its text (as plain text).
fn partial(
    before: &[Arc<Message>],
    message: &Message,
    max: u64,
    counter: &Counter,
) -> Option<Message> {
    let fits = |m: &Message| {
        let mut list = before.to_vec();
        list.push(Arc::new(m.clone()));
        counter.scaled(&list) <= max
    };
    if let Content::Blocks(blocks) = message.content() {
        // Dropping blocks from the front, one at a time, keeping at least one.
        for drop in 1..blocks.len() {
            let candidate = with_content(message, Content::Blocks(blocks[drop..].to_vec()));
            if fits(&candidate) {
                return Some(candidate);
            }
        }
    }
    let text = match message.content() {
        Content::Text(s) => Some(s.clone()),
        // LangChain looks for text in what its block loop left: the first block alone.
        Content::Blocks(blocks) => blocks.first().and_then(|b| match b {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                o.get("text").and_then(Value::as_str).map(str::to_owned)
            }
            _ => None,
        }),
    }
    .filter(|t| !t.is_empty())?;
    // LangChain's default splitter: lines, each keeping its newline; the last ones kept.
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if text.ends_with('\n') {
        lines.push("");
    }
    lines.reverse();
    let base = counter.scaled(before);
    let (mut left, mut right) = (0usize, lines.len());
    let iterations = usize::BITS - lines.len().leading_zeros();
    let joined = |n: usize| -> String { lines[..n].iter().rev().copied().collect() };
    for _ in 0..iterations {
        if left >= right {
            break;
        }
        let mid = (left + right).div_ceil(2);
        let candidate = Arc::new(with_content(message, Content::Text(joined(mid))));
        if base + counter.scaled(std::slice::from_ref(&candidate)) <= max {
            left = mid;
        } else {
            right = mid - 1;
        }
    }
    (left > 0).then(|| with_content(message, Content::Text(joined(left))))
}

fn with_content(message: &Message, content: Content) -> Message {
    let mut m = message.clone();
    match &mut m {
        Message::System(x) => x.content = content,
        Message::Human(x) => x.content = content,
        Message::Ai(x) => x.content = content,
        Message::Tool(x) => x.content = content,
    }
    m
}
