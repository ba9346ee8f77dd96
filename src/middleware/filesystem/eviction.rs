//! Large tool results moved to the filesystem (deepagents' `_intercept_large_tool_result`):
//! a result over `4 * tool_token_limit_before_evict` characters is written to
//! `/large_tool_results/<id>` through the agent's backend, and the model sees a stub with a
//! head-and-tail preview instead.

use std::sync::Arc;

use serde_json::{Value, json};

use super::format::{CHARS_PER_TOKEN, char_len, char_prefix};
use super::texts;
use crate::files::Backend;
use crate::files::backend::{ExecuteResponse, FilesScope};
use crate::files::text::splitlines_keepends;
use crate::messages::{Content, ToolMessage};

/// The tools whose results are never moved to the filesystem: the file tools bound their
/// own output (the list is interface data, held with the texts).
pub const EXCLUDED: &[&str] = texts::TOOLS_EXCLUDED_FROM_EVICTION;

/// `_extract_text_from_message`: the text blocks, joined with `\n`.
pub(crate) fn text_of(content: &Content) -> String {
    match content {
        Content::Text(s) => s.clone(),
        // `content_blocks` reads a bare string in a list as a text block.
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::String(s) => Some(s.as_str()),
                _ if b.get("type").and_then(Value::as_str) == Some("text") => {
                    b.get("text").and_then(Value::as_str)
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// `sanitize_tool_call_id`.
pub(crate) fn sanitize(id: &str) -> String {
    let s = id.replace(['.', '/', '\\'], "_");
    if s.len() > 128 {
        format!("call-{}", crate::files::sha256_hex(id.as_bytes()))
    } else {
        s
    }
}

/// `format_content_with_line_numbers` for a list of lines, numbered from `start`.
pub(crate) fn numbered<S: AsRef<str>>(lines: &[S], start: i64) -> String {
    let mut rows: Vec<(String, &str)> = Vec::new();
    for (n, line) in (start..).zip(lines) {
        let line = line.as_ref();
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        if chars.len() <= texts::MAX_LINE_LENGTH {
            rows.push((n.to_string(), line));
            continue;
        }
        for (chunk, window) in chars.chunks(texts::MAX_LINE_LENGTH).enumerate() {
            let from = window[0].0;
            let to = window.last().map_or(from, |(i, c)| i + c.len_utf8());
            let marker = if chunk == 0 {
                n.to_string()
            } else {
                format!("{n}.{chunk}")
            };
            rows.push((marker, &line[from..to]));
        }
    }
    let width = rows.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(m, l)| format!("{m:>width$}  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `_create_content_preview` and `_preview_note`: the preview text and its note, which
/// names the `subject` (`result`, `content`).
pub(super) fn preview(content: &str, subject: &str) -> (String, String) {
    let (text, omitted, clipped) = content_preview(
        content,
        texts::PREVIEW_HEAD_LINES as i64,
        texts::PREVIEW_TAIL_LINES as i64,
    );
    (text, note(omitted, clipped, subject))
}

/// `_create_content_preview`: the numbered preview (all lines when they fit in `head_n +
/// tail_n`, else the head and tail around the omission marker), whether lines were omitted,
/// and whether a shown line was clipped. Negative counts slice as Python's `lines[:head_n]`
/// and `lines[-tail_n:]` do, as deepagents' preview takes any integer.
pub(crate) fn content_preview(content: &str, head_n: i64, tail_n: i64) -> (String, bool, bool) {
    let lines: Vec<&str> = splitlines_keepends(content)
        .into_iter()
        .map(|l| {
            l.trim_end_matches([
                '\n', '\r', '\u{0b}', '\u{0c}', '\u{1c}', '\u{1d}', '\u{1e}', '\u{85}', '\u{2028}',
                '\u{2029}',
            ])
        })
        .collect();
    let limit = texts::PREVIEW_LINE_CHAR_LIMIT;
    let clip = |shown: &[&str]| -> (Vec<String>, bool) {
        (
            shown
                .iter()
                .map(|l| char_prefix(l, limit).to_owned())
                .collect(),
            shown.iter().any(|l| char_len(l) > limit),
        )
    };
    let len = lines.len() as i64;
    if len <= head_n.saturating_add(tail_n) {
        let (shown, clipped) = clip(&lines);
        return (numbered(&shown, 1), false, clipped);
    }
    let (head, hc) = clip(&lines[..py_index(head_n, len)]);
    // Python's `lines[-0:]` is every line: a zero tail shows them all.
    let (tail, tc) = clip(&lines[py_index(tail_n.saturating_neg(), len)..]);
    let marker = texts::TRUNCATION_MARKER_TEMPLATE.replace(
        "{omitted_lines}",
        &(i128::from(len) - i128::from(head_n) - i128::from(tail_n)).to_string(),
    );
    (
        format!(
            "{}\n{marker}\n{}",
            numbered(&head, 1),
            numbered(&tail, len.saturating_sub(tail_n).saturating_add(1))
        ),
        true,
        hc || tc,
    )
}

/// Where Python's slice bound `i` lands in a sequence of `len` items (a negative bound
/// counts from the end; both clamp to the sequence).
fn py_index(i: i64, len: i64) -> usize {
    let at = if i < 0 { len.saturating_add(i) } else { i };
    at.clamp(0, len) as usize
}

/// `_preview_note`: what the preview shows of the `subject`, and what it lost.
fn note(omitted: bool, clipped: bool, subject: &str) -> String {
    let base = if omitted {
        texts::PREVIEW_NOTE_HEAD_TAIL
    } else {
        texts::PREVIEW_NOTE_PLAIN
    };
    let mut note = base.replace("{subject}", subject);
    let caveats: Vec<&str> = [
        (omitted, texts::PREVIEW_CAVEAT_OMITTED_LINES),
        (clipped, texts::PREVIEW_CAVEAT_CLIPPED_LINES),
    ]
    .into_iter()
    .filter_map(|(applies, c)| applies.then_some(c))
    .collect();
    if !caveats.is_empty() {
        note.push_str(&format!(" ({})", caveats.join("; ")));
    }
    note.push(':');
    note
}

/// The abbreviated call id offload notices show (`_visible_tool_call_id`).
fn visible_id(tool_call_id: &str) -> String {
    if char_len(tool_call_id) > texts::VISIBLE_TOOL_CALL_ID_LIMIT {
        format!(
            "{}...",
            char_prefix(tool_call_id, texts::VISIBLE_TOOL_CALL_ID_LIMIT)
        )
    } else {
        tool_call_id.to_owned()
    }
}

/// `_interpret_capture_output` for an output the sandbox kept at `path`: its status line
/// and preview (as the capture wrapper cut it) in the large-result stub.
pub(super) fn captured_stub(res: &ExecuteResponse, path: &str, tool_call_id: &str) -> String {
    let status = if res.exit_code == Some(0) {
        "succeeded"
    } else {
        "failed"
    };
    let code = res
        .exit_code
        .map_or_else(|| "None".to_owned(), |c| c.to_string());
    let mut status_line = format!("[Command {status} with exit code {code}]");
    if res.truncated {
        status_line.push_str("\n[Output exceeded the capture size limit and was truncated; the saved file is incomplete]");
    }
    texts::TOO_LARGE_TOOL_MSG
        .replace("{tool_call_id}", &visible_id(tool_call_id))
        .replace("{file_path}", path)
        .replace(
            "{preview_note}",
            &note(res.preview_has_truncation_marker, false, "result"),
        )
        .replace(
            "{content_sample}",
            &format!("{status_line}\n{}", res.output),
        )
}

/// `_process_large_message`: the message with its content replaced by a stub when it is
/// too large and the backend took the full text; `None` to keep it as it is.
pub async fn evict(
    message: &ToolMessage,
    token_limit: usize,
    prefix: &str,
    backend: &Arc<dyn Backend>,
    cx: Arc<FilesScope>,
) -> Option<ToolMessage> {
    let text = text_of(&message.content);
    if char_len(&text) <= CHARS_PER_TOKEN * token_limit {
        return None;
    }
    let id = if message.tool_call_id.is_empty() {
        format!(
            "unknown-{}",
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        )
    } else {
        sanitize(&message.tool_call_id)
    };
    let file_path = format!("{prefix}/{id}");
    let written = backend
        .write(cx, file_path.clone(), text.clone())
        .await
        .ok()?;
    if written.error.as_ref().is_some_and(|e| !e.is_empty()) {
        return None;
    }
    let visible = visible_id(&message.tool_call_id);
    let (sample, note) = preview(&text, "result");
    let stub = texts::TOO_LARGE_TOOL_MSG
        .replace("{tool_call_id}", &visible)
        .replace("{file_path}", written.path.as_deref().unwrap_or(&file_path))
        .replace("{preview_note}", &note)
        .replace("{content_sample}", &sample);
    Some(ToolMessage {
        content: with_media(&message.content, stub),
        ..message.clone()
    })
}

/// The stub in place of the text, the other blocks (images, ...) kept after it
/// (`_build_evicted_human_content` and its tool-message twin).
pub(super) fn with_media(content: &Content, stub: String) -> Content {
    match content {
        Content::Text(_) => Content::Text(stub),
        Content::Blocks(blocks) => {
            let media: Vec<Value> = blocks
                .iter()
                .filter(|b| !b.is_string() && b.get("type").and_then(Value::as_str) != Some("text"))
                .cloned()
                .collect();
            if media.is_empty() {
                Content::Text(stub)
            } else {
                let mut out = vec![json!({"type": "text", "text": stub})];
                out.extend(media);
                Content::Blocks(out)
            }
        }
    }
}
