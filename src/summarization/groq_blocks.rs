//! LangChain's Groq reader of an AI message's content (`model_provider` `groq`): only string
//! content is read (a content list gives no blocks at all, so none of its media is
//! uploaded), after the reasoning in `reasoning_content` and the server tools Groq ran
//! (`executed_tools`), and before the message's tool calls.

use serde_json::{Map, Value, json};

use super::provider_blocks::tool_call_block;
use crate::error::Builtin;
use crate::messages::{AiMessage, Content};
use crate::pyrepr::truthy;

/// `model_provider` `groq`.
/// LangChain raises where the executed tools are not a list of mappings (iterating them, or
/// `get` on an item) or a tool's arguments are not text (`json.loads`).
pub(super) fn groq(message: &AiMessage) -> Result<Vec<Value>, Builtin> {
    let mut blocks = Vec::new();
    if let Some(Value::String(reasoning)) = message.additional_kwargs.get("reasoning_content") {
        blocks.push(json!({"type": "reasoning", "reasoning": reasoning}));
    }
    if let Some(tools) = message
        .additional_kwargs
        .get("executed_tools")
        .filter(|t| truthy(t))
    {
        let items: Vec<Value> = match tools {
            Value::Array(items) => items.clone(),
            // A mapping iterates over its keys, a string over its characters.
            Value::Object(map) => map.keys().map(|k| json!(k)).collect(),
            Value::String(_) => vec![json!("")],
            other => {
                let kind = crate::pyrepr::type_name(other);
                return Err(Builtin::Type(format!("'{kind}' object is not iterable")));
            }
        };
        for (idx, tool) in items.iter().enumerate() {
            let Some(tool) = tool.as_object() else {
                return Err(Builtin::no_attribute(tool, "get"));
            };
            executed_tool(&mut blocks, idx, tool)?;
        }
    }
    if let Content::Text(text) = &message.content
        && !text.is_empty()
    {
        blocks.push(json!({"type": "text", "text": text}));
    }
    blocks.extend(message.tool_calls.iter().map(tool_call_block));
    Ok(blocks)
}

/// One server tool Groq ran: its call when its arguments read as an object, and its
/// result when it has output. A tool whose arguments cannot be read is left out whole.
fn executed_tool(
    blocks: &mut Vec<Value>,
    idx: usize,
    tool: &Map<String, Value>,
) -> Result<(), Builtin> {
    let tool_type = tool.get("type").and_then(Value::as_str);
    let is_python = tool_type == Some("python")
        || (tool_type == Some("function")
            && tool.get("name").and_then(Value::as_str) == Some("python"));
    let mut args = None;
    if let Some(arguments) = tool.get("arguments").filter(|a| truthy(a)) {
        let Some(text) = arguments.as_str() else {
            let kind = crate::pyrepr::type_name(arguments);
            return Err(Builtin::Type(format!(
                "the JSON object must be str, bytes or bytearray, not {kind}"
            )));
        };
        args = match crate::py_json::loads(text) {
            Ok(parsed) => Some(parsed),
            Err(_) if tool_type == Some("python") => match code_field(text) {
                Some(code) => Some(json!({"code": code})),
                None => return Ok(()),
            },
            // GPT-OSS on Groq passes the code itself.
            Err(_) if is_python => Some(json!({"code": text})),
            Err(_) => return Ok(()),
        };
    }
    if let Some(args @ Value::Object(_)) = args {
        let name = match tool_type {
            Some("search") => "web_search",
            _ if is_python => "code_interpreter",
            _ => "",
        };
        blocks.push(json!({
            "type": "server_tool_call", "name": name, "id": idx.to_string(), "args": args,
        }));
    }
    if let Some(output) = tool.get("output").filter(|o| truthy(o)) {
        let mut result = json!({
            "type": "server_tool_result",
            "tool_call_id": idx.to_string(),
            "output": output,
            "status": "success",
        });
        for (k, v) in tool {
            if !matches!(k.as_str(), "type" | "arguments" | "index" | "output") {
                if result.get("extras").is_none() {
                    result["extras"] = json!({});
                }
                result["extras"][k] = v.clone();
            }
        }
        blocks.push(result);
    }
    Ok(())
}

/// The `code` of `{"code": "..."}` whose code Groq did not escape: everything between the
/// first quote after the key and the last quote before the closing brace.
fn code_field(s: &str) -> Option<&str> {
    let rest = s.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest.strip_prefix("\"code\"")?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start().strip_prefix('"')?;
    let rest = rest.trim_end().strip_suffix('}')?.trim_end();
    rest.strip_suffix('"')
}

#[cfg(test)]
mod tests {
    use super::code_field;

    #[test]
    fn unreadable_tools_raise_as_python_does() {
        use super::executed_tool;
        use crate::error::Builtin;
        let tool = |v: serde_json::Value| v.as_object().cloned().unwrap_or_default();
        let mut blocks = Vec::new();
        let numeric = tool(serde_json::json!({"type": "search", "arguments": 5}));
        assert_eq!(
            executed_tool(&mut blocks, 0, &numeric),
            Err(Builtin::Type(
                "the JSON object must be str, bytes or bytearray, not int".into()
            ))
        );
        let empty = tool(serde_json::json!({"type": "search", "arguments": {}, "output": "o"}));
        assert_eq!(executed_tool(&mut blocks, 0, &empty), Ok(()));
        assert_eq!(blocks.len(), 1);
    }

    #[test]
    fn unescaped_code_is_read_up_to_the_last_quote() {
        assert_eq!(
            code_field(r#" { "code" : "print("a")" } "#),
            Some(r#"print("a")"#)
        );
        assert_eq!(code_field(r#"{"code":""}"#), Some(""));
        assert_eq!(code_field(r#"{"code":"}"#), None);
        assert_eq!(code_field(r#"{"cod":"x"}"#), None);
    }
}
