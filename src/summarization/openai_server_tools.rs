//! The server tool items of an OpenAI Responses reply (web and file search, code
//! interpreter, remote MCP calls and listings, server-run tool search) as LangChain's reader
//! gives them: a `server_tool_call` and, for most, the `server_tool_result` after it, with
//! the item's other fields kept as LangChain keeps them. Also the small block helpers the
//! OpenAI reader shares with it.

use serde_json::{Map, Value, json};

use super::media::py_str;
use crate::pyrepr::truthy;

/// `f"{prefix}{index}"` as Python formats the index.
pub(super) fn tagged(prefix: &str, index: &Value) -> Value {
    json!(format!("{prefix}{}", py_str(index)))
}

/// The index of a result that follows its call: `f"{prefix}{index + 1}"` for an integer
/// index (a bool counts as one, as in Python), none otherwise.
fn next_index(prefix: &str, b: &Map<String, Value>) -> Option<Value> {
    let index = match b.get("index")? {
        Value::Bool(flag) => i64::from(*flag),
        Value::Number(n) => n.as_i64()?,
        _ => return None,
    };
    Some(json!(format!("{prefix}{}", index.saturating_add(1))))
}

/// `out`'s `extras` (made when missing) with `key` set.
pub(super) fn put_extra(out: &mut Map<String, Value>, key: &str, value: Value) {
    let extras = out.entry("extras").or_insert_with(|| json!({}));
    if let Value::Object(extras) = extras {
        extras.insert(key.into(), value);
    }
}

/// Every key of `b` outside `known` put into `out`'s `extras`.
pub(super) fn extras_from(out: &mut Map<String, Value>, b: &Map<String, Value>, known: &[&str]) {
    for (k, v) in b {
        if !known.contains(&k.as_str()) {
            put_extra(out, k, v.clone());
        }
    }
}

pub(super) fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// A tool's status as a result's: `failed` is an error, `completed` a success, anything
/// else kept in `extras` (`keep_other`) or dropped.
fn status_into(out: &mut Map<String, Value>, b: &Map<String, Value>, keep_other: bool) {
    match b.get("status") {
        Some(Value::String(s)) if s == "failed" => {
            out.insert("status".into(), json!("error"));
        }
        Some(Value::String(s)) if s == "completed" => {
            out.insert("status".into(), json!("success"));
        }
        Some(other) if keep_other && truthy(other) => {
            out.insert("extras".into(), json!({"status": other}));
        }
        _ => {}
    }
}

/// Every key of `b` outside `known` set on `out` itself (over any it has).
fn copy_others(out: &mut Map<String, Value>, b: &Map<String, Value>, known: &[&str]) {
    for (k, v) in b {
        if !known.contains(&k.as_str()) {
            out.insert(k.clone(), v.clone());
        }
    }
}

/// A server tool's result given the item's status and the index after the call's.
fn finish_result(result: &mut Map<String, Value>, b: &Map<String, Value>, prefix: &str) {
    status_into(result, b, true);
    if let Some(index) = next_index(prefix, b) {
        result.insert("index".into(), index);
    }
}

fn id_of(b: &Map<String, Value>) -> Value {
    b.get("id").cloned().unwrap_or(Value::Null)
}

/// A web search the server ran: its call, and its result unless the content already holds
/// a `web_search_result` item for it.
pub(super) fn web_search(b: &Map<String, Value>, items: &[Value], out: &mut Vec<Value>) {
    let id = id_of(b);
    let mut call =
        obj(json!({"type": "server_tool_call", "name": "web_search", "args": {}, "id": id}));
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_wsc_", index));
    }
    let mut sources = None;
    if let Some(Value::Object(action)) = b.get("action") {
        sources = action.get("sources").cloned();
        let args: Map<String, Value> = action
            .iter()
            .filter(|(k, _)| *k != "sources")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        call.insert("args".into(), Value::Object(args));
    }
    copy_others(&mut call, b, &["type", "id", "action", "status", "index"]);
    out.push(Value::Object(call));
    let answered = items.iter().any(|other| {
        other.get("type").and_then(Value::as_str) == Some("web_search_result")
            && other.get("id") == Some(&id)
    });
    if answered {
        return;
    }
    let mut result = obj(json!({"type": "server_tool_result", "tool_call_id": id}));
    if let Some(sources) = sources.filter(truthy) {
        result.insert("output".into(), json!({"sources": sources}));
    }
    finish_result(&mut result, b, "lc_wsr_");
    out.push(Value::Object(result));
}

/// A file search the server ran: its call (with its queries) and its result.
pub(super) fn file_search(b: &Map<String, Value>, out: &mut Vec<Value>) {
    let id = id_of(b);
    let queries = b.get("queries").cloned().unwrap_or_else(|| json!([]));
    let mut call = obj(json!({
        "type": "server_tool_call", "name": "file_search", "id": id, "args": {"queries": queries},
    }));
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_fsc_", index));
    }
    copy_others(
        &mut call,
        b,
        &["type", "id", "queries", "results", "status", "index"],
    );
    out.push(Value::Object(call));
    let mut result = obj(json!({"type": "server_tool_result", "tool_call_id": id}));
    if let Some(results) = b.get("results").filter(|r| truthy(r)) {
        result.insert("output".into(), results.clone());
    }
    finish_result(&mut result, b, "lc_fsr_");
    out.push(Value::Object(result));
}

