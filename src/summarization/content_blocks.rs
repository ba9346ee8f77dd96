//! LangChain's `BaseMessage.content_blocks`: a message's content read as standard (v1)
//! content blocks, through LangChain's readers of legacy (v0) blocks, OpenAI Chat
//! Completions data blocks and Anthropic `source` blocks. The summarization's media offload
//! reads messages this way, as deepagents does.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::provider_blocks;
use crate::error::Builtin;
use crate::messages::{Content, Message};
use crate::pyrepr::truthy;
use crate::stand_ins::is_text;

/// `types.KNOWN_BLOCK_TYPES`.
const KNOWN: [&str; 15] = [
    "audio",
    "file",
    "image",
    "invalid_tool_call",
    "non_standard",
    "reasoning",
    "refusal",
    "server_tool_call",
    "server_tool_call_chunk",
    "server_tool_result",
    "text",
    "text-plain",
    "tool_call",
    "tool_call_chunk",
    "video",
];

fn kind(b: &Map<String, Value>) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

fn non_standard(b: &Map<String, Value>) -> Value {
    json!({"type": "non_standard", "value": b})
}

/// A v1 block of `kind` from `fields`, `mime_type` kept only when given.
fn block(kind: &str, fields: &[(&str, Option<&Value>)]) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    for (k, v) in fields {
        if let Some(v) = v {
            out.insert((*k).into(), (*v).clone());
        }
    }
    Value::Object(out)
}

