//! deepagents' private skills helpers (`_parse_skill_metadata`, `_format_skills_list`, ...),
//! which deepagents' own tests and code written against its module call directly: thin
//! entries to the core's pieces (`crate::middleware::skill_parts`). The YAML is read by the
//! Python function the skills entry reads it with, and warnings go to the Python callable
//! given (the module's logger), as deepagents logs them.

use std::sync::Arc;

use pyo3::prelude::*;
use serde_json::Value;

use super::backends::backend_from_py;
use super::errors::{guard, to_py};
use super::skills::PyFrontmatterReader;
use super::summarization_call::{finish, host_for};
use crate::middleware::FrontmatterReader;
use crate::state::AgentState;

use crate::files::backend::TextDownload;
use crate::middleware::skill_parts as parts;
use crate::middleware::{ReadView, SkillSource};

fn sources_of(sources: Vec<(String, String)>) -> Vec<SkillSource> {
    sources
        .into_iter()
        .map(|(path, label)| SkillSource { path, label })
        .collect()
}

/// A Python callable as the warning sink of the core's pieces (a failing call is reported
/// as unraisable: a warning must not fail the load).
fn sink<'a, 'py>(warn: &'a Bound<'py, PyAny>) -> impl Fn(String) + 'a {
    move |message: String| {
        if let Err(e) = warn.call1((message,)) {
            e.write_unraisable(warn.py(), None);
        }
    }
}

/// deepagents' `_parse_skill_metadata(content, skill_path, directory_name)`: the
/// `SkillMetadata` of `content`'s frontmatter, its YAML read by `read` (`[(path, yaml)]` to
/// `[(view | None, warnings)]`), or None.
#[pyfunction]
pub(crate) fn parse_skill_metadata(
    py: Python<'_>,
    content: &str,
    path: &str,
    directory: &str,
    read: &Bound<'_, PyAny>,
    warn: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let warn = sink(warn);
    let Some(yaml) = parts::frontmatter_yaml(content, path, &warn) else {
        return Ok(None);
    };
    let views = read.call1((vec![(path.to_owned(), yaml.to_owned())],))?;
    let (view, notes): ReadView = super::value::from_py(&views.get_item(0)?)?;
    notes.into_iter().for_each(&warn);
    let Some(view) = view else {
        return Ok(None);
    };
    match parts::skill_metadata(&view, path, directory, &warn) {
        Some(skill) => Ok(Some(pythonize::pythonize(py, &skill)?.unbind())),
        None => Ok(None),
    }
}

/// deepagents' `_skill_metadata_from_response`: a download's `(error, content bytes)` for
/// the `SKILL.md` at `path` in the skill directory `directory`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn skill_metadata_from_download(
    py: Python<'_>,
    error: Option<String>,
    content: Option<Vec<u8>>,
    path: &str,
    directory: &str,
    read: &Bound<'_, PyAny>,
    warn: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<PyAny>>> {
    let sink_fn = sink(warn);
    let text = match content.map(String::from_utf8) {
        Some(Err(e)) if error.is_none() => {
            sink_fn(format!("Error decoding {path}: {e}"));
            return Ok(None);
        }
        Some(Ok(text)) => Some(text),
        _ => None,
    };
    let answer = TextDownload {
        content: text,
        error,
    };
    let Some(text) = parts::downloaded_text(answer, path, &sink_fn) else {
        return Ok(None);
    };
    let skill = parse_skill_metadata(py, &text, path, &parts::dir_name(directory), read, warn)?;
    if skill.is_none() {
        sink_fn(parts::skipped(path));
    }
    Ok(skill)
}

/// deepagents' `_validate_skill_name`: the rule `name` breaks, or None.
#[pyfunction]
pub(crate) fn skill_name_problem(name: &str, directory: &str) -> Option<String> {
    parts::name_problem(name, directory)
}

/// deepagents' `_format_skill_annotations`.
#[pyfunction]
pub(crate) fn skill_annotations(skill: &Bound<'_, PyAny>) -> PyResult<String> {
    let skill: Value = super::value::from_py(skill)?;
    Ok(parts::annotations(&skill))
}

/// `SkillsMiddleware._format_skills_locations` for `[(path, label)]`.
#[pyfunction]
pub(crate) fn skills_locations(sources: Vec<(String, String)>) -> String {
    parts::locations(&sources_of(sources))
}

/// `SkillsMiddleware._format_skills_list`.
#[pyfunction]
pub(crate) fn skills_list_text(
    sources: Vec<(String, String)>,
    skills: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let skills: Vec<Value> = super::value::from_py(skills)?;
    Ok(parts::skills_list(&sources_of(sources), &skills))
}

/// `SkillsMiddleware._format_skills_load_warnings`.
#[pyfunction]
pub(crate) fn skills_load_warnings(errors: Vec<String>) -> String {
    parts::load_warnings(&errors)
}

/// deepagents' `_truncate_skill_load_warning`.
#[pyfunction]
pub(crate) fn truncate_skill_load_warning(error: &str) -> String {
    parts::truncate_warning(error)
}

/// deepagents' `_list_skills_with_errors(backend, source_path)`: the source's skills and its
/// listing error (`(list, str | None)`), awaitable when `is_async`; `backend` as the core
/// takes one (`backend_arg`).
#[pyfunction]
pub(crate) fn list_skills<'py>(
    py: Python<'py>,
    backend: &Bound<'py, PyAny>,
    source: String,
    read: &Bound<'py, PyAny>,
    warn: &Bound<'py, PyAny>,
    is_async: bool,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let host = host_for(py, is_async, None)?;
        let backend = backend_from_py(backend)?;
        let reader: Arc<dyn FrontmatterReader> = Arc::new(PyFrontmatterReader::new(read, warn));
        let scope = parts::scope_of(&AgentState::default(), &host);
        let fut = async move {
            parts::load_source(&backend, &reader, &scope, &source)
                .await
                .map_err(to_py)
        };
        finish(py, &host, fut, listed_to_py)
    })
}

fn listed_to_py(
    py: Python<'_>,
    listed: (Vec<Value>, Option<String>),
) -> PyResult<Bound<'_, PyAny>> {
    Ok(pythonize::pythonize(py, &listed)?)
}
