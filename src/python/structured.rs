//! A response format from Python (`deepagents_rs._structured.ResponseFormatAdapter`), which
//! parses schema-tool calls with the user's pydantic model or JSON schema.

use pyo3::prelude::*;
use serde_json::Value;

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
                parameters: pythonize::depythonize(&adapter.getattr("parameters")?)?,
            },
            adapter: adapter.clone().unbind(),
        })
    }
}

impl StructuredOutput for PyStructured {
    fn spec(&self) -> &ToolSpec {
        &self.spec
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
            let value: Value = pythonize::depythonize(&out.get_item(1).map_err(fatal)?)
                .map_err(|e| fatal(e.into()))?;
            let rendered: String = out.get_item(2).and_then(|t| t.extract()).map_err(fatal)?;
            let tool_message: String = out.get_item(3).and_then(|t| t.extract()).map_err(fatal)?;
            Ok(Parsed {
                value,
                rendered,
                tool_message,
            })
        })
    }
}
