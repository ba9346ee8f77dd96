//! LangChain's provider readers of an AI message's content, chosen by its
//! `response_metadata.model_provider`: what `AIMessage.content_blocks` gives for a message a
//! Google GenAI / Vertex AI or a Bedrock Converse chat model wrote (Anthropic, Bedrock-Claude, Groq and OpenAI readers are in their own files). They decide which blocks
//! the summarization's media offload sees as inline media, and what a message with a block
//! replaced carries: a Gemini `thinking` block is read as reasoning (so the history file
//! shows it), a Converse message's media are not read at all (so nothing is uploaded).
//! A Python `bytes` `audio` in a Gemini message's `additional_kwargs` is read as LangChain
//! reads it: an audio block of its base64 (`crate::stand_ins`).

use serde_json::{Map, Value, json};

use super::media::py_str;
use crate::error::Builtin;
use crate::messages::{AiMessage, Content, ToolCall};
use crate::pyrepr::truthy;

/// The blocks of `message` as its provider's reader gives them; `None` when the message
/// names no provider with a reader here (the generic reading applies).
/// A shape LangChain's reader cannot read is the exception it raises.
pub(super) fn translate(message: &AiMessage) -> Option<Result<Vec<Value>, Builtin>> {
    let provider = message.response_metadata.get_str("model_provider")?;
    match &*provider {
        "google_genai" | "google_vertexai" => Some(genai(message)),
        "bedrock_converse" => Some(converse(message)),
        "anthropic" => Some(super::anthropic_blocks::anthropic(message)),
        "bedrock" => super::anthropic_blocks::bedrock(message),
        "groq" => Some(super::groq_blocks::groq(message)),
        "openai" => Some(super::openai_blocks::openai(message)),
        _ => None,
    }
}

fn get<'a>(b: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    b.get(key)
}

/// `b.get(key, default)`.
pub(super) fn get_or(b: &Map<String, Value>, key: &str, default: Value) -> Value {
    b.get(key).cloned().unwrap_or(default)
}

pub(super) fn tool_call_block(call: &ToolCall) -> Value {
    json!({"type": "tool_call", "id": call.id, "name": call.name, "args": call.args})
}

/// The message's tool calls that no `tool_call` block of `blocks` names, appended as blocks.
pub(super) fn add_missing_calls(blocks: &mut Vec<Value>, message: &AiMessage) {
    let present: Vec<Value> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_call"))
        .map(|b| b.get("id").cloned().unwrap_or(Value::Null))
        .collect();
    for call in &message.tool_calls {
        if let Some(id) = call.id.as_deref().filter(|i| !i.is_empty())
            && !present.iter().any(|p| p.as_str() == Some(id))
        {
            blocks.push(tool_call_block(call));
        }
    }
}

// ------------------------------------------------------------------------ Google GenAI

/// `_convert_to_v1_from_genai`.
fn genai(message: &AiMessage) -> Result<Vec<Value>, Builtin> {
    let mut blocks = Vec::new();
    match &message.content {
        Content::Text(text) => {
            if !text.is_empty() {
                blocks.push(json!({"type": "text", "text": text}));
            }
            add_missing_calls(&mut blocks, message);
            blocks.extend(genai_audio(message));
            cite(&mut blocks, &message.response_metadata.to_map());
        }
        Content::Blocks(items) => {
            for item in items {
                let mut block = genai_item(item)?;
                if let (Value::Object(i), Value::Object(b)) = (item, &mut block)
                    && let Some(index) = i.get("index").filter(|v| !v.is_null())
                {
                    b.entry("index").or_insert_with(|| index.clone());
                }
                blocks.push(block);
            }
            cite(&mut blocks, &message.response_metadata.to_map());
            blocks.extend(genai_audio(message));
            add_missing_calls(&mut blocks, message);
        }
    }
    if let Some(refusal) = refusal(&message.response_metadata.to_map()) {
        blocks.push(refusal);
    }
    Ok(blocks)
}

/// The audio Gemini puts in `additional_kwargs`: non-empty `bytes` only.
fn genai_audio(message: &AiMessage) -> Option<Value> {
    let audio = message.additional_kwargs.get("audio")?.as_str()?;
    let data = crate::stand_ins::base64_of(audio).filter(|d| !d.is_empty())?;
    Some(json!({"type": "audio", "base64": data, "mime_type": "audio/wav"}))
}

