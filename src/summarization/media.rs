//! deepagents' `_offload_inline_media`: before the older part of the conversation is saved
//! and summarized, every inline media block of it (a `data:` URL, or a block carrying
//! `base64`) is uploaded to the backend at
//! `{artifacts_root}/conversation_history/media/{sha256[:16]}.{ext}`, once per content, and
//! replaced by a reference to that path: `{"type": "image"|"audio"|"video", "url": path}`, or
//! a text block `<file url="path" />` for any other MIME type. A block whose payload does not
//! decode, or whose upload failed, becomes the text `<image error="failed_to_offload" />`.
//! Only the copies the history file and the summary are made from change: the state keeps
//! the raw messages.
//!
//! Blocks are read as LangChain's `content_blocks` reads them, and a message with a block
//! replaced carries all its blocks in that standard form (see `content_blocks`).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use base64::Engine;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::texts;
use crate::files::Backend;
use crate::files::backend::FilesScope;
use crate::messages::{Content, Message};

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

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
    }
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

/// `_convert_legacy_v0_content_block_to_v1` (the fields the history reads; extras left out).
fn from_v0(b: &Map<String, Value>) -> Value {
    let ty = kind(b).unwrap_or_default();
    let mime = b.get("mime_type").filter(|m| truthy(m));
    match b.get("source_type").and_then(Value::as_str) {
        Some("url") => block(ty, &[("url", b.get("url")), ("mime_type", mime)]),
        Some("base64") => block(ty, &[("base64", b.get("data")), ("mime_type", mime)]),
        Some("id") => block(ty, &[("file_id", b.get("id"))]),
        Some("text") if ty == "file" => block(
            "text-plain",
            &[
                ("text", b.get("url")),
                ("mime_type", Some(mime.unwrap_or(&json!("text/plain")))),
            ],
        ),
        _ => Value::Object(b.clone()),
    }
}

/// `_parse_data_uri`: `data:<mime>;base64,<data>`, both non-empty.
fn parse_data_uri(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    let data = data.strip_suffix('\n').unwrap_or(data);
    (!mime.is_empty() && !mime.contains(';') && !data.is_empty() && !data.contains('\n'))
        .then_some((mime, data))
}

/// `is_openai_data_block`.
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
                && nonempty("image_url").is_some_and(|u| u.get("url").is_some_and(Value::is_string))
        }
        Some("input_audio") => nonempty("input_audio").is_some_and(|a| {
            a.get("data").is_some_and(Value::is_string)
                && a.get("format").is_some_and(Value::is_string)
        }),
        Some("file") => nonempty("file").is_some_and(|f| {
            f.get("file_data").is_some_and(Value::is_string)
                || f.get("file_id").is_some_and(Value::is_string)
        }),
        _ => false,
    }
}

