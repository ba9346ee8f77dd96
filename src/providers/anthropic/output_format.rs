//! A response format as the Messages API's structured output takes it
//! (`output_config.format`), as langchain-anthropic sends a `ProviderStrategy`: the API takes
//! a subset of JSON Schema, so the schema is narrowed to it (every object closed with
//! `additionalProperties: false`, `oneOf` read as `anyOf`) and each keyword it does not take
//! is kept for the model to read, appended to the description as `{key: value, ...}`.

use serde_json::{Map, Value, json};

/// String formats the API validates; others are left to the description.
const STRING_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// `{"type": "json_schema", "schema": ...}` for a format in LangChain's form
/// (`{"type": "json_schema", "json_schema": {"schema": ...}}`), or for a bare schema.
pub fn output_format(response_format: &Value) -> Value {
    let schema = response_format
        .get("json_schema")
        .and_then(|j| j.get("schema"))
        .filter(|_| response_format.get("type").and_then(Value::as_str) == Some("json_schema"))
        .unwrap_or(response_format);
    json!({"type": "json_schema", "schema": narrow(schema)})
}

fn narrow(schema: &Value) -> Value {
    let Value::Object(source) = schema else {
        return schema.clone();
    };
    // What is left of `rest` once the supported keywords are taken is described.
    let mut rest = source.clone();
    let mut out = Map::new();
    if let Some(Value::Object(defs)) = rest.shift_remove("$defs") {
        let defs = defs.iter().map(|(k, v)| (k.clone(), narrow(v))).collect();
        out.insert("$defs".into(), Value::Object(defs));
    }
    if let Some(reference) = rest.shift_remove("$ref") {
        out.insert("$ref".into(), reference);
        return Value::Object(out);
    }
    let mut kind = rest.shift_remove("type");
    let any_of = rest.shift_remove("anyOf");
    let one_of = rest.shift_remove("oneOf");
    let all_of = rest.shift_remove("allOf");
    let primitive = |v: &Value| !matches!(v, Value::Array(_) | Value::Object(_));
    if let Some(Value::Array(values)) = rest.get("enum")
        && !values.is_empty()
        && values.iter().all(primitive)
    {
        out.insert("enum".into(), rest.shift_remove("enum").unwrap_or_default());
    }
    if rest.get("const").is_some_and(primitive) {
        out.insert(
            "const".into(),
            rest.shift_remove("const").unwrap_or_default(),
        );
    }
    let literal = out.contains_key("enum") || out.contains_key("const");
    if literal {
        kind = None;
    }
    let each = |variants: &Vec<Value>| Value::Array(variants.iter().map(narrow).collect());
    match (&any_of, &one_of, &all_of) {
        (Some(Value::Array(v)), _, _) | (_, Some(Value::Array(v)), _) => {
            out.insert("anyOf".into(), each(v));
        }
        (_, _, Some(Value::Array(v))) => {
            out.insert("allOf".into(), each(v));
        }
        _ if !literal => {
            out.insert("type".into(), kind.clone().unwrap_or(Value::Null));
        }
        _ => {}
    }
    for key in ["description", "title"] {
        if let Some(v) = rest.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    match kind.as_ref().and_then(Value::as_str) {
        Some("object") => {
            let properties = match rest.shift_remove("properties") {
                Some(Value::Object(p)) => p.iter().map(|(k, v)| (k.clone(), narrow(v))).collect(),
                _ => Map::new(),
            };
            out.insert("properties".into(), Value::Object(properties));
            rest.shift_remove("additionalProperties");
            out.insert("additionalProperties".into(), json!(false));
            if let Some(required) = rest.shift_remove("required") {
                out.insert("required".into(), required);
            }
        }
        Some("string") => {
            if let Some(format) = rest.get("format").and_then(Value::as_str)
                && STRING_FORMATS.contains(&format)
            {
                out.insert(
                    "format".into(),
                    rest.shift_remove("format").unwrap_or_default(),
                );
            }
        }
        Some("array") => {
            if let Some(items) = rest.shift_remove("items") {
                out.insert("items".into(), narrow(&items));
            }
            if let Some(n) = rest.get("minItems").and_then(Value::as_u64)
                && n <= 1
            {
                out.insert(
                    "minItems".into(),
                    rest.shift_remove("minItems").unwrap_or_default(),
                );
            }
        }
        _ => {}
    }
    if !rest.is_empty() {
        let described: Vec<String> = rest
            .iter()
            .map(|(k, v)| format!("{k}: {}", python_str(v)))
            .collect();
        let mut text = match out.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d}\n\n"),
            None => String::new(),
        };
        text.push('{');
        text.push_str(&described.join(", "));
        text.push('}');
        out.insert("description".into(), json!(text));
    }
    Value::Object(out)
}

/// Python's `str` of the value the schema's JSON holds.
fn python_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::pyrepr::repr(other),
    }
}
