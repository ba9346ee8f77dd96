//! deepagents' `SkillsMiddleware` from the Python side: its constructor's checks, the labels
//! of its sources, and the core entry built from the configuration
//! `deepagents_rs.middleware.skills` hands over.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::backends::backend_from_py;
use super::convert::host_object;
use super::errors::to_py;
use super::host::call_adapter_then;
use super::python_calls::Answered;
use super::tools::PyTool;
use crate::error::{BoxError, Error};
use crate::middleware::{
    FrontmatterReader, ReadView, ResolvedTools, SkillSource, SkillToolResolver, Skills,
    check_skills_template,
};
use crate::model::ChatModel;
use crate::tools::{HostContext, Tool, ToolSpec};
use serde_json::Value;

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
pub(crate) struct PyFrontmatterReader {
    read: Arc<Py<PyAny>>,
    /// The module logger's `warning`, as deepagents logs what a load skips.
    warn: Arc<Py<PyAny>>,
}

impl PyFrontmatterReader {
    /// `read`: the Python function reading frontmatter; `warn`: the logger's warning.
    pub(crate) fn new(read: &Bound<'_, PyAny>, warn: &Bound<'_, PyAny>) -> Self {
        PyFrontmatterReader {
            read: Arc::new(read.clone().unbind()),
            warn: Arc::new(warn.clone().unbind()),
        }
    }
}

impl FrontmatterReader for PyFrontmatterReader {
    fn read(
        &self,
        yaml: Vec<(String, String)>,
    ) -> BoxFuture<'static, Result<Vec<ReadView>, Error>> {
        let read = self.read.clone();
        Box::pin(async move {
            // Off the runtime's workers: taking the GIL may wait on the host.
            let views = super::python_calls::call(move |py| -> PyResult<Vec<ReadView>> {
                let out = read.bind(py).call1((yaml,))?;
                super::value::from_py(&out)
            })
            .await
            .map_err(|e| Error::InvalidInput(e.to_string()))?;
            views.map_err(|e| Error::Tool {
                tool: "SkillsMiddleware".into(),
                source: Box::new(e),
            })
        })
    }

    fn warn(&self, messages: Vec<String>) -> BoxFuture<'static, ()> {
        let warn = self.warn.clone();
        Box::pin(async move {
            // Lost only when the call panicked, which Python already reported.
            let _ = super::python_calls::call(move |py| {
                for message in messages {
                    if let Err(e) = warn.bind(py).call1((message,)) {
                        e.write_unraisable(py, None);
                    }
                }
            })
            .await;
        })
    }
}

/// The skill tools of a `SkillsMiddleware(tools=...)`, through its Python resolver
/// (`deepagents_rs.middleware._skill_tools.SkillTools`): `resolve` under `invoke`, the
/// awaited `aresolve` under `ainvoke`, each answering tool adapters per name.
struct PyResolver {
    resolver: Arc<Py<PyAny>>,
}

