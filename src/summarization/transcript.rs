//! LangChain's `get_buffer_string(messages, format="xml")`: the transcript the summary
//! prompt carries and the history file keeps. Text is XML-escaped, media appear by URL
//! only (inline data is left out), tool calls as `<tool_call>` elements with JSON arguments.

use serde_json::{Map, Value};

use crate::messages::{Content, Message};
use crate::pyrepr::json_dumps;
use crate::pyrepr::truthy;

/// `xml.sax.saxutils.escape`.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `xml.sax.saxutils.quoteattr`.
fn quoteattr(s: &str) -> String {
    let data = escape(s)
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;");
    if data.contains('"') {
        if data.contains('\'') {
            format!("\"{}\"", data.replace('"', "&quot;"))
        } else {
            format!("'{data}'")
        }
    } else {
        format!("\"{data}\"")
    }
}

const BLOCK_TEXT_LIMIT: usize = 500;

fn clip(text: &str) -> String {
    match text.char_indices().nth(BLOCK_TEXT_LIMIT) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

fn str_of<'a>(b: &'a Map<String, Value>, key: &str) -> &'a str {
    b.get(key).and_then(Value::as_str).unwrap_or("")
}

fn is_data_url(v: Option<&Value>) -> bool {
    v.and_then(Value::as_str)
        .is_some_and(|u| u.starts_with("data:"))
}

fn has_inline_data(b: &Map<String, Value>) -> bool {
    b.get("base64").is_some_and(truthy)
        || is_data_url(b.get("url"))
        || b.get("image_url")
            .and_then(Value::as_object)
            .is_some_and(|u| is_data_url(u.get("url")))
}

fn media(tag: &str, b: &Map<String, Value>) -> Option<String> {
    let url = str_of(b, "url");
    let file_id = str_of(b, "file_id");
    if !url.is_empty() {
        Some(format!("<{tag} url={} />", quoteattr(url)))
    } else if !file_id.is_empty() {
        Some(format!("<{tag} file_id={} />", quoteattr(file_id)))
    } else {
        None
    }
}

/// `_format_content_block_xml`.
fn block_xml(b: &Map<String, Value>) -> Option<String> {
    if has_inline_data(b) {
        return None;
    }
    let nonempty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    match str_of(b, "type") {
        "text" => nonempty(str_of(b, "text")).map(|t| escape(&t)),
        "reasoning" => nonempty(str_of(b, "reasoning"))
            .map(|r| format!("<reasoning>{}</reasoning>", escape(&r))),
        "image" => media("image", b),
        "audio" => media("audio", b),
        "video" => media("video", b),
        "image_url" => {
            let url = b
                .get("image_url")
                .and_then(Value::as_object)
                .map_or("", |u| str_of(u, "url"));
            (!url.is_empty() && !url.starts_with("data:"))
                .then(|| format!("<image url={} />", quoteattr(url)))
        }
        "text-plain" => nonempty(str_of(b, "text")).map(|t| escape(&clip(&t))),
        "server_tool_call" => {
            let args = b
                .get("args")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            Some(format!(
                "<server_tool_call id={} name={}>{}</server_tool_call>",
                quoteattr(&plain(b.get("id"))),
                quoteattr(&plain(b.get("name"))),
                escape(&clip(&json_dumps(&args, false)))
            ))
        }
        "server_tool_result" => {
            let output = b
                .get("output")
                .filter(|o| truthy(o))
                .map(|o| escape(&clip(&json_dumps(o, false))))
                .unwrap_or_default();
            Some(format!(
                "<server_tool_result tool_call_id={} status={}>{output}</server_tool_result>",
                quoteattr(&plain(b.get("tool_call_id"))),
                quoteattr(&plain(b.get("status")))
            ))
        }
        _ => None,
    }
}

/// `str(value or "")`.
fn plain(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) if truthy(v) => crate::pyrepr::repr(v),
        _ => String::new(),
    }
}

fn content_parts(content: &Content) -> Vec<String> {
    match content {
        Content::Text(s) if s.is_empty() => Vec::new(),
        Content::Text(s) => vec![escape(s)],
        Content::Blocks(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                Value::String(s) if s.is_empty() => None,
                Value::String(s) => Some(escape(s)),
                Value::Object(o) => block_xml(o),
                _ => None,
            })
            .collect(),
    }
}

const TOOL_CALL_ID_LIMIT: usize = 64;

fn display_id(id: &str) -> String {
    match id.char_indices().nth(TOOL_CALL_ID_LIMIT) {
        Some((at, _)) => format!("{}...", &id[..at]),
        None => id.to_owned(),
    }
}

/// One message's element.
fn message_xml(m: &Message) -> String {
    let kind = match m {
        Message::System(_) => "system",
        Message::Human(_) => "human",
        Message::Ai(_) => "ai",
        Message::Tool(_) => "tool",
    };
    let parts = content_parts(m.content());
    let ai = m.as_ai();
    let function_call = ai
        .filter(|a| a.tool_calls.is_empty())
        .and_then(|a| a.additional_kwargs.get("function_call"));
    match ai {
        Some(a) if !a.tool_calls.is_empty() || function_call.is_some() => {
            let mut lines = vec![format!("<message type={}>", quoteattr(kind))];
            if !parts.is_empty() {
                lines.push(format!("  <content>{}</content>", parts.join(" ")));
            }
            for call in &a.tool_calls {
                lines.push(format!(
                    "  <tool_call id={} name={}>{}</tool_call>",
                    quoteattr(&display_id(call.id.as_deref().unwrap_or(""))),
                    quoteattr(&call.name),
                    escape(&json_dumps(&call.args, false))
                ));
            }
            if let Some(fc) = function_call.filter(|_| a.tool_calls.is_empty()) {
                let args = match fc.get("arguments") {
                    Some(v) if truthy(v) => plain(Some(v)),
                    _ => "{}".to_owned(),
                };
                lines.push(format!(
                    "  <function_call name={}>{}</function_call>",
                    quoteattr(&plain(fc.get("name"))),
                    escape(&args)
                ));
            }
            lines.push("</message>".into());
            lines.join("\n")
        }
        _ => format!(
            "<message type={}>{}</message>",
            quoteattr(kind),
            parts.join(" ")
        ),
    }
}

/// The transcript of `messages`, one element per message, joined by newlines.
pub fn xml<'a>(messages: impl IntoIterator<Item = &'a Message>) -> String {
    messages
        .into_iter()
        .map(message_xml)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AiMessage, ToolCall};
    use serde_json::json;

    #[test]
    fn calls_nest_and_text_is_escaped() {
        let ai = Message::Ai(AiMessage {
            content: Content::Text("a<b".into()),
            tool_calls: vec![ToolCall::new("ls", json!({"path": "/é"}), "c1")],
            ..Default::default()
        });
        assert_eq!(
            xml([&Message::human("x & y"), &ai]),
            "<message type=\"human\">x &amp; y</message>\n<message type=\"ai\">\n  <content>a&lt;b</content>\n  <tool_call id=\"c1\" name=\"ls\">{\"path\": \"/é\"}</tool_call>\n</message>"
        );
    }
}
