//! The file helpers `deepagents_rs.backends` calls: glob matching with wcmatch's rules,
//! and `FilesystemBackend`'s walks for `glob` and `grep`, run without the GIL.

use std::path::Path;
use std::time::{Duration, Instant};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::files::disk;
use crate::files::glob::Glob;
use crate::files::text::IncludeGlob;

/// A compiled pattern (`wcmatch.glob.compile(pattern, flags=BRACE | GLOBSTAR)`); calling it
/// with a path says whether the path matches.
#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct GlobMatcher {
    glob: Glob,
}

#[pymethods]
impl GlobMatcher {
    #[new]
    fn new(pattern: &str) -> PyResult<Self> {
        Glob::new(pattern)
            .map(|glob| GlobMatcher { glob })
            .map_err(|e| PyValueError::new_err(e.0))
    }

    fn __call__(&self, path: &str) -> bool {
        self.glob.is_match(path)
    }
}

/// `wcmatch.glob.globmatch(path, pattern, flags=BRACE | GLOBSTAR)`.
#[pyfunction]
pub(crate) fn globmatch(path: &str, pattern: &str) -> bool {
    crate::files::glob::globmatch(path, pattern)
}

fn include(pattern: &str) -> PyResult<IncludeGlob> {
    IncludeGlob::new(pattern).map_err(|e| PyValueError::new_err(e.0))
}

fn deadline(timeout: Option<f64>) -> Option<Instant> {
    timeout.map(|t| Instant::now() + Duration::from_secs_f64(t.max(0.0)))
}

/// The regular files under `root` whose relative path matches `pattern` (grep's include
/// rules), and whether the walk ran out of time.
#[pyfunction]
#[pyo3(signature = (root, pattern, timeout=None))]
pub(crate) fn disk_glob(
    py: Python<'_>,
    root: &str,
    pattern: &str,
    timeout: Option<f64>,
) -> PyResult<(Vec<String>, bool)> {
    let pattern = include(pattern)?;
    let (paths, truncated) = super::exit_gate::detach(py, || {
        disk::glob(Path::new(root), &pattern, deadline(timeout))
    });
    Ok((
        paths
            .into_iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
        truncated,
    ))
}

type GrepFiles = Vec<(String, Vec<(u64, String)>, Option<String>)>;

/// A literal search of the text files under `root`: per file with matches or a read error,
/// `(path, [(line, text)], error)`, and whether the search stopped early.
#[pyfunction]
#[pyo3(signature = (root, pattern, include_glob=None, max_size=u64::MAX, max_count=None, timeout=None))]
pub(crate) fn disk_grep(
    py: Python<'_>,
    root: &str,
    pattern: &str,
    include_glob: Option<&str>,
    max_size: u64,
    max_count: Option<usize>,
    timeout: Option<f64>,
) -> PyResult<(GrepFiles, bool)> {
    let include = include_glob
        .filter(|g| !g.is_empty())
        .map(include)
        .transpose()?;
    let outcome = super::exit_gate::detach(py, || {
        disk::grep(
            Path::new(root),
            pattern,
            include.as_ref(),
            max_size,
            max_count,
            deadline(timeout),
        )
    });
    Ok((
        outcome
            .files
            .into_iter()
            .map(|f| (f.path.to_string_lossy().into_owned(), f.lines, f.error))
            .collect(),
        outcome.truncated,
    ))
}

/// The inclusive line spans within `radius` of grep matches at `lines`, touching spans
/// merged (`FilesystemBackend.grep(context_lines=...)`).
#[pyfunction]
pub(crate) fn grep_context_spans(lines: Vec<u64>, radius: u64) -> Vec<(u64, u64)> {
    crate::files::grep_context::wanted_ranges(&lines, radius)
}

/// The lines of the file at `path` inside the ascending `spans`, by number, read only as far
/// as the last span. `universal`: Python's universal newlines (the core's walk); without,
/// only `\n` ends a line (ripgrep). `OSError` when the file cannot be read or a line read is
/// not UTF-8.
#[pyfunction]
pub(crate) fn disk_context_lines(
    py: Python<'_>,
    path: &str,
    spans: Vec<(u64, u64)>,
    universal: bool,
) -> PyResult<std::collections::BTreeMap<u64, String>> {
    let read = super::exit_gate::detach(py, || {
        std::fs::File::open(path)
            .and_then(|file| crate::files::grep_context::lines_in_ranges(file, &spans, universal))
    });
    Ok(read.map_err(|e| os_error(e, path))?.into_iter().collect())
}

