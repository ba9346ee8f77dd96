//! deepagents' overflow tail clipping (`_overflow_clip.py`): after the provider said the
//! prompt is too long, or when it is over the input budget, the tool results the request
//! ends with are made small. A `read_file` result keeps its first 4,000 characters and
//! points back at its file; any other result goes to `large_tool_results/` as an evicted
//! result does. The replacements keep their ids, so writing them to the state replaces the
//! originals.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::counter::TokenCounter;
use crate::error::ModelError;
use crate::files::backend::{Backend, FilesScope};
use crate::messages::{Content, Message, ToolCall, ToolMessage};
use crate::middleware::filesystem::eviction::{evict, text_of};
use crate::tools::HostContext;

const READ_FILE_HEAD: usize = 4_000;

fn read_file_notice(path: &str) -> String {
    format!(
        "\n\n[Output was truncated due to context window size limits. The full content is at {path}. Use read_file with offset and limit parameters to retrieve specific portions. For example, to read the first 100 lines, call read_file with file_path='{path}', offset=0, limit=100.]"
    )
}

/// The request's messages with their trailing tool results clipped, and the clipped results
/// to write to the state (empty when nothing was clipped). The results are clipped only when
/// the counter gives them at least one token (deepagents' threshold for this call): always
/// with the built-in counter, not always with a user's.
pub async fn clip_tail(
    messages: &[Arc<Message>],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    (counter, host): (&dyn TokenCounter, &HostContext),
    scope: Arc<FilesScope>,
) -> Result<(Vec<Arc<Message>>, Vec<Message>), ModelError> {
    let start = messages
        .iter()
        .rposition(|m| !matches!(&**m, Message::Tool(_)))
        .map_or(0, |i| i + 1);
    if start == messages.len() || counter.scaled(&messages[start..], host).await? < 1.0 {
        return Ok((messages.to_vec(), Vec::new()));
    }
    let calls: HashMap<&str, &ToolCall> = messages
        .iter()
        .filter_map(|m| m.as_ai())
        .flat_map(|ai| ai.tool_calls.iter())
        .filter_map(|c| {
            c.id.as_deref()
                .filter(|id| !id.is_empty())
                .map(|id| (id, c))
        })
        .collect();
    let mut out = messages[..start].to_vec();
    let mut replaced = Vec::new();
    for m in &messages[start..] {
        let Message::Tool(tool) = &**m else {
            continue;
        };
        let clipped = match read_file_path(tool, &calls) {
            Some(path) => {
                let head: String = text_of(&tool.content)
                    .chars()
                    .take(READ_FILE_HEAD)
                    .collect();
                Some(ToolMessage {
                    content: Content::Text(head + &read_file_notice(&path)),
                    ..tool.clone()
                })
            }
            None => evict(tool, 0, prefix, backend, scope.clone()).await,
        };
        match clipped {
            Some(mut c) => {
                c.id.get_or_insert_with(crate::run::new_id);
                let c = Message::Tool(c);
                out.push(Arc::new(c.clone()));
                replaced.push(c);
            }
            None => out.push(m.clone()),
        }
    }
    if replaced.is_empty() {
        return Ok((messages.to_vec(), Vec::new()));
    }
    Ok((out, replaced))
}

/// The `file_path` a `read_file` result came from.
fn read_file_path(tool: &ToolMessage, calls: &HashMap<&str, &ToolCall>) -> Option<String> {
    let call = calls.get(tool.tool_call_id.as_str())?;
    if call.name != "read_file" {
        return None;
    }
    call.args
        .get("file_path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
}
