//! deepagents' `SkillsMiddleware` from the Python side: its constructor's checks, the labels
//! of its sources, and the core entry built from the configuration
//! `deepagents_rs.middleware.skills` hands over.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::backends::backend_from_py;
use super::errors::to_py;
use crate::error::Error;
use crate::middleware::{
    FrontmatterReader, FrontmatterView, SkillSource, Skills, check_skills_template,
};

/// `SkillsMiddleware(system_prompt=...)`'s checks: `TypeError` for what is neither a str nor
/// None, `ValueError` naming the missing slots.
#[pyfunction]
pub(crate) fn check_skills_prompt(system_prompt: &Bound<'_, PyAny>) -> PyResult<()> {
    super::memory::check_prompt(system_prompt, check_skills_template)
}

/// deepagents' `_derive_source_label` for a bare path.
#[pyfunction]
pub(crate) fn skill_source_label(path: &str) -> String {
    crate::middleware::derive_skill_label(path)
}

/// The YAML of frontmatter read by a Python function (`deepagents_rs.middleware.
/// _skills_frontmatter.frontmatter_views`): PyYAML's `safe_load`, as deepagents reads it.
struct PyFrontmatterReader {
    read: Arc<Py<PyAny>>,
}

impl FrontmatterReader for PyFrontmatterReader {
    fn read(
        &self,
        yaml: Vec<String>,
    ) -> BoxFuture<'static, Result<Vec<Option<FrontmatterView>>, Error>> {
        let read = self.read.clone();
        Box::pin(async move {
            // Off the runtime's workers: taking the GIL may wait on the host.
            let views = tokio::task::spawn_blocking(move || {
                Python::attach(|py| -> PyResult<Vec<Option<FrontmatterView>>> {
                    let out = read.bind(py).call1((yaml,))?;
                    super::value::from_py(&out)
                })
            })
            .await
            .map_err(|e| Error::InvalidInput(e.to_string()))?;
            views.map_err(|e| Error::Tool {
                tool: "SkillsMiddleware".into(),
                source: Box::new(e),
            })
        })
    }
}

/// Whether a middleware item is a skills configuration (`{"kind": "skills", ...}`).
pub(crate) fn is_skills_config(item: &Bound<'_, PyAny>) -> bool {
    super::convert::is_core_config(item, "skills")
}

/// The entry from `{"kind": "skills", "backend", "sources": [(path, label)],
/// "system_prompt", "read_frontmatter"}`.
pub(crate) fn skills_from_py(config: &Bound<'_, PyAny>) -> PyResult<Skills> {
    let config = config.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        config
            .get_item(key)?
            .ok_or_else(|| PyKeyError::new_err(key.to_owned()))
    };
    let sources: Vec<(String, String)> = get("sources")?.extract()?;
    let reader = PyFrontmatterReader {
        read: Arc::new(get("read_frontmatter")?.unbind()),
    };
    Skills::new(
        backend_from_py(&get("backend")?)?,
        sources
            .into_iter()
            .map(|(path, label)| SkillSource { path, label })
            .collect(),
        get("system_prompt")?.extract()?,
        Arc::new(reader),
    )
    .map_err(to_py)
}
