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
    crate::pyrepr::repr(value)
}

pub use crate::pyrepr::str_repr;

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
