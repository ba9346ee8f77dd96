//! `BaseSandbox.grep` and `.glob` as commands: how the search command is put together
//! (GNU grep, ripgrep where it agrees with grep, or the path-glob script; the walking glob
//! script), and how their output becomes a result.

use serde_json::Value;

use super::sandbox::{b64, py_format, py_str};
use super::sandbox_scripts as scripts;
use crate::middleware::py_text::{is_py_space, py_rstrip, py_strip};

/// `shlex.quote`.
pub fn shlex_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".to_owned();
    }
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if s.chars().all(safe) {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\"'\"'"))
}

/// `PurePosixPath(path).name`.
fn posix_name(path: &str) -> &str {
    path.split('/')
        .rfind(|p| !p.is_empty() && *p != ".")
        .unwrap_or("")
}

/// `exclude_dirs` without the name of the search root itself (GNU `--exclude-dir` would
/// also drop a matching root, so searching inside `.git` explicitly would find nothing).
pub fn excluded_dirs(path: Option<&str>, exclude_dirs: &[String]) -> Vec<String> {
    let root_name = posix_name(path.unwrap_or("."));
    exclude_dirs
        .iter()
        .filter(|n| n.as_str() != root_name)
        .cloned()
        .collect()
}

const RG: &str = "rg --no-config --hidden --no-ignore --encoding none --color never -HnF0";
/// Glob syntax kept on GNU grep: ripgrep's gitignore dialect gives it another meaning.
const GLOB_SYNTAX_RG_READS_DIFFERENTLY: [&str; 3] = ["[", "\\", "**"];
const EXCLUDE_SYNTAX_RG_READS_DIFFERENTLY: [&str; 6] = ["[", "\\", "**", "{", "}", "/"];

/// Whether ripgrep finds exactly what GNU grep finds for these arguments.
fn rg_agrees_with_grep(pattern: &str, glob: Option<&str>, excluded: &[String]) -> bool {
    if pattern.contains('\n') {
        return false;
    }
    if let Some(g) = glob.filter(|g| !g.is_empty())
        && (g != py_rstrip(g)
            || GLOB_SYNTAX_RG_READS_DIFFERENTLY
                .iter()
                .any(|t| g.contains(t)))
    {
        return false;
    }
    !excluded.iter().any(|n| {
        EXCLUDE_SYNTAX_RG_READS_DIFFERENTLY
            .iter()
            .any(|t| n.contains(t))
    })
}

/// `glob` for rg: braces literal as in GNU grep, and a leading `!`/`#` not a negation or
/// comment.
fn rg_literal_glob(glob: &str) -> String {
    let escaped = glob.replace('{', "\\{").replace('}', "\\}");
    if escaped.starts_with(['!', '#']) {
        format!("\\{escaped}")
    } else {
        escaped
    }
}

fn gnu_grep(pattern: &str, root: &str, glob: Option<&str>, excluded: &[String]) -> String {
    // -Z puts a NUL after the file name, so names holding ':' stay unambiguous.
    let mut words = vec!["grep -rHnFZ".to_owned()];
    words.extend(
        excluded
            .iter()
            .map(|n| format!("--exclude-dir={}", shlex_quote(n))),
    );
    if let Some(g) = glob.filter(|g| !g.is_empty()) {
        words.push(format!("--include={}", shlex_quote(g)));
    }
    words.extend(["-e".to_owned(), pattern.to_owned(), root.to_owned()]);
    words.join(" ")
}

fn ripgrep(pattern: &str, root: &str, glob: Option<&str>, excluded: &[String]) -> String {
    // rg lets a later --glob win, so the exclusions come after the include.
    let mut words = vec![RG.to_owned()];
    if let Some(g) = glob.filter(|g| !g.is_empty()) {
        words.extend(["--glob".to_owned(), shlex_quote(&rg_literal_glob(g))]);
    }
    words.extend(
        excluded
            .iter()
            .map(|n| format!("--glob {}", shlex_quote(&format!("!{n}/")))),
    );
    words.extend([
        "-e".to_owned(),
        pattern.to_owned(),
        "--".to_owned(),
        root.to_owned(),
    ]);
    words.join(" ")
}

