//! A LangChain chat model called back through Python.
//!
//! The adapter (`deepagents_rs._models.ModelAdapter`) binds the tools, turns message dicts into
//! LangChain messages, calls `invoke`/`ainvoke` and returns the AI message as a dict.

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::host::{PyHost, await_coroutine};
use crate::error::{BoxError, ModelError};
use crate::messages::{AiMessage, Message};
use crate::model::{ChatModel, ModelRequest};
use crate::tools::HostContext;

pub(crate) struct PyChatModel {
    adapter: Py<PyAny>,
    id: String,
}

impl PyChatModel {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyChatModel {
            id: adapter.getattr("model_id")?.extract()?,
            adapter: adapter.clone().unbind(),
        })
    }
}

fn host_err(e: PyErr) -> ModelError {
    ModelError::host(Box::new(e) as BoxError)
}

/// The request as the adapter's arguments: (system, messages, tools).
fn request_args<'py>(
    py: Python<'py>,
    request: &ModelRequest,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>, Bound<'py, PyAny>)> {
    let system = pythonize::pythonize(py, &Message::System(request.system.as_ref().clone()))?;
    let messages = PyList::empty(py);
    for m in &request.messages {
        messages.append(pythonize::pythonize(py, m.as_ref())?)?;
    }
    let tools = pythonize::pythonize(py, request.tools.as_ref())?;
    Ok((system, messages, tools))
}

impl ChatModel for PyChatModel {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        let adapter = Python::attach(|py| self.adapter.clone_ref(py));
        Box::pin(async move {
            let is_async = PyHost::from_context(&host).is_some_and(|h| h.is_async);
            let reply: Py<PyAny> = if is_async {
                let host = PyHost::from_context(&host).expect("async runs always carry a host");
                await_coroutine(&host.locals, |py| {
                    let args = request_args(py, &request)?;
                    adapter.bind(py).call_method1("ainvoke", args)
                })
                .await
                .map_err(host_err)?
            } else {
                tokio::task::spawn_blocking(move || {
                    Python::attach(|py| {
                        let args = request_args(py, &request)?;
                        adapter.call_method1(py, "invoke", args)
                    })
                })
                .await
                .map_err(|e| ModelError::host(Box::new(e)))?
                .map_err(host_err)?
            };
            Python::attach(|py| {
                pythonize::depythonize::<AiMessage>(reply.bind(py)).map_err(PyErr::from)
            })
            .map_err(host_err)
        })
    }
}
