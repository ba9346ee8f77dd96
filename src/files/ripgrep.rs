//! `FilesystemBackend.grep` through ripgrep: the command line of a literal search and the
//! reading of `rg --json`'s frames. The process itself is started by the Python class
//! (whose `subprocess` and `shutil.which` callers may patch, as with deepagents).

use serde_json::Value;

/// One line of `rg --json` output.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A match: the path as rg printed it, the line number, the line without its `\n`s.
    Match {
        path: String,
        line: i64,
        text: String,
    },
    /// A file rg could not read (often a binary one): its `data`, worth a trace.
    Error(Value),
    /// Anything else (begin/end/context/summary frames, a line that is not JSON).
    Other,
}

/// Reads one output line of `rg --json`.
pub fn parse_frame(line: &str) -> Frame {
    let Ok(Value::Object(frame)) = serde_json::from_str::<Value>(line) else {
        return Frame::Other;
    };
    let data = frame.get("data").cloned().unwrap_or(Value::Null);
    match frame.get("type").and_then(Value::as_str) {
        Some("error") => Frame::Error(data),
        Some("match") => {
            let path = data
                .pointer("/path/text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let line = match data.get("line_number") {
                Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
                _ => None,
            };
            let text = data
                .pointer("/lines/text")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match line {
                Some(line) if !path.is_empty() => Frame::Match {
                    path: path.to_owned(),
                    line,
                    text: text.trim_end_matches('\n').to_owned(),
                },
                _ => Frame::Other,
            }
        }
        _ => Frame::Other,
    }
}

/// The argument list and working directory of a literal search of `base` (`base_is_dir`
/// says which it is). rg applies a glob holding a `/` to paths relative to its working
/// directory, so a directory is searched from inside; a file cannot be a working directory.
pub fn command(
    rg: &str,
    pattern: &str,
    base: &str,
    base_is_dir: bool,
    include_glob: Option<&str>,
    max_count: Option<i64>,
) -> (Vec<String>, Option<String>) {
    let mut argv: Vec<String> = vec![rg.into(), "--json".into(), "-F".into()];
    if let Some(cap) = max_count {
        // `-m` limits each file, not the total. Allowing one match past the cap lets the
        // stream show that more exist, which is what tells "capped" from "complete".
        argv.extend(["-m".into(), (cap + 1).to_string()]);
    }
    if let Some(glob) = include_glob.filter(|g| !g.is_empty()) {
        argv.extend(["--glob".into(), glob.into()]);
    }
    argv.extend(["--".into(), pattern.into()]);
    if base_is_dir {
        argv.push(".".into());
        (argv, Some(base.into()))
    } else {
        argv.push(base.into());
        (argv, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        let m = r#"{"type":"match","data":{"path":{"text":"./a.txt"},"lines":{"text":"hi\n"},"line_number":3}}"#;
        assert_eq!(
            parse_frame(m),
            Frame::Match {
                path: "./a.txt".into(),
                line: 3,
                text: "hi".into()
            }
        );
        assert!(matches!(
            parse_frame(r#"{"type":"error","data":{"x":1}}"#),
            Frame::Error(_)
        ));
        assert_eq!(parse_frame("not json"), Frame::Other);
        assert_eq!(
            parse_frame(r#"{"type":"match","data":{"path":{"bytes":"AA=="},"line_number":1}}"#),
            Frame::Other
        );
    }

    #[test]
    fn command_line() {
        let (argv, cwd) = command("rg", "x", "/d", true, Some("*.py"), Some(2));
        assert_eq!(
            argv,
            [
                "rg", "--json", "-F", "-m", "3", "--glob", "*.py", "--", "x", "."
            ]
        );
        assert_eq!(cwd.as_deref(), Some("/d"));
        assert_eq!(
            command("rg", "x", "/f", false, None, None)
                .0
                .last()
                .map(String::as_str),
            Some("/f")
        );
    }
}
