//! The host side of `crate::host::ReplyShaper`: under LangGraph's v3 stream
//! (`stream_events(version="v3")`) a LangChain chat model's reply is the message LangChain
//! assembles from the call's content-block events (v1 blocks, `output_version: "v1"`); a
//! native client's reply is made the same way from its chunks (`_native_events.v1_reply`).

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::convert::message_from_py;
use super::host::PyHost;
use crate::error::BoxError;
use crate::messages::{AiMessage, Message};
use crate::tools::HostContext;

fn boxed(e: PyErr) -> BoxError {
    Box::new(e)
}

/// Whether the run's contextvars ask for protocol events (`_stream_protocol.PROTOCOL_EVENTS`),
/// read once when the run's host is made (`PyHost::protocol_events`): the run's contextvars
/// are a copy taken then, and a model call asking later would take the GIL on a tokio worker.
pub(crate) fn protocol_events(py: Python<'_>, locals: &pyo3_async_runtimes::TaskLocals) -> bool {
    static VAR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let read = || -> PyResult<bool> {
        let context = locals.context(py);
        if context.is_none() {
            return Ok(false);
        }
        let var = VAR.import(py, "deepagents_rs._stream_protocol", "PROTOCOL_EVENTS")?;
        context.call_method1("get", (var, false))?.is_truthy()
    };
    read().unwrap_or_else(|e| {
        e.write_unraisable(py, None);
        false
    })
}

fn wants(host: &HostContext) -> bool {
    PyHost::from_context(host).is_some_and(|h| h.protocol_events)
}

/// The reply made on the core's Python threads, not on the tokio worker that awaits it.
fn shape(
    _host: HostContext,
    call_id: String,
    chunks: crate::model::Chunks,
) -> BoxFuture<'static, Result<Option<AiMessage>, BoxError>> {
    Box::pin(async move {
        super::python_calls::call(move |py| {
            let chunks = pythonize::pythonize(py, &chunks).map_err(|e| boxed(e.into()))?;
            let made = py
                .import("deepagents_rs._native_events")
                .and_then(|m| m.getattr("v1_reply"))
                .and_then(|f| f.call1((call_id, chunks)))
                .map_err(boxed)?;
            if made.is_none() {
                return Ok(None);
            }
            match message_from_py(&made).map_err(boxed)? {
                Message::Ai(ai) => Ok(Some(ai)),
                _ => Err("the reply made of a call's chunks is not an AI message".into()),
            }
        })
        .await
        .unwrap_or_else(|lost| Err(Box::new(lost) as BoxError))
    })
}

pub(crate) fn register() {
    crate::host::set_reply_shaper(crate::host::ReplyShaper { wants, shape });
}
