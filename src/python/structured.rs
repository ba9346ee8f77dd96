//! A response format from Python (`deepagents_rs._structured.ResponseFormatAdapter`), which
//! parses schema-tool calls with the user's pydantic model or JSON schema.

use pyo3::prelude::*;
use serde_json::Value;

use crate::host::HostValue;
use crate::structured::{ParseError, Parsed, StructuredOutput};
use crate::tools::{HostContext, ToolSpec};

pub(crate) struct PyStructured {
    spec: ToolSpec,
    adapter: Py<PyAny>,
}

impl PyStructured {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyStructured {
            spec: ToolSpec {
                name: adapter.getattr("name")?.extract()?,
                description: adapter.getattr("description")?.extract()?,
                parameters: super::value::from_py(&adapter.getattr("parameters")?)?,
                provider_definition: None,
                json_spec: false,
            },
            adapter: adapter.clone().unbind(),
        })
    }
}

impl StructuredOutput for PyStructured {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// LangChain's `handle_errors` decides: a retry message, or its exception.
    fn multiple(&self, names: &[&str], _host: &HostContext) -> Result<String, ParseError> {
        Python::attach(|py| {
            let names: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
            self.adapter
                .call_method1(py, "multiple", (names,))
                .and_then(|t| t.extract::<String>(py))
        })
        .map_err(|e| ParseError::Fatal(Box::new(e)))
    }

    /// Parsing is a quick pydantic validation, run inline under the GIL.
    fn parse(&self, args: &Value, _host: &HostContext) -> Result<Parsed, ParseError> {
        let fatal = |e: PyErr| ParseError::Fatal(Box::new(e));
        Python::attach(|py| {
            let args = pythonize::pythonize(py, args).map_err(|e| fatal(e.into()))?;
            let out = self
                .adapter
                .call_method1(py, "parse", (args,))
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
