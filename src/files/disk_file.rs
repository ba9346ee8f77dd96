//! `FilesystemBackend`'s reads and writes of one resolved path: what a read finds (a text
//! file's content, or a binary file whole as base64) and a write that makes the parent
//! directories first, each failure naming the path Python's would.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::disk;

// The two answers below are deepagents' own texts (`deepagents.backends.filesystem`,
// `FilesystemBackend.read`), word for word.

/// `read`'s answer when there is no regular file at the path.
pub fn missing_text(file_path: &str) -> String {
    format!("File '{file_path}' not found")
}

/// `read`'s answer for a video over the limit.
pub fn video_too_large_text(limit: i64) -> String {
    format!("Video file exceeds maximum input size of {limit} bytes")
}

/// What `read` finds before paging.
pub enum Found {
    /// No regular file there.
    Missing,
    /// A text file's content, with universal newlines.
    Text(String),
    /// A text file with nothing but whitespace in it.
    Blank,
    /// A binary file, base64-encoded.
    Encoded(String),
    /// A video larger than the limit, which is not read.
    VideoTooLarge,
}

/// Why a read or write failed, in the shapes Python raises.
#[derive(Debug)]
pub enum Failure {
    /// An OS error on this path (Python's `OSError` naming it).
    Os(io::Error, PathBuf),
    /// A text file that is not UTF-8 (Python's `UnicodeDecodeError`).
    Decode(Vec<u8>, std::str::Utf8Error),
}

/// Whether an error is one Python's `Path.exists()`/`is_file()` answer `False` for.
pub fn answers_false(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOENT | libc::ENOTDIR | libc::EBADF | libc::ELOOP)
    )
}

/// `str.isspace()` for every character: Python counts the separators U+001C..U+001F too.
fn blank(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// The file at `path` (following symlinks to see whether it is one, never a final symlink to
/// read it) as `read` takes it, `kind` being its file type; a video over `video_limit`
/// bytes is refused before it is read.
pub fn read(path: &Path, kind: &str, video_limit: i64) -> Result<Found, Failure> {
    let os = |e: io::Error| Failure::Os(e, path.to_owned());
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {}
        Ok(_) => return Ok(Found::Missing),
        Err(e) if answers_false(&e) => return Ok(Found::Missing),
        Err(e) => return Err(os(e)),
    }
    let bytes = if kind == "video" {
        let mut file = disk::open_nofollow(path, None).map_err(os)?;
        let size = file.metadata().map_err(os)?.len();
        if i128::from(size) > i128::from(video_limit) {
            return Ok(Found::VideoTooLarge);
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(os)?;
        bytes
    } else {
        disk::read_bytes(path).map_err(os)?
    };
    if kind != "text" {
        use base64::Engine;
        return Ok(Found::Encoded(
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ));
    }
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => disk::universal_newlines(text),
        Err(e) => return Err(Failure::Decode(bytes, e)),
    };
    Ok(if blank(&text) {
        Found::Blank
    } else {
        Found::Text(text)
    })
}

/// `Path.mkdir(parents=True, exist_ok=True)`: a missing parent made first; the error names the
/// directory whose creation failed, as Python's does.
pub fn make_dirs(dir: &Path) -> Result<(), Failure> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            match dir.parent() {
                Some(parent) if parent != dir => make_dirs(parent)?,
                _ => return Err(Failure::Os(e, dir.to_owned())),
            }
            match std::fs::create_dir(dir) {
                Err(e) if !dir.is_dir() => Err(Failure::Os(e, dir.to_owned())),
                _ => Ok(()),
            }
        }
        Err(_) if dir.is_dir() => Ok(()),
        Err(e) => Err(Failure::Os(e, dir.to_owned())),
    }
}
