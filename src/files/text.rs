//! The text operations deepagents' backends share (`deepagents/backends/utils.py`): read
//! windows, exact string replacement, literal grep and glob over a `files` map.

use serde_json::{Map, Value};

use super::backend::{FileInfo, GrepMatch, GrepResult, ReadResult};
use super::file_data;
use super::glob::{Glob, GlobError};

pub const EMPTY_OLD_STRING_ERROR: &str =
    "Error: old_string cannot be empty. Provide the exact text to replace.";

/// Python's `str.splitlines(keepends=True)`: every line boundary Python knows.
pub fn splitlines_keepends(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.peek() {
                Some(&(j, '\n')) => {
                    chars.next();
                    j + 1
                }
                _ => i + 1,
            },
            '\n' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        out.push(&s[start..end]);
        start = end;
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// deepagents' `slice_read_response`: the window `[offset, offset + limit)` of the file's
/// lines, with pagination metadata. Offsets and limits below zero are clamped.
pub fn slice_read(fd: &Value, offset: i64, limit: i64) -> ReadResult {
    slice_read_shown(fd, offset, limit, None)
}

/// `slice_read` for a caller whose offset did not fit in 64 bits: `offset` is the
/// saturated value, `shown_offset` the number as given, which an offset past the end names.
pub fn slice_read_shown(
    fd: &Value,
    offset: i64,
    limit: i64,
    shown_offset: Option<&str>,
) -> ReadResult {
    let content = match file_data::content(fd) {
        Ok(c) => c,
        Err(e) => return ReadResult::error(e),
    };
    let (offset, limit) = (offset.max(0) as usize, limit.max(0) as usize);
    if content.trim().is_empty() {
        return ReadResult {
            file_data: Some(file_data::with_content(fd, content)),
            ..Default::default()
        };
    }
    if limit == 0 {
        return ReadResult {
            file_data: Some(file_data::with_content(fd, String::new())),
            no_lines_requested: true,
            ..Default::default()
        };
    }
    let lines = splitlines_keepends(&content);
    let total = lines.len();
    if offset >= total {
        let offset = shown_offset.map_or_else(|| offset.to_string(), str::to_owned);
        return ReadResult::error(format!(
            "Line offset {offset} exceeds file length ({total} lines)"
        ));
    }
    let end = offset.saturating_add(limit).min(total);
    let sliced = lines[offset..end]
        .concat()
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    ReadResult {
        file_data: Some(file_data::with_content(fd, sliced)),
        total_lines: Some(total),
        start_line: Some(offset + 1),
        end_line: Some(end),
        next_offset: (end < total).then_some(end),
        ..Default::default()
    }
}

/// `replace`'s answer when `old` is nowhere in the text; `{}` stands for `old`.
pub const NOT_FOUND_TEMPLATE: &str = "Error: String not found in file: '{}'";

/// deepagents' `perform_string_replacement`: the new content and the number of
/// replacements, or the error text the model sees.
pub fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(String, usize), String> {
    if old.is_empty() {
        return Err(EMPTY_OLD_STRING_ERROR.to_owned());
    }
    let occurrences = content.matches(old).count();
    if occurrences == 0 {
        if let Some(stripped) = old.strip_suffix('\n')
            && old.chars().count() > 1
            && content.ends_with(stripped)
        {
            let stripped_count = content.matches(stripped).count();
            if stripped_count == 1 {
                return Err("Error: old_string ends with a newline, but the file does not end with a newline. Retry with the trailing newline removed from old_string (and from new_string if it also ends with a newline).".to_owned());
            }
            return Err(format!(
                "Error: old_string ends with a newline, but the file does not end with a newline. With the trailing newline removed, old_string would appear {stripped_count} times in the file. Retry with the trailing newline removed and add surrounding context so the match is unique."
            ));
        }
        return Err(NOT_FOUND_TEMPLATE.replace("{}", old));
    }
    if occurrences > 1 && !replace_all {
        return Err(format!(
            "Error: String '{old}' appears {occurrences} times in file. Use replace_all=True to replace all instances, or provide a more specific string with surrounding context."
        ));
    }
    Ok((content.replace(old, new), occurrences))
}

/// deepagents' `_normalize_path`: `None` or empty is `/`, a leading `/` is added, a
/// trailing one dropped; a blank path is `None` (deepagents' "Path cannot be empty").
pub fn normalize_search_path(path: Option<&str>) -> Option<String> {
    let path = match path {
        Some(p) if !p.is_empty() => p,
        _ => "/",
    };
    if path.trim().is_empty() {
        return None;
    }
    let mut normalized = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    if normalized != "/" && normalized.ends_with('/') {
        normalized = normalized.trim_end_matches('/').to_owned();
    }
    Some(normalized)
}

/// deepagents' `_filter_files_by_path`: the exact file, or everything under the directory.
pub fn files_under<'a>(files: &'a Map<String, Value>, dir: &str) -> Vec<(&'a String, &'a Value)> {
    if let Some((k, v)) = files.get_key_value(dir) {
        return vec![(k, v)];
    }
    if dir == "/" {
        return files.iter().filter(|(k, _)| k.starts_with('/')).collect();
    }
    let prefix = format!("{dir}/");
    files
        .iter()
        .filter(|(k, _)| k.starts_with(&prefix))
        .collect()
}