/// Code the server ran: its call (with the code) and its result (with the outputs).
pub(super) fn code_interpreter(b: &Map<String, Value>, out: &mut Vec<Value>) {
    let id = id_of(b);
    let mut call = obj(json!({"type": "server_tool_call", "name": "code_interpreter", "id": id}));
    if let Some(code) = b.get("code") {
        call.insert("args".into(), json!({"code": code}));
    }
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_cic_", index));
    }
    let known = ["type", "id", "outputs", "status", "code", "extras", "index"];
    extras_from(&mut call, b, &known);
    let mut result = obj(json!({"type": "server_tool_result", "tool_call_id": id}));
    if let Some(outputs) = b.get("outputs") {
        result.insert("output".into(), outputs.clone());
    }
    finish_result(&mut result, b, "lc_cir_");
    out.push(Value::Object(call));
    out.push(Value::Object(result));
}

/// The result of an MCP call or listing: its output, and its error as an error status.
fn mcp_result(b: &Map<String, Value>, output_key: &str, prefix: &str) -> Value {
    let mut result = obj(json!({"type": "server_tool_result", "tool_call_id": id_of(b)}));
    if let Some(output) = b.get(output_key).filter(|o| truthy(o)) {
        result.insert("output".into(), output.clone());
    }
    match b.get("error").filter(|e| truthy(e)) {
        Some(error) => {
            put_extra(&mut result, "error", error.clone());
            result.insert("status".into(), json!("error"));
        }
        None => {
            result.insert("status".into(), json!("success"));
        }
    }
    if let Some(index) = next_index(prefix, b) {
        result.insert("index".into(), index);
    }
    Value::Object(result)
}

const MCP_KNOWN: [&str; 9] = [
    "type",
    "id",
    "arguments",
    "name",
    "server_label",
    "output",
    "error",
    "extras",
    "index",
];

/// A remote MCP tool the server called: its call (arguments read as JSON) and its result.
pub(super) fn mcp_call(b: &Map<String, Value>, out: &mut Vec<Value>) {
    let mut call = obj(json!({"type": "server_tool_call", "name": "remote_mcp", "id": id_of(b)}));
    if let Some(Value::String(arguments)) = b.get("arguments").filter(|a| truthy(a)) {
        match crate::py_json::loads(arguments) {
            Ok(args) => {
                call.insert("args".into(), args);
            }
            Err(_) => {
                call.insert("extras".into(), json!({"arguments": arguments}));
            }
        }
    }
    for (key, extra) in [("name", "tool_name"), ("server_label", "server_label")] {
        if let Some(v) = b.get(key) {
            put_extra(&mut call, extra, v.clone());
        }
    }
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_mcp_", index));
    }
    extras_from(&mut call, b, &MCP_KNOWN);
    out.push(Value::Object(call));
    out.push(mcp_result(b, "output", "lc_mcpr_"));
}

/// The server listing an MCP server's tools: a call and its result (the tools).
pub(super) fn mcp_list_tools(b: &Map<String, Value>, out: &mut Vec<Value>) {
    let mut call = obj(json!({
        "type": "server_tool_call", "name": "mcp_list_tools", "args": {}, "id": id_of(b),
    }));
    if let Some(label) = b.get("server_label") {
        call.insert("extras".into(), json!({"server_label": label}));
    }
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_mlt_", index));
    }
    let known = [
        "type",
        "id",
        "name",
        "server_label",
        "tools",
        "error",
        "extras",
        "index",
    ];
    extras_from(&mut call, b, &known);
    out.push(Value::Object(call));
    out.push(mcp_result(b, "tools", "lc_mltr_"));
}

pub(super) fn tool_search_call(b: &Map<String, Value>) -> Value {
    let args = b.get("arguments").cloned().unwrap_or_else(|| json!({}));
    let mut call = obj(json!({
        "type": "server_tool_call", "name": "tool_search", "id": id_of(b), "args": args,
    }));
    if let Some(index) = b.get("index") {
        call.insert("index".into(), tagged("lc_tsc_", index));
    }
    extras_from(&mut call, b, &["type", "id", "arguments", "index"]);
    Value::Object(call)
}

pub(super) fn tool_search_output(b: &Map<String, Value>) -> Value {
    let tools = b.get("tools").cloned().unwrap_or_else(|| json!([]));
    let mut result = obj(json!({
        "type": "server_tool_result", "tool_call_id": id_of(b), "output": {"tools": tools},
    }));
    status_into(&mut result, b, false);
    // Python's `isinstance(index, int)`, which a bool passes.
    if let Some(index) = b
        .get("index")
        .filter(|i| i.is_boolean() || i.is_i64() || i.is_u64())
    {
        result.insert("index".into(), tagged("lc_tso_", index));
    }
    let mut extras = obj(json!({"name": "tool_search"}));
    for (k, v) in b {
        if !matches!(k.as_str(), "type" | "id" | "status" | "tools" | "index") {
            extras.insert(k.clone(), v.clone());
        }
    }
    result.insert("extras".into(), Value::Object(extras));
    Value::Object(result)
}
