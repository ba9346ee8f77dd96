//! The `SummarizationMiddleware` entry from the settings `deepagents_rs._summarization`
//! computed for one stack's model and backend.

use std::sync::Arc;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::backends::backend_from_py;
use crate::middleware::Middleware;
use crate::summarization::policy::{Clause, ModelLimits, Size, TruncateArgs};
use futures::future::BoxFuture;

use super::convert::message_list;
use super::host::{PyHost, call_adapter_then};
use super::token_counter::PyTokenCounter;
use crate::error::ModelError;
use crate::messages::Message;
use crate::summarization::{
    HistoryOffload, Prompt, ReplacedSteps, Summarization, SummarizationConfig, SummarizationTool,
    Summarizer, TokenCounter,
};
use crate::tools::HostContext;

/// `("messages", 6)` and the like.
fn size_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Size> {
    let (kind, value): (String, Bound<'_, PyAny>) = obj.extract()?;
    Ok(match kind.as_str() {
        "messages" => Size::Messages(value.extract()?),
        "tokens" => Size::Tokens(value.extract()?),
        "fraction" => Size::Fraction(value.extract()?),
        other => {
            return Err(PyValueError::new_err(format!(
                "Unsupported context size type {other}"
            )));
        }
    })
}

/// Whether a middleware item is a user `SummarizationMiddleware`'s configuration
/// (`{"kind": "summarization", ...}`).
pub(crate) fn is_summarization_config(item: &Bound<'_, PyAny>) -> bool {
    super::convert::is_core_config(item, "summarization")
}

/// Whether it is a user `SummarizationToolMiddleware`'s (`{"kind": "summarization_tool"}`).
pub(crate) fn is_summarization_tool_config(item: &Bound<'_, PyAny>) -> bool {
    super::convert::is_core_config(item, "summarization_tool")
}

/// The `SummarizationToolMiddleware` entry from `{"kind": "summarization_tool",
/// "summarization": {...}, "system_prompt": str | None}`.
pub(crate) fn summarization_tool_from_py(
    config: &Bound<'_, PyAny>,
) -> PyResult<Arc<dyn Middleware>> {
    let config = config.cast::<PyDict>()?;
    let inner = config
        .get_item("summarization")?
        .ok_or_else(|| PyKeyError::new_err("summarization"))?;
    let system_prompt: Option<String> = config
        .get_item("system_prompt")?
        .map(|p| p.extract())
        .transpose()?
        .flatten();
    Ok(Arc::new(SummarizationTool::new(
        &summarization_entry(&inner)?,
        system_prompt,
    )))
}

pub(crate) fn summarization_from_py(config: &Bound<'_, PyAny>) -> PyResult<Arc<dyn Middleware>> {
    Ok(Arc::new(summarization_entry(config)?))
}

/// `config[key]`, absent or `None` being `None`.
fn optional<'py>(config: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(config.get_item(key)?.filter(|v| !v.is_none()))
}

/// Trigger clauses, `[[(kind, value), ...], ...]`.
pub(crate) fn clauses_from_py(clauses: &Bound<'_, PyAny>) -> PyResult<Vec<Clause>> {
    clauses
        .try_iter()?
        .map(|clause| {
            clause?
                .try_iter()?
                .map(|size| size_from_py(&size?))
                .collect::<PyResult<Clause>>()
        })
        .collect()
}

