//! Which files `read_file` returns as media blocks rather than text, and their MIME types
//! (deepagents' `_EXTENSION_TO_FILE_TYPE` and `mimetypes.guess_type`).

/// deepagents' `_EXTENSION_TO_FILE_TYPE`: the formats Gemini's multimodal inputs take, in
/// its order; any other extension is read as text.
pub const FILE_TYPE_EXTENSIONS: &[(&str, &str)] = &[
    (".png", "image"),
    (".jpeg", "image"),
    (".jpg", "image"),
    (".webp", "image"),
    (".gif", "image"),
    (".heic", "image"),
    (".heif", "image"),
    (".mp4", "video"),
    (".mpeg", "video"),
    (".mov", "video"),
    (".avi", "video"),
    (".flv", "video"),
    (".mpg", "video"),
    (".webm", "video"),
    (".wmv", "video"),
    (".3gpp", "video"),
    (".wav", "audio"),
    (".mp3", "audio"),
    (".aiff", "audio"),
    (".aac", "audio"),
    (".ogg", "audio"),
    (".flac", "audio"),
    (".pdf", "file"),
    (".ppt", "file"),
    (".pptx", "file"),
];

/// The block type for a path's extension: `image`, `video`, `audio`, `file`, or `text`.
pub fn file_type(path: &str) -> &'static str {
    let ext = extension(path);
    FILE_TYPE_EXTENSIONS
        .iter()
        .find(|(known, _)| *known == ext)
        .map_or("text", |(_, kind)| kind)
}

/// What backends treat as non-text when reading (`_get_backend_read_file_type`): the map
/// above plus `.mkv`.
pub fn backend_read_type(path: &str) -> &'static str {
    if extension(path) == ".mkv" {
        "video"
    } else {
        file_type(path)
    }
}

/// The host's table of MIME types by extension, when it has one: Python's `mimetypes`
/// reads the machine's `mime.types` files too, so deepagents' guess depends on the machine
/// (`.docx` is known on most, not by Python's own table).
static HOST_TYPES: std::sync::OnceLock<std::collections::HashMap<String, String>> =
    std::sync::OnceLock::new();

/// Sets the host's table (once; later calls are ignored).
pub fn set_host_types(types: std::collections::HashMap<String, String>) {
    let _ = HOST_TYPES.set(types);
}

/// The host's `mimetypes.guess_extension` of each type its table knows, when it has one.
static HOST_EXTENSIONS: std::sync::OnceLock<std::collections::HashMap<String, String>> =
    std::sync::OnceLock::new();

/// Sets the host's extensions by type (once; later calls are ignored).
pub fn set_host_extensions(extensions: std::collections::HashMap<String, String>) {
    let _ = HOST_EXTENSIONS.set(extensions);
}

/// The host's extensions by type, when it gave them.
pub fn host_extensions() -> Option<&'static std::collections::HashMap<String, String>> {
    HOST_EXTENSIONS.get()
}

/// `mimetypes.guess_type("file" + suffix)[0] or "application/octet-stream"`: the host's
/// table when it gave one, else Python's own table for the extensions that occur here.
pub fn mime_type(path: &str) -> String {
    let ext = extension(path);
    if let Some(found) = HOST_TYPES.get().and_then(|t| t.get(&ext)) {
        return found.clone();
    }
    builtin_mime_type(&ext).to_owned()
}

fn builtin_mime_type(ext: &str) -> &'static str {
    match ext {
        ".png" => "image/png",
        ".jpeg" | ".jpg" => "image/jpeg",
        ".webp" => "image/webp",
        ".gif" => "image/gif",
        ".heic" => "image/heic",
        ".heif" => "image/heif",
        ".svg" => "image/svg+xml",
        ".bmp" => "image/bmp",
        ".tif" | ".tiff" => "image/tiff",
        ".ico" => "image/vnd.microsoft.icon",
        ".mp4" => "video/mp4",
        ".mpeg" | ".mpg" => "video/mpeg",
        ".mov" => "video/quicktime",
        ".avi" => "video/x-msvideo",
        ".flv" => "video/x-flv",
        ".webm" => "video/webm",
        ".wmv" => "video/x-ms-wmv",
        ".mkv" => "video/x-matroska",
        ".3gpp" => "audio/3gpp",
        ".wav" => "audio/x-wav",
        ".mp3" => "audio/mpeg",
        ".aiff" => "audio/x-aiff",
        ".aac" => "audio/aac",
        ".ogg" => "audio/ogg",
        ".flac" => "audio/flac",
        ".pdf" => "application/pdf",
        ".ppt" => "application/vnd.ms-powerpoint",
        ".pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ".zip" => "application/zip",
        ".gz" => "application/gzip",
        ".json" => "application/json",
        ".txt" => "text/plain",
        ".csv" => "text/csv",
        ".html" | ".htm" => "text/html",
        _ => "application/octet-stream",
    }
}

/// `PurePosixPath(path).suffix.lower()`: the last `.suffix` of the name, if the name is not
/// only a suffix.
fn extension(path: &str) -> String {
    // `PurePosixPath(path).suffix`: trailing slashes do not count.
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    match name.rfind('.') {
        Some(i) if i > 0 && i + 1 < name.len() => name[i..].to_lowercase(),
        _ => String::new(),
    }
}
