//! `FilesystemBackend`'s changes to one resolved path and its byte transfers: an edit in
//! place, a delete (a link itself, a file, or a whole directory tree), an upload and a
//! download. The backend resolves the path first (its own rules, which a subclass may
//! replace); every failure here names the path Python's would, so the messages match.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::disk;
use super::disk_file::{Failure, answers_false, make_dirs};
use super::text;

/// What an edit came to, short of an OS or decoding failure.
pub enum Edited {
    /// No regular file at the path.
    Missing,
    /// The replacement was refused (empty, missing or ambiguous `old`): the text to show.
    Refused(String),
    /// Written back, with the number of occurrences replaced.
    Replaced(usize),
}

/// `Path.exists()` and friends: `false` for the errors Python ignores, the error otherwise.
fn stat_or_false<T>(found: io::Result<T>, path: &Path) -> Result<Option<T>, Failure> {
    match found {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if answers_false(&e) => Ok(None),
        Err(e) => Err(Failure::Os(e, path.to_owned())),
    }
}

/// Replaces `old` by `new` in the text file at `path`: its one occurrence, or every one with
/// `replace_all`. The file is read with universal newlines, so `\r\n` and `\r` in `old` and
/// `new` (strings copied from a byte-exact download) are read as `\n` too. The result is
/// written back without newline translation; neither access follows a final symlink.
pub fn edit(path: &Path, old: &str, new: &str, replace_all: bool) -> Result<Edited, Failure> {
    let Some(content) = read_for_edit(path)? else {
        return Ok(Edited::Missing);
    };
    let old = disk::universal_newlines(old);
    let new = disk::universal_newlines(new);
    match text::replace(&content, &old, &new, replace_all) {
        Err(refused) => Ok(Edited::Refused(refused)),
        Ok((edited, occurrences)) => {
            disk::write_text(path, &edited, false).map_err(|e| Failure::Os(e, path.to_owned()))?;
            Ok(Edited::Replaced(occurrences))
        }
    }
}

/// The text an edit starts from: `None` when there is no regular file at `path`; the file
/// read with universal newlines, not through a final symlink, otherwise.
pub fn read_for_edit(path: &Path) -> Result<Option<String>, Failure> {
    match stat_or_false(std::fs::metadata(path), path)? {
        Some(meta) if meta.is_file() => {}
        _ => return Ok(None),
    }
    let bytes = disk::read_bytes(path).map_err(|e| Failure::Os(e, path.to_owned()))?;
    match std::str::from_utf8(&bytes) {
        Ok(content) => Ok(Some(disk::universal_newlines(content))),
        Err(e) => Err(Failure::Decode(bytes, e)),
    }
}

/// Empties the file at `path` for rewriting, not through a final symlink (the first step of
/// writing an edit back, which is all an edit whose text cannot be encoded gets to).
pub fn truncate(path: &Path) -> Result<(), Failure> {
    disk::open_nofollow(path, Some(false))
        .map(drop)
        .map_err(|e| Failure::Os(e, path.to_owned()))
}

/// Deletes what is at `path`: a symlink itself (never what it points to), a file, or a
/// directory with everything in it. `Ok(false)` when there is nothing there. A directory
/// removal that fails partway leaves what it had not reached yet.
pub fn delete(path: &Path) -> Result<bool, Failure> {
    let os = |e: io::Error| Failure::Os(e, path.to_owned());
    let target = stat_or_false(std::fs::metadata(path), path)?;
    let is_link = stat_or_false(std::fs::symlink_metadata(path), path)?
        .is_some_and(|meta| meta.file_type().is_symlink());
    match target {
        None if !is_link => Ok(false),
        Some(meta) if meta.is_dir() && !is_link => {
            remove_tree(path, path.as_os_str().to_owned())?;
            Ok(true)
        }
        _ => {
            std::fs::remove_file(path).map_err(os)?;
            Ok(true)
        }
    }
}

/// Removes the directory `dir` and everything under it, entering no symlink. A failure
/// names the entry as `shutil.rmtree`'s descriptor-based walk does: the top directory by the
/// path given, everything below it by its own name.
fn remove_tree(dir: &Path, shown: OsString) -> Result<(), Failure> {
    let failed = |e: io::Error, name: &OsString| Failure::Os(e, PathBuf::from(name));
    let entries = std::fs::read_dir(dir).map_err(|e| failed(e, &shown))?;
    for entry in entries {
        let entry = entry.map_err(|e| failed(e, &shown))?;
        let name = entry.file_name();
        let kind = entry.file_type().map_err(|e| failed(e, &name))?;
        if kind.is_dir() {
            remove_tree(&entry.path(), name)?;
        } else {
            std::fs::remove_file(entry.path()).map_err(|e| failed(e, &name))?;
        }
    }
    std::fs::remove_dir(dir).map_err(|e| failed(e, &shown))
}

/// Opens `path` for an upload: its parent directories made, the file created (mode 0644) or
/// truncated, never through a final symlink. The caller writes the bytes, so that content
/// of the wrong type fails only after the file is made, as Python's does.
pub fn open_upload(path: &Path) -> Result<std::fs::File, Failure> {
    if let Some(parent) = path.parent() {
        make_dirs(parent)?;
    }
    disk::open_nofollow(path, Some(true)).map_err(|e| Failure::Os(e, path.to_owned()))
}

/// Writes an upload's bytes to the file `open_upload` opened.
pub fn write_upload(file: &mut std::fs::File, content: &[u8], path: &Path) -> Result<(), Failure> {
    file.write_all(content)
        .map_err(|e| Failure::Os(e, path.to_owned()))
}

/// The bytes of the file at `path`, read without following a final symlink; `Ok(None)`
/// for a directory (which a download refuses by name).
pub fn download(path: &Path) -> Result<Option<Vec<u8>>, Failure> {
    if stat_or_false(std::fs::metadata(path), path)?.is_some_and(|meta| meta.is_dir()) {
        return Ok(None);
    }
    disk::read_bytes(path)
        .map(Some)
        .map_err(|e| Failure::Os(e, path.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("disk-change-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn edit_reads_universal_newlines_and_writes_back() {
        let dir = scratch("edit");
        let file = dir.join("f.txt");
        std::fs::write(&file, "a\r\nb\r\na\n").unwrap();
        assert!(matches!(
            edit(&file, "a\r\n", "z\n", false),
            Ok(Edited::Refused(_))
        ));
        assert!(matches!(
            edit(&file, "a\r\n", "z\r\n", true),
            Ok(Edited::Replaced(2))
        ));
        assert_eq!(std::fs::read(&file).unwrap(), b"z\nb\nz\n");
        assert!(matches!(edit(&dir, "a", "b", false), Ok(Edited::Missing)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn delete_removes_links_not_targets() {
        let dir = scratch("delete");
        std::fs::create_dir_all(dir.join("real/inner")).unwrap();
        std::fs::write(dir.join("real/inner/f"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("real"), dir.join("alias")).unwrap();
        assert!(delete(&dir.join("alias")).unwrap());
        assert!(dir.join("real/inner/f").exists());
        assert!(delete(&dir.join("real")).unwrap());
        assert!(!delete(&dir.join("real")).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
