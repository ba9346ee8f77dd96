//! The parts of an agent as the Python side hands them over, converted: models, tools, the
//! middleware entries (user middleware and the core's own faces: memory, skills,
//! summarization), subagent specs and response formats. `CoreAgent::new` feeds them to the
//! core's stack builder.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::backends::filesystem_from_py;
use super::errors::{bad_input, to_py};
use super::memory::{is_memory_config, memory_from_py};
use super::middleware::PyMiddleware;
use super::model::PyChatModel;
use super::runnable::PyRunnable;
use super::skills::{is_skills_config, skills_from_py};
use super::structured::{PyReplyParser, PyStructured};
use super::tools::PyTool;
use crate::agent::{Agent, StackKind, StackParts};
use crate::messages::SystemMessage;
use crate::middleware::Middleware;
use crate::middleware::ProfileLayer;
use crate::model::ChatModel;
use crate::providers::native::{NativeOptions, native_model};
use crate::structured::{ProviderStrategy, StructuredOutput};
use crate::subagents::{ForkSpec, ForkStack, Mode, Subagent, SubagentKind};
use crate::tools::Tool;

/// `(provider, name, settings)` for a native provider, or a model adapter object.
pub(crate) fn model_from_py(model: &Bound<'_, PyAny>) -> PyResult<Arc<dyn ChatModel>> {
    if let Ok(t) = model.cast::<PyTuple>() {
        let (provider, model_name, settings): (String, String, Option<Bound<'_, PyDict>>) =
            if t.len() == 2 {
                let (p, n): (String, String) = t.extract()?;
                (p, n, None)
            } else {
                t.extract()?
            };
        let options: NativeOptions = match settings {
            Some(d) => super::value::from_py(&d)
                .map_err(|e| bad_input(format!("model '{provider}:{model_name}': {e}")))?,
            None => NativeOptions::default(),
        };
        native_model(&provider, &model_name, options).map_err(|e| to_py(e.into()))
    } else {
        Ok(Arc::new(PyChatModel::new(model)?))
    }
}

pub(crate) fn tools_from_py(tools: &Bound<'_, PyAny>) -> PyResult<Vec<Arc<dyn Tool>>> {
    tools
        .try_iter()?
        .map(|t| Ok(Arc::new(PyTool::from_adapter(&t?)?) as Arc<dyn Tool>))
        .collect()
}

pub(crate) fn item<'py>(
    spec: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(spec.get_item(key)?.filter(|v| !v.is_none()))
}

pub(crate) fn required<'py>(spec: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    item(spec, key)?.ok_or_else(|| bad_input(format!("subagent spec is missing '{key}'")))
}

