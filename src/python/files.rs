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
    let (paths, truncated) = py.detach(|| disk::glob(Path::new(root), &pattern, deadline(timeout)));
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
    let outcome = py.detach(|| {
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
