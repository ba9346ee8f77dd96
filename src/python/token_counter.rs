//! A user's `token_counter` (`SummarizationMiddleware(token_counter=...)`), called back
//! through `deepagents_rs._summarization.TokenCounterAdapter` with LangChain objects, as
//! deepagents calls it: with the messages alone, or, for a whole request, with the system
//! message first and the tools' objects when the counter takes them.

use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use serde_json::{Value, json};

use super::host::call_adapter_then;
use super::model::{ObjectCache, message_objects, parts_to_py};
use crate::messages::{Message, SystemMessage};
use crate::model::RequestParts;
use crate::summarization::tokens::langchain_tool;
use crate::summarization::{Counting, TokenCounter, Tokens};
use crate::tools::{HostContext, ToolSpec};

/// Its Python objects are shared, so a count (made on the core's threads) takes no GIL
/// before it calls into Python, and the count is read (or the exception made the count's
/// error) where the Python call ran: no GIL on the tokio worker that awaits it.
pub(crate) struct PyTokenCounter {
    adapter: Arc<Py<PyAny>>,
    /// `deepagents_rs._convert.from_core`.
    to_message: Arc<Py<PyAny>>,
    /// The LangChain objects made for messages (and the tools' objects), reused by every
    /// later count: a count costs the new messages only.
    cache: Arc<Mutex<ObjectCache>>,
}

impl PyTokenCounter {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = adapter.py();
        Ok(PyTokenCounter {
            adapter: Arc::new(adapter.clone().unbind()),
            to_message: Arc::new(super::convert::convert_fn(py, "from_core")?.unbind()),
            cache: Arc::default(),
        })
    }

    /// `adapter.count(messages, system, tools)` (`acount` under `ainvoke`); `None` for
    /// `system` and `tools` asks the counter of the messages alone.
    fn call(&self, parts: Parts, host: &HostContext) -> Counting<'static> {
        let (adapter, to_message) = (self.adapter.clone(), self.to_message.clone());
        let counter = adapter.clone();
        let cache = self.cache.clone();
        let host = host.clone();
        Box::pin(call_adapter_then(
            adapter,
            host,
            "count",
            move |py, _| match &parts {
                Parts::Messages(messages) => {
                    let list = message_objects(py, messages, &to_message, &cache)?;
                    Ok(vec![
                        list.into_any(),
                        py.None().into_bound(py),
                        py.None().into_bound(py),
                    ])
                }
                Parts::Request {
                    system,
                    messages,
                    tools,
                } => {
                    let parts = RequestParts {
                        system: system.as_ref(),
                        messages,
                        read_from: None,
                        tools,
                    };
                    let (system, list, tools) =
                        parts_to_py(py, parts, &to_message, &cache, |py, tools| {
                            let specs = pythonize::pythonize(py, &tool_dicts(tools))?;
                            Ok(counter.bind(py).call_method1("tools", (specs,))?.unbind())
                        })?;
                    Ok(vec![list.into_any(), system, tools])
                }
            },
            |out| out.extract::<Tokens>(),
        ))
    }
}

/// What one count is asked over, owned: the call outlives the borrow it was asked with.
enum Parts {
    Messages(Vec<Arc<Message>>),
    Request {
        system: Option<Arc<SystemMessage>>,
        messages: Vec<Arc<Message>>,
        tools: Arc<[ToolSpec]>,
    },
}

/// The tools as the adapter makes the objects deepagents' request holds of them:
/// `["provider", dict]` for a tool given as a dict (the dict as given, a provider's own
/// tool's definition), `["tool", {"name", "description", "parameters"}]` for a tool
/// object, its schema as LangChain reads one.
fn tool_dicts(tools: &[ToolSpec]) -> Vec<Value> {
    tools
        .iter()
        .map(
            |t| match t.json_dict.as_ref().or(t.provider_definition.as_ref()) {
                Some(definition) => json!(["provider", definition]),
                None => json!(["tool", langchain_tool(t)]),
            },
        )
        .collect()
}

impl TokenCounter for PyTokenCounter {
    fn request<'a>(&'a self, request: RequestParts<'a>, host: &'a HostContext) -> Counting<'a> {
        let parts = Parts::Request {
            system: request.system.cloned(),
            messages: request.messages.to_vec(),
            tools: request.tools.clone(),
        };
        self.call(parts, host)
    }

    fn scaled<'a>(&'a self, messages: &'a [Arc<Message>], host: &'a HostContext) -> Counting<'a> {
        self.call(Parts::Messages(messages.to_vec()), host)
    }

    /// LangChain calls a user's counter for its partial counts too.
    fn partial<'a>(&'a self, messages: &'a [Arc<Message>], host: &'a HostContext) -> Counting<'a> {
        self.scaled(messages, host)
    }
}
