//! `trim_tokens_to_summarize`: the older history cut to its most recent part within a token
//! budget before it is summarized, as LangChain's `trim_messages(strategy="last",
//! allow_partial=True, start_on="human", include_system=True)` cuts it with the
//! summarization counter (usage scaling on). A message that does not fit whole may keep
//! its last content blocks, or the last lines of its text.

use std::sync::Arc;

use serde_json::Value;

use super::counter::{TokenCounter, Tokens};
use crate::error::ModelError;
use crate::messages::{Content, Message};
use crate::tools::HostContext;

/// Counts with one counter and one host, the trimming's only measure.
struct Measure<'a> {
    counter: &'a dyn TokenCounter,
    host: &'a HostContext,
}

impl Measure<'_> {
    async fn of(&self, messages: &[Arc<Message>]) -> Result<Tokens, ModelError> {
        self.counter.scaled(messages, self.host).await
    }
}

/// The messages to summarize within `max_tokens`, the newest kept. A counter that fails
/// fails the trimming (the caller then summarizes the last messages, as LangChain does).
pub async fn trim_last(
    messages: &[Arc<Message>],
    max_tokens: u64,
    counter: &dyn TokenCounter,
    host: &HostContext,
) -> Result<Vec<Arc<Message>>, ModelError> {
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    let measure = Measure { counter, host };
    let (system, rest) = match &*messages[0] {
        Message::System(_) => (Some(messages[0].clone()), &messages[1..]),
        _ => (None, messages),
    };
    let mut budget = max_tokens as Tokens;
    if let Some(s) = &system {
        budget = (budget - measure.of(std::slice::from_ref(s)).await?).max(0.0);
    }
    let reversed: Vec<Arc<Message>> = rest.iter().rev().cloned().collect();
    let mut kept = first_within(reversed, budget, &measure).await?;
    kept.reverse();
    Ok(system.into_iter().chain(kept).collect())
}

fn is_human(m: &Message) -> bool {
    matches!(m, Message::Human(_))
}

/// `_first_max_tokens` over the reversed list with the partial strategy "last", ending on a
/// human message (the original list then starts on one).
async fn first_within(
    mut messages: Vec<Arc<Message>>,
    max: Tokens,
    measure: &Measure<'_>,
) -> Result<Vec<Arc<Message>>, ModelError> {
    if measure.of(&messages).await? <= max {
        while messages.last().is_some_and(|m| !is_human(m)) {
            messages.pop();
        }
        return Ok(messages);
    }
    let (mut left, mut right) = (0usize, messages.len());
    let iterations = usize::BITS - messages.len().leading_zeros();
    for _ in 0..iterations {
        if left >= right {
            break;
        }
        let mid = (left + right).div_ceil(2);
        if measure.of(&messages[..mid]).await? <= max {
            left = mid;
        } else {
            right = mid - 1;
        }
    }
    let mut idx = left;
    if idx < messages.len()
        && let Some(partial) = partial(&messages[..idx], &messages[idx], max, measure).await?
    {
        messages.truncate(idx);
        messages.push(Arc::new(partial));
        idx += 1;
    }
    while idx > 0 && !is_human(&messages[idx - 1]) {
        idx -= 1;
    }
    messages.truncate(idx);
    Ok(messages)
}

/// What of `message` fits after `before`: its last content blocks, or else the last lines
/// of its text (as plain text). The counter is shown what LangChain shows it: the blocks,
/// and the lines, in reverse order (LangChain works on the reversed lists and turns the
/// result back only once it fits).
async fn partial(
    before: &[Arc<Message>],
    message: &Message,
    max: Tokens,
    measure: &Measure<'_>,
) -> Result<Option<Message>, ModelError> {
    if let Content::Blocks(blocks) = message.content() {
        // Dropping blocks from the front, one at a time, keeping at least one.
        for drop in 1..blocks.len() {
            let shown = blocks[drop..].iter().rev().cloned().collect();
            let mut list = before.to_vec();
            list.push(Arc::new(message.with_content(Content::Blocks(shown))));
            if measure.of(&list).await? <= max {
                return Ok(Some(
                    message.with_content(Content::Blocks(blocks[drop..].to_vec())),
                ));
            }
        }
    }
    let text = match message.content() {
        Content::Text(s) => Some(s.clone()),
        // LangChain looks for text in what its block loop left: the last block alone.
        Content::Blocks(blocks) => blocks.last().and_then(|b| match b {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                o.get("text").and_then(Value::as_str).map(str::to_owned)
            }
            _ => None,
        }),
    }
    .filter(|t| !t.is_empty());
    let Some(text) = text else { return Ok(None) };
    // LangChain's default splitter: lines, each keeping its newline; the last ones kept.
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if text.ends_with('\n') {
        lines.push("");
    }
    lines.reverse();
    let base = measure.of(before).await?;
    let (mut left, mut right) = (0usize, lines.len());
    let iterations = usize::BITS - lines.len().leading_zeros();
    for _ in 0..iterations {
        if left >= right {
            break;
        }
        let mid = (left + right).div_ceil(2);
        let shown = Arc::new(message.with_content(Content::Text(lines[..mid].concat())));
        if base + measure.of(std::slice::from_ref(&shown)).await? <= max {
            left = mid;
        } else {
            right = mid - 1;
        }
    }
    let kept = || -> String { lines[..left].iter().rev().copied().collect() };
    Ok((left > 0).then(|| message.with_content(Content::Text(kept()))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::AiMessage;
    use crate::summarization::tokens::Counter;
    use serde_json::json;

    #[test]
    fn a_message_that_does_not_fit_keeps_the_last_lines_of_its_last_block() {
        // LangChain's `trim_messages` (strategy "last", partial) with the summarization
        // counter, on the same two messages, keeps lines 35 to 49 of the second block.
        let lines: Vec<String> = (0..50).map(|i| format!("line {i}")).collect();
        let brief = Message::human(Content::Blocks(vec![
            json!({"type": "text", "text": "x".repeat(400)}),
            json!({"type": "text", "text": lines.join("\n")}),
        ]));
        let reply = Message::Ai(AiMessage {
            content: Content::Text("ok".into()),
            ..Default::default()
        });
        let messages = [Arc::new(brief), Arc::new(reply)];
        let kept = futures::executor::block_on(trim_last(&messages, 40, &Counter::new(4.0), &None))
            .unwrap();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].content(), &Content::Text(lines[35..].join("\n")));
    }
}