/// One subagent, as the Python side normalized it (see `deepagents_rs._subagents`).
pub(crate) fn subagent_from_py(spec: &Bound<'_, PyDict>) -> PyResult<Subagent> {
    let name: String = required(spec, "name")?.extract()?;
    let description: String = required(spec, "description")?.extract()?;
    let kind: String = required(spec, "kind")?.extract()?;
    let kind = match kind.as_str() {
        "isolated" => {
            let model = model_from_py(&required(spec, "model")?)?;
            let tools = tools_from_py(&required(spec, "tools")?)?;
            let system: SystemMessage = super::value::from_py(&required(spec, "system")?)?;
            // deepagents' subagent stack; skills only when the spec has its own (the
            // general-purpose one: the caller's).
            let parts = StackParts {
                files: files_from_py(item(spec, "files")?)?,
                summarization: summarization_slot(item(spec, "summarization")?)?,
                user: middleware_from_py(item(spec, "middleware")?)?,
                profile: profile_from_py(item(spec, "profile")?)?,
                skills: skills_slot(item(spec, "skills")?)?,
                interrupts: entry_from_py(item(spec, "interrupts")?)?,
                ..Default::default()
            };
            let mut agent = Agent::from_parts(StackKind::Subagent, parts, model, tools, system)
                .map_err(to_py)?
                .with_response_format(response_format_from_py(item(spec, "response_format")?)?);
            agent.name = Some(name.clone());
            agent.private_keys = private_keys_from_py(item(spec, "private_keys")?)?;
            agent.state_keys = item(spec, "state_keys")?
                .map(|keys| keys.extract::<Vec<String>>().map(Arc::from))
                .transpose()?;
            if let Some(keys) = item(spec, "last_value_keys")? {
                let _ = agent
                    .last_value_keys
                    .set(Arc::from(keys.extract::<Vec<String>>()?));
            }
            if let Some(reducers) = item(spec, "reducers")?
                && let Some(r) = super::reducers::reducers_from_py(&reducers)?
            {
                let _ = agent.reducers.set(r);
            }
            SubagentKind::Isolated(Arc::new(agent))
        }
        "fork" => {
            let model = item(spec, "model")?
                .map(|m| model_from_py(&m))
                .transpose()?;
            let instructions = item(spec, "instructions")?
                .map(|i| i.extract())
                .transpose()?;
            let allowed_tools = item(spec, "allowed_tools")?
                .map(|a| a.extract::<Vec<String>>())
                .transpose()?
                .map(Arc::from);
            let extra_tools = item(spec, "extra_tools")?
                .map(|extra| tools_from_py(&extra))
                .transpose()?;
            SubagentKind::Fork(Box::new(ForkSpec {
                model,
                instructions,
                allowed_tools,
                extra_tools,
                response_format: response_format_from_py(item(spec, "response_format")?)?,
                private_keys: private_keys_from_py(item(spec, "private_keys")?)?.to_vec(),
                stack: match item(spec, "profile")? {
                    Some(profile) => Some(ForkStack {
                        profile: profile_from_py(Some(profile))?,
                        user: middleware_from_py(item(spec, "user")?)?,
                    }),
                    None => None,
                },
                described_tools: item(spec, "described_tools")?
                    .map(|t| tools_from_py(&t))
                    .transpose()?
                    .unwrap_or_default(),
                without: item(spec, "without")?
                    .map(|w| w.extract::<Vec<String>>())
                    .transpose()?
                    .unwrap_or_default(),
                middleware: {
                    // A fork with its own permissions gets its own file tools, which
                    // replace its parent's by name.
                    let mut own = middleware_from_py(item(spec, "middleware")?)?;
                    own.extend(files_from_py(item(spec, "files")?)?);
                    own
                },
            }))
        }
        "compiled" => {
            let mode = match required(spec, "mode")?.extract::<String>()?.as_str() {
                "fork" => Mode::Fork,
                _ => Mode::Isolated,
            };
            SubagentKind::Compiled {
                mode,
                runnable: Arc::new(PyRunnable::new(&required(spec, "runnable")?)),
            }
        }
        other => return Err(bad_input(format!("unknown subagent kind '{other}'"))),
    };
    Ok(Subagent {
        name,
        description,
        kind,
    })
}