/// Each of one file's matches (by line) with its `(context_before, context_after)` from
/// `lines`; a line holding `pattern` is never context.
#[pyfunction]
pub(crate) fn grep_context_attach<'py>(
    py: Python<'py>,
    matched: Vec<u64>,
    lines: std::collections::BTreeMap<u64, String>,
    radius: u64,
    pattern: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let lines: Vec<(u64, String)> = lines.into_iter().collect();
    let contexts = crate::files::grep_context::attach(&matched, &lines, radius, pattern);
    Ok(pythonize::pythonize(py, &contexts)?)
}

/// One line of `rg --json` output: `("match", (path, line, text))`, `("error", data)` for a
/// file rg could not read, or `None` for any other line.
#[pyfunction]
pub(crate) fn ripgrep_frame<'py>(
    py: Python<'py>,
    line: &str,
) -> PyResult<Option<(&'static str, Bound<'py, PyAny>)>> {
    use crate::files::ripgrep::{Frame, parse_frame};
    Ok(match parse_frame(line) {
        Frame::Match { path, line, text } => {
            Some(("match", (path, line, text).into_pyobject(py)?.into_any()))
        }
        Frame::Error(data) => Some(("error", pythonize::pythonize(py, &data)?)),
        Frame::Other => None,
    })
}

/// The argument list and working directory of `rg` searching `base` for the literal
/// `pattern`.
#[pyfunction]
#[pyo3(signature = (rg, pattern, base, include_glob, max_count))]
pub(crate) fn ripgrep_command(
    rg: &str,
    pattern: &str,
    base: &str,
    include_glob: Option<&str>,
    max_count: Option<i64>,
) -> (Vec<String>, Option<String>) {
    let is_dir = Path::new(base).is_dir();
    crate::files::ripgrep::command(rg, pattern, base, is_dir, include_glob, max_count)
}

/// The OSError Python raises for `e` on `path` (`[Errno N] strerror: 'path'`); its
/// subclass (FileNotFoundError, ...) follows from the errno, as in Python.
fn os_error(e: std::io::Error, path: &str) -> PyErr {
    match e.raw_os_error() {
        Some(errno) => {
            let text = e.to_string();
            let strerror = text
                .find(" (os error")
                .map_or(text.as_str(), |i| &text[..i])
                .to_owned();
            pyo3::exceptions::PyOSError::new_err((errno, strerror, path.to_owned()))
        }
        None => PyErr::from(e),
    }
}

/// A text file's content as `open(path, encoding="utf-8")` reads it (universal newlines,
/// strict UTF-8), without following a final symlink.
#[pyfunction]
pub(crate) fn disk_read_text(py: Python<'_>, path: &str) -> PyResult<String> {
    let bytes = super::exit_gate::detach(py, || disk::read_bytes(Path::new(path)))
        .map_err(|e| os_error(e, path))?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => Ok(disk::universal_newlines(text)),
        Err(e) => Err(utf8_error(py, &bytes, e)?),
    }
}

/// The `UnicodeDecodeError` Python's UTF-8 decoder raises for `bytes`, with its reasons.
pub(super) fn utf8_error(py: Python<'_>, bytes: &[u8], e: std::str::Utf8Error) -> PyResult<PyErr> {
    let (start, end, reason) = crate::files::utf8::failure(bytes, e);
    let reason = std::ffi::CString::new(reason.replace('\0', "")).unwrap_or_default();
    let err =
        pyo3::exceptions::PyUnicodeDecodeError::new(py, c"utf-8", bytes, start..end, &reason)?;
    Ok(PyErr::from_value(err.into_any()))
}

/// Writes `content` as UTF-8 with no newline translation (`newline=""`), creating the file
/// (mode 0644) when `create`, without following a final symlink.
#[pyfunction]
#[pyo3(signature = (path, content, create=true))]
pub(crate) fn disk_write_text(
    py: Python<'_>,
    path: &str,
    content: &str,
    create: bool,
) -> PyResult<()> {
    super::exit_gate::detach(py, || disk::write_text(Path::new(path), content, create))
        .map_err(|e| os_error(e, path))
}

/// Interrupt-mode `FilesystemPermission` rules, as the human-in-the-loop entries deepagents
/// generates for them read them: which file tools they gate, and whether a call fires.
#[pyclass(frozen)]
pub(crate) struct FsInterrupts(crate::files::permissions::Rules);

#[pymethods]
impl FsInterrupts {
    /// `rules`: `(operations, paths, mode)` tuples.
    #[new]
    fn new(rules: Vec<(Vec<String>, Vec<String>, String)>) -> Self {
        FsInterrupts(super::backends::rules_from_py(rules))
    }