/// One item of a GenAI message's content list.
fn genai_item(item: &Value) -> Result<Value, Builtin> {
    let b = match item {
        Value::String(text) => return Ok(json!({"type": "text", "text": text})),
        Value::Object(b) => b,
        other => return Ok(json!({"type": "non_standard", "value": other})),
    };
    let kind = b.get("type").and_then(Value::as_str).unwrap_or_default();
    Ok(match kind {
        "image_url" => genai_image_url(b)?,
        "function_call" => json!({
            "type": "tool_call",
            "name": get_or(b, "name", json!("")),
            "args": get_or(b, "args", json!({})),
            "id": get_or(b, "id", json!("")),
        }),
        "file_data" => {
            let mut out = json!({"type": "file", "url": get_or(b, "file_uri", json!(""))});
            if let Some(mime) = get(b, "mime_type").filter(|m| truthy(m)) {
                out["mime_type"] = mime.clone();
            }
            out
        }
        "thinking" => {
            let mut out =
                json!({"type": "reasoning", "reasoning": get_or(b, "thinking", json!(""))});
            if let Some(signature) = get(b, "signature").filter(|s| truthy(s)) {
                out["extras"] = json!({"signature": signature});
            }
            out
        }
        "executable_code" => executable_code(b),
        "code_execution_result" => {
            let mut out = code_result(b);
            let extras = out["extras"].as_object_mut();
            let mut with_kind = Map::new();
            with_kind.insert("block_type".into(), json!(kind));
            if let Some(extras) = extras {
                with_kind.append(extras);
            }
            out["extras"] = Value::Object(with_kind);
            out
        }
        "text" => item.clone(),
        _ => json!({"type": "non_standard", "value": item}),
    })
}

/// A GenAI `image_url` item: a base64 `data:` URL, or raw base64 (its MIME type guessed
/// from the bytes as `filetype` guesses it). LangChain raises on the way: an `image_url`
/// that is not a mapping has no `get`, an empty URL is a `ValueError`, a URL that is not
/// text cannot be matched.
fn genai_image_url(b: &Map<String, Value>) -> Result<Value, Builtin> {
    let url = match b.get("image_url") {
        None => None,
        Some(Value::Object(u)) => u.get("url"),
        Some(other) => return Err(Builtin::no_attribute(other, "get")),
    };
    let url = match url {
        Some(u) if truthy(u) => u,
        _ => {
            return Err(Builtin::Value(
                "Image URL not a data URI; appending as non-standard block.".into(),
            ));
        }
    };
    if crate::stand_ins::value_bytes(url).is_some() {
        return Err(Builtin::Type(
            "cannot use a string pattern on a bytes-like object".into(),
        ));
    }
    let Some(url) = url.as_str() else {
        return Err(Builtin::Type(format!(
            "expected string or bytes-like object, got '{}'",
            crate::pyrepr::type_name(url)
        )));
    };
    if let Some((mime, data)) = data_uri(url) {
        return Ok(json!({"type": "image", "base64": data, "mime_type": mime}));
    }
    Ok(match strict_b64decode(url) {
        Some(raw) => {
            let mut out = json!({"type": "image", "base64": url});
            if let Some(mime) = super::file_signatures::guess_mime(&raw) {
                out["mime_type"] = json!(mime);
            }
            out
        }
        None => json!({"type": "non_standard", "value": b}),
    })
}

/// `re.match(r"data:([^;]+);base64,(.+)", url)`: the MIME type and the data up to the
/// first line break.
fn data_uri(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let semi = rest.find(';')?;
    let (mime, after) = (&rest[..semi], &rest[semi..]);
    let data = after.strip_prefix(";base64,")?;
    let data = data.split('\n').next().unwrap_or_default();
    (!mime.is_empty() && !data.is_empty()).then_some((mime, data))
}

/// `base64.b64decode(s, validate=True)`: only the alphabet, then at most two pads.
fn strict_b64decode(s: &str) -> Option<Vec<u8>> {
    let body = s.trim_end_matches('=');
    if s.len() - body.len() > 2
        || !body
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
    {
        return None;
    }
    super::media::py_b64decode(s)
}

/// A GenAI `executable_code` part as a server tool call.
pub(super) fn executable_code(b: &Map<String, Value>) -> Value {
    json!({
        "type": "server_tool_call",
        "name": "code_interpreter",
        "args": {
            "code": get_or(b, "executable_code", json!("")),
            "language": get_or(b, "language", json!("python")),
        },
        "id": get_or(b, "id", json!("")),
    })
}

/// A GenAI `code_execution_result` part as a server tool result (`outcome` 1 is success).
pub(super) fn code_result(b: &Map<String, Value>) -> Value {
    let outcome = get_or(b, "outcome", json!(1));
    let ok = outcome.as_f64() == Some(1.0) || outcome == Value::Bool(true);
    let mut out = json!({
        "type": "server_tool_result",
        "tool_call_id": get_or(b, "tool_call_id", json!("")),
        "status": if ok { "success" } else { "error" },
        "output": get_or(b, "code_execution_result", json!("")),
    });
    if !outcome.is_null() {
        out["extras"] = json!({"outcome": outcome});
    }
    out
}