pub(crate) fn middleware_from_py(
    adapters: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<Arc<dyn Middleware>>> {
    let Some(adapters) = adapters else {
        return Ok(Vec::new());
    };
    adapters
        .try_iter()?
        .map(|a| {
            let a = a?;
            // deepagents_rs' own faces arrive as configurations of core entries.
            Ok(if is_memory_config(&a) {
                Arc::new(memory_from_py(&a)?) as Arc<dyn Middleware>
            } else if is_skills_config(&a) {
                Arc::new(skills_from_py(&a)?) as Arc<dyn Middleware>
            } else if super::summarization::is_summarization_config(&a) {
                super::summarization::summarization_from_py(&a)?
            } else if super::summarization::is_summarization_tool_config(&a) {
                super::summarization::summarization_tool_from_py(&a)?
            } else if super::convert::is_core_config(&a, "unsupported_content") {
                Arc::new(crate::middleware::UnsupportedContent::default()) as Arc<dyn Middleware>
            } else if super::convert::is_core_config(&a, "anthropic_prompt_caching") {
                Arc::new(crate::middleware::AnthropicPromptCaching::default())
                    as Arc<dyn Middleware>
            } else if super::convert::is_core_config(&a, "tool_exclusion") {
                let excluded: Vec<String> = a.get_item("excluded")?.extract()?;
                Arc::new(crate::middleware::ToolExclusion::new(excluded)) as Arc<dyn Middleware>
            } else {
                Arc::new(PyMiddleware::new(&a)?)
            })
        })
        .collect()
}

/// One middleware entry (a user middleware adapter or a core face's configuration).
pub(crate) fn entry_from_py(
    adapter: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Arc<dyn Middleware>>> {
    let Some(adapter) = adapter else {
        return Ok(None);
    };
    let list = pyo3::types::PyList::new(adapter.py(), [adapter])?;
    Ok(middleware_from_py(Some(list.into_any()))?.pop())
}

/// A harness profile's part of a stack, from `deepagents_rs._harness`: `{"extra": [...],
/// "excluded": [...], "excluded_tools": [...], "caching": [...]}`.
pub(crate) fn profile_from_py(profile: Option<Bound<'_, PyAny>>) -> PyResult<ProfileLayer> {
    let Some(profile) = profile else {
        return Ok(ProfileLayer::default());
    };
    let profile = profile.cast::<PyDict>()?;
    let names = |key: &str| -> PyResult<Vec<String>> {
        Ok(match item(profile, key)? {
            Some(v) => v.extract()?,
            None => Vec::new(),
        })
    };
    Ok(ProfileLayer {
        extra: middleware_from_py(item(profile, "extra")?)?,
        excluded: names("excluded")?,
        excluded_tools: names("excluded_tools")?,
        caching: middleware_from_py(item(profile, "caching")?)?,
    })
}

/// The file tools, from `deepagents_rs._backend_adapter.fs_config(...)`.
pub(crate) fn files_from_py(
    config: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Arc<dyn Middleware>>> {
    config
        .map(|c| Ok(Arc::new(filesystem_from_py(&c)?) as Arc<dyn Middleware>))
        .transpose()
}

/// The summarization entry, from `deepagents_rs._summarization.core_config(...)`.
pub(crate) fn summarization_slot(
    config: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Arc<dyn Middleware>>> {
    config
        .map(|c| super::summarization::summarization_from_py(&c))
        .transpose()
}

/// The skills entry, from `deepagents_rs.middleware.skills.SkillsMiddleware._core_config()`.
pub(crate) fn skills_slot(
    config: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Arc<dyn Middleware>>> {
    config
        .filter(|c| !c.is_none())
        .map(|c| Ok(Arc::new(skills_from_py(&c)?) as Arc<dyn Middleware>))
        .transpose()
}

pub(crate) fn private_keys_from_py(keys: Option<Bound<'_, PyAny>>) -> PyResult<Arc<[String]>> {
    Ok(match keys {
        Some(k) => k.extract::<Vec<String>>()?.into(),
        None => Arc::from(Vec::new()),
    })
}

pub(crate) fn response_format_from_py(
    adapter: Option<Bound<'_, PyAny>>,
) -> PyResult<Option<Arc<dyn StructuredOutput>>> {
    let Some(a) = adapter else {
        return Ok(None);
    };
    // A provider-native format carries LangChain's `response_format` kwargs.
    if let Some(format) = a.getattr_opt("response_format")? {
        return Ok(Some(Arc::new(ProviderStrategy::new(
            super::value::from_py(&format)?,
            a.getattr("name")?.extract()?,
            Box::new(PyReplyParser::new(&a)?),
        ))));
    }
    Ok(Some(Arc::new(PyStructured::new(&a)?)))
}
