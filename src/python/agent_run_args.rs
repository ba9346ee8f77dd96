//! What a run of a `CoreAgent` is given besides its state: its options and tracer, where a
//! resumed, replayed or drained run starts and stops, the subagents it resumes (as the thread
//! graph hands them to `invoke`/`stream`), and its failure as Python sees it.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::agent_state::{state_from_py, state_to_py};
use super::errors::to_py;
use super::host::PyHost;
use super::stack_parts::response_format_from_py;
use super::tracer::PyTracer;
use crate::events::TraceContext;
use crate::run::{Drain, RunFailure, RunOptions, StartTask, Stops};

/// Where the run stops: LangGraph's breakpoints, and its `RunControl`'s drain: `control` is
/// the thread graph's answer to "stop before the next node?" (`Feed.core_boundary`), which
/// may wait for the graph, so it is called with the other Python calls (`super::python_calls`,
/// never on a tokio worker); an answer that cannot be had counts as "go on".
pub(super) fn stops_of(
    stops: Option<(Vec<String>, Vec<String>)>,
    control: Option<Py<PyAny>>,
) -> Stops {
    let (before, after) = stops.unwrap_or_default();
    let drain = control.map(|control| {
        let control = Arc::new(control);
        Drain(Arc::new(move || {
            let control = control.clone();
            Box::pin(async move {
                super::python_calls::call(move |py| {
                    control
                        .bind(py)
                        .call0()
                        .and_then(|v| v.is_truthy())
                        .unwrap_or(false)
                })
                .await
                .unwrap_or(false)
            })
        }))
    });
    Stops {
        before,
        after,
        drain,
    }
}

/// Where a resumed or replayed run starts, as the thread graph hands it: a node by name, or
/// the tasks of a step side by side (see `StartTaskArg` and `StartTask`).
#[derive(FromPyObject)]
pub(super) enum StartArg<'py> {
    One(String),
    Many(Vec<StartTaskArg<'py>>),
}

/// `(node, the state a Send gave it, whether a tools task runs on the whole state, the kept
/// write of a task that had finished, in the middleware adapter's form)`.
pub(super) type StartTaskArg<'py> = (
    String,
    Option<Bound<'py, PyDict>>,
    bool,
    Option<Bound<'py, PyDict>>,
);

pub(super) fn start_tasks(start: Option<StartArg<'_>>) -> PyResult<Vec<StartTask>> {
    Ok(match start {
        None => Vec::new(),
        Some(StartArg::One(node)) => vec![StartTask::named(node)],
        Some(StartArg::Many(tasks)) => tasks
            .into_iter()
            .map(|(node, own, whole, done)| {
                Ok(StartTask {
                    node,
                    own: own.as_ref().map(state_from_py).transpose()?,
                    whole,
                    done: done
                        .as_ref()
                        .map(|d| super::middleware::delta_from_py(d).map(|(d, _)| d))
                        .transpose()?,
                })
            })
            .collect::<PyResult<_>>()?,
    })
}

/// A subagent to resume, as the thread graph hands it: `(task call id, its state, the node
/// it stopped in, the steps it had run, its task's config, the calls of that step that had
/// finished)`.
pub(crate) type ResumeArg<'py> = (
    String,
    Bound<'py, PyDict>,
    String,
    u64,
    Py<PyAny>,
    Vec<String>,
);

/// The subagents a run resumes (``awaited``: the calls whose subagents resume once their
/// tasks start, handed over through the stream's `resume_subagent`).
pub(super) fn subagent_resumes(
    py: Python<'_>,
    host: &crate::tools::HostContext,
    args: Option<Vec<ResumeArg<'_>>>,
    awaited: Option<Vec<String>>,
) -> PyResult<crate::subagents::SubagentResumes> {
    let mut out = std::collections::HashMap::new();
    for arg in args.unwrap_or_default() {
        let (call_id, resume) = subagent_resume(py, host, arg)?;
        out.insert(call_id, resume);
    }
    Ok(crate::subagents::SubagentResumes::new(
        out,
        awaited.unwrap_or_default(),
    ))
}