/// `translate_grounding_metadata_to_citations`, put on the first text block.
fn cite(blocks: &mut [Value], metadata: &Map<String, Value>) {
    let Some(grounding) = metadata
        .get("grounding_metadata")
        .filter(|g| truthy(g))
        .and_then(Value::as_object)
    else {
        return;
    };
    let citations = citations(grounding);
    if citations.is_empty() {
        return;
    }
    if let Some(first) = blocks
        .iter_mut()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("text"))
    {
        first["annotations"] = Value::Array(citations);
    }
}

fn citations(grounding: &Map<String, Value>) -> Vec<Value> {
    let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    let chunks = list(grounding.get("grounding_chunks"));
    let queries = get_or(grounding, "web_search_queries", json!([]));
    let mut out = Vec::new();
    for support in list(grounding.get("grounding_supports")) {
        let Some(support) = support.as_object() else {
            continue;
        };
        let segment = support
            .get("segment")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        for index in list(support.get("grounding_chunk_indices")) {
            let Some(i) = index.as_i64() else { continue };
            // Python indexes from the end for a negative index.
            let at = if i < 0 { chunks.len() as i64 + i } else { i };
            let Some(chunk) = usize::try_from(at).ok().and_then(|a| chunks.get(a)) else {
                continue;
            };
            let part = |k: &str| {
                chunk
                    .get(k)
                    .filter(|v| truthy(v))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
            };
            let (web, maps) = (part("web"), part("maps"));
            let either = |k: &str| {
                maps.get(k)
                    .filter(|v| truthy(v))
                    .or_else(|| web.get(k))
                    .cloned()
            };
            let mut extras = json!({
                "web_search_queries": queries,
                "grounding_chunk_index": index,
                "confidence_scores": support.get("confidence_scores").filter(|c| truthy(c)).cloned().unwrap_or_else(|| json!([])),
            });
            if let Some(place) = maps.get("placeId").filter(|p| truthy(p)) {
                extras["place_id"] = place.clone();
            }
            let mut citation = Map::new();
            citation.insert("type".into(), json!("citation"));
            citation.insert(
                "id".into(),
                json!(format!("lc_{}", uuid::Uuid::new_v4().hyphenated())),
            );
            let fields = [
                ("url", either("uri")),
                ("title", either("title")),
                ("start_index", segment.get("start_index").cloned()),
                ("end_index", segment.get("end_index").cloned()),
                ("cited_text", segment.get("text").cloned()),
            ];
            for (k, v) in fields {
                if let Some(v) = v.filter(|v| !v.is_null()) {
                    citation.insert(k.into(), v);
                }
            }
            citation.insert("extras".into(), json!({"google_ai_metadata": extras}));
            out.push(Value::Object(citation));
        }
    }
    out
}

/// `_reason_name`: an enum member's name (`FinishReason.SAFETY` is `SAFETY`).
fn reason_name(reason: Option<&Value>) -> Option<String> {
    let reason = reason.filter(|r| truthy(r))?;
    let text = py_str(reason);
    Some(text.rsplit('.').next().unwrap_or_default().to_owned())
}

/// The refusal block of a response Gemini blocked, from its finish or block reason.
fn refusal(metadata: &Map<String, Value>) -> Option<Value> {
    let mut extras = Map::new();
    if let Some(finish) = reason_name(metadata.get("finish_reason"))
        && matches!(
            finish.as_str(),
            "SAFETY" | "PROHIBITED_CONTENT" | "BLOCKLIST"
        )
    {
        extras.insert("finish_reason".into(), json!(finish));
    }
    if let Some(feedback) = metadata.get("prompt_feedback").and_then(Value::as_object)
        && let Some(block) = reason_name(feedback.get("block_reason"))
        && block != "BLOCKED_REASON_UNSPECIFIED"
    {
        extras.insert("block_reason".into(), json!(block));
    }
    if extras.is_empty() {
        return None;
    }
    let text = metadata
        .get("finish_message")
        .filter(|m| truthy(m))
        .cloned()
        .unwrap_or_else(|| json!(""));
    Some(json!({"type": "refusal", "refusal": text, "extras": extras}))
}

// ------------------------------------------------------------------- Bedrock Converse