/// The keys of `b` outside `known`, those that are not `None` unless `keep_none`.
pub(super) fn extras_of(
    b: &Map<String, Value>,
    known: &[&str],
    keep_none: bool,
) -> Map<String, Value> {
    b.iter()
        .filter(|(k, v)| !known.contains(&k.as_str()) && (keep_none || !v.is_null()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `extras` put on `out` when it has any.
fn with_extras_map(mut out: Value, extras: Map<String, Value>) -> Value {
    if !extras.is_empty() {
        out["extras"] = Value::Object(extras);
    }
    out
}

/// LangChain's `create_image_block` / `create_audio_block` / `create_file_block` called
/// with `args` as keyword arguments: an `id` (a fresh `lc_` one when none is given), the
/// fields it names in its own order, every other argument that is not `None` as `extras`.
fn create_block(kind: &str, args: Map<String, Value>) -> Value {
    let mut args = args;
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    let id = args
        .shift_remove("id")
        .filter(truthy)
        .unwrap_or_else(|| json!(format!("lc_{}", uuid::Uuid::new_v4().hyphenated())));
    out.insert("id".into(), id);
    for field in ["url", "base64", "file_id", "mime_type", "index"] {
        if let Some(v) = args.shift_remove(field).filter(|v| !v.is_null()) {
            out.insert(field.into(), v);
        }
    }
    with_extras_map(Value::Object(out), extras_of(&args, &[], false))
}

/// `(key, value)` pairs as keyword arguments.
fn kwargs<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// `_convert_legacy_v0_content_block_to_v1`. (A v0 block with its own `id` makes LangChain
/// raise `TypeError`; here it is read as one without.)
fn from_v0(b: &Map<String, Value>) -> Value {
    let ty = kind(b).unwrap_or_default();
    let mime = b.get("mime_type").filter(|m| truthy(m));
    let source = b.get("source_type").and_then(Value::as_str);
    let url_keys: &[&str] = &["mime_type", "type", "source_type", "url"];
    let (known, converted) = match source {
        Some("url") => (
            url_keys,
            block(ty, &[("url", b.get("url")), ("mime_type", mime)]),
        ),
        Some("base64") => (
            &["mime_type", "type", "source_type", "data"][..],
            block(ty, &[("base64", b.get("data")), ("mime_type", mime)]),
        ),
        Some("id") if ty == "file" => {
            let mut args = extras_of(b, &["type", "source_type", "id"], true);
            args.insert(
                "file_id".into(),
                b.get("id").cloned().unwrap_or(Value::Null),
            );
            return create_block("file", args);
        }
        Some("id") => (
            &["type", "source_type", "id"][..],
            block(ty, &[("file_id", b.get("id"))]),
        ),
        Some("text") if ty == "file" => (
            url_keys,
            block(
                "text-plain",
                &[
                    ("text", b.get("url")),
                    ("mime_type", Some(mime.unwrap_or(&json!("text/plain")))),
                ],
            ),
        ),
        _ => return Value::Object(b.clone()),
    };
    with_extras_map(converted, extras_of(b, known, false))
}

/// `_parse_data_uri`: `data:<mime>;base64,<data>`, both non-empty.
fn parse_data_uri(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    let data = data.strip_suffix('\n').unwrap_or(data);
    (!mime.is_empty() && !mime.contains(';') && !data.is_empty() && !data.contains('\n'))
        .then_some((mime, data))
}

/// `is_openai_data_block` (`isinstance(.., str)`: text, not bytes).
fn is_openai_data_block(b: &Map<String, Value>) -> bool {
    let nonempty = |k: &str| {
        b.get(k)
            .and_then(Value::as_object)
            .filter(|o| !o.is_empty())
    };
    match kind(b) {
        Some("image_url") => {
            b.keys()
                .all(|k| matches!(k.as_str(), "type" | "image_url" | "detail"))
                && nonempty("image_url").is_some_and(|u| u.get("url").is_some_and(is_text))
        }
        Some("input_audio") => nonempty("input_audio").is_some_and(|a| {
            a.get("data").is_some_and(is_text) && a.get("format").is_some_and(is_text)
        }),
        Some("file") => nonempty("file").is_some_and(|f| {
            f.get("file_data").is_some_and(is_text) || f.get("file_id").is_some_and(is_text)
        }),
        _ => false,
    }
}

/// The keys of `nested` outside `known`, named as `name(key)`.
fn renamed(nested: &Value, known: &[&str], name: impl Fn(&str) -> String) -> Map<String, Value> {
    nested
        .as_object()
        .map(|n| extras_of(n, known, true))
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (name(&k), v))
        .collect()
}

/// `_convert_openai_format_to_data_block` of an OpenAI data block: the block's other keys,
/// and its payload's other keys (prefixed), as arguments of LangChain's block constructor.
/// A `file` whose data is not a base64 `data:` URI comes back as it was.
fn from_openai(b: &Map<String, Value>) -> Value {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let outer = |known: &[&str]| extras_of(b, known, true);
    match kind(b).unwrap_or_default() {
        "image_url" => {
            let nested = &b["image_url"];
            let url = s(&nested["url"]);
            let mut args = match parse_data_uri(&url) {
                Some((mime, data)) => kwargs([("base64", json!(data)), ("mime_type", json!(mime))]),
                None => kwargs([("url", json!(url))]),
            };
            args.extend(outer(&["type", "image_url"]));
            args.extend(renamed(nested, &["url"], |k| match k {
                "detail" => k.to_owned(),
                _ => format!("image_url_{k}"),
            }));
            create_block("image", args)
        }
        "input_audio" => {
            let audio = &b["input_audio"];
            let mime = format!("audio/{}", s(&audio["format"]));
            let mut args = kwargs([
                ("base64", audio["data"].clone()),
                ("mime_type", json!(mime)),
            ]);
            args.extend(outer(&["type", "input_audio"]));
            args.extend(renamed(audio, &["data", "format"], |k| {
                format!("audio_{k}")
            }));
            create_block("audio", args)
        }
        _ => {
            let file = &b["file"];
            if let Some(file_id) = file.get("file_id") {
                let mut args = kwargs([("file_id", file_id.clone())]);
                args.extend(outer(&["type", "file"]));
                args.extend(renamed(file, &["file_id"], |k| format!("file_{k}")));
                return create_block("file", args);
            }
            match parse_data_uri(file["file_data"].as_str().unwrap_or_default()) {
                // LangChain names every such file a PDF.
                Some((_, data)) => {
                    let filename = file.get("filename").cloned().unwrap_or(Value::Null);
                    let mut args = kwargs([
                        ("base64", json!(data)),
                        ("mime_type", json!("application/pdf")),
                        ("filename", filename),
                    ]);
                    args.extend(outer(&["type", "file"]));
                    args.extend(renamed(file, &["file_data", "filename"], |k| {
                        format!("file_{k}")
                    }));
                    create_block("file", args)
                }
                None => Value::Object(b.clone()),
            }
        }
    }
}

/// `_convert_to_v1_from_anthropic_input` of a block with a `source` (`None`: not one).
fn from_anthropic(b: &Map<String, Value>) -> Option<Value> {
    let doc = match kind(b)? {
        "document" => true,
        "image" => false,
        _ => return None,
    };
    let source = b.get("source")?.as_object()?;
    let source_type = source.get("type")?;
    let out_type = if doc { "file" } else { "image" };
    let has = |k: &str| source.contains_key(k);
    let converted = match source_type.as_str() {
        Some("base64") if has("data") && has("media_type") => json!({
            "type": out_type, "base64": source["data"], "mime_type": source["media_type"],
        }),
        Some("url") if has("url") => json!({"type": out_type, "url": source["url"]}),
        Some("file") if has("file_id") => json!({"type": out_type, "id": source["file_id"]}),
        Some("text") if doc && has("data") => json!({
            "type": "text-plain",
            "text": source["data"],
            "mime_type": b.get("media_type").cloned().unwrap_or_else(|| json!("text/plain")),
        }),
        _ => return Some(non_standard(b)),
    };
    Some(with_extras_map(
        converted,
        extras_of(b, &["type", "source"], true),
    ))
}

/// `_convert_to_v1_from_genai_input` of a block (`None`: not one it reads). Its Bedrock
/// Converse twin, which runs next in LangChain, reads nothing this one has not already
/// read (the same text, image and document shapes), so it has no counterpart here.
fn from_genai(b: &Map<String, Value>) -> Result<Option<Value>, Builtin> {
    let only = |key: &str| (b.len() == 1).then(|| b.get(key)).flatten();
    if let Some(text) = only("text").filter(|t| truthy(t)) {
        return Ok(Some(json!({"type": "text", "text": text})));
    }
    let with_format = |key: &str| {
        only(key)
            .filter(|v| truthy(v))
            .and_then(Value::as_object)
            .filter(|o| o.contains_key("format"))
    };
    if let Some(document) = with_format("document") {
        let format = document.get("format").and_then(Value::as_str);
        let converted = match format {
            Some("pdf") => source_with(document, "bytes")?
                .map(b64_of)
                .transpose()?
                .map(
                    |data| json!({"type": "file", "base64": data, "mime_type": "application/pdf"}),
                ),
            Some("txt") => source_with(document, "text")?
                .map(|text| json!({"type": "text-plain", "text": text, "mime_type": "text/plain"})),
            _ => None,
        };
        return Ok(Some(match converted {
            Some(converted) => with_extras(converted, document),
            None => non_standard(b),
        }));
    }
    if let Some(image) = with_format("image") {
        let Some(data) = source_with(image, "bytes")? else {
            return Ok(Some(non_standard(b)));
        };
        let mime = format!("image/{}", super::media::py_str(&image["format"]));
        let converted = json!({"type": "image", "base64": b64_of(data)?, "mime_type": mime});
        return Ok(Some(with_extras(converted, image)));
    }
    let Some(block_kind) = kind(b) else {
        return Ok(None);
    };
    Ok(match block_kind {
        "file_data" if b.contains_key("file_uri") => {
            let mut file = json!({"type": "file", "url": b["file_uri"]});
            if let Some(mime) = b.get("mime_type").filter(|m| truthy(m)) {
                file["mime_type"] = mime.clone();
            }
            Some(file)
        }
        "function_call" if b.contains_key("name") => Some(json!({
            "type": "tool_call",
            "name": b["name"],
            "args": b.get("args").cloned().unwrap_or_else(|| json!({})),
            "id": b.get("id").cloned().unwrap_or_else(|| json!("")),
        })),
        "executable_code" => Some(provider_blocks::executable_code(b)),
        "code_execution_result" => Some(provider_blocks::code_result(b)),
        _ => None,
    })
}

/// A GenAI part's `source` (`{}` when it has none) when it holds `key`, as LangChain asks
/// (`key in source`, then `source[key]`): a string or list source holding it cannot be
/// indexed by it, and a scalar one cannot be searched.
fn source_with(part: &Map<String, Value>, key: &str) -> Result<Option<Value>, Builtin> {
    match part.get("source") {
        None => Ok(None),
        Some(Value::Object(source)) => Ok(source.get(key).cloned()),
        // `key in b"..."`: a str is no operand for bytes.
        Some(Value::String(raw)) if crate::stand_ins::is_bytes(raw) => Err(Builtin::Type(
            "a bytes-like object is required, not 'str'".into(),
        )),
        Some(Value::String(text)) if text.contains(key) => Err(Builtin::Type(
            "string indices must be integers, not 'str'".into(),
        )),
        Some(Value::Array(items)) if items.iter().any(|i| i.as_str() == Some(key)) => Err(
            Builtin::Type("list indices must be integers or slices, not str".into()),
        ),
        Some(Value::String(_) | Value::Array(_)) => Ok(None),
        Some(other) => Err(Builtin::Type(format!(
            "argument of type '{}' is not iterable",
            crate::pyrepr::type_name(other)
        ))),
    }
}

/// A part's `bytes` as LangChain's GenAI input reader keeps them: text as it is, anything
/// else base64-encoded (which only bytes can be).
fn b64_of(bytes: Value) -> Result<Value, Builtin> {
    match bytes {
        Value::String(s) if crate::stand_ins::is_bytes(&s) => {
            Ok(json!(crate::stand_ins::base64_of(&s).unwrap_or_default()))
        }
        text @ Value::String(_) => Ok(text),
        other => Err(Builtin::Type(format!(
            "a bytes-like object is required, not '{}'",
            crate::pyrepr::type_name(&other)
        ))),
    }
}

/// `converted` with the part's keys other than `format` and `source` as its `extras`.
fn with_extras(mut converted: Value, part: &Map<String, Value>) -> Value {
    let extras: Map<String, Value> = part
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "format" | "source"))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !extras.is_empty() {
        converted["extras"] = Value::Object(extras);
    }
    converted
}