impl SkillToolResolver for PyResolver {
    fn resolve(
        &self,
        names: Vec<String>,
        host: HostContext,
    ) -> BoxFuture<'static, Result<ResolvedTools, BoxError>> {
        let resolver = self.resolver.clone();
        Box::pin(async move {
            let config_host = host.clone();
            // The answer read where the call ran, off the runtime's workers.
            call_adapter_then(
                resolver,
                host,
                "resolve",
                move |py, _| {
                    let config = super::host::PyHost::config_arg(
                        super::host::PyHost::from_context(&config_host),
                        py,
                    );
                    Ok(vec![names.into_pyobject(py)?.into_any(), config])
                },
                |out| -> PyResult<ResolvedTools> {
                    out.try_iter()?
                        .map(|per_name| {
                            per_name?
                                .try_iter()?
                                .map(|a| Ok(Arc::new(PyTool::from_adapter(&a?)?) as Arc<dyn Tool>))
                                .collect()
                        })
                        .collect()
                },
            )
            .await
            .map_err(|e: PyErr| Box::new(e) as BoxError)
        })
    }

    fn inline_blocks(
        &self,
        model: &dyn ChatModel,
        tools: &[&ToolSpec],
    ) -> BoxFuture<'static, Result<Option<Vec<Value>>, BoxError>> {
        let resolver = self.resolver.clone();
        let (handle, id, mid) = (
            model.host_handle(),
            model.id(),
            model.mid_conversation_tools(),
        );
        let specs: Vec<ToolSpec> = tools.iter().map(|t| (*t).clone()).collect();
        on_python(move |py| -> PyResult<Option<Vec<Value>>> {
            let object = handle.as_ref().and_then(|h| host_object(py, h));
            let specs = pythonize::pythonize(py, &specs)?;
            let blocks = resolver
                .bind(py)
                .call_method1("inline_blocks", (object, id, specs, mid))?;
            if blocks.is_none() {
                return Ok(None);
            }
            super::value::from_py(&blocks).map(Some)
        })
    }

    fn rejected_schemas(
        &self,
        model: &dyn ChatModel,
        tools: &[&ToolSpec],
    ) -> BoxFuture<'static, Result<Vec<String>, BoxError>> {
        let resolver = self.resolver.clone();
        let (handle, id) = (model.host_handle(), model.id());
        let specs: Vec<ToolSpec> = tools.iter().map(|t| (*t).clone()).collect();
        on_python(move |py| -> PyResult<Vec<String>> {
            let object = handle.as_ref().and_then(|h| host_object(py, h));
            let specs = pythonize::pythonize(py, &specs)?;
            resolver
                .bind(py)
                .call_method1("rejected_schemas", (object, id, specs))?
                .extract()
        })
    }

    fn warn(&self, message: String) -> BoxFuture<'static, ()> {
        let resolver = self.resolver.clone();
        Box::pin(async move {
            let _ = on_python(move |py| -> PyResult<()> {
                if let Err(e) = resolver.bind(py).call_method1("warn", (message,)) {
                    e.write_unraisable(py, None);
                }
                Ok(())
            })
            .await;
        })
    }
}

/// `f` on the core's Python threads, its exception the caller's error.
fn on_python<T: Send + 'static>(
    f: impl for<'py> FnOnce(Python<'py>) -> PyResult<T> + Send + 'static,
) -> BoxFuture<'static, Result<T, BoxError>> {
    Box::pin(async move {
        super::python_calls::call(f)
            .await
            .answered()
            .map_err(|e| Box::new(e) as BoxError)
    })
}

/// Whether a middleware item is a skills configuration (`{"kind": "skills", ...}`).
pub(crate) fn is_skills_config(item: &Bound<'_, PyAny>) -> bool {
    super::convert::is_core_config(item, "skills")
}

/// The entry from `{"kind": "skills", "backend", "sources": [(path, label)],
/// "system_prompt", "read_frontmatter", "warn", "tools"}` (`tools`: the resolver, or None).
pub(crate) fn skills_from_py(config: &Bound<'_, PyAny>) -> PyResult<Skills> {
    let config = config.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        config
            .get_item(key)?
            .ok_or_else(|| PyKeyError::new_err(key.to_owned()))
    };
    let sources: Vec<(String, String)> = get("sources")?.extract()?;
    let reader = PyFrontmatterReader::new(&get("read_frontmatter")?, &get("warn")?);
    let tools = get("tools")?;
    let resolver = (!tools.is_none()).then(|| {
        Arc::new(PyResolver {
            resolver: Arc::new(tools.unbind()),
        }) as Arc<dyn SkillToolResolver>
    });
    Skills::new(
        backend_from_py(&get("backend")?)?,
        sources
            .into_iter()
            .map(|(path, label)| SkillSource { path, label })
            .collect(),
        get("system_prompt")?.extract()?,
        Arc::new(reader),
        resolver,
    )
    .map_err(to_py)
}
