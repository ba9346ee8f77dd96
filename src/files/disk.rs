//! The walks under `FilesystemBackend`'s `glob` and `grep` (deepagents walks with
//! `Path.rglob("*")` in Python): every regular file below a directory, matched and read in
//! Rust. The backend keeps its own rules for what a path means (virtual mode, the root).
//!
//! As `rglob` does, symlinked directories are listed but not entered, and a symlink to a
//! file counts as a file (the backend then drops what resolves outside its root).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::text::IncludeGlob;

/// A regular file found by the walk: its path relative to the walk's root (`/`-separated)
/// and its full path.
pub struct Walked {
    pub relative: String,
    pub path: PathBuf,
}

/// Every regular file below `root`, in sorted order per directory; `true` when the
/// deadline cut the walk short.
pub fn walk(root: &Path, deadline: Option<Instant>, mut visit: impl FnMut(Walked) -> bool) -> bool {
    let mut stack: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut subdirs = Vec::new();
        for entry in entries {
            if deadline.is_some_and(|d| Instant::now() > d) {
                return true;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                subdirs.push((path, relative));
            } else if (kind.is_file() || (kind.is_symlink() && path.is_file()))
                && !visit(Walked { relative, path })
            {
                return false;
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    false
}

/// The files below `root` whose relative path matches `pattern` (deepagents'
/// `compile_grep_include_glob` rules), and whether the deadline cut the walk short.
pub fn glob(root: &Path, pattern: &IncludeGlob, deadline: Option<Instant>) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let truncated = walk(root, deadline, |w| {
        if pattern.is_match(&w.relative) {
            out.push(w.path);
        }
        true
    });
    (out, truncated)
}

/// The chunk size Python's text files decode in.
const PY_CHUNK: usize = 8192;

/// One file's matches for a literal grep.
pub struct FileMatches {
    pub path: PathBuf,
    pub lines: Vec<(u64, String)>,
    /// The file stopped being readable text partway (after lines were read or matched).
    pub error: Option<String>,
}

pub struct GrepOutcome {
    pub files: Vec<FileMatches>,
    pub truncated: bool,
}

/// Lines as Python's text mode reads them: split at `\n`, `\r\n` and `\r`, each given back
/// without its ending.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                Some(line)
            }
        }
    })
}

/// deepagents' Python grep fallback: a literal search of every text file under the
/// directory `root` (the backend passes a file's directory, as deepagents does), skipping files over `max_size` bytes and files
/// that are not UTF-8, up to `max_count` matches.
pub fn grep(
    root: &Path,
    pattern: &str,
    include: Option<&IncludeGlob>,
    max_size: u64,
    max_count: Option<usize>,
    deadline: Option<Instant>,
) -> GrepOutcome {
    let mut files = Vec::new();
    let mut total = 0usize;
    let mut capped = false;
    let truncated = walk(root, deadline, |w| {
        if include.is_some_and(|g| !g.is_match(&w.relative)) {
            return true;
        }
        let Ok(meta) = std::fs::metadata(&w.path) else {
            return true;
        };
        if meta.len() > max_size {
            return true;
        }
        let bytes = match std::fs::read(&w.path) {
            Ok(b) => b,
            Err(e) => {
                files.push(FileMatches {
                    path: w.path,
                    lines: Vec::new(),
                    error: Some(format!("OSError: {}", os_detail(&e))),
                });
                return true;
            }
        };
        let (text, bad) = match std::str::from_utf8(&bytes) {
            Ok(t) => (t, None),
            // Python decodes 8 KiB chunks: the chunks before the undecodable one were searched,
            // line by line, and nothing after.
            Err(e) => {
                let searched = e.valid_up_to() / PY_CHUNK * PY_CHUNK;
                let prefix = std::str::from_utf8(&bytes[..searched]).unwrap_or_default();
                let whole_lines = prefix.rfind('\n').map_or("", |i| &prefix[..=i]);
                let reason = if e.error_len().is_some() {
                    "invalid start byte"
                } else {
                    "unexpected end of data"
                };
                (whole_lines, Some(reason))
            }
        };
        let mut found = Vec::new();
        let mut scanned = 0;
        for (i, line) in lines(text).enumerate() {
            scanned = i + 1;
            if !line.contains(pattern) {
                continue;
            }
            if max_count.is_some_and(|m| total >= m) {
                capped = true;
                break;
            }
            found.push((i as u64 + 1, line.to_owned()));
            total += 1;
        }
        let error = match bad {
            Some(_) if capped => None,
            Some(reason) if scanned > 0 || !found.is_empty() => {
                Some(format!("UnicodeDecodeError: {reason}"))
            }
            _ => None,
        };
        if !found.is_empty() || error.is_some() {
            files.push(FileMatches {
                path: w.path,
                lines: found,
                error,
            });
        }
        !capped
    });
    GrepOutcome {
        files,
        truncated: truncated || capped,
    }
}

/// Opens `path` without following a final symlink (`O_NOFOLLOW`), as deepagents'
/// `FilesystemBackend` opens every file it reads or writes.
pub fn open_nofollow(path: &Path, write: Option<bool>) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    match write {
        None => {
            options.read(true);
        }
        Some(create) => {
            options
                .write(true)
                .truncate(true)
                .create(create)
                .mode(0o644);
        }
    }
    options.custom_flags(libc::O_NOFOLLOW).open(path)
}