/// `_convert_to_v1_from_converse`: text, reasoning and tool use are read; every other
/// block (media included) is `non_standard`, and strings in a content list are skipped.
fn converse(message: &AiMessage) -> Result<Vec<Value>, Builtin> {
    let items: Vec<Value> = match &message.content {
        Content::Text(text)
            if text.is_empty()
                && message.additional_kwargs.is_empty()
                && message.tool_calls.is_empty() =>
        {
            return Ok(Vec::new());
        }
        Content::Text(text) => vec![json!({"type": "text", "text": text})],
        Content::Blocks(blocks) => blocks.clone(),
    };
    items
        .iter()
        .filter_map(Value::as_object)
        .map(|b| {
            let mut out = match b.get("type").and_then(Value::as_str) {
                Some("text") => converse_text(b)?,
                Some("reasoning_content") => converse_reasoning(b),
                Some("tool_use") => converse_tool_use(b, message),
                _ => {
                    let mut value = b.clone();
                    return Ok(match value.remove("index") {
                        Some(index) => {
                            json!({"type": "non_standard", "value": value, "index": index})
                        }
                        None => json!({"type": "non_standard", "value": b}),
                    });
                }
            };
            if let Some(index) = b.get("index") {
                out["index"] = index.clone();
            }
            Ok(out)
        })
        .collect()
}

/// A text block without citations: its `text` (`block["text"]`, a `KeyError` without one).
pub(super) fn plain_text(b: &Map<String, Value>) -> Result<Value, Builtin> {
    let text = b.get("text").ok_or_else(|| Builtin::Key("text".into()))?;
    Ok(json!({"type": "text", "text": text}))
}

fn converse_text(b: &Map<String, Value>) -> Result<Value, Builtin> {
    Ok(match b.get("citations").filter(|c| truthy(c)) {
        Some(citations) => json!({
            "type": "text",
            "text": get_or(b, "text", json!("")),
            "annotations": citations
                .as_array()
                .map(|list| list.iter().map(converse_citation).collect::<Vec<_>>())
                .unwrap_or_default(),
        }),
        None => plain_text(b)?,
    })
}

/// `_convert_citation_to_v1`.
fn converse_citation(citation: &Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!("citation"));
    let Some(c) = citation.as_object() else {
        return Value::Object(out);
    };
    if let Some(title) = c.get("title") {
        out.insert("title".into(), title.clone());
    }
    if let Some(items) = c
        .get("source_content")
        .filter(|s| truthy(s))
        .and_then(Value::as_array)
        .filter(|items| items.iter().all(Value::is_object))
    {
        let text: String = items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect();
        out.insert("cited_text".into(), json!(text));
    }
    let mut extras = Map::new();
    for (k, v) in c {
        if !matches!(
            k.as_str(),
            "type" | "source_content" | "title" | "index" | "extras"
        ) {
            extras.insert(k.clone(), v.clone());
        }
    }
    if !extras.is_empty() {
        out.insert("extras".into(), Value::Object(extras));
    }
    Value::Object(out)
}

fn converse_reasoning(b: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!("reasoning"));
    let mut extras = Map::new();
    if let Some(content) = b
        .get("reasoning_content")
        .filter(|r| truthy(r))
        .and_then(Value::as_object)
    {
        if let Some(text) = content.get("text").filter(|t| truthy(t)) {
            out.insert("reasoning".into(), text.clone());
        }
        for key in ["signature", "redacted_content"] {
            if let Some(v) = content.get(key).filter(|v| truthy(v)) {
                extras.insert(key.into(), v.clone());
            }
        }
    }
    // Python's dict keeps `extras` where it was first set: before `index` when the
    // reasoning itself had a signature.
    if !extras.is_empty() {
        out.insert("extras".into(), Value::Object(extras.clone()));
    }
    if let Some(index) = b.get("index") {
        out.insert("index".into(), index.clone());
    }
    for (k, v) in b {
        if !matches!(
            k.as_str(),
            "type" | "reasoning_content" | "index" | "extras"
        ) {
            extras.insert(k.clone(), v.clone());
        }
    }
    if !extras.is_empty() {
        out.insert("extras".into(), Value::Object(extras));
    }
    Value::Object(out)
}

/// A `tool_use` block read as the message's own tool call: its only one, or the one with
/// the block's id, else the block's own name and input.
pub(super) fn converse_tool_use(b: &Map<String, Value>, message: &AiMessage) -> Value {
    let call = match message.tool_calls.as_slice() {
        [only] => Some(only),
        calls => b
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .and_then(|id| calls.iter().find(|c| c.id.as_deref() == Some(id))),
    };
    match call {
        Some(c) => json!({"type": "tool_call", "name": c.name, "args": c.args, "id": c.id}),
        None => json!({
            "type": "tool_call",
            "name": get_or(b, "name", json!("")),
            "args": get_or(b, "input", json!({})),
            "id": get_or(b, "id", json!("")),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_and_strict_base64() {
        assert_eq!(
            data_uri("data:image/png;base64,abc\ndef"),
            Some(("image/png", "abc"))
        );
        assert_eq!(data_uri("data:;base64,abc"), None);
        assert_eq!(data_uri("data:image/png;base64,"), None);
        assert_eq!(strict_b64decode("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(strict_b64decode("aG k="), None);
        assert_eq!(strict_b64decode("aGk"), None);
    }
}
