//! The text Python makes of a JSON value: `repr(value)` and `json.dumps(value)`. Models read
//! Python's forms in LangGraph's tool-error wording and deepagents' messages; LangChain's
//! approximate token counter measures unknown content blocks and string-content tool calls
//! by their `repr`, and tool schemas by their `json.dumps`, so the core writes the same
//! strings to decide at the same step as deepagents.

use serde_json::{Map, Number, Value};

/// Python's truthiness of the object `json.loads` would make of `value` (`bool(value)`).
pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => crate::stand_ins::truthy(s).unwrap_or(!s.is_empty()),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `str(value)` of the Python object `json.loads` would make of `value` (a string as is, a
/// host's `bytes` as its `repr`), as an f-string writes it.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => crate::stand_ins::repr_of(s).unwrap_or_else(|| s.clone()),
        other => repr(other),
    }
}

/// `repr(value)` of the Python object `json.loads` would make of `value`.
pub fn repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

fn write_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => match crate::stand_ins::repr_of(s) {
            Some(shown) => out.push_str(&shown),
            None => write_str_repr(out, s),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_map_repr(out, map.iter()),
    }
}

/// `repr` of a dict given as its items in order.
pub fn write_map_repr<'a>(out: &mut String, items: impl Iterator<Item = (&'a String, &'a Value)>) {
    out.push('{');
    for (i, (k, v)) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_str_repr(out, k);
        out.push_str(": ");
        write_repr(out, v);
    }
    out.push('}');
}

/// Python's `str.__repr__`: single quotes unless the text has a single quote and no double
/// quote; backslash escapes for the quote, backslash, `\t\n\r` and characters Python does not
/// print.
pub fn write_str_repr(out: &mut String, s: &str) {
    // Most keys and values (a tool call's names, ids, arguments) are printable ASCII with
    // neither quote nor backslash: their repr is the text in single quotes, copied whole
    // rather than pushed character by character (the token counter prints every non-text
    // block of each new message, a step's tool calls among them).
    if s.bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'\\' && b != b'\'')
    {
        out.reserve(s.len() + 2);
        out.push('\'');
        out.push_str(s);
        out.push('\'');
        return;
    }
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// `str_repr` as a new string.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str_repr(&mut out, s);
    out
}

/// Python's `str.isprintable` for the characters text commonly holds: controls, the Latin-1
/// no-break space and soft hyphen, and the Unicode separators and format characters.
/// (Unassigned and private-use code points are printed by this rule; Python escapes them.)
fn printable(c: char) -> bool {
    let n = c as u32;
    !(c.is_control()
        || n == 0xa0
        || n == 0xad
        || n == 0x1680
        || (0x2000..=0x200f).contains(&n)
        || (0x2028..=0x202f).contains(&n)
        || (0x205f..=0x206f).contains(&n)
        || n == 0x3000
        || n == 0xfeff
        || n == 0x061c
        || n == 0x180e)
}

/// `type(value).__name__` of the Python value a JSON value stands for.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(s) => crate::stand_ins::type_name(s).unwrap_or("str"),
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// `repr(float)` / `repr(int)` of a JSON number (Python's shortest round-trip form, in
/// exponent notation below 1e-4 and from 1e16).
pub fn number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    float_repr(n.as_f64().unwrap_or(0.0))
}

pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // `{:e}` gives the shortest round-trip digits: "1.2345e-5".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if !(-4..16).contains(&exp) {
        let (head, tail) = digits.split_at(1);
        let frac = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{head}{frac}e{esign}{:02}", exp.abs());
    }
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if (point as usize) >= digits.len() {
        format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    format!("{sign}{body}")
}

/// `json.dumps(value)` with Python's defaults (`", "` and `": "` separators); with
/// `ensure_ascii` every character outside printable ASCII is a `\uXXXX` escape (surrogate
/// pairs past the BMP).
pub fn json_dumps(value: &Value, ensure_ascii: bool) -> String {
    let mut out = String::new();
    write_json(&mut out, value, ensure_ascii, PY_SEPARATORS);
    out
}

/// `json.dumps(value, separators=(",", ":"))` (`ensure_ascii` as Python's default).
pub fn json_dumps_compact(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value, true, (",", ":"));
    out
}

/// Python's default item and key separators.
const PY_SEPARATORS: (&str, &str) = (", ", ": ");

fn write_json(out: &mut String, value: &Value, ascii: bool, seps: (&str, &str)) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let s = number(n);
            out.push_str(match s.as_str() {
                "nan" => "NaN",
                "inf" => "Infinity",
                "-inf" => "-Infinity",
                _ => &s,
            });
        }
        Value::String(s) => match crate::stand_ins::json_of(s) {
            Some(number) => out.push_str(number),
            None => write_json_str(out, s, ascii),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(seps.0);
                }
                write_json(out, item, ascii, seps);
            }
            out.push(']');
        }
        Value::Object(map) => write_json_map(out, map, ascii, seps),
    }
}

fn write_json_map(out: &mut String, map: &Map<String, Value>, ascii: bool, seps: (&str, &str)) {
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push_str(seps.0);
        }
        write_json_str(out, k, ascii);
        out.push_str(seps.1);
        write_json(out, v, ascii, seps);
    }
    out.push('}');
}

fn write_json_str(out: &mut String, s: &str, ascii: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            // `ensure_ascii` escapes all but printable ASCII (DEL too).
            c if ascii && !(' '..='~').contains(&c) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Python's `len` of a string: code points. The token counter calls this on every message of
/// a long history, most of it ASCII text, whose length is its byte length: the bytes OR-ed
/// together (a loop without an exit, which the compiler vectorizes) tell it in ~100
/// instructions for a 170-byte text where counting chars takes ~234 (`str::is_ascii`, with its
/// early exit, took ~245).
pub fn py_len(s: &str) -> usize {
    if s.bytes().fold(0, |seen, b| seen | b).is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_count_code_points_as_python_len() {
        // The lengths Python's `len` gives for these texts.
        let cases = [
            ("", 0),
            ("plain ascii text, with 'quotes'\n", 32),
            ("caf\u{e9} na\u{ef}ve \u{ff}", 12),
            ("\u{4e2d}\u{6587} and \u{20ac}", 8),
            ("\u{1f600} astral \u{1d11e}", 10),
            ("\u{7f}\u{80}", 2),
        ];
        for (text, expected) in cases {
            assert_eq!(py_len(text), expected, "{text:?}");
            assert_eq!(py_len(text), text.chars().count(), "{text:?}");
        }
    }

    #[test]
    fn reprs_read_as_python_writes_them() {
        assert_eq!(
            repr(&json!({"a": [1, 2.5, null, true], "b": "it's"})),
            r#"{'a': [1, 2.5, None, True], 'b': "it's"}"#
        );
        assert_eq!(repr(&json!("a'b\"c\n")), r#"'a\'b"c\n'"#);
        assert_eq!(repr(&json!("\u{7}é")), r"'\x07é'");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(123456.0), "123456.0");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(-2.5), "-2.5");
    }

    #[test]
    fn json_dumps_uses_python_separators_and_escapes() {
        assert_eq!(
            json_dumps(&json!({"a": "é😀", "b": [1, 2.0]}), true),
            r#"{"a": "\u00e9\ud83d\ude00", "b": [1, 2.0]}"#
        );
        assert_eq!(json_dumps(&json!({"a": "é"}), false), r#"{"a": "é"}"#);
        assert_eq!(json_dumps(&json!("\u{7f}"), true), r#""\u007f""#);
        assert_eq!(json_dumps(&json!("\u{7f}"), false), "\"\u{7f}\"");
    }
}
