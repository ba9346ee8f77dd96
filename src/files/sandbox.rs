//! The command protocol `BaseSandbox` builds on: the scripts it sends through the sandbox's
//! `execute()` for listing, paged reads, the write preflight and edits, and the parsers that
//! turn their replies into results. The sandbox's own `execute()` and file transfer stay
//! the user's (Python); the Python class sequences the calls.

use base64::Engine;
use serde_json::{Map, Value};

use super::sandbox_scripts as scripts;
use super::sandbox_texts as texts;
use crate::error::Builtin;
use crate::middleware::py_text::{py_rstrip, py_strip};
use crate::pyrepr::truthy;

/// Python's `template.format(**args)` for our templates: `{name}` placeholders and doubled
/// braces; the values are pasted as they are.
pub fn py_format(template: &str, args: &[(&str, &str)]) -> String {
    let pasted: usize = args.iter().map(|(_, value)| value.len()).sum();
    let mut out = String::with_capacity(template.len() + pasted);
    let mut rest = template;
    // Braces are ASCII, so a byte found is a char boundary; a byte scan costs a tenth of
    // a char-by-char `find` on these long scripts.
    while let Some(i) = memchr::memchr2(b'{', b'}', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
        } else if let Some(stripped) = tail.strip_prefix('{')
            && let Some(end) = stripped.find('}')
            && let Some((_, value)) = args.iter().find(|(k, _)| *k == &stripped[..end])
        {
            out.push_str(value);
            rest = &stripped[end + 1..];
        } else {
            // Not a placeholder of ours: kept as written.
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Text as the scripts receive it: its UTF-8 bytes, base64-encoded.
pub fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
}

pub fn ls_cmd(path: &str) -> String {
    py_format(scripts::LS_TEMPLATE, &[("path_b64", &b64(path))])
}

/// The read script for a window already clamped (`normalize_read_bounds`).
pub fn read_cmd(path: &str, file_type: &str, offset: i64, limit: i64) -> String {
    py_format(
        texts::READ_TEMPLATE,
        &[
            ("path_b64", &b64(path)),
            ("file_type", file_type),
            ("offset", &offset.to_string()),
            ("limit", &limit.to_string()),
        ],
    )
}

pub fn write_preflight_cmd(path: &str) -> String {
    py_format(scripts::WRITE_CHECK_TEMPLATE, &[("path_b64", &b64(path))])
}

/// The inline edit: the request as `json.dumps` writes it, base64-encoded on a heredoc.
pub fn edit_inline_cmd(path: &str, old: &str, new: &str, replace_all: bool) -> String {
    let mut request = Map::new();
    request.insert("path".into(), Value::String(path.into()));
    request.insert("old".into(), Value::String(old.into()));
    request.insert("new".into(), Value::String(new.into()));
    request.insert("replace_all".into(), Value::Bool(replace_all));
    let payload = crate::pyrepr::json_dumps(&Value::Object(request), true);
    py_format(scripts::EDIT_TEMPLATE, &[("payload_b64", &b64(&payload))])
}

pub fn edit_tmpfile_cmd(path: &str, old_tmp: &str, new_tmp: &str, replace_all: bool) -> String {
    py_format(
        scripts::EDIT_TMPFILE_TEMPLATE,
        &[
            ("old_path_b64", &b64(old_tmp)),
            ("new_path_b64", &b64(new_tmp)),
            ("target_b64", &b64(path)),
            ("replace_all", if replace_all { "True" } else { "False" }),
        ],
    )
}

pub use crate::pyrepr::py_str;

/// The start of an output that was not the JSON a script prints.
fn bad_reply(output: &str) -> String {
    if output.is_empty() {
        "(empty)".to_owned()
    } else {
        output.chars().take(200).collect()
    }
}

fn subscript<'a>(row: &'a Value, key: &str) -> Result<&'a Value, Builtin> {
    match row {
        Value::Object(o) => o.get(key).ok_or_else(|| Builtin::Key(key.to_owned())),
        Value::String(_) => Err(Builtin::Type(
            "string indices must be integers, not 'str'".into(),
        )),
        Value::Array(_) => Err(Builtin::Type(
            "list indices must be integers or slices, not str".into(),
        )),
        other => {
            let kind = match other {
                Value::Null => "NoneType",
                Value::Bool(_) => "bool",
                Value::Number(n) if n.is_f64() => "float",
                _ => "int",
            };
            Err(Builtin::Type(format!(
                "'{kind}' object is not subscriptable"
            )))
        }
    }
}