    /// The file tools some interrupt rule can gate.
    fn tools(&self) -> Vec<&'static str> {
        self.0.interrupt_tools()
    }

    /// Whether a call of `tool` with `args` goes to a human first. `resolve`, for a backend
    /// over a real filesystem: where a path leads through symlinks, `None` where it cannot
    /// be resolved; what else it raises propagates.
    #[pyo3(signature = (tool, args, resolve=None))]
    fn fires(
        &self,
        tool: &str,
        args: &Bound<'_, PyAny>,
        resolve: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.fires_with(args, resolve, |args, resolver| {
            self.0.interrupt_fires_resolved(tool, args, resolver)
        })
    }

    /// `fires` for a tool described by its `operation`, path argument, scope (`subtree`:
    /// a listing, search or delete) and the argument that can move its search root.
    #[pyo3(signature = (operation, path_arg, subtree, pattern_arg, args, resolve=None))]
    fn fires_as(
        &self,
        operation: &str,
        path_arg: &str,
        subtree: bool,
        pattern_arg: Option<&str>,
        args: &Bound<'_, PyAny>,
        resolve: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let gated = crate::files::interrupt_rules::Gated {
            tool: "",
            operation,
            path_arg,
            subtree,
            pattern_arg,
        };
        self.fires_with(args, resolve, |args, resolver| {
            self.0.gated_call_fires(&gated, args, resolver)
        })
    }
}

impl FsInterrupts {
    /// `decide` on the call's arguments, with `resolve` (when given) as the resolver; an
    /// error `resolve` raises propagates.
    fn fires_with(
        &self,
        args: &Bound<'_, PyAny>,
        resolve: Option<&Bound<'_, PyAny>>,
        decide: impl Fn(&serde_json::Value, Option<&crate::files::interrupt_rules::Resolve<'_>>) -> bool,
    ) -> PyResult<bool> {
        let (args, _) = super::value::read(args)?;
        let Some(resolve) = resolve else {
            return Ok(decide(&args, None));
        };
        let raised: std::cell::RefCell<Option<PyErr>> = Default::default();
        let resolver = |path: &str| -> Option<String> {
            match resolve
                .call1((path,))
                .and_then(|r| r.extract::<Option<String>>())
            {
                Ok(target) => target,
                Err(e) => {
                    raised.borrow_mut().get_or_insert(e);
                    None
                }
            }
        };
        let fires = decide(&args, Some(&resolver));
        match raised.into_inner() {
            Some(e) => Err(e),
            None => Ok(fires),
        }
    }
}

/// `LocalShellBackend.execute` once its arguments are checked: `command` run by
/// `/bin/sh -c` in `cwd` with exactly `env`, stopped after `timeout` seconds (`custom`:
/// the caller chose it), its output as deepagents' `(output, exit_code, truncated)`. The
/// GIL is released throughout. Raises what `subprocess.run` raises where the command
/// cannot start (an `OSError`, a `ValueError` for a NUL byte) or its output is not UTF-8.
#[pyfunction]
#[pyo3(signature = (command, cwd, env, timeout, custom, max_output_bytes))]
pub(crate) fn shell_execute(
    py: Python<'_>,
    command: &str,
    cwd: &str,
    env: Vec<(String, String)>,
    timeout: &Bound<'_, PyAny>,
    custom: bool,
    max_output_bytes: i64,
) -> PyResult<(String, i64, bool)> {
    use crate::files::shell;
    if command.contains('\0') || cwd.contains('\0') {
        return Err(PyValueError::new_err("embedded null byte"));
    }
    for (key, value) in &env {
        if key.contains('\0') || value.contains('\0') {
            return Err(PyValueError::new_err("embedded null byte"));
        }
        if key.is_empty() || key.contains('=') {
            return Err(PyValueError::new_err("illegal environment variable name"));
        }
    }
    // Seconds as given (an int, or a float), shown as Python shows them.
    let shown = timeout.str()?.to_string();
    let timeout: f64 = timeout.extract()?;
    const CENTURY: f64 = 100.0 * 365.0 * 86400.0;
    let seconds = Duration::from_secs_f64(timeout.clamp(0.0, CENTURY));
    let finished = match super::exit_gate::detach(py, || shell::run(command, cwd, &env, seconds)) {
        Ok(f) => f,
        Err(shell::RunError::TimedOut) => {
            return Ok((
                shell::timed_out_message(&shown, custom),
                shell::TIMEOUT_EXIT_CODE,
                false,
            ));
        }
        Err(shell::RunError::Spawn(e, about)) => return Err(os_error(e, &about)),
    };
    let text = |bytes: &[u8]| -> PyResult<String> {
        match std::str::from_utf8(bytes) {
            Ok(t) => Ok(disk::universal_newlines(t)),
            Err(e) => Err(utf8_error(py, bytes, e)?),
        }
    };
    let (stdout, stderr) = (text(&finished.stdout)?, text(&finished.stderr)?);
    Ok(shell::response(
        &stdout,
        &stderr,
        finished.code,
        max_output_bytes,
    ))
}
