//! `read_file` on a video while deepagents' `[video]` extra is installed
//! (`_handle_video_read`): `offset` and `limit` are seconds of source, the decoded bytes are
//! capped, the host decodes the window's samples, and the call answers with a short tool
//! message plus a user message carrying the frames (tool messages cannot carry images on
//! every provider). At model-call time those media messages move behind the whole batch of
//! tool results they belong to, as providers require (`_move_media_results_after_tool_results`).

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::error::BoxError;
use crate::files::video::{self, strict_b64decode, window_header};
use crate::messages::{Content, HumanMessage, Message, ToolStatus};
use crate::tools::{HostContext, ToolError, ToolOutput};

/// The `additional_kwargs` key marking a video read's media message.
pub(super) const MEDIA_RESULT: &str = "read_file_media_result";

/// Decodes a video's samples: the host's frame extractor (deepagents' `extract_video_frames`).
pub trait FrameSource: Send + Sync {
    /// The content blocks of `[offset, offset + duration)` sampled at `rate` frames per
    /// second: `Ok(Err(text))` when the extractor refuses the video (the model is told),
    /// `Err` for anything else it raises (the run fails, as deepagents lets it).
    fn extract(
        &self,
        host: HostContext,
        video: Vec<u8>,
        offset: f64,
        duration: f64,
        rate: f64,
    ) -> BoxFuture<'static, Result<Result<Vec<Value>, String>, BoxError>>;

    /// The largest video, decoded, a read extracts frames from (deepagents reads its
    /// `MAX_VIDEO_INPUT_BYTES` when the read happens, so a host may change it). Async: the
    /// host's value is read on a thread of its own, not on the runtime's worker.
    fn max_input(&self) -> BoxFuture<'static, usize> {
        Box::pin(async { video::MAX_INPUT_BYTES })
    }
}

/// The video read of `content` (the backend's base64, or text read as such).
pub(super) async fn read(
    frames: Arc<dyn FrameSource>,
    host: HostContext,
    content: &str,
    path: &str,
    tool_call_id: &str,
    (offset, limit): (i64, i64),
    max_input: usize,
) -> Result<ToolOutput, ToolError> {
    if limit <= 0 {
        return Ok(ToolOutput::error(
            super::texts::READ_VIDEO_LIMIT_ERROR
                .replace("{path}", path)
                .replace("{limit}", &limit.to_string()),
        ));
    }
    let (offset, duration) = ((offset as f64).max(0.0), limit as f64);
    let header = window_header(path, offset, duration, video::SAMPLING_RATE);
    let refuse = |message: String| {
        ToolOutput::error(
            super::texts::READ_VIDEO_ERROR
                .replace("{path}", path)
                .replace("{message}", &message)
                .replace("{header}", &header),
        )
    };
    let bytes = match strict_b64decode(content) {
        Ok(b) => b,
        Err(e) => return Ok(refuse(format!("video bytes are not valid base64 ({e})"))),
    };
    if bytes.len() > max_input {
        return Ok(refuse(format!(
            "video payload exceeds maximum input size of {max_input} bytes"
        )));
    }
    let blocks = match frames
        .extract(host, bytes, offset, duration, video::SAMPLING_RATE)
        .await
        .map_err(ToolError::Fatal)?
    {
        Ok(blocks) => blocks,
        Err(message) => return Ok(refuse(message)),
    };
    let count = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
        .count();
    let label = if count == 1 { "frame" } else { "frames" };
    let mut output = ToolOutput::text(
        super::texts::READ_VIDEO_RESULT
            .replace("{path}", path)
            .replace("{count}", &count.to_string())
            .replace("{frame_label}", label),
    );
    output.status = ToolStatus::Success;
    output.command = true;
    output
        .additional_kwargs
        .insert("read_file_path".into(), json!(path));
    output
        .additional_kwargs
        .insert("read_file_frame_count".into(), json!(count));
    let mut content = Vec::with_capacity(blocks.len() + 1);
    content.push(json!({"type": "text", "text": header}));
    content.extend(blocks);
    let mut kwargs = Map::new();
    kwargs.insert(MEDIA_RESULT.into(), Value::Bool(true));
    kwargs.insert("read_file_path".into(), json!(path));
    kwargs.insert("read_file_tool_call_id".into(), json!(tool_call_id));
    output.write.after.push(Message::Human(HumanMessage {
        content: Content::Blocks(content),
        additional_kwargs: kwargs.into(),
        ..Default::default()
    }));
    Ok(output)
}

/// A video read's media message.
pub(super) fn is_media_result(m: &Message) -> bool {
    matches!(m, Message::Human(h) if h.additional_kwargs.get(MEDIA_RESULT) == Some(&Value::Bool(true)))
}

/// What `media_after_tool_results` tells apart in a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// An AI message that calls tools: the run of results after it is its batch.
    Calls,
    Tool,
    Media,
    Other,
}

fn slot(m: &Message) -> Slot {
    match m {
        Message::Ai(ai) if !ai.tool_calls.is_empty() => Slot::Calls,
        Message::Tool(_) => Slot::Tool,
        m if is_media_result(m) => Slot::Media,
        _ => Slot::Other,
    }
}

/// The order to send a history in: in the run of tool results and media messages after
/// each AI message that calls tools, the tool results first, then the media (providers
/// want a call's whole batch of results before any other message). `None`: as it is.
pub fn media_after_tool_results_order(slots: &[Slot]) -> Option<Vec<usize>> {
    if !slots.contains(&Slot::Media) {
        return None;
    }
    let mut order: Vec<usize> = Vec::with_capacity(slots.len());
    let mut i = 0;
    while i < slots.len() {
        order.push(i);
        i += 1;
        if slots[i - 1] != Slot::Calls {
            continue;
        }
        let end = slots[i..]
            .iter()
            .position(|s| !matches!(s, Slot::Tool | Slot::Media))
            .map_or(slots.len(), |n| i + n);
        order.extend((i..end).filter(|&j| slots[j] == Slot::Tool));
        order.extend((i..end).filter(|&j| slots[j] == Slot::Media));
        i = end;
    }
    order
        .iter()
        .enumerate()
        .any(|(at, &from)| at != from)
        .then_some(order)
}

/// The messages in that order; `None` when nothing moves.
pub(super) fn media_after_tool_results(messages: &[Arc<Message>]) -> Option<Vec<Arc<Message>>> {
    let slots: Vec<Slot> = messages.iter().map(|m| slot(m)).collect();
    let order = media_after_tool_results_order(&slots)?;
    Some(order.into_iter().map(|i| messages[i].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::Slot::*;
    use super::*;

    #[test]
    fn media_go_behind_their_batch_only() {
        let slots = [
            Other, Calls, Tool, Media, Tool, Other, Media, Calls, Media, Tool,
        ];
        let order = media_after_tool_results_order(&slots);
        assert_eq!(order, Some(vec![0, 1, 2, 4, 3, 5, 6, 7, 9, 8]));
        assert_eq!(media_after_tool_results_order(&[Calls, Tool, Media]), None);
        assert_eq!(media_after_tool_results_order(&[Calls, Tool, Tool]), None);
    }
}
