//! The host's note on an error leaving a node's task (`crate::agent::set_task_note`): the
//! exception the host raised gets LangGraph's "During task with name ..." notes, with the ids
//! the node's code saw in its config (`deepagents_rs._task_notes.note_node_error`).

use futures::future::BoxFuture;
use pyo3::prelude::*;

use super::host::PyHost;
use crate::error::{Error, ModelError};
use crate::middleware::NodePlace;
use crate::tools::HostContext;

pub(super) fn note_task(
    error: &Error,
    node: &str,
    place: &NodePlace,
    host: &HostContext,
) -> Option<BoxFuture<'static, ()>> {
    let Error::Model(
        ModelError::Host(source)
        | ModelError::HostInvalidRequest(source)
        | ModelError::HostContextOverflow(source),
    ) = error
    else {
        return None;
    };
    let (source, node, host) = (source.clone(), node.to_owned(), host.clone());
    let (step, namespace) = (place.step, place.namespace.clone());
    Some(Box::pin(async move {
        // Off the tokio workers: the note is Python's work.
        let _ = tokio::task::spawn_blocking(move || {
            super::runtime_threads::attach(|py| {
                let Some(raised) = source.downcast_ref::<PyErr>() else {
                    return;
                };
                let config = PyHost::config_arg(PyHost::from_context(&host), py);
                let noted = py.import("deepagents_rs._task_notes").and_then(|m| {
                    m.call_method1(
                        "note_node_error",
                        (raised.value(py), config, node, step, namespace),
                    )
                });
                if let Err(e) = noted {
                    e.write_unraisable(py, None);
                }
            })
        })
        .await;
    }))
}