/// The listing script's reply: one JSON object per entry (`path`, `is_dir`); an `error`
/// object (the last one wins) fails the listing. Lines that are not JSON are skipped.
pub fn parse_ls(output: &str, path: &str) -> Result<Result<Vec<(Value, Value)>, String>, Builtin> {
    let mut entries = Vec::new();
    let mut failure: Option<Value> = None;
    for line in py_strip(output).split('\n').filter(|l| !l.is_empty()) {
        let Ok(row) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(error) = row.as_object().and_then(|o| o.get("error")) {
            failure = Some(error.clone());
        } else {
            entries.push((
                subscript(&row, "path")?.clone(),
                subscript(&row, "is_dir")?.clone(),
            ));
        }
    }
    Ok(match failure {
        Some(f) => Err(format!("Path '{path}': {}", py_str(&f))),
        None => Ok(entries),
    })
}

/// The read script's reply: the `ReadResult` fields (file data and paging), or the error
/// message of a failed or malformed reply.
pub fn parse_read(output: &str, path: &str) -> Result<Map<String, Value>, String> {
    let output = py_rstrip(output);
    let reply = match serde_json::from_str::<Value>(output) {
        Ok(Value::Object(o)) => o,
        _ => {
            return Err(format!(
                "File '{path}': unexpected server response: {}",
                bad_reply(output)
            ));
        }
    };
    if let Some(error) = reply.get("error") {
        return Err(format!("File '{path}': {}", py_str(error)));
    }
    let Some(content) = reply.get("content") else {
        return Err(format!(
            "File '{path}': unexpected server response: 'content'"
        ));
    };
    let mut file_data = Map::new();
    file_data.insert("content".into(), content.clone());
    file_data.insert(
        "encoding".into(),
        reply
            .get("encoding")
            .cloned()
            .unwrap_or_else(|| "utf-8".into()),
    );
    let mut fields = Map::new();
    fields.insert("file_data".into(), Value::Object(file_data));
    for key in ["total_lines", "start_line", "end_line", "next_offset"] {
        fields.insert(key.into(), reply.get(key).cloned().unwrap_or(Value::Null));
    }
    fields.insert(
        "no_lines_requested".into(),
        Value::Bool(reply.get("no_lines_requested").is_some_and(truthy)),
    );
    Ok(fields)
}

/// The preflight's verdict: `None` when the parent folders are in place, else the error.
pub fn preflight_error(output: &str, exit_code: Option<i64>, path: &str) -> Option<String> {
    if exit_code == Some(0) && !output.contains("Error:") {
        return None;
    }
    let stripped = py_strip(output);
    Some(if stripped.is_empty() {
        format!("Failed to write file '{path}'")
    } else {
        stripped.to_owned()
    })
}

/// The message the model sees for an error code of the edit scripts.
pub fn edit_error(error: &Value, path: &str, old: &str) -> String {
    let code = py_str(error);
    match error
        .as_str()
        .and_then(|e| texts::EDIT_ERRORS.iter().find(|(k, _)| *k == e))
    {
        Some((_, template)) => py_format(template, &[("file_path", path), ("old_string", old)]),
        None => py_format(
            texts::EDIT_ERROR_OTHER,
            &[("file_path", path), ("error", &code)],
        ),
    }
}

/// An edit script's reply (output already right-stripped), decoded: `None` when it is not
/// JSON at all.
pub fn edit_reply(output: &str) -> Option<Value> {
    serde_json::from_str(output).ok()
}

/// What an edit reply means: `Ok(occurrences)` or `Err(message)`.
pub fn edit_outcome(
    reply: Option<&Value>,
    output: &str,
    path: &str,
    old: &str,
) -> Result<Value, String> {
    let Some(Value::Object(reply)) = reply else {
        return Err(format!(
            "Error editing file '{path}': unexpected server response: {}",
            bad_reply(output)
        ));
    };
    if let Some(error) = reply.get("error") {
        return Err(edit_error(error, path, old));
    }
    Ok(reply.get("count").cloned().unwrap_or(Value::from(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_python() {
        assert_eq!(py_format("a {x} {{y}} }}", &[("x", "{1}")]), "a {1} {y} }");
    }

    #[test]
    fn parses_listings_and_reads() {
        let out = "{\"path\": \"/a\", \"is_dir\": false}\nnoise\n{\"error\": \"path_not_found\"}\n";
        assert_eq!(
            parse_ls(out, "/d"),
            Ok(Err("Path '/d': path_not_found".into()))
        );
        assert_eq!(
            parse_ls("7\n", "/d"),
            Err(Builtin::Type("'int' object is not subscriptable".into()))
        );
        assert_eq!(
            parse_read("nope", "/f").unwrap_err(),
            "File '/f': unexpected server response: nope"
        );
        assert_eq!(
            edit_error(&Value::from("string_not_found"), "/f", "x"),
            "Error: String not found in file: 'x'"
        );
    }
}