/// deepagents' `_relative_to_root`.
pub fn relative_to(file_path: &str, dir: &str) -> String {
    if dir == "/" {
        return file_path[1..].to_owned();
    }
    if file_path == dir {
        return file_path.rsplit('/').next().unwrap_or_default().to_owned();
    }
    file_path
        .get(dir.len() + 1..)
        .unwrap_or_default()
        .to_owned()
}

/// deepagents' `compile_grep_include_glob`: a pattern without `/` matches a file's name at
/// any depth; one with `/` matches the path relative to the search root.
pub struct IncludeGlob {
    glob: Glob,
    anchored: bool,
}

impl IncludeGlob {
    pub fn new(pattern: &str) -> Result<Self, GlobError> {
        if pattern.replace('\\', "/").split('/').any(|s| s == "..") {
            return Err(GlobError(format!(
                "Path traversal not allowed in glob pattern {}",
                crate::tools::invocation_error::str_repr(pattern)
            )));
        }
        let glob = Glob::new(pattern.trim_start_matches('/')).map_err(|e| {
            GlobError(format!(
                "Invalid glob pattern {}: {e}",
                crate::tools::invocation_error::str_repr(pattern)
            ))
        })?;
        Ok(IncludeGlob {
            glob,
            anchored: pattern.contains('/'),
        })
    }

    pub fn is_match(&self, relative: &str) -> bool {
        if self.anchored {
            self.glob.is_match(relative)
        } else {
            let name = relative
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default();
            self.glob.is_match(name)
        }
    }
}

/// deepagents' `grep_matches_from_files`: a literal substring search, line by line. A
/// record whose content is neither text nor a list of lines is skipped.
pub fn grep_files(
    files: &Map<String, Value>,
    pattern: &str,
    path: Option<&str>,
    glob: Option<&str>,
    max_count: Option<usize>,
) -> GrepResult {
    grep_files_checked(files, pattern, path, glob, max_count, false).unwrap_or_default()
}

/// `grep_files`; with `strict`, such a record fails the search with the text of the
/// `TypeError` deepagents raises for it.
pub fn grep_files_checked(
    files: &Map<String, Value>,
    pattern: &str,
    path: Option<&str>,
    glob: Option<&str>,
    max_count: Option<usize>,
    strict: bool,
) -> Result<GrepResult, String> {
    let scope = match SearchScope::new(path, glob.filter(|g| !g.is_empty())) {
        Ok(Some(scope)) => scope,
        Ok(None) => return Ok(GrepResult::found(Vec::new(), false)),
        Err(e) => {
            return Ok(GrepResult {
                error: Some(e.0),
                ..Default::default()
            });
        }
    };
    let root_is_file = files.contains_key(scope.dir());
    let mut matches = Vec::new();
    for (file_path, fd) in files {
        if !scope.includes(file_path, root_is_file) || file_data::encoding(fd) == "base64" {
            continue;
        }
        let content = match file_data::content(fd) {
            Ok(content) => content,
            Err(e) if strict => return Err(e),
            Err(_) => continue,
        };
        if grep_content(file_path, &content, pattern, max_count, &mut matches) {
            return Ok(GrepResult::found(matches, true));
        }
    }
    Ok(GrepResult::found(matches, false))
}

/// Which records a search under a root (and an include glob) reads, decided on the path
/// alone so a caller holding the records elsewhere reads only those: deepagents'
/// `_filter_files_by_path` (the root itself when it is a file, else everything below it),
/// then the include glob on the path relative to the root.
pub struct SearchScope {
    dir: String,
    include: Option<IncludeGlob>,
}

impl SearchScope {
    /// `None` for a blank root, which finds nothing (checked before the glob, as deepagents).
    pub fn new(path: Option<&str>, include: Option<&str>) -> Result<Option<Self>, GlobError> {
        let Some(dir) = normalize_search_path(path) else {
            return Ok(None);
        };
        let include = include.map(IncludeGlob::new).transpose()?;
        Ok(Some(SearchScope { dir, include }))
    }

