//! A native response format as langchain-openai sends it: LangChain's `ProviderStrategy`
//! kwargs (`{"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}`) become a
//! function-style definition of the schema (`name` from its title, its `description`, the
//! rest as the schema) with an explicit `strict`; the Responses API takes it as
//! `text.format`, Chat Completions as `response_format`, and then requires strict tools.

use serde_json::{Map, Value, json};

use crate::error::ModelError;

/// The `json_schema` object: `name`, `description`, `strict`, `schema`.
pub(super) fn json_schema(response_format: &Value) -> Result<Map<String, Value>, ModelError> {
    let inner = response_format.get("json_schema");
    let (schema, strict) = match inner.and_then(|j| j.get("schema")) {
        Some(schema)
            if response_format.get("type").and_then(Value::as_str) == Some("json_schema") =>
        {
            (
                schema,
                inner.and_then(|j| j.get("strict")).and_then(Value::as_bool),
            )
        }
        _ => (response_format, None),
    };
    let Value::Object(schema) = schema else {
        return Err(unsupported(schema));
    };
    // Already a definition: sent as it is.
    if schema.contains_key("name") && schema.contains_key("schema") {
        return Ok(schema.clone());
    }
    let strict = strict
        .or_else(|| schema.get("strict").and_then(Value::as_bool))
        .unwrap_or(false);
    let mut out = Map::new();
    let mut parameters = schema.clone();
    match parameters.shift_remove("title") {
        Some(title) => {
            out.insert("name".into(), title);
            if let Some(description) = parameters.shift_remove("description") {
                out.insert("description".into(), description);
            }
        }
        None => return Err(unsupported(&Value::Object(schema.clone()))),
    }
    if !parameters.contains_key("properties") {
        return Err(unsupported(&Value::Object(schema.clone())));
    }
    let mut parameters = Value::Object(parameters);
    if strict {
        close_objects(&mut parameters);
    }
    out.insert("strict".into(), json!(strict));
    out.insert("schema".into(), parameters);
    Ok(out)
}

fn unsupported(schema: &Value) -> ModelError {
    ModelError::Config(format!(
        "a response format's JSON schema needs a top-level 'title' (its name) and 'properties'; got {schema}"
    ))
}

/// OpenAI's strict mode: every property required and no others allowed, at every level.
pub(super) fn close_objects(schema: &mut Value) {
    let Value::Object(s) = schema else {
        return;
    };
    if let Some(Value::Object(props)) = s.get("properties")
        && !props.is_empty()
    {
        let names: Vec<Value> = props.keys().map(|k| json!(k)).collect();
        s.insert("required".into(), Value::Array(names));
    }
    let empty_properties = matches!(s.get("properties"), Some(Value::Object(p)) if p.is_empty());
    if s.contains_key("required") || empty_properties || s.contains_key("additionalProperties") {
        s.insert("additionalProperties".into(), json!(false));
    }
    for key in ["anyOf", "allOf"] {
        if let Some(Value::Array(variants)) = s.get_mut(key) {
            variants.iter_mut().for_each(close_objects);
        }
    }
    if let Some(Value::Object(props)) = s.get_mut("properties") {
        props.values_mut().for_each(close_objects);
    }
    if let Some(items) = s.get_mut("items") {
        close_objects(items);
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = s.get_mut(key) {
            defs.values_mut().for_each(close_objects);
        }
    }
}

/// langchain-openai's `parsed` on a Responses reply to a request with a format: the reply's
/// text read as JSON, when it is JSON.
pub(super) fn parsed(text: &str) -> Option<Value> {
    if text.is_empty() {
        return None;
    }
    serde_json::from_str(text).ok()
}
