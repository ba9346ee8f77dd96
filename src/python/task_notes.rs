//! The host's note on an error leaving a node's task (`crate::agent::set_task_note`): the
//! exception the host raised gets LangGraph's "During task with name ..." notes, with the ids
//! the node's code saw in its config (`deepagents_rs._task_notes.note_node_error`); a native
//! provider's error gets the same notes back (`node_notes`), which its exception gets when it
//! is made (`super::errors::provider_error`).

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
) -> Option<BoxFuture<'static, Vec<String>>> {
    let raised = match error {
        Error::Model(
            ModelError::Host(source)
            | ModelError::HostInvalidRequest(source)
            | ModelError::HostContextOverflow(source),
        ) => Some(source.clone()),
        // The core's own: no exception yet, the notes are handed back.
        Error::Model(ModelError::Provider(_)) => None,
        _ => return None,
    };
    PyHost::from_context(host)?;
    let (node, host) = (node.to_owned(), host.clone());
    let (step, namespace) = (place.step, place.namespace.clone());
    Some(Box::pin(async move {
        // Off the tokio workers: the note is Python's work.
        super::python_calls::call(move |py| {
            let config = PyHost::config_arg(PyHost::from_context(&host), py);
            let notes = py
                .import("deepagents_rs._task_notes")
                .and_then(|m| match &raised {
                    Some(source) => {
                        let Some(raised) = super::errors::py_err(source) else {
                            return Ok(Vec::new());
                        };
                        let args = (raised.value(py), config, node, step, namespace);
                        m.call_method1("note_node_error", args)?;
                        Ok(Vec::new())
                    }
                    None => m
                        .call_method1("node_notes", (config, node, step, namespace))?
                        .extract::<Vec<String>>(),
                });
            notes.unwrap_or_else(|e| {
                e.write_unraisable(py, None);
                Vec::new()
            })
        })
        .await
        .unwrap_or_default()
    }))
}