/// `_convert_openai_format_to_data_block` of an OpenAI data block (the fields the history
/// reads; extras left out). A `file` whose data is not a base64 `data:` URI comes back as
/// it was.
fn from_openai(b: &Map<String, Value>) -> Value {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    match kind(b).unwrap_or_default() {
        "image_url" => {
            let url = s(&b["image_url"]["url"]);
            match parse_data_uri(&url) {
                Some((mime, data)) => json!({"type": "image", "base64": data, "mime_type": mime}),
                None => json!({"type": "image", "url": url}),
            }
        }
        "input_audio" => {
            let audio = &b["input_audio"];
            json!({"type": "audio", "base64": audio["data"], "mime_type": format!("audio/{}", s(&audio["format"]))})
        }
        _ => {
            let file = &b["file"];
            if file.get("file_id").is_some() {
                return json!({"type": "file", "file_id": file["file_id"]});
            }
            match parse_data_uri(file["file_data"].as_str().unwrap_or_default()) {
                // LangChain names every such file a PDF.
                Some((_, data)) => {
                    json!({"type": "file", "base64": data, "mime_type": "application/pdf"})
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
    Some(match source_type.as_str() {
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
        _ => non_standard(b),
    })
}

fn is_known(b: &Map<String, Value>) -> bool {
    kind(b).is_some_and(|k| KNOWN.contains(&k))
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
fn read_with(block: Value, convert: impl Fn(&Map<String, Value>) -> Option<Value>) -> Value {
    let block = unwrapped(block);
    let Value::Object(b) = &block else {
        return block;
    };
    match convert(b) {
        Some(converted) => converted,
        None if is_known(b) => block,
        None => non_standard(b),
    }
}

/// One item of a message's content as `BaseMessage.content_blocks` gives it: a string is a
/// text block, a known v1 block stays as it is, and LangChain's readers of v0 blocks,
/// OpenAI Chat Completions data blocks and Anthropic `source` blocks convert in turn (each
/// over every block); what none reads is `non_standard`. (LangChain's Google GenAI and
/// Bedrock Converse readers are not applied.)
fn standard(item: &Value) -> Option<Value> {
    let first = match item {
        Value::String(text) => return Some(json!({"type": "text", "text": text})),
        Value::Object(b) if is_known(b) && !b.contains_key("source_type") => item.clone(),
        Value::Object(b) => non_standard(b),
        _ => return None,
    };
    let v0 = read_with(first, |b| {
        (matches!(kind(b), Some("image" | "audio" | "file")) && b.contains_key("source_type"))
            .then(|| from_v0(b))
    });
    let openai = read_with(v0, |b| {
        (matches!(kind(b), Some("image_url" | "input_audio" | "file")) && is_openai_data_block(b))
            .then(|| from_openai(b))
            .map(|c| match c.as_object() {
                Some(m) if is_known(m) => c,
                _ => non_standard(b),
            })
    });
    Some(read_with(openai, from_anthropic))
}

/// `message.content_blocks`. An AI message's tool calls that its content does not hold are
/// added as `tool_call` blocks, and its `reasoning_content` as a leading reasoning block
/// (provider-specific readers, by `response_metadata.model_provider`, are not applied).
pub fn content_blocks(message: &Message) -> Vec<Value> {
    let items: Vec<Value> = match message.content() {
        Content::Text(s) if s.is_empty() => Vec::new(),
        Content::Text(s) => vec![Value::String(s.clone())],
        Content::Blocks(blocks) => blocks.clone(),
    };
    if let Message::Ai(ai) = message
        && ai
            .response_metadata
            .get("output_version")
            .and_then(Value::as_str)
            == Some("v1")
        && matches!(ai.content, Content::Blocks(_))
    {
        return items;
    }
    let mut out: Vec<Value> = items.iter().filter_map(standard).collect();
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
            && !r.is_empty()
        {
            out.insert(0, json!({"type": "reasoning", "reasoning": r}));
        }
    }
    out
}

/// `str(value)` of a JSON value as an f-string puts it.
fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::pyrepr::repr(other),
    }
}

/// `_extract_data_url`: the block's inline `data:` URL, if it carries one.
pub fn data_url(block: &Value) -> Option<String> {
    let b = block.as_object()?;
    if let Some(raw) = b.get("base64").filter(|v| truthy(v)) {
        let mime = b
            .get("mime_type")
            .filter(|m| truthy(m))
            .map_or_else(|| "application/octet-stream".to_owned(), py_str);
        return Some(format!("data:{mime};base64,{}", py_str(raw)));
    }
    if let Some(url) = b
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| u.starts_with("data:"))
    {
        return Some(url.to_owned());
    }
    b.get("image_url")
        .and_then(Value::as_object)
        .and_then(|u| u.get("url"))
        .and_then(Value::as_str)
        .filter(|u| u.starts_with("data:"))
        .map(str::to_owned)
}

/// Python's `base64.b64decode(s)` (not validating): characters outside the alphabet are
/// skipped, decoding stops at a completing pad, and a short last quantum is an error.
pub fn py_b64decode(s: &str) -> Option<Vec<u8>> {
    if !s.is_ascii() {
        return None;
    }
    let value = |c: u8| -> Option<u8> {
        match c {
            b'A'..=b'Z' => Some(c - b'A'),
            b'a'..=b'z' => Some(c - b'a' + 26),
            b'0'..=b'9' => Some(c - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut quad, mut left, mut pads) = (0u8, 0u8, 0u8);
    for c in s.bytes() {
        if c == b'=' {
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    return Some(out);
                }
            }
            continue;
        }
        let Some(v) = value(c) else { continue };
        pads = 0;
        match quad {
            0 => {
                quad = 1;
                left = v;
            }
            1 => {
                quad = 2;
                out.push((left << 2) | (v >> 4));
                left = v & 0x0f;
            }
            2 => {
                quad = 3;
                out.push((left << 4) | (v >> 2));
                left = v & 0x03;
            }
            _ => {
                quad = 0;
                out.push((left << 6) | v);
                left = 0;
            }
        }
    }
    (quad == 0).then_some(out)
}

/// `urllib.parse.unquote_to_bytes`.
fn unquote_to_bytes(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Python 3.11's `mimetypes` defaults (strict): each type's first extension.
const DEFAULT_EXTENSIONS: &[(&str, &str)] = &[
    ("application/javascript", ".js"),
    ("application/json", ".json"),
    ("application/manifest+json", ".webmanifest"),
    ("application/msword", ".doc"),
    ("application/n-quads", ".nq"),
    ("application/n-triples", ".nt"),
    ("application/octet-stream", ".bin"),
    ("application/oda", ".oda"),
    ("application/pdf", ".pdf"),
    ("application/pkcs7-mime", ".p7c"),
    ("application/postscript", ".ps"),
    ("application/trig", ".trig"),
    ("application/vnd.apple.mpegurl", ".m3u"),
    ("application/vnd.ms-excel", ".xls"),
    ("application/vnd.ms-powerpoint", ".ppt"),
    ("application/wasm", ".wasm"),
    ("application/x-bcpio", ".bcpio"),
    ("application/x-cpio", ".cpio"),
    ("application/x-csh", ".csh"),
    ("application/x-dvi", ".dvi"),
    ("application/x-gtar", ".gtar"),
    ("application/x-hdf", ".hdf"),
    ("application/x-hdf5", ".h5"),
    ("application/x-latex", ".latex"),
    ("application/x-mif", ".mif"),
    ("application/x-netcdf", ".cdf"),
    ("application/x-pkcs12", ".p12"),
    ("application/x-pn-realaudio", ".ram"),
    ("application/x-python-code", ".pyc"),
    ("application/x-sh", ".sh"),
    ("application/x-shar", ".shar"),
    ("application/x-shockwave-flash", ".swf"),
    ("application/x-sv4cpio", ".sv4cpio"),
    ("application/x-sv4crc", ".sv4crc"),
    ("application/x-tar", ".tar"),
    ("application/x-tcl", ".tcl"),
    ("application/x-tex", ".tex"),
    ("application/x-texinfo", ".texi"),
    ("application/x-troff", ".roff"),
    ("application/x-troff-man", ".man"),
    ("application/x-troff-me", ".me"),
    ("application/x-troff-ms", ".ms"),
    ("application/x-ustar", ".ustar"),
    ("application/x-wais-source", ".src"),
    ("application/xml", ".xsl"),
    ("application/zip", ".zip"),
    ("audio/3gpp", ".3gp"),
    ("audio/3gpp2", ".3g2"),
    ("audio/aac", ".aac"),
    ("audio/basic", ".au"),
    ("audio/mpeg", ".mp3"),
    ("audio/opus", ".opus"),
    ("audio/x-aiff", ".aif"),
    ("audio/x-pn-realaudio", ".ra"),
    ("audio/x-wav", ".wav"),
    ("image/avif", ".avif"),
    ("image/bmp", ".bmp"),
    ("image/gif", ".gif"),
    ("image/ief", ".ief"),
    ("image/jpeg", ".jpg"),
    ("image/heic", ".heic"),
    ("image/heif", ".heif"),
    ("image/png", ".png"),
    ("image/svg+xml", ".svg"),
    ("image/tiff", ".tiff"),
    ("image/vnd.microsoft.icon", ".ico"),
    ("image/x-cmu-raster", ".ras"),
    ("image/x-portable-anymap", ".pnm"),
    ("image/x-portable-bitmap", ".pbm"),
    ("image/x-portable-graymap", ".pgm"),
    ("image/x-portable-pixmap", ".ppm"),
    ("image/x-rgb", ".rgb"),
    ("image/x-xbitmap", ".xbm"),
    ("image/x-xpixmap", ".xpm"),
    ("image/x-xwindowdump", ".xwd"),
    ("message/rfc822", ".eml"),
    ("text/css", ".css"),
    ("text/csv", ".csv"),
    ("text/html", ".html"),
    ("text/n3", ".n3"),
    ("text/plain", ".txt"),
    ("text/richtext", ".rtx"),
    ("text/tab-separated-values", ".tsv"),
    ("text/vtt", ".vtt"),
    ("text/x-python", ".py"),
    ("text/x-setext", ".etx"),
    ("text/x-sgml", ".sgm"),
    ("text/x-vcard", ".vcf"),
    ("text/xml", ".xml"),
    ("video/mp4", ".mp4"),
    ("video/mpeg", ".mpeg"),
    ("video/quicktime", ".mov"),
    ("video/webm", ".webm"),
    ("video/x-msvideo", ".avi"),
    ("video/x-sgi-movie", ".movie"),
];

/// `mimetypes.guess_extension(mime)`: the host's answer when it gave its table (Python
/// reads the machine's `mime.types` files too), else Python's own defaults.
pub fn guess_extension(mime: &str) -> Option<String> {
    let mime = mime.to_lowercase();
    if let Some(host) = crate::files::media::host_extensions() {
        return host.get(&mime).cloned();
    }
    DEFAULT_EXTENSIONS
        .iter()
        .find(|(t, _)| *t == mime)
        .map(|(_, e)| (*e).to_owned())
}

/// `_decode_data_url`: the bytes, the extension and the MIME type of a `data:` URL.
pub fn decode(url: &str) -> Option<(Vec<u8>, String, String)> {
    let (header, payload) = url.split_once(',')?;
    let mime = if header.contains(':') {
        let after = header.split(':').nth(1).unwrap_or_default();
        after.split(';').next().unwrap_or_default()
    } else {
        "application/octet-stream"
    };
    let ext = guess_extension(mime).unwrap_or_else(|| ".bin".into());
    let ext = ext.trim_start_matches('.').to_owned();
    let lower = header.to_lowercase();
    let raw = if lower.split(';').any(|p| p == "base64") {
        match py_b64decode(payload) {
            Some(raw) => raw,
            None => {
                tracing::warn!("Failed to decode data: content block: not base64");
                return None;
            }
        }
    } else {
        unquote_to_bytes(payload)
    };
    Some((raw, ext, mime.to_owned()))
}

/// `sha256(raw).hexdigest()[:16]`.
fn key_of(raw: &[u8]) -> String {
    Sha256::digest(raw)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `_media_reference_block`.
fn reference(path: &str, mime: &str) -> Value {
    let major = mime.split('/').next().unwrap_or_default();
    if matches!(major, "image" | "audio" | "video") {
        json!({"type": major, "url": path})
    } else {
        json!({"type": "text", "text": format!("<file url=\"{path}\" />")})
    }
}

fn with_content(message: &Message, blocks: Vec<Value>) -> Message {
    let mut out = message.clone();
    let content = match &mut out {
        Message::System(m) => &mut m.content,
        Message::Human(m) => &mut m.content,
        Message::Ai(m) => &mut m.content,
        Message::Tool(m) => &mut m.content,
    };
    *content = Content::Blocks(blocks);
    out
}

/// `_offload_inline_media`: the messages with their inline media uploaded under `prefix`
/// and replaced by references, and how many blocks became the failed placeholder. Without
/// inline media the messages come back as they were.
pub async fn offload(
    messages: &[Arc<Message>],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    scope: Arc<FilesScope>,
) -> (Vec<Arc<Message>>, usize) {
    let standard: Vec<Vec<Value>> = messages.iter().map(|m| content_blocks(m)).collect();
    let mut paths: HashMap<String, String> = HashMap::new();
    let mut failed: HashSet<String> = HashSet::new();
    let mut saw = false;
    for block in standard.iter().flatten() {
        let Some(url) = data_url(block) else { continue };
        saw = true;
        let Some((raw, ext, _)) = decode(&url) else {
            continue;
        };
        let key = key_of(&raw);
        if paths.contains_key(&key) || failed.contains(&key) {
            continue;
        }
        let path = format!("{prefix}/{key}.{ext}");
        let payload = base64::engine::general_purpose::STANDARD.encode(&raw);
        let outcome = backend
            .upload_blobs(scope.clone(), vec![(path.clone(), payload)])
            .await;
        let error = match outcome {
            Ok(Some(errors)) => match errors.into_iter().next() {
                Some(None) => None,
                Some(Some(e)) => Some(e),
                None => Some("missing_upload_response".to_owned()),
            },
            Ok(None) => Some("the backend failed".to_owned()),
            Err(e) => Some(e.to_string()),
        };
        match error {
            None => {
                paths.insert(key, path);
            }
            Some(e) => {
                tracing::warn!("Failed to upload media {path} to backend: {e}");
                failed.insert(key);
            }
        }
    }
    if !saw {
        return (messages.to_vec(), 0);
    }
    let mut failed_blocks = 0;
    let out = messages
        .iter()
        .zip(standard)
        .map(|(message, blocks)| {
            let mut modified = false;
            let blocks: Vec<Value> = blocks
                .into_iter()
                .map(|block| {
                    let Some(url) = data_url(&block) else {
                        return block;
                    };
                    modified = true;
                    if let Some((raw, _, mime)) = decode(&url)
                        && let Some(path) = paths.get(&key_of(&raw))
                    {
                        return reference(path, &mime);
                    }
                    failed_blocks += 1;
                    json!({"type": "text", "text": texts::MEDIA_FAILED_PLACEHOLDER})
                })
                .collect();
            if modified {
                Arc::new(with_content(message, blocks))
            } else {
                message.clone()
            }
        })
        .collect();
    (out, failed_blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_as_python_does() {
        assert_eq!(py_b64decode("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(py_b64decode("aGk"), None);
        assert_eq!(py_b64decode("!!!!").as_deref(), Some(&b""[..]));
        assert_eq!(py_b64decode("a G\nk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(py_b64decode("aGk=trailing").as_deref(), Some(&b"hi"[..]));
        assert_eq!(py_b64decode("a"), None);
        assert_eq!(py_b64decode("é"), None);
    }

    #[test]
    fn extensions_and_references() {
        assert_eq!(guess_extension("image/png").as_deref(), Some(".png"));
        assert_eq!(guess_extension("IMAGE/JPEG").as_deref(), Some(".jpg"));
        assert_eq!(guess_extension("application/pdf").as_deref(), Some(".pdf"));
        assert_eq!(decode("data:,abc").map(|d| d.1), Some("bin".into()));
        assert_eq!(unquote_to_bytes("%3Csvg%3E%zz%4"), b"<svg>%zz%4");
        assert_eq!(
            reference("/m/a.pdf", "application/pdf"),
            json!({"type": "text", "text": "<file url=\"/m/a.pdf\" />"})
        );
    }
}
