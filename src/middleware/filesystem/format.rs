//! How the file tools render backend results for the model, as deepagents'
//! `FilesystemMiddleware` does. Lengths are counted in characters, as Python's `len`.

use crate::files::backend::{FileInfo, GrepMatch, ReadResult};
use crate::files::path::py_list_repr;
use crate::tools::invocation_error::str_repr;

use super::texts;

/// deepagents' `NUM_CHARS_PER_TOKEN`.
pub const CHARS_PER_TOKEN: usize = 4;
/// `TOOL_RESULT_TOKEN_LIMIT * 4`: the size `truncate_if_too_long` keeps.
const RESULT_CHAR_LIMIT: usize = 20_000 * CHARS_PER_TOKEN;
const TRUNCATION_GUIDANCE: &str =
    "... [results truncated, try being more specific with your parameters]";

pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// The first `n` characters of `s`.
pub fn char_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// `truncate_if_too_long` on a string.
pub fn truncate_text(s: String) -> String {
    if char_len(&s) > RESULT_CHAR_LIMIT {
        let keep = RESULT_CHAR_LIMIT - char_len(TRUNCATION_GUIDANCE) - 1;
        format!("{}\n{TRUNCATION_GUIDANCE}", char_prefix(&s, keep))
    } else {
        s
    }
}

/// `truncate_if_too_long` on a list: items are kept while their reprs fit.
pub fn truncate_list(items: Vec<String>) -> Vec<String> {
    let budget = RESULT_CHAR_LIMIT - char_len(&str_repr(TRUNCATION_GUIDANCE)) - 2;
    let mut used = 0;
    for (kept, item) in items.iter().enumerate() {
        used += char_len(&str_repr(item)) + 2;
        if used > budget {
            let mut out = items[..kept].to_vec();
            out.push(TRUNCATION_GUIDANCE.to_owned());
            return out;
        }
    }
    items
}

/// `_format_file_paths`: `No files found`, or the Python list of paths.
pub fn file_paths(paths: Vec<String>) -> String {
    if paths.is_empty() {
        return texts::NO_FILES_FOUND.to_owned();
    }
    py_list_repr(&truncate_list(paths))
}

/// `_format_glob_tool_result`.
pub fn glob_result(paths: Vec<String>, truncated: bool, reason: Option<&str>) -> String {
    let content = file_paths(paths);
    if !truncated {
        return content;
    }
    let note = if reason == Some("unreadable") {
        texts::GLOB_UNREADABLE_NOTE
    } else {
        texts::GLOB_TRUNCATION_NOTE
    };
    format!("{content}\n\n{note}")
}

pub fn paths_of(infos: &[FileInfo]) -> Vec<String> {
    infos.iter().map(|f| f.path.clone()).collect()
}

/// `format_grep_matches`.
pub fn grep_matches(matches: &[GrepMatch], mode: &str) -> String {
    if matches.is_empty() {
        return texts::NO_MATCHES_FOUND.to_owned();
    }
    let with_context = mode == "content"
        && matches
            .iter()
            .any(|m| m.context_before.is_some() || m.context_after.is_some());
    let mut grouped: std::collections::BTreeMap<&str, Vec<&GrepMatch>> = Default::default();
    for m in matches {
        grouped.entry(m.path.as_str()).or_default().push(m);
    }
    let mut lines: Vec<String> = Vec::new();
    match mode {
        "files_with_matches" => lines.extend(grouped.keys().map(|p| p.to_string())),
        "count" => lines.extend(grouped.iter().map(|(p, ms)| format!("{p}: {}", ms.len()))),
        _ if !with_context => {
            for (path, ms) in &grouped {
                lines.push(format!("{path}:"));
                lines.extend(ms.iter().map(|m| format!("  {}: {}", m.line, m.text)));
            }
        }
        _ => {
            for (path, ms) in &grouped {
                let matching: std::collections::HashSet<u64> = ms.iter().map(|m| m.line).collect();
                let mut shown: std::collections::BTreeMap<u64, &str> = Default::default();
                for m in ms {
                    for c in m.context_before.iter().flatten() {
                        shown.insert(c.line, &c.text);
                    }
                    shown.insert(m.line, &m.text);
                    for c in m.context_after.iter().flatten() {
                        shown.insert(c.line, &c.text);
                    }
                }
                lines.push(format!("{path}:"));
                let mut previous: Option<u64> = None;
                for (line, text) in shown {
                    if previous.is_some_and(|p| line > p + 1) {
                        lines.push("  --".to_owned());
                    }
                    let sep = if matching.contains(&line) { ':' } else { '-' };
                    lines.push(format!("  {line}{sep} {text}"));
                    previous = Some(line);
                }
            }
        }
    }
    lines.join("\n")
}