fn is_known(b: &Map<String, Value>) -> bool {
    kind(b).is_some_and(is_known_type)
}

/// Whether `kind` is one of `types.KNOWN_BLOCK_TYPES`.
pub(super) fn is_known_type(kind: &str) -> bool {
    KNOWN.contains(&kind)
}

/// A block as the next reader of `content_blocks` sees it: a `non_standard` one unwrapped.
fn unwrapped(block: Value) -> Value {
    match block {
        Value::Object(mut b) if kind(&b) == Some("non_standard") => match b.remove("value") {
            Some(value @ Value::Object(_)) => value,
            Some(other) => {
                b.insert("value".into(), other);
                Value::Object(b)
            }
            None => Value::Object(b),
        },
        other => other,
    }
}

/// One reader of `content_blocks` over one block: `convert` answers the blocks it reads,
/// a known block stays, anything else is (again) `non_standard`.
fn read_with(
    block: Value,
    convert: impl Fn(&Map<String, Value>) -> Result<Option<Value>, Builtin>,
) -> Result<Value, Builtin> {
    let block = unwrapped(block);
    let Value::Object(b) = &block else {
        return Ok(block);
    };
    Ok(match convert(b)? {
        Some(converted) => converted,
        None if is_known(b) => block,
        None => non_standard(b),
    })
}

