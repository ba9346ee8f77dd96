//! A response format from Python (`deepagents_rs._structured`): a `ResponseFormatAdapter`
//! parses schema-tool calls, a `ProviderFormatAdapter` a native reply's text, with the
//! user's pydantic model or JSON schema.

use pyo3::prelude::*;
use serde_json::Value;

use crate::error::BoxError;
use crate::host::HostValue;
use crate::messages::{AiMessage, Message, ToolCall};
use crate::structured::{ParseError, Parsed, ReplyParser, SchemaTool};
use crate::tools::{HostContext, ToolSpec};

pub(crate) struct PyStructured {
    specs: Vec<ToolSpec>,
    adapter: Py<PyAny>,
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
            adapter: adapter.clone().unbind(),
        })
    }
}

impl SchemaTool for PyStructured {
    fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// LangChain's `handle_errors` decides: a retry message, or its exception.
    fn multiple(
        &self,
        names: &[&str],
        reply: &AiMessage,
        _host: &HostContext,
    ) -> Result<String, ParseError> {
        super::runtime_threads::attach(|py| {
            let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
            let reply = super::convert::message_to_py(py, &Message::Ai(reply.clone()))?;
            self.adapter
                .call_method1(py, "multiple", (names, reply))
                .and_then(|t| t.extract::<String>(py))
        })
        .map_err(|e| ParseError::Fatal(Box::new(e)))
    }

    /// Parsing is a quick pydantic validation, run inline under the GIL.
    fn parse(
        &self,
        call: &ToolCall,
        reply: &AiMessage,
        _host: &HostContext,
    ) -> Result<Parsed, ParseError> {
        let fatal = |e: PyErr| ParseError::Fatal(Box::new(e));
        super::runtime_threads::attach(|py| {
            let args = pythonize::pythonize(py, &call.args).map_err(|e| fatal(e.into()))?;
            let reply =
                super::convert::message_to_py(py, &Message::Ai(reply.clone())).map_err(fatal)?;
            let out = self
                .adapter
                .call_method1(py, "parse", (call.name.as_str(), args, reply))
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
        })
    }
}

/// Parses a native reply's text with a `ProviderFormatAdapter`.
pub(crate) struct PyReplyParser {
    adapter: Py<PyAny>,
}

impl PyReplyParser {
    pub fn new(adapter: &Bound<'_, PyAny>) -> Self {
        PyReplyParser {
            adapter: adapter.clone().unbind(),
        }
    }
}

impl ReplyParser for PyReplyParser {
    /// The adapter raises LangChain's error, carrying the reply, when the text does not parse.
    fn parse_text(
        &self,
        text: &str,
        reply: &AiMessage,
        _host: &HostContext,
    ) -> Result<Parsed, BoxError> {
        let boxed = |e: PyErr| -> BoxError { Box::new(e) };
        super::runtime_threads::attach(|py| {
            let message = super::convert::message_to_py(py, &Message::Ai(reply.clone()))?;
            let out = self
                .adapter
                .call_method1(py, "parse_text", (text, message))?;
            let out = out.bind(py);
            let value: Value = super::value::read(&out.get_item(0)?)?.0;
            Ok(Parsed {
                value,
                rendered: out.get_item(1)?.extract()?,
                tool_message: String::new(),
                host_value: Some(HostValue::new(out.get_item(2)?.unbind())),
            })
        })
        .map_err(boxed)
    }

    /// The schema LangChain refuses as a native format: its error, raised at each call.
    fn refusal(&self) -> Option<BoxError> {
        super::runtime_threads::attach(|py| {
            let refusal = self.adapter.bind(py).getattr("refusal").ok()?;
            (!refusal.is_none()).then(|| Box::new(PyErr::from_value(refusal)) as BoxError)
        })
    }
}
