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
use serde_json::{Value, json};

use super::content_blocks::content_blocks;
use super::texts;
use crate::error::Builtin;
use crate::files::Backend;
use crate::files::backend::FilesScope;
use crate::messages::{Content, Message};
use crate::pyrepr::truthy;

pub(super) use crate::pyrepr::py_str;

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
    let value = crate::files::video::sextet;
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
    let mut hex = crate::files::sha256_hex(raw);
    hex.truncate(16);
    hex
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

/// `_offload_inline_media`: the messages with their inline media uploaded under `prefix`
/// and replaced by references, and how many blocks became the failed placeholder. Without
/// inline media the messages come back as they were. Messages are read one at a time, each
/// one's media uploaded before the next is read, so a message LangChain cannot read stops
/// the step with its exception after the earlier messages' uploads, as in deepagents.
pub async fn offload(
    messages: &[Arc<Message>],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    scope: Arc<FilesScope>,
) -> Result<(Vec<Arc<Message>>, usize), Builtin> {
    let mut paths: HashMap<String, String> = HashMap::new();
    let mut failed: HashSet<String> = HashSet::new();
    let mut saw = false;
    let mut standard: Vec<Vec<Value>> = Vec::with_capacity(messages.len());
    for message in messages {
        standard.push(content_blocks(message)?);
        let blocks = standard.last().map(Vec::as_slice).unwrap_or_default();
        upload_new(
            blocks,
            backend,
            prefix,
            &scope,
            &mut paths,
            &mut failed,
            &mut saw,
        )
        .await;
    }
    if !saw {
        return Ok((messages.to_vec(), 0));
    }
    Ok(rewrite(messages, standard, &paths))
}

/// The first pass over one message's blocks: each inline payload not seen before uploaded
/// (its path kept) or, when that failed, remembered as failed.
async fn upload_new(
    blocks: &[Value],
    backend: &Arc<dyn Backend>,
    prefix: &str,
    scope: &Arc<FilesScope>,
    paths: &mut HashMap<String, String>,
    failed: &mut HashSet<String>,
    saw: &mut bool,
) {
    for block in blocks {
        let Some(url) = data_url(block) else { continue };
        *saw = true;
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
            Ok(Some(errors)) => upload_error(errors),
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
}

/// `_rewrite_data_url_blocks`: each inline block replaced by its reference, or by the
/// failed placeholder.
fn rewrite(
    messages: &[Arc<Message>],
    standard: Vec<Vec<Value>>,
    paths: &HashMap<String, String>,
) -> (Vec<Arc<Message>>, usize) {
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
                Arc::new(message.with_content(Content::Blocks(blocks)))
            } else {
                message.clone()
            }
        })
        .collect();
    (out, failed_blocks)
}

/// `_upload_response_error`: the error of a one-file upload, from the backend's answers
/// (one per file, `None` for success); no answer at all is an error too.
pub fn upload_error(errors: Vec<Option<String>>) -> Option<String> {
    match errors.into_iter().next() {
        Some(e) => e,
        None => Some("missing_upload_response".to_owned()),
    }
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