    /// The normalized root.
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// What a key under the root starts with: the root and a `/` (just `/` for the root).
    pub fn prefix(&self) -> String {
        if self.dir == "/" {
            "/".to_owned()
        } else {
            format!("{}/", self.dir)
        }
    }

    /// Whether `key` is searched; `root_is_file` says the root is itself a key, and then
    /// only that key is.
    pub fn includes(&self, key: &str, root_is_file: bool) -> bool {
        let under = if root_is_file {
            key == self.dir
        } else if self.dir == "/" {
            key.starts_with('/')
        } else {
            key.strip_prefix(self.dir.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        };
        under
            && self
                .include
                .as_ref()
                .is_none_or(|m| m.is_match(&relative_to(key, &self.dir)))
    }
}

/// Appends the lines of `content` holding `pattern` to `matches`; `true` when one more
/// match than `max_count` turned up, which stops the search (exactly `max_count` is complete).
pub fn grep_content(
    file_path: &str,
    content: &str,
    pattern: &str,
    max_count: Option<usize>,
    matches: &mut Vec<GrepMatch>,
) -> bool {
    // A line never holds '\n', so such a pattern matches none; the empty one matches every line.
    if pattern.is_empty() || pattern.contains('\n') {
        return grep_lines(file_path, content, pattern, max_count, matches);
    }
    // One substring search over the whole text, not one per line: the lines around the hits
    // are found afterwards, and the rest of a matching line is skipped (one match a line).
    let bytes = content.as_bytes();
    let finder = memchr::memmem::Finder::new(pattern.as_bytes());
    let (mut line, mut counted, mut from) = (1u64, 0usize, 0usize);
    while let Some(hit) = finder.find(&bytes[from..]) {
        let at = from + hit;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        line += memchr::memchr_iter(b'\n', &bytes[counted..start]).count() as u64;
        counted = start;
        if max_count.is_some_and(|m| matches.len() >= m) {
            return true;
        }
        matches.push(GrepMatch {
            path: file_path.to_owned(),
            line,
            text: content[start..end].to_owned(),
            ..Default::default()
        });
        if end == bytes.len() {
            break;
        }
        from = end + 1;
    }
    false
}

/// `grep_content` line by line, for the patterns a whole-text search cannot take.
fn grep_lines(
    file_path: &str,
    content: &str,
    pattern: &str,
    max_count: Option<usize>,
    matches: &mut Vec<GrepMatch>,
) -> bool {
    for (i, line) in content.split('\n').enumerate() {
        if line.contains(pattern) {
            if max_count.is_some_and(|m| matches.len() >= m) {
                return true;
            }
            matches.push(GrepMatch {
                path: file_path.to_owned(),
                line: i as u64 + 1,
                text: line.to_owned(),
                ..Default::default()
            });
        }
    }
    false
}

/// deepagents' `_glob_search_files` as StateBackend reports it: matching files, the most
/// recently modified first (undated last), with their sizes.
pub fn glob_files(
    files: &Map<String, Value>,
    pattern: &str,
    path: Option<&str>,
) -> Result<Vec<FileInfo>, GlobError> {
    let Some(scope) = SearchScope::new(path, Some(pattern))? else {
        return Ok(Vec::new());
    };
    let root_is_file = files.contains_key(scope.dir());
    let mut found: Vec<(&String, &Value, &str)> = files
        .iter()
        .filter(|(k, _)| scope.includes(k, root_is_file))
        .map(|(k, v)| (k, v, file_data::modified_at(v).unwrap_or("")))
        .collect();
    found.sort_by(|a, b| b.2.cmp(a.2));
    Ok(found.into_iter().map(|(k, v, _)| file_info(k, v)).collect())
}

/// StateBackend's `ls`: direct children, directories with a trailing `/`, sorted by path.
pub fn ls_files(files: &Map<String, Value>, path: &str) -> Vec<FileInfo> {
    let found: Result<_, std::convert::Infallible> =
        ls_entries(files.keys().map(String::as_str), path, |_, key| {
            Ok(files.get(key).map(|fd| file_info(key, fd)))
        });
    found.unwrap_or_default()
}

/// A listing of `path` over the store's keys: a key deeper down shows as its first
/// directory below `path` (ending in `/`), a direct child as the entry `load` gives for it
/// from its index among `keys` and the key (`None` leaves it out), so only direct children
/// are ever loaded; sorted by path.
pub fn ls_entries<'k, E>(
    keys: impl IntoIterator<Item = &'k str>,
    path: &str,
    mut load: impl FnMut(usize, &str) -> Result<Option<FileInfo>, E>,
) -> Result<Vec<FileInfo>, E> {
    let prefix = if path.ends_with('/') {
        path.to_owned()
    } else {
        format!("{path}/")
    };
    let mut infos = Vec::new();
    let mut subdirs = std::collections::BTreeSet::new();
    for (index, k) in keys.into_iter().enumerate() {
        let Some(relative) = k.strip_prefix(&prefix) else {
            continue;
        };
        if let Some((dir, _)) = relative.split_once('/') {
            subdirs.insert(format!("{prefix}{dir}/"));
            continue;
        }
        infos.extend(load(index, k)?);
    }
    infos.extend(subdirs.into_iter().map(|path| FileInfo {
        path,
        is_dir: Some(true),
        size: Some(0),
        modified_at: Some(String::new()),
    }));
    infos.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(infos)
}

