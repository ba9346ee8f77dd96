//! Python's `json.loads` where LangChain reads text as JSON: it also takes `NaN`,
//! `Infinity` and `-Infinity` as values, which serde does not. Each such value is read as
//! its stand-in (`crate::stand_ins`), so it prints and goes back to Python as the float.

use serde_json::Value;

/// `json.loads(text)`: an error wherever Python's would fail.
pub fn loads(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(e) => match with_constants_quoted(text) {
            Some(rewritten) => serde_json::from_str(&rewritten),
            None => Err(e),
        },
    }
}

/// `text` with each `NaN`, `Infinity` and `-Infinity` standing where a value may stand
/// written as its stand-in's JSON string; `None` when it has none. Elsewhere (a key, inside
/// a string, a word such as `NaNa`) the text is left as it is, so serde fails there as
/// Python does.
fn with_constants_quoted(text: &str) -> Option<String> {
    const CONSTANTS: [(&str, f64); 3] = [
        ("-Infinity", f64::NEG_INFINITY),
        ("Infinity", f64::INFINITY),
        ("NaN", f64::NAN),
    ];
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut stack: Vec<u8> = Vec::new();
    // Whether the next token stands where a value may: the start, after `[`, after a `,`
    // in a list, after a `:`.
    let mut value_next = true;
    let mut found = false;
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'"' => {
                // Skip the string, escapes included.
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                value_next = false;
                continue;
            }
            b'{' | b'[' => {
                stack.push(c);
                value_next = c == b'[';
            }
            b'}' | b']' => {
                stack.pop();
                value_next = false;
            }
            b',' => value_next = stack.last() == Some(&b'['),
            b':' => value_next = true,
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ if value_next => {
                let rest = &text[i..];
                let hit = CONSTANTS.iter().find(|(name, _)| {
                    rest.starts_with(name)
                        && !rest[name.len()..]
                            .bytes()
                            .next()
                            .is_some_and(|n| n.is_ascii_alphanumeric() || n == b'_')
                });
                if let Some((name, f)) = hit {
                    out.push_str(&text[copied..i]);
                    let stand_in = crate::stand_ins::float_stand_in(*f).unwrap_or_default();
                    out.push_str(&serde_json::to_string(&stand_in).unwrap_or_default());
                    i += name.len();
                    copied = i;
                    found = true;
                    value_next = false;
                    continue;
                }
                value_next = false;
            }
            _ => {}
        }
        i += 1;
    }
    if !found {
        return None;
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stand_ins::float_of;

    fn float_at(v: &Value, pointer: &str) -> Option<f64> {
        v.pointer(pointer)
            .and_then(Value::as_str)
            .and_then(float_of)
    }

    #[test]
    fn constants_are_read_where_python_reads_them() {
        let v = loads(r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN"}"#).unwrap_or_default();
        assert!(float_at(&v, "/a").is_some_and(f64::is_nan));
        assert_eq!(float_at(&v, "/b/0"), Some(f64::INFINITY));
        assert_eq!(float_at(&v, "/b/1"), Some(f64::NEG_INFINITY));
        assert_eq!(v["c"], "NaN");
        assert!(loads("NaN").is_ok_and(|v| v.as_str().and_then(float_of).is_some()));
        assert!(loads(r#"{NaN: 1}"#).is_err());
        assert!(loads(r#"{"a": NaNa}"#).is_err());
        assert!(loads(r#"{"a": nan}"#).is_err());
        assert!(loads(r#"{"a": 1} NaN"#).is_err());
    }
}
