//! deepagents' `MemoryMiddleware` from the Python side: its constructor's checks, and the
//! core entry built from the configuration `deepagents_rs.middleware.memory` hands over.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::backends::backend_from_py;
use super::errors::to_py;
use crate::middleware::{Memory, check_memory_template, format_memory as format_section};

/// `MemoryMiddleware(system_prompt=...)`'s checks: `TypeError` for what is neither a str nor
/// None, `ValueError` for a template without `{agent_memory}`.
#[pyfunction]
pub(crate) fn check_memory_prompt(system_prompt: &Bound<'_, PyAny>) -> PyResult<()> {
    check_prompt(system_prompt, check_memory_template)
}

/// A middleware face's `system_prompt`: None, or a str that `check` accepts as a template;
/// any other type is deepagents' `TypeError`.
pub(crate) fn check_prompt(
    system_prompt: &Bound<'_, PyAny>,
    check: impl FnOnce(&str) -> Result<(), crate::error::Error>,
) -> PyResult<()> {
    if system_prompt.is_none() {
        return Ok(());
    }
    let Ok(template) = system_prompt.cast::<PyString>() else {
        let got = system_prompt.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "system_prompt must be str or None, got {got}"
        )));
    };
    check(template.to_str()?).map_err(to_py)
}

/// `MemoryMiddleware._format_agent_memory`: `template` with the memory section of
/// `contents` (`{source: content}`, in the order of `sources`) in its `{agent_memory}` slot.
#[pyfunction]
pub(crate) fn format_memory(
    template: &str,
    sources: Vec<String>,
    contents: &Bound<'_, PyDict>,
) -> PyResult<String> {
    let contents: serde_json::Map<String, serde_json::Value> = super::value::from_py(contents)?;
    format_section(template, &sources, &contents).map_err(to_py)
}

/// Whether a middleware item is a memory configuration (`{"kind": "memory", ...}`).
pub(crate) fn is_memory_config(item: &Bound<'_, PyAny>) -> bool {
    super::convert::is_core_config(item, "memory")
}

/// The entry from `{"kind": "memory", "backend", "sources", "add_cache_control",
/// "system_prompt"}`.
pub(crate) fn memory_from_py(config: &Bound<'_, PyAny>) -> PyResult<Memory> {
    let config = config.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        config
            .get_item(key)?
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.to_owned()))
    };
    Memory::new(
        backend_from_py(&get("backend")?)?,
        get("sources")?.extract()?,
        get("add_cache_control")?.extract()?,
        get("system_prompt")?.extract()?,
    )
    .map_err(to_py)
}