/// `_looks_like_regex`: `\|`, `.*`, `.+`, or a backslash escape regexes use.
pub fn looks_like_regex(pattern: &str) -> bool {
    if pattern.contains('|') || pattern.contains(".*") || pattern.contains(".+") {
        return true;
    }
    let chars: Vec<char> = pattern.chars().collect();
    chars
        .windows(2)
        .any(|w| w[0] == '\\' && ".wWdDsSbB(){}[]|+*?^$".contains(w[1]))
}

/// `_format_grep_tool_result`: the text and whether it is an error.
pub fn grep_result(
    error: Option<String>,
    matches: &[GrepMatch],
    truncated: bool,
    mode: &str,
    pattern: &str,
    backend_had_matches: bool,
) -> (String, bool) {
    if let Some(e) = &error
        && matches.is_empty()
    {
        return (e.clone(), true);
    }
    let formatted = truncate_text(grep_matches(matches, mode));
    if let Some(e) = error {
        return (
            format!("{}\n\nPartial matches:\n{formatted}", truncate_text(e)),
            true,
        );
    }
    let mut notes = Vec::new();
    if truncated {
        notes.push(texts::GREP_TRUNCATION_NOTE);
    }
    if !truncated && matches.is_empty() && !backend_had_matches && looks_like_regex(pattern) {
        notes.push(texts::REGEX_LITERAL_HINT);
    }
    if notes.is_empty() {
        (formatted, false)
    } else {
        (format!("{formatted}\n\n{}", notes.join("\n\n")), false)
    }
}

/// `_format_execute_output`.
pub fn execute_output(output: &str, exit_code: Option<i64>, truncated: bool) -> String {
    let mut out = output.to_owned();
    if let Some(code) = exit_code {
        let status = if code == 0 { "succeeded" } else { "failed" };
        out.push_str(&format!("\n[Command {status} with exit code {code}]"));
    }
    if truncated {
        out.push_str("\n[Output was truncated due to size limits]");
    }
    out
}

// ---- read_file ------------------------------------------------------------------------

/// `_window_fields`.
fn window_fields(r: &ReadResult) -> Vec<String> {
    let (Some(start), Some(end)) = (r.start_line, r.end_line) else {
        return Vec::new();
    };
    let mut span = format!("lines {start}-{end}");
    if let Some(total) = r.total_lines {
        span.push_str(&format!(" of {total}"));
    }
    let mut fields = vec![span];
    if let Some(next) = r.next_offset
        && r.total_lines.is_none_or(|t| end < t)
    {
        fields.push(format!("next offset {next}"));
    }
    fields
}

/// `_assemble_read`: notices, the `@@ ... @@` header, then the verbatim lines.
fn assemble(body: &str, fields: &[String], notices: &[String]) -> String {
    let mut parts: Vec<String> = notices.to_vec();
    parts.push(format!("@@ {} @@", fields.join(" | ")));
    parts.push(body.to_owned());
    parts.join("\n")
}

/// `_format_source_block` of `_pad_blank_rows`, and the window when the backend gave none
/// (`_prepare_read_window`).
pub fn read_window(mut r: ReadResult, content: &str, offset: i64) -> (ReadResult, String) {
    let mut rows: Vec<&str> = content.split('\n').collect();
    if rows.last() == Some(&"") {
        rows.pop();
    }
    if let (Some(start), Some(end)) = (r.start_line, r.end_line) {
        let missing = (end + 1).saturating_sub(start).saturating_sub(rows.len());
        let mut body = rows.join("\n");
        for _ in 0..missing {
            body.push('\n');
        }
        // Padding rows come after the content's own rows, each joined with `\n`.
        if missing > 0 && rows.is_empty() {
            body.remove(0);
        }
        return (r, body);
    }
    let body = rows.join("\n");
    let start = offset.max(0) as usize + 1;
    r.start_line = Some(start);
    r.end_line = Some(start + body.matches('\n').count());
    (r, body)
}