/// The shell command for `BaseSandbox.grep`.
pub fn grep_cmd(
    pattern: &str,
    path: Option<&str>,
    glob: Option<&str>,
    max_count: Option<i64>,
    exclude_dirs: &[String],
) -> String {
    let excluded = excluded_dirs(path, exclude_dirs);
    let root = path.filter(|p| !p.is_empty()).unwrap_or(".");
    if let Some(g) = glob.filter(|g| !g.is_empty() && g.contains('/')) {
        let max = max_count.map_or_else(|| "None".to_owned(), |m| m.to_string());
        return py_format(
            scripts::GREP_PATH_GLOB_TEMPLATE,
            &[
                ("path_b64", &b64(root)),
                ("glob_b64", &b64(g)),
                ("pattern_b64", &b64(pattern)),
                ("exclude_b64", &b64(&excluded.join("\0"))),
                ("max_count", &max),
            ],
        );
    }
    let (quoted_pattern, quoted_root) = (shlex_quote(pattern), shlex_quote(root));
    let mut search = gnu_grep(&quoted_pattern, &quoted_root, glob, &excluded);
    if rg_agrees_with_grep(pattern, glob, &excluded) {
        // rg only searches directories here: for a single file GNU grep's --include and
        // binary-file handling stay in charge.
        let rg = ripgrep(&quoted_pattern, &quoted_root, glob, &excluded);
        search = format!(
            "if [ -d {quoted_root} ] && command -v rg >/dev/null 2>&1; then {rg}; else {search}; fi"
        );
    }
    // A failing grep (exit 2) reads as "no matches" here, as in deepagents: telling it from
    // no-match and head's SIGPIPE needs pipefail, which plain sh lacks.
    let mut command = format!("{{ {search}; }} 2>/dev/null");
    if let Some(m) = max_count {
        // One record past the cap tells "exactly at the cap" from "cut short".
        command.push_str(&format!(" | head -n {}", m + 1));
    }
    format!("{command} || true")
}

/// Python's `int(text)` for a decimal string: surrounding whitespace, a sign, and single
/// underscores between digits.
fn py_int(text: &str) -> Option<i64> {
    let t = text.trim_matches(is_py_space);
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let n: i64 = digits.replace('_', "").parse().ok()?;
    Some(if neg { -n } else { n })
}

/// One `path NUL line_number : text` record.
fn grep_record(line: &str) -> Option<(String, i64, String)> {
    let (path, rest) = line.split_once('\0')?;
    let (number, text) = rest.split_once(':')?;
    Some((path.to_owned(), py_int(number)?, text.to_owned()))
}

/// Python's `list[:n]` length for a list of `len` items.
fn py_slice_len(len: usize, n: i64) -> usize {
    if n >= 0 {
        (n as usize).min(len)
    } else {
        len.saturating_sub(n.unsigned_abs() as usize)
    }
}

pub struct GrepParsed {
    pub matches: Option<Vec<(String, i64, String)>>,
    pub error: Option<String>,
    pub truncated: bool,
}

/// The search output as a result; junk lines only fail the search when nothing matched.
pub fn parse_grep(
    output: &str,
    exit_code: Option<i64>,
    path: Option<&str>,
    max_count: Option<i64>,
) -> GrepParsed {
    let where_ = path.filter(|p| !p.is_empty()).unwrap_or(".");
    let failed = |e: String| GrepParsed {
        matches: None,
        error: Some(format!("Path '{where_}': {e}")),
        truncated: false,
    };
    let output = output.trim_end_matches('\n');
    if let Some(code) = exit_code.filter(|c| *c != 0) {
        return failed(if output.is_empty() {
            format!("exit code {code}")
        } else {
            py_strip(output).to_owned()
        });
    }
    if output.is_empty() {
        return GrepParsed {
            matches: Some(Vec::new()),
            error: None,
            truncated: false,
        };
    }
    let mut matches = Vec::new();
    let mut junk = None;
    for line in output.split('\n') {
        match grep_record(line) {
            Some(r) => matches.push(r),
            None => junk = Some(line),
        }
    }
    if let (Some(j), true) = (junk, matches.is_empty()) {
        return failed(j.to_owned());
    }
    let mut truncated = false;
    if let Some(m) = max_count
        && (matches.len() as i64) > m
    {
        matches.truncate(py_slice_len(matches.len(), m));
        truncated = true;
    }
    GrepParsed {
        matches: Some(matches),
        error: None,
        truncated,
    }
}

/// The walking glob's command.
pub fn glob_cmd(pattern: &str, search_path: &str) -> String {
    // The pattern goes through as typed: the script itself gives bare patterns any depth.
    py_format(
        scripts::GLOB_TEMPLATE,
        &[
            ("path_b64", &b64(search_path)),
            ("pattern_b64", &b64(pattern)),
        ],
    )
}

/// The search root as an absolute path (default `/`): matches are joined onto it, and
/// permission `deny` rules only ever match absolute paths.
pub fn glob_search_root(path: Option<&str>) -> String {
    match path.filter(|p| !p.is_empty()) {
        None => "/".to_owned(),
        Some(p) if p.starts_with('/') => p.to_owned(),
        Some(p) => format!("/{p}"),
    }
}

/// A match reported relative to the root, made absolute.
pub fn absolutize_glob_path(search_path: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        rel.to_owned()
    } else {
        format!("{}/{rel}", search_path.trim_end_matches('/'))
    }
}

