//! A response format from Python (`deepagents_rs._structured`): a `ResponseFormatAdapter`
//! parses schema-tool calls, a `ProviderFormatAdapter` a native reply's text, with the
//! user's pydantic model or JSON schema.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::prelude::*;
use serde_json::Value;

use super::python_calls::Answered;
use crate::error::BoxError;
use crate::host::HostValue;
use crate::messages::{AiMessage, Message, ToolCall};
use crate::structured::{ParseError, Parsed, ReplyParser, SchemaTool};
use crate::tools::{HostContext, ToolSpec};

pub(crate) struct PyStructured {
    specs: Vec<ToolSpec>,
    /// Shared, so a call hands it to a Python thread without the GIL.
    adapter: Arc<Py<PyAny>>,
}

impl PyStructured {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        let specs = adapter
            .getattr("tools")?
            .try_iter()?
            .map(|tool| {
                let tool = tool?;
                Ok(ToolSpec {
                    name: tool.getattr("name")?.extract()?,
                    description: tool.getattr("description")?.extract()?,
                    parameters: super::value::from_py(&tool.getattr("parameters")?)?,
                    provider_definition: None,
                    json_spec: false,
                    json_dict: None,
                    defer_loading: false,
                })
            })
            .collect::<PyResult<_>>()?;
        Ok(PyStructured {
            specs,
            adapter: Arc::new(adapter.clone().unbind()),
        })
    }
}

impl SchemaTool for PyStructured {
    fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// LangChain's `handle_errors` decides: a retry message, or its exception.
    fn multiple<'a>(
        &'a self,
        names: Vec<String>,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<String, ParseError>> {
        let adapter = self.adapter.clone();
        let reply = Message::Ai(reply.clone());
        Box::pin(async move {
            super::on_host(host, move |py| {
                let reply = super::convert::message_to_py(py, &reply)?;
                adapter
                    .call_method1(py, "multiple", (names, reply))
                    .and_then(|t| t.extract::<String>(py))
            })
            .await
            .answered()
            .map_err(|e| ParseError::Fatal(Box::new(e)))
        })
    }

    /// A quick pydantic validation, run where the run's Python runs (the loop's thread under
    /// `ainvoke`, the core's Python threads under `invoke`), as LangChain's model node
    /// parses; never on the runtime's worker that awaits it.
    fn parse<'a>(
        &'a self,
        call: &'a ToolCall,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Parsed, ParseError>> {
        let adapter = self.adapter.clone();
        let (name, args) = (call.name.clone(), call.args.clone());
        let reply = Message::Ai(reply.clone());
        Box::pin(async move {
            super::on_host(host, move |py| {
                parsed_call(py, &adapter, &name, &args, &reply)
            })
            .await
            .unwrap_or_else(|lost| Err(ParseError::Fatal(Box::new(PyErr::from(lost)))))
        })
    }
}

/// The adapter's `parse` of a schema call: `("retry", text)` or `("ok", value, rendered,
/// tool message, object)`.
fn parsed_call(
    py: Python<'_>,
    adapter: &Py<PyAny>,
    name: &str,
    args: &Value,
    reply: &Message,
) -> Result<Parsed, ParseError> {
    let fatal = |e: PyErr| ParseError::Fatal(Box::new(e));
    let args = pythonize::pythonize(py, args).map_err(|e| fatal(e.into()))?;
    let reply = super::convert::message_to_py(py, reply).map_err(fatal)?;
    let out = adapter
        .call_method1(py, "parse", (name, args, reply))
        .map_err(fatal)?;
    let out = out.bind(py);
    let kind: String = out.get_item(0).and_then(|k| k.extract()).map_err(fatal)?;
    if kind == "retry" {
        let text: String = out.get_item(1).and_then(|t| t.extract()).map_err(fatal)?;
        return Err(ParseError::Retry(text));
    }
    let value: Value = super::value::read(&out.get_item(1).map_err(fatal)?)
        .map_err(fatal)?
        .0;
    let rendered: String = out.get_item(2).and_then(|t| t.extract()).map_err(fatal)?;
    let tool_message: String = out.get_item(3).and_then(|t| t.extract()).map_err(fatal)?;
    let object = out.get_item(4).map_err(fatal)?.unbind();
    Ok(Parsed {
        value,
        rendered,
        tool_message,
        host_value: Some(HostValue::new(object)),
    })
}

/// Parses a native reply's text with a `ProviderFormatAdapter`.
pub(crate) struct PyReplyParser {
    adapter: Arc<Py<PyAny>>,
    /// The adapter's `refusal` is set: LangChain refuses the schema as a native format.
    refuses: bool,
}

impl PyReplyParser {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyReplyParser {
            refuses: !adapter.getattr("refusal")?.is_none(),
            adapter: Arc::new(adapter.clone().unbind()),
        })
    }
}

impl ReplyParser for PyReplyParser {
    /// The adapter raises LangChain's error, carrying the reply, when the text does not parse;
    /// run where the run's Python runs, as `PyStructured::parse`.
    fn parse_text<'a>(
        &'a self,
        text: String,
        reply: &'a AiMessage,
        host: &'a HostContext,
    ) -> BoxFuture<'a, Result<Parsed, BoxError>> {
        let adapter = self.adapter.clone();
        let reply = Message::Ai(reply.clone());
        Box::pin(async move {
            super::on_host(host, move |py| -> PyResult<Parsed> {
                let message = super::convert::message_to_py(py, &reply)?;
                let out = adapter.call_method1(py, "parse_text", (text, message))?;
                let out = out.bind(py);
                let value: Value = super::value::read(&out.get_item(0)?)?.0;
                Ok(Parsed {
                    value,
                    rendered: out.get_item(1)?.extract()?,
                    tool_message: String::new(),
                    host_value: Some(HostValue::new(out.get_item(2)?.unbind())),
                })
            })
            .await
            .answered()
            .map_err(|e| Box::new(e) as BoxError)
        })
    }

    /// The schema LangChain refuses as a native format: its error (the adapter's one
    /// exception), raised at each call, read off the runtime's workers.
    fn refusal(&self) -> Option<BoxFuture<'static, BoxError>> {
        if !self.refuses {
            return None;
        }
        let adapter = self.adapter.clone();
        Some(Box::pin(async move {
            let error = super::python_calls::call(move |py| {
                adapter
                    .bind(py)
                    .getattr("refusal")
                    .map(PyErr::from_value)
                    .unwrap_or_else(|e| e)
            })
            .await
            .unwrap_or_else(PyErr::from);
            Box::new(error) as BoxError
        }))
    }
}