pub(crate) fn summarization_entry(config: &Bound<'_, PyAny>) -> PyResult<Summarization> {
    let config = config.cast::<PyDict>()?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        config
            .get_item(key)?
            .ok_or_else(|| PyKeyError::new_err(key.to_owned()))
    };
    let trigger = clauses_from_py(&get("trigger")?)?;
    let truncate = get("truncate_args")?;
    let truncate_args = if truncate.is_none() {
        None
    } else {
        let t = truncate.cast::<PyDict>()?;
        let item = |k: &str| -> PyResult<Bound<'_, PyAny>> {
            t.get_item(k)?
                .ok_or_else(|| PyKeyError::new_err(k.to_owned()))
        };
        Some(TruncateArgs {
            trigger: size_from_py(&item("trigger")?)?,
            keep: size_from_py(&item("keep")?)?,
            max_length: item("max_length")?.extract()?,
            truncation_text: item("truncation_text")?.extract()?,
        })
    };
    let prompt = get("prompt")?;
    let prompt = if prompt.is_none() {
        Prompt::default()
    } else {
        let (head, tail): (String, String) = prompt.extract()?;
        Prompt { head, tail }
    };
    Ok(Summarization::new(SummarizationConfig {
        trigger,
        keep: size_from_py(&get("keep")?)?,
        truncate_args,
        limits: ModelLimits {
            max_input_tokens: get("max_input_tokens")?.extract()?,
            ls_provider: get("ls_provider")?.extract()?,
        },
        chars_per_token: get("chars_per_token")?.extract()?,
        token_counter: {
            let c = get("token_counter")?;
            if c.is_none() {
                None
            } else {
                Some(Arc::new(PyTokenCounter::new(&c)?) as Arc<dyn TokenCounter>)
            }
        },
        output_attrs: super::value::from_py(&get("output_attrs")?)?,
        prompt,
        backend: backend_from_py(&get("backend")?)?,
        history_prefix: get("history_prefix")?.extract()?,
        large_tool_results_prefix: get("large_tool_results_prefix")?.extract()?,
        trim_tokens_to_summarize: get("trim_tokens_to_summarize")?.extract()?,
        summarizer: optional(config, "summarizer")?.map(|f| {
            Arc::new(PySummarizer {
                adapter: Arc::new(f.unbind()),
            }) as Arc<dyn Summarizer>
        }),
        replaced: ReplacedSteps {
            summary: optional(config, "replaced_summary")?.map(|f| {
                Arc::new(PySummarizer {
                    adapter: Arc::new(f.unbind()),
                }) as Arc<dyn Summarizer>
            }),
            offload: optional(config, "replaced_offload")?.map(|f| {
                Arc::new(PyHistoryOffload {
                    adapter: Arc::new(f.unbind()),
                }) as Arc<dyn HistoryOffload>
            }),
        },
        model: {
            let m = get("model")?;
            if m.is_none() {
                None
            } else {
                Some(super::stack_parts::model_from_py(&m)?)
            }
        },
        summary_model: {
            let m = get("summary_model")?;
            if m.is_none() {
                None
            } else {
                let (model, max_input): (Bound<'_, PyAny>, Option<u64>) = m.extract()?;
                Some((super::stack_parts::model_from_py(&model)?, max_input))
            }
        },
    }))
}

/// What the summarization defaults read of a native model, as LangChain's own chat model
/// would report it: `(profile max_input_tokens, default max_tokens)`.
#[pyfunction]
pub(crate) fn native_limits(provider: &str, model: &str) -> (Option<u32>, Option<u32>) {
    use crate::providers::{anthropic, openai};
    match provider {
        "anthropic" => (
            anthropic::profiles::max_input_tokens(model),
            Some(anthropic::profiles::max_output_tokens(model)),
        ),
        // `ChatOpenAI` has no default `max_tokens`: nothing is reserved for the reply.
        "openai" => (openai::profiles::max_input_tokens(model), None),
        _ => (None, None),
    }
}

/// deepagents' `_upload_response_error`: the core's reading of a one-file upload's answers
/// (each file's error, `None` for success).
#[pyfunction]
pub(crate) fn upload_response_error(errors: Vec<Option<String>>) -> Option<String> {
    crate::summarization::upload_error(errors)
}

/// `_build_new_messages_with_path`'s message (a dict) for `summary`, saved at `file_path`.
#[pyfunction]
#[pyo3(signature = (summary, file_path=None))]
pub(crate) fn summary_message<'py>(
    py: Python<'py>,
    summary: &str,
    file_path: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let message = crate::summarization::event::summary_message(summary, file_path);
    super::convert::message_to_py(py, &message)
}

/// `_drop_bound_reasoning` of a message (a dict): the message without the reasoning blocks
/// only its own provider reads, or `None` when it has none.
#[pyfunction]
pub(crate) fn drop_bound_reasoning<'py>(
    py: Python<'py>,
    message: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let message = Arc::new(super::convert::message_from_py(message)?);
    let out = crate::summarization::event::drop_bound_reasoning(&message);
    if Arc::ptr_eq(&out, &message) {
        return Ok(None);
    }
    super::convert::message_to_py(py, &out).map(Some)
}

/// Error results (dicts), each with the index of the message it follows.
type DanglingResults<'py> = Vec<(usize, Bound<'py, PyAny>)>;