/// A file's listing entry: its size is the byte length of its text (0 when unreadable).
pub fn file_info(path: &str, fd: &Value) -> FileInfo {
    FileInfo {
        path: path.to_owned(),
        is_dir: Some(false),
        size: Some(file_data::content_len(fd).unwrap_or(0) as u64),
        modified_at: Some(file_data::modified_at(fd).unwrap_or("").to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn splits_like_python() {
        assert_eq!(
            splitlines_keepends("a\nb\r\nc\rd"),
            vec!["a\n", "b\r\n", "c\r", "d"]
        );
        assert_eq!(splitlines_keepends("a\n"), vec!["a\n"]);
    }

    #[test]
    fn read_windows() {
        let fd = json!({"content": "one\ntwo\nthree", "encoding": "utf-8"});
        let r = slice_read(&fd, 1, 1);
        assert_eq!(r.file_data.unwrap()["content"], "two\n");
        assert_eq!(
            (r.start_line, r.end_line, r.next_offset, r.total_lines),
            (Some(2), Some(2), Some(2), Some(3))
        );
        assert_eq!(
            slice_read(&fd, 3, 1).error.unwrap(),
            "Line offset 3 exceeds file length (3 lines)"
        );
        assert!(slice_read(&fd, 0, 0).no_lines_requested);
    }

    #[test]
    fn replacement_errors() {
        assert_eq!(
            replace("abc", "b", "x", false).unwrap(),
            ("axc".to_owned(), 1)
        );
        assert!(
            replace("bb", "b", "x", false)
                .unwrap_err()
                .contains("appears 2 times")
        );
        assert!(
            replace("ab", "b\n", "x", false)
                .unwrap_err()
                .starts_with("Error: old_string ends with a newline")
        );
        assert_eq!(
            replace("a", "z", "x", false).unwrap_err(),
            "Error: String not found in file: 'z'"
        );
    }

    #[test]
    fn grep_and_glob() {
        let files: Map<String, Value> = serde_json::from_value(json!({
            "/a.py": {"content": "x = 1\ny = 2", "encoding": "utf-8", "modified_at": "1"},
            "/src/b.py": {"content": "x", "encoding": "utf-8", "modified_at": "2"},
            "/src/c.txt": {"content": "x", "encoding": "utf-8"},
        }))
        .unwrap();
        let r = grep_files(&files, "x", None, Some("*.py"), None);
        assert_eq!(r.matches.unwrap().len(), 2);
        let g = glob_files(&files, "*.py", None).unwrap();
        assert_eq!(
            g.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            vec!["/src/b.py", "/a.py"]
        );
        let ls = ls_files(&files, "/");
        assert_eq!(
            ls.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            vec!["/a.py", "/src/"]
        );
    }

    /// The whole-text search against the line-by-line one (the oracle) on texts with hits at
    /// either end, on consecutive lines, twice on a line, across multi-byte characters and
    /// `\r`, and with every cap.
    #[test]
    fn grep_content_matches_the_line_by_line_search() {
        let texts = [
            "",
            "ab",
            "ab\n",
            "\nab",
            "xab\nab\n\nabab\nzz ab\r\nab",
            "é ab ü\nñ\nabé\n€ab€",
            "aaa\naa\na\n",
            "no hits here\nnone",
        ];
        let patterns = [
            "ab", "a", "aa", "é", "€ab€", "b\r", "ab\n", "", "zz ab", "missing",
        ];
        for text in texts {
            for pattern in patterns {
                for cap in [None, Some(0), Some(1), Some(2), Some(3)] {
                    let (mut fast, mut slow) = (Vec::new(), Vec::new());
                    let fast_cut = grep_content("/f", text, pattern, cap, &mut fast);
                    let slow_cut = grep_lines("/f", text, pattern, cap, &mut slow);
                    assert_eq!(
                        (fast_cut, &fast),
                        (slow_cut, &slow),
                        "{text:?} {pattern:?} {cap:?}"
                    );
                }
            }
        }
    }
}