/// `_truncate_paginated_read`: the whole window, or as many whole lines as fit under the
/// size limit, or the first line cut mid-line.
pub fn paginated_read(
    body: &str,
    file_path: &str,
    r: &ReadResult,
    token_limit: Option<usize>,
    notices: &[String],
) -> String {
    let result = assemble(body, &window_fields(r), notices);
    let Some(limit) = token_limit.filter(|l| *l > 0) else {
        return result;
    };
    let threshold = CHARS_PER_TOKEN * limit;
    if char_len(&result) < threshold {
        return result;
    }
    let truncation_msg = texts::READ_FILE_TRUNCATION_MSG
        .replace("{file_path}", file_path)
        .trim()
        .to_owned();
    let mut all_notices = notices.to_vec();
    all_notices.push(truncation_msg);
    if let (Some(start), Some(end)) = (r.start_line, r.end_line) {
        let mut position = 0;
        let mut byte_position = 0;
        let mut boundaries: Vec<(usize, usize, usize)> = Vec::new();
        for (i, row) in body.split('\n').enumerate() {
            let source_line = start + i;
            if source_line > end {
                break;
            }
            position += char_len(row);
            byte_position += row.len();
            boundaries.push((position, byte_position, source_line));
            position += 1;
            byte_position += 1;
        }
        for &(_, byte_boundary, end_line) in boundaries.iter().rev() {
            let adjusted = ReadResult {
                total_lines: r.total_lines,
                start_line: r.start_line,
                end_line: Some(end_line),
                next_offset: Some(end_line),
                ..Default::default()
            };
            let mut fields = window_fields(&adjusted);
            fields.push("truncated due to size".to_owned());
            let candidate = assemble(&body[..byte_boundary], &fields, &all_notices);
            if char_len(&candidate) <= threshold {
                return candidate;
            }
        }
    }
    midline(body, r, threshold, &all_notices)
}

/// `_midline_truncated_read`: not even one line fits; show the first line's prefix.
fn midline(body: &str, r: &ReadResult, threshold: usize, notices: &[String]) -> String {
    let first = body.split('\n').next().unwrap_or_default();
    let oversized = char_len(first);
    let clipped = ReadResult {
        total_lines: r.total_lines,
        start_line: r.start_line,
        end_line: r.start_line,
        ..Default::default()
    };
    let fields = |shown: usize| {
        let mut f = window_fields(&clipped);
        f.push("truncated mid-line".to_owned());
        f.push(format!("{shown} of {oversized} chars"));
        f
    };
    let reserved = char_len(&assemble("", &fields(oversized), notices));
    let shown = oversized.min(threshold.saturating_sub(reserved));
    assemble(char_prefix(body, shown), &fields(shown), notices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_header() {
        let r = ReadResult {
            start_line: Some(2),
            end_line: Some(2),
            total_lines: Some(3),
            next_offset: Some(2),
            ..Default::default()
        };
        let (r, body) = read_window(r, "line2\n", 1);
        assert_eq!(
            paginated_read(&body, "/f", &r, Some(20000), &[]),
            "@@ lines 2-2 of 3 | next offset 2 @@\nline2"
        );
    }

    #[test]
    fn grep_modes() {
        let m = |p: &str, l: u64| GrepMatch {
            path: p.into(),
            line: l,
            text: "x".into(),
            ..Default::default()
        };
        let ms = vec![m("/b", 1), m("/a", 2), m("/a", 3)];
        assert_eq!(grep_matches(&ms, "files_with_matches"), "/a\n/b");
        assert_eq!(grep_matches(&ms, "count"), "/a: 2\n/b: 1");
        assert_eq!(
            grep_matches(&ms, "content"),
            "/a:\n  2: x\n  3: x\n/b:\n  1: x"
        );
        assert!(looks_like_regex("a|b") && looks_like_regex("\\d") && !looks_like_regex("a.b"));
    }
}
