//! deepagents' `FileData`: `{"content", "encoding", "created_at"?, "modified_at"?}`, kept as
//! the JSON object the `files` state key holds, so a state round-trips unchanged.

use serde_json::{Map, Value, json};

/// A stored file's text: the content string, or a legacy list of lines joined with `\n`.
pub fn content(file_data: &Value) -> Result<String, String> {
    match file_data.get("content") {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(lines)) if lines.iter().all(Value::is_string) => Ok(lines
            .iter()
            .map(|l| l.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")),
        other => Err(not_text(py_type_name(other))),
    }
}

/// The byte length of `content` without copying it (`None` when it is not text).
pub fn content_len(file_data: &Value) -> Option<usize> {
    match file_data.get("content") {
        Some(Value::String(s)) => Some(s.len()),
        Some(Value::Array(lines)) => lines
            .iter()
            .try_fold(lines.len().saturating_sub(1), |n, l| {
                l.as_str().map(|l| n + l.len())
            }),
        _ => None,
    }
}

/// The `TypeError` text for content of type `type_name` (neither text nor lines).
pub fn not_text(type_name: &str) -> String {
    format!("File content must be a string or a legacy list of strings, got {type_name}.")
}

fn py_type_name(v: Option<&Value>) -> &'static str {
    match v {
        None | Some(Value::Null) => "NoneType",
        Some(Value::Bool(_)) => "bool",
        Some(Value::Number(n)) if n.is_f64() => "float",
        Some(Value::Number(_)) => "int",
        Some(Value::String(_)) => "str",
        Some(Value::Array(_)) => "list",
        Some(Value::Object(_)) => "dict",
    }
}

pub fn encoding(file_data: &Value) -> &str {
    file_data
        .get("encoding")
        .and_then(Value::as_str)
        .unwrap_or("utf-8")
}

pub fn modified_at(file_data: &Value) -> Option<&str> {
    file_data.get("modified_at").and_then(Value::as_str)
}

/// `create_file_data`: both timestamps now (or the given creation time).
pub fn create(content: String, created_at: Option<String>, encoding: &str) -> Value {
    let now = now_iso();
    json!({
        "content": content,
        "encoding": encoding,
        "created_at": created_at.unwrap_or_else(|| now.clone()),
        "modified_at": now,
    })
}

/// `update_file_data`: new content, same encoding, `created_at` kept only if present.
pub fn update(existing: &Value, content: String) -> Value {
    let mut out = Map::new();
    out.insert("content".into(), Value::String(content));
    out.insert("encoding".into(), Value::String(encoding(existing).into()));
    if let Some(c) = existing.get("created_at") {
        out.insert("created_at".into(), c.clone());
    }
    out.insert("modified_at".into(), Value::String(now_iso()));
    Value::Object(out)
}

/// `_copy_file_data_with_content`: the metadata kept, the content replaced.
pub fn with_content(existing: &Value, content: String) -> Value {
    let mut out = Map::new();
    out.insert("content".into(), Value::String(content));
    out.insert("encoding".into(), Value::String(encoding(existing).into()));
    for key in ["created_at", "modified_at"] {
        if let Some(v) = existing.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// `datetime.now(UTC).isoformat()`: `2026-12-03T12:34:56.789012+00:00`.
pub fn now_iso() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    iso_from_unix(now.as_secs() as i64, now.subsec_micros())
}

pub fn iso_from_unix(secs: i64, micros: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem / 60 % 60, rem % 60);
    if micros == 0 {
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}+00:00")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{micros:06}+00:00")
    }
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_timestamps() {
        assert_eq!(iso_from_unix(0, 0), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            iso_from_unix(1_796_301_296, 5),
            "2026-12-03T12:34:56.000005+00:00"
        );
    }

    #[test]
    fn legacy_content_is_joined() {
        let fd = json!({"content": ["a", "b", ""]});
        assert_eq!(content(&fd).unwrap(), "a\nb\n");
        assert!(
            content(&json!({"content": 3}))
                .unwrap_err()
                .contains("got int")
        );
    }
}