/// The bytes of a file, read without following a final symlink.
pub fn read_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    open_nofollow(path, None)?.read_to_end(&mut out)?;
    Ok(out)
}

/// Text as Python's text mode reads it: `\r\n` and `\r` become `\n`.
pub fn universal_newlines(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    }
}

/// Writes `content` (created with mode 0644 when `create`), not following a final symlink.
pub fn write_text(path: &Path, content: &str, create: bool) -> std::io::Result<()> {
    use std::io::Write;
    open_nofollow(path, Some(create))?.write_all(content.as_bytes())
}

/// What `stat` (following symlinks, as Python's `Path.stat()`) says of a directory entry.
pub struct Stat {
    pub is_file: bool,
    pub is_dir: bool,
    pub size: u64,
    pub modified: Option<f64>,
}

/// The entries of `dir` by name, each with its `stat`, or `None` where `stat` failed
/// (the caller looks at that entry again itself, to report why).
pub fn list_dir(dir: &Path) -> std::io::Result<Vec<(std::ffi::OsString, Option<Stat>)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        out.push((entry.file_name(), stat_of(&entry.path())));
    }
    Ok(out)
}

/// `stat` of `path` following symlinks; `None` when it fails. The modification time is
/// Python's `st_mtime`, computed as CPython does (`sec + nsec * 1e-9`), so the timestamp
/// rounded from it is the same to the microsecond.
pub fn stat_of(path: &Path) -> Option<Stat> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|meta| Stat {
        is_file: meta.is_file(),
        is_dir: meta.is_dir(),
        size: meta.len(),
        modified: Some(meta.mtime() as f64 + meta.mtime_nsec() as f64 * 1e-9),
    })
}

fn os_detail(e: &std::io::Error) -> String {
    let text = e.to_string();
    // Python's `strerror` is the message without Rust's " (os error N)".
    match text.find(" (os error") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempdir::Dir {
        let dir = tempdir::Dir::new();
        std::fs::create_dir_all(dir.0.join("a/b")).unwrap();
        std::fs::write(dir.0.join("a/b/x.py"), "one\nneedle two\r\nthree\rneedle").unwrap();
        std::fs::write(dir.0.join("top.py"), "no").unwrap();
        std::fs::write(dir.0.join(".hidden.py"), "needle").unwrap();
        let mut bad = vec![b'n'; PY_CHUNK];
        bad.extend_from_slice(b"\nneedle\n\xff");
        bad[0..7].copy_from_slice(b"needle\n");
        std::fs::write(dir.0.join("bad.txt"), bad).unwrap();
        dir
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Self {
                let p = std::env::temp_dir().join(format!("da-rs-disk-{}", uuid::Uuid::new_v4()));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn globs_like_the_python_walk() {
        let dir = tree();
        let (found, truncated) = glob(&dir.0, &IncludeGlob::new("*.py").unwrap(), None);
        let mut names: Vec<String> = found
            .iter()
            .map(|p| {
                p.strip_prefix(&dir.0)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        assert_eq!(names, vec!["a/b/x.py", "top.py"]);
        assert!(!truncated);
        let past = Instant::now() - Duration::from_secs(1);
        assert!(glob(&dir.0, &IncludeGlob::new("*.nothing").unwrap(), Some(past)).1);
    }

    use std::time::Duration;

    #[test]
    fn greps_text_lines_and_reports_half_read_files() {
        let dir = tree();
        let out = grep(&dir.0, "needle", None, u64::MAX, None, None);
        let mut by_name: Vec<(String, Vec<u64>, Option<String>)> = out
            .files
            .into_iter()
            .map(|f| {
                let name = f
                    .path
                    .strip_prefix(&dir.0)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                (name, f.lines.iter().map(|l| l.0).collect(), f.error)
            })
            .collect();
        by_name.sort();
        assert_eq!(by_name[0].0, ".hidden.py");
        assert_eq!(by_name[1], ("a/b/x.py".into(), vec![2, 4], None));
        // The first 8 KiB chunk decoded: its match is kept, and the failure reported.
        assert_eq!(by_name[2].1, vec![1]);
        assert_eq!(
            by_name[2].2.as_deref(),
            Some("UnicodeDecodeError: invalid start byte")
        );
        let capped = grep(&dir.0, "needle", None, u64::MAX, Some(1), None);
        assert!(capped.truncated);
        assert_eq!(capped.files.iter().map(|f| f.lines.len()).sum::<usize>(), 1);
    }

    #[test]
    fn reads_and_writes_without_following_symlinks() {
        let dir = tempdir::Dir::new();
        let file = dir.0.join("f.txt");
        write_text(&file, "a\r\nb\rc", true).unwrap();
        let text = String::from_utf8(read_bytes(&file).unwrap()).unwrap();
        assert_eq!(universal_newlines(&text), "a\nb\nc");
        std::os::unix::fs::symlink(&file, dir.0.join("link")).unwrap();
        let e = read_bytes(&dir.0.join("link")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
        assert!(write_text(&dir.0.join("link"), "x", true).is_err());
        assert!(write_text(&dir.0.join("missing.txt"), "x", false).is_err());
        let mut listed = list_dir(&dir.0).unwrap();
        listed.sort_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<&str> = listed.iter().filter_map(|(n, _)| n.to_str()).collect();
        assert_eq!(names, vec!["f.txt", "link"]);
        let stat = listed[0].1.as_ref().unwrap();
        assert!(stat.is_file && !stat.is_dir && stat.size == 6);
    }
}