/// A message for the host's log: `(level, text)`.
pub type LogLine = (&'static str, String);

pub struct GlobParsed {
    pub matches: Option<Vec<(String, bool)>>,
    pub error: Option<String>,
    pub truncated: bool,
    pub reason: Option<&'static str>,
    pub logs: Vec<LogLine>,
}

fn first_chars(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// The walking glob's output as a result with absolute paths. Lines that are not the
/// script's JSON fail the search (stderr is merged in; skipping them would turn a crash into
/// "no files"), and so does a non-zero exit; empty output keeps the transport's truncation.
pub fn parse_glob(
    output: &str,
    exit_code: Option<i64>,
    transport_truncated: bool,
    search_path: &str,
) -> GlobParsed {
    let shown = crate::pyrepr::str_repr(search_path);
    let mut logs: Vec<LogLine> = Vec::new();
    let output = py_strip(output);
    if let Some(code) = exit_code.filter(|c| *c != 0) {
        let detail = if output.is_empty() {
            format!("exit code {code}")
        } else {
            first_chars(output, 200)
        };
        logs.push((
            "error",
            format!("Sandbox glob helper failed for path {shown}: {detail}"),
        ));
        return GlobParsed {
            matches: None,
            error: Some(format!(
                "Path '{search_path}': glob helper failed: {detail}"
            )),
            truncated: false,
            reason: None,
            logs,
        };
    }
    let transport = transport_truncated.then_some("transport");
    if output.is_empty() {
        return GlobParsed {
            matches: Some(Vec::new()),
            error: None,
            truncated: transport_truncated,
            reason: transport,
            logs,
        };
    }
    let mut matches = Vec::new();
    let mut unparsed: Vec<String> = Vec::new();
    let mut error: Option<Value> = None;
    let (mut truncated, mut reason) = (transport_truncated, transport);
    let lines: Vec<&str> = output.split('\n').collect();
    for (index, line) in lines.iter().enumerate() {
        if py_strip(line).is_empty() {
            continue;
        }
        let last = index == lines.len() - 1;
        let mut unparsed_line = |line: &str| {
            // Only the transport can tear a line, and only the last.
            if last && transport_truncated {
                logs.push((
                    "debug",
                    format!(
                        "Sandbox glob dropped a clipped final line for path {shown}: {}",
                        first_chars(line, 200)
                    ),
                ));
            } else {
                unparsed.push(line.to_owned());
            }
        };
        let row = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(row)) => row,
            _ => {
                unparsed_line(line);
                continue;
            }
        };
        if let Some(e) = row.get("error") {
            error = Some(e.clone());
        } else if row.contains_key("warning") {
            // Unreadable subtrees outrank a spent budget: narrowing fixes the budget, never
            // the permissions.
            truncated = true;
            if row.get("warning").and_then(Value::as_str) == Some("walk_errors") {
                let count = row
                    .get("count")
                    .map_or_else(|| "an unknown number of".to_owned(), py_str);
                let sample = row.get("sample").map_or_else(|| "[]".to_owned(), py_str);
                logs.push((
                    "warning",
                    format!(
                        "Sandbox glob could not read {count} path(s) under {shown}; results are incomplete. Sample: {sample}"
                    ),
                ));
                reason = Some("unreadable");
            } else if reason.is_none() {
                reason = Some("budget");
            }
        } else if let Some(Value::String(p)) = row.get("path") {
            let is_dir = row.get("is_dir").is_some_and(crate::pyrepr::truthy);
            matches.push((absolutize_glob_path(search_path, p), is_dir));
        } else {
            unparsed_line(line);
        }
    }
    if let Some(e) = error {
        logs.push((
            "error",
            format!(
                "Sandbox glob returned error {} for path {shown}",
                crate::pyrepr::repr(&e)
            ),
        ));
        return GlobParsed {
            matches: None,
            error: Some(format!("Path '{search_path}': {}", py_str(&e))),
            truncated: false,
            reason: None,
            logs,
        };
    }
    if let Some(first) = unparsed.first() {
        let first = first_chars(first, 200);
        logs.push((
            "error",
            format!(
                "Sandbox glob emitted {} unparseable line(s) for path {shown}; first: {first}",
                unparsed.len()
            ),
        ));
        return GlobParsed {
            matches: None,
            error: Some(format!(
                "Path '{search_path}': glob helper emitted unexpected output: {first}"
            )),
            truncated: false,
            reason: None,
            logs,
        };
    }
    GlobParsed {
        matches: Some(matches),
        error: None,
        truncated,
        reason,
        logs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_as_shlex() {
        assert_eq!(shlex_quote(""), "''");
        assert_eq!(shlex_quote("a/b.c"), "a/b.c");
        assert_eq!(shlex_quote("it's"), "'it'\"'\"'s'");
    }

    #[test]
    fn parses_grep_records() {
        let p = parse_grep("/a\u{0}3:hit\njunk\n", Some(0), None, Some(5));
        assert_eq!(
            p.matches.unwrap(),
            vec![("/a".to_owned(), 3, "hit".to_owned())]
        );
        let p = parse_grep("junk", Some(0), Some("/x"), None);
        assert_eq!(p.error.unwrap(), "Path '/x': junk");
        assert_eq!(py_int(" 1_0 "), Some(10));
        assert_eq!(py_int("1__0"), None);
    }

    #[test]
    fn parses_glob_lines() {
        let out = "{\"path\": \"a.txt\", \"is_dir\": false}\n{\"warning\": \"truncated\"}";
        let p = parse_glob(out, Some(0), false, "/r");
        assert_eq!(p.matches.unwrap(), vec![("/r/a.txt".to_owned(), false)]);
        assert_eq!((p.truncated, p.reason), (true, Some("budget")));
    }
}