/// One item of a message's content as `BaseMessage.content_blocks` gives it: a string is a
/// text block, a known v1 block stays as it is, and LangChain's readers of v0 blocks,
/// OpenAI Chat Completions data blocks, Anthropic `source` blocks and Google GenAI parts
/// convert in turn (each over every block); what none reads is `non_standard`.
fn standard(item: &Value) -> Result<Option<Value>, Builtin> {
    let first = match item {
        Value::String(text) => return Ok(Some(json!({"type": "text", "text": text}))),
        Value::Object(b) if is_known(b) && !b.contains_key("source_type") => item.clone(),
        Value::Object(b) => non_standard(b),
        _ => return Ok(None),
    };
    let v0 = read_with(first, |b| {
        Ok(
            (matches!(kind(b), Some("image" | "audio" | "file")) && b.contains_key("source_type"))
                .then(|| from_v0(b)),
        )
    })?;
    let openai = read_with(v0, |b| {
        Ok(
            (matches!(kind(b), Some("image_url" | "input_audio" | "file"))
                && is_openai_data_block(b))
            .then(|| from_openai(b))
            .map(|c| match c.as_object() {
                Some(m) if is_known(m) => c,
                _ => non_standard(b),
            }),
        )
    })?;
    let anthropic = read_with(openai, |b| Ok(from_anthropic(b)))?;
    read_with(anthropic, from_genai).map(Some)
}

/// `message.content_blocks`. An AI message naming a provider with a reader of its own
/// (`response_metadata.model_provider`, see `provider_blocks`) is read by it; otherwise an
/// AI message's tool calls that its content does not hold are added as `tool_call` blocks,
/// and its `reasoning_content` as a leading reasoning block. A shape LangChain's readers
/// cannot read is the builtin exception they raise on it.
pub fn content_blocks(message: &Message) -> Result<Vec<Value>, Builtin> {
    let items: Vec<Value> = match message.content() {
        Content::Text(s) if s.is_empty() => Vec::new(),
        Content::Text(s) => vec![Value::String(s.clone())],
        Content::Blocks(blocks) => blocks.clone(),
    };
    if let Message::Ai(ai) = message
        && ai.response_metadata.get_str("output_version").as_deref() == Some("v1")
        && matches!(ai.content, Content::Blocks(_))
    {
        return Ok(items);
    }
    if let Message::Ai(ai) = message
        && let Some(blocks) = provider_blocks::translate(ai)
    {
        return blocks;
    }
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        out.extend(standard(item)?);
    }
    if let Message::Ai(ai) = message {
        let present: HashSet<&str> = items
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_call"))
            .filter_map(|b| b.get("id").and_then(Value::as_str))
            .collect();
        for call in &ai.tool_calls {
            if let Some(id) = call
                .id
                .as_deref()
                .filter(|i| !i.is_empty() && !present.contains(i))
            {
                out.push(
                    json!({"type": "tool_call", "id": id, "name": call.name, "args": call.args}),
                );
            }
        }
        let has_reasoning = out
            .iter()
            .any(|b| b.get("type").and_then(Value::as_str) == Some("reasoning"));
        if !has_reasoning
            && let Some(r) = ai
                .additional_kwargs
                .get("reasoning_content")
                .and_then(Value::as_str)
        {
            out.insert(0, json!({"type": "reasoning", "reasoning": r}));
        }
    }
    Ok(out)
}