fn subagent_resume(
    py: Python<'_>,
    host: &crate::tools::HostContext,
    (call_id, state, start, steps_before, config, resumed_calls): ResumeArg<'_>,
) -> PyResult<(String, crate::subagents::SubagentResume)> {
    let resume = crate::subagents::SubagentResume {
        state: state_from_py(&state)?,
        start,
        steps_before,
        host: PyHost::with_config(host, py, config)?,
        resumed_calls,
    };
    Ok((call_id, resume))
}

/// Where a stream hands its run the subagents whose tasks started after the run did.
pub(crate) struct LateResumes {
    resumes: crate::subagents::SubagentResumes,
    host: crate::tools::HostContext,
}

impl LateResumes {
    pub(super) fn new(
        resumes: &crate::subagents::SubagentResumes,
        host: &crate::tools::HostContext,
    ) -> Self {
        LateResumes {
            resumes: resumes.clone(),
            host: host.clone(),
        }
    }

    pub(crate) fn arrive(&self, py: Python<'_>, arg: ResumeArg<'_>) -> PyResult<()> {
        let (call_id, resume) = subagent_resume(py, &self.host, arg)?;
        self.resumes.arrive(call_id, resume);
        Ok(())
    }
}

/// The run's tracer (LangChain callbacks, LangSmith), when the caller traces.
pub(super) fn trace_from_py(tracer: Option<Py<PyAny>>) -> Option<TraceContext> {
    tracer.map(|t| TraceContext {
        tracer: Arc::new(PyTracer::new(t)),
        parent: None,
    })
}

/// LangChain's `max_concurrency` in the run's config (see `RunOptions::max_concurrency`).
pub(super) fn max_concurrency(host: &crate::tools::HostContext) -> Option<usize> {
    let host = PyHost::from_context(host)?;
    super::runtime_threads::attach(|py| {
        let config = PyHost::config_arg(Some(host), py);
        config
            .get_item("max_concurrency")
            .ok()?
            .extract::<Option<usize>>()
            .ok()?
    })
}

/// The options of an `invoke`/`ainvoke` run (no event sink: nothing is streamed).
pub(super) fn run_options(
    recursion_limit: u64,
    host: crate::tools::HostContext,
    subagent_response_format: Option<Bound<'_, PyAny>>,
    tracer: Option<Py<PyAny>>,
) -> PyResult<RunOptions> {
    Ok(RunOptions {
        recursion_limit,
        max_concurrency: max_concurrency(&host),
        host,
        forked: false,
        subagent_response_format: response_format_from_py(subagent_response_format)?,
        events: None,
        trace: trace_from_py(tracer),
        steps_before: 0,
        start: Vec::new(),
        stops: Default::default(),
        resumed_calls: Vec::new(),
        namespace: Vec::new(),
        subagent: None,
        resume_subagents: Default::default(),
    })
}

/// The run's exception, carrying the state as it was when the run failed in its
/// `partial_state` attribute (every completed step is there), so nothing is lost. After a
/// panic the core hands back the input without its files: `input_files` is the caller's own
/// `files` value, put back as given.
pub(super) fn failure_to_py(failure: RunFailure, input_files: Option<&Py<PyAny>>) -> PyErr {
    let err = to_py(failure.error);
    super::runtime_threads::attach(|py| {
        if let Ok(state) = state_to_py(py, &failure.state) {
            if let (true, Some(files)) = (failure.files_dropped, input_files)
                && let Ok(state) = state.bind(py).cast::<PyDict>()
            {
                let _ = state.set_item("files", files.clone_ref(py));
            }
            // An exception type that refuses new attributes just goes without it.
            let _ = err.value(py).setattr("partial_state", state);
        }
    });
    err
}

/// The caller's `files` value of a run's input, for `failure_to_py`.
pub(super) fn input_files(state: &Bound<'_, PyDict>) -> Option<Py<PyAny>> {
    state.get_item("files").ok().flatten().map(Bound::unbind)
}