/// `PatchToolCallsMiddleware.before_agent`'s additions to a history (dicts): the error
/// result of each call that never got one, with the index of the AI message it follows;
/// `None` when no call is dangling.
#[pyfunction]
pub(crate) fn dangling_tool_results<'py>(
    py: Python<'py>,
    messages: Vec<Bound<'py, PyAny>>,
) -> PyResult<Option<DanglingResults<'py>>> {
    let messages = messages
        .iter()
        .map(|m| super::convert::message_from_py(m).map(Arc::new))
        .collect::<PyResult<Vec<_>>>()?;
    let Some(results) = crate::middleware::patch_tool_calls::dangling_results(&messages) else {
        return Ok(None);
    };
    results
        .into_iter()
        .map(|(after, result)| {
            let result = crate::messages::Message::Tool(result);
            Ok((after, super::convert::message_to_py(py, &result)?))
        })
        .collect::<PyResult<Vec<_>>>()
        .map(Some)
}

/// LangChain's `message.content_blocks` as the core reads it (the summarization's media
/// offload reads messages so): the parity tests compare it with LangChain's own.
#[pyfunction]
pub(crate) fn content_blocks<'py>(
    py: Python<'py>,
    message: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let message = super::convert::message_from_py(message)?;
    let blocks = crate::summarization::content_blocks(&message)
        .map_err(|raised| super::errors::to_py(crate::error::Error::Builtin(raised)))?;
    let blocks = serde_json::Value::Array(blocks);
    let has = crate::stand_ins::contains_stand_in(&blocks);
    super::value::to_py(py, &blocks, has)
}

/// `_compute_state_cutoff`: a cut in the seen conversation as an index into the state's
/// messages, after an earlier summary that cut at `previous`. The face takes any values a
/// state may hold (negative, past 64 bits, a bool), so the rule is done in Python's own
/// arithmetic; the core's flow, whose cuts are positive, uses `event::state_cutoff`.
#[pyfunction]
#[pyo3(signature = (previous, effective_cutoff))]
pub(crate) fn state_cutoff<'py>(
    previous: &Bound<'py, PyAny>,
    effective_cutoff: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    previous.add(effective_cutoff)?.sub(1)
}

/// A `summarizer` function or runnable, called back through
/// `deepagents_rs._summarization.SummarizerAdapter`: `ainvoke` awaited on the run's loop under
/// `ainvoke`, `invoke` with the other Python calls under `invoke`. The adapter is shared
/// (`Arc`), so the tokio worker that asks for a summary takes no GIL to hand it on, and the
/// text is read, or the exception made the model call's error, where the Python call ran.
pub(crate) struct PySummarizer {
    adapter: Arc<Py<PyAny>>,
}

impl Summarizer for PySummarizer {
    fn summarize(
        &self,
        messages: Vec<Arc<Message>>,
        host: HostContext,
        trace: Option<crate::events::NodeTrace>,
    ) -> BoxFuture<'static, Result<String, ModelError>> {
        let adapter = self.adapter.clone();
        let config_host = host.clone();
        Box::pin(call_adapter_then(
            adapter,
            host,
            "invoke",
            move |py, _| {
                let config = PyHost::config_arg(PyHost::from_context(&config_host), py);
                // The run asking for the summary: the summarizer reports itself inside it.
                let parent = match &trace {
                    Some(t) => super::tracer::run_manager(py, &t.run)?,
                    None => py.None().into_bound(py),
                };
                Ok(vec![
                    message_list(py, &messages)?.into_any(),
                    config,
                    parent,
                ])
            },
            |out| out.extract::<String>(),
        ))
    }
}

/// A face's own `_offload_to_backend`, called back through its adapter's `offload(messages,
/// session)` (`aoffload` awaited under `ainvoke`); shared and read as `PySummarizer` is.
pub(crate) struct PyHistoryOffload {
    adapter: Arc<Py<PyAny>>,
}

impl HistoryOffload for PyHistoryOffload {
    fn offload(
        &self,
        messages: Vec<Arc<Message>>,
        session: String,
        host: HostContext,
    ) -> BoxFuture<'static, Result<Option<String>, ModelError>> {
        Box::pin(call_adapter_then(
            self.adapter.clone(),
            host,
            "offload",
            move |py, _| {
                Ok(vec![
                    message_list(py, &messages)?.into_any(),
                    session.into_pyobject(py)?.into_any(),
                ])
            },
            |out| out.extract::<Option<String>>(),
        ))
    }
}
