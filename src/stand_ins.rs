//! Python values JSON has no form for, inside a value the core reads: a `bytes`, and the
//! floats `nan`, `inf` and `-inf` (Python's `json.loads` makes them of `NaN`, `Infinity`,
//! `-Infinity`).
//!
//! Readers must tell them from text where LangChain and deepagents do: LangChain's Gemini
//! readers base64-encode `bytes` and keep text as it is, deepagents' f-string writes `bytes`
//! as its `str()` (`b'...'`), LangChain's token counter measures a block holding them by its
//! `repr`, `json.dumps` writes `NaN`. So each is a string that cannot be text: a mark (a NUL
//! and the kind) then the value (a host's text beginning with a mark is read with its first
//! character replaced, so the two never meet). Every place that turns a value into text
//! (`repr`, `str`, `json.dumps`, truthiness, a type's name) goes through here; the binding
//! turns the string back into the Python value whenever it hands a value back.

use base64::Engine;
use serde_json::Value;

/// What a byte string's stand-in begins with (then the base64 of the bytes).
pub const BYTES_MARK: &str = "\u{0}bytes:";

/// What a non-finite float's stand-in begins with (then `nan`, `inf` or `-inf`).
pub const FLOAT_MARK: &str = "\u{0}float:";

/// Whether a host's text begins as a stand-in does (so must be read otherwise).
pub fn looks_like_one(text: &str) -> bool {
    text.starts_with(BYTES_MARK) || text.starts_with(FLOAT_MARK)
}

/// `isinstance(value, str)`: a string that stands for nothing else.
pub fn is_text(value: &Value) -> bool {
    value.as_str().is_some_and(|s| !looks_like_one(s))
}

/// The stand-in for `bytes`.
pub fn stand_in(raw: &[u8]) -> String {
    let mut out = String::with_capacity(BYTES_MARK.len() + raw.len().div_ceil(3) * 4);
    out.push_str(BYTES_MARK);
    base64::engine::general_purpose::STANDARD.encode_string(raw, &mut out);
    out
}

/// Whether `text` is a bytes stand-in.
pub fn is_bytes(text: &str) -> bool {
    text.starts_with(BYTES_MARK)
}

/// The bytes a stand-in holds; `None` for anything else.
pub fn bytes_of(text: &str) -> Option<Vec<u8>> {
    let encoded = text.strip_prefix(BYTES_MARK)?;
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
}

/// The bytes `value` holds, if it is a bytes stand-in.
pub fn value_bytes(value: &Value) -> Option<Vec<u8>> {
    value.as_str().and_then(bytes_of)
}

/// The base64 text of a stand-in's bytes (what `base64.b64encode(b).decode()` gives).
pub fn base64_of(text: &str) -> Option<&str> {
    text.strip_prefix(BYTES_MARK)
}

/// The stand-in for a float JSON cannot hold (`None` for a finite one).
pub fn float_stand_in(f: f64) -> Option<String> {
    let name = if f.is_nan() {
        "nan"
    } else if f.is_infinite() {
        if f > 0.0 { "inf" } else { "-inf" }
    } else {
        return None;
    };
    Some(format!("{FLOAT_MARK}{name}"))
}

/// The float a stand-in holds; `None` for anything else.
pub fn float_of(text: &str) -> Option<f64> {
    match text.strip_prefix(FLOAT_MARK)? {
        "nan" => Some(f64::NAN),
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Whether a value holds a stand-in anywhere (so the binding has values to put back).
pub fn contains_stand_in(value: &Value) -> bool {
    match value {
        Value::String(s) => is_bytes(s) || float_of(s).is_some(),
        Value::Array(items) => items.iter().any(contains_stand_in),
        Value::Object(map) => map.values().any(contains_stand_in),
        _ => false,
    }
}

/// `repr()` (also `str()`) of a stand-in; `None` for text.
pub fn repr_of(text: &str) -> Option<String> {
    if let Some(f) = float_of(text) {
        return Some(float_repr(f).to_owned());
    }
    let raw = bytes_of(text)?;
    let mut out = String::with_capacity(raw.len() + 3);
    write_bytes_repr(&mut out, &raw);
    Some(out)
}

/// `json.dumps` of a non-finite float stand-in (`NaN`, `Infinity`, `-Infinity`).
pub fn json_of(text: &str) -> Option<&'static str> {
    let f = float_of(text)?;
    Some(if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    })
}

/// The Python type's name of a stand-in.
pub fn type_name(text: &str) -> Option<&'static str> {
    if is_bytes(text) {
        Some("bytes")
    } else {
        float_of(text).map(|_| "float")
    }
}

/// Python's truthiness of a stand-in (`b''` is false, every non-finite float true).
pub fn truthy(text: &str) -> Option<bool> {
    if is_bytes(text) {
        Some(text.len() > BYTES_MARK.len())
    } else {
        float_of(text).map(|_| true)
    }
}

fn float_repr(f: f64) -> &'static str {
    if f.is_nan() {
        "nan"
    } else if f > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// Python's `bytes.__repr__`: single quotes unless the bytes hold a single quote and no
/// double quote; `\t\n\r`, the quote and the backslash escaped, other bytes outside
/// printable ASCII as `\xhh`.
fn write_bytes_repr(out: &mut String, raw: &[u8]) {
    let quote = if raw.contains(&b'\'') && !raw.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push('b');
    out.push(quote as char);
    for &c in raw {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote as char);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_round_trip_and_print_as_python() {
        let s = stand_in(b"a'b\x00\xff\n\\");
        assert!(is_bytes(&s) && looks_like_one(&s));
        assert_eq!(bytes_of(&s).as_deref(), Some(&b"a'b\x00\xff\n\\"[..]));
        assert_eq!(repr_of(&s).as_deref(), Some("b\"a'b\\x00\\xff\\n\\\\\""));
        assert_eq!(repr_of(&stand_in(b"a'\"")).as_deref(), Some("b'a\\'\"'"));
        assert_eq!(repr_of(&stand_in(b"")).as_deref(), Some("b''"));
        assert_eq!(truthy(&stand_in(b"")), Some(false));
        assert_eq!(bytes_of("text"), None);
        let nan = float_stand_in(f64::NAN).unwrap_or_default();
        assert_eq!(repr_of(&nan).as_deref(), Some("nan"));
        assert_eq!(json_of(&nan), Some("NaN"));
        assert_eq!(float_stand_in(1.0), None);
        let inf = float_stand_in(f64::NEG_INFINITY).unwrap_or_default();
        assert_eq!(
            (json_of(&inf), type_name(&inf)),
            (Some("-Infinity"), Some("float"))
        );
        assert!(contains_stand_in(
            &serde_json::json!({"a": [1, stand_in(b"x")]})
        ));
    }
}
