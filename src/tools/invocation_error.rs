//! LangGraph's wording for a tool call whose arguments fail validation, which models are
//! trained to read and correct.

use serde_json::Value;

/// `Error invoking tool '{tool}' with kwargs {args} with error:\n {details}\n Please fix...`,
/// with the arguments rendered as Python's `repr` of the dict, as LangGraph renders them.
pub fn invocation_error(tool: &str, args: &Value, details: &[String]) -> String {
    format!(
        "Error invoking tool '{tool}' with kwargs {} with error:\n {}\n Please fix the error and try again.",
        py_repr(args),
        details.join("\n")
    )
}

/// Python's `repr` of a JSON value (dict, list, str, int, float, bool, None).
pub fn py_repr(value: &Value) -> String {
    let mut out = String::new();
    write_repr(value, &mut out);
    out
}

fn write_repr(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e16 => {
                out.push_str(&format!("{f:.1}"))
            }
            _ => out.push_str(&n.to_string()),
        },
        Value::String(s) => out.push_str(&str_repr(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&str_repr(k));
                out.push_str(": ");
                write_repr(v, out);
            }
            out.push('}');
        }
    }
}

/// Python's string repr: single quotes unless the text has a single quote and no double one.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable` for the characters that occur in practice: control
/// characters and the separators Python escapes are not printable.
fn is_printable(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            '\u{a0}'
                | '\u{ad}'
                | '\u{1680}'
                | '\u{2000}'..='\u{200f}'
                | '\u{2028}'..='\u{202f}'
                | '\u{205f}'..='\u{206f}'
                | '\u{3000}'
                | '\u{feff}'
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_like_python_repr() {
        let args = json!({"a": "x", "b": 2, "c": [true, null, 1.5, 2.0], "it's": "say \"hi\""});
        assert_eq!(
            py_repr(&args),
            r#"{'a': 'x', 'b': 2, 'c': [True, None, 1.5, 2.0], "it's": 'say "hi"'}"#
        );
        assert_eq!(str_repr("a'b\"c\n"), r#"'a\'b"c\n'"#);
    }
}
