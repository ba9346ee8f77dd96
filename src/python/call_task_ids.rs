//! The host's id of a tool call's task (`crate::tools::set_call_task_id`): the id the call's
//! config, callbacks and notes carry (`deepagents_rs._task_config.subagent_task_id`), so a
//! subagent started by the call runs under the same `tools:<id>` as the rest see.

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::host::PyHost;
use crate::tools::{CallPlace, HostContext};

pub(super) fn call_task_id(
    host: &HostContext,
    place: &CallPlace<'_>,
) -> Option<BoxFuture<'static, Option<String>>> {
    // A run of the core alone (no Python host) has no ids but its own.
    PyHost::from_context(host)?;
    let host = host.clone();
    let (namespace, step) = (place.namespace.to_vec(), place.step);
    let (call_id, index) = (place.call_id.to_owned(), place.index);
    Some(Box::pin(async move {
        // Off the tokio workers: the id is Python's to make.
        super::python_calls::call(move |py| {
            static NAMER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
            let named = NAMER
                .import(py, "deepagents_rs._task_config", "subagent_task_id")
                .and_then(|namer| {
                    let config = PyHost::config_arg(PyHost::from_context(&host), py);
                    namer
                        .call1((config, namespace, step, call_id, index))?
                        .extract::<Option<String>>()
                });
            named.unwrap_or_else(|e| {
                e.write_unraisable(py, None);
                None
            })
        })
        .await
        .ok()
        .flatten()
    }))
}
