//! `CoreAgent`: the compiled agent the Python package wraps. `invoke` blocks with the GIL
//! released; `ainvoke` returns an awaitable driven by tokio.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::agent_run_args::{
    StartArg, failure_to_py, input_files, max_concurrency, run_options, start_tasks, stops_of,
    subagent_resumes, trace_from_py,
};
// `stream` takes the late resumes of a run from here.
pub(crate) use super::agent_run_args::{LateResumes, ResumeArg};
use super::agent_state::{input_state_from_py, result_to_py, state_from_py, streamed_state_to_py};
use super::errors::{bad_input, to_py};
use super::host::PyHost;
use super::memory::memory_from_py;
use super::stack_parts::{
    entry_from_py, files_from_py, middleware_from_py, model_from_py, private_keys_from_py,
    profile_from_py, response_format_from_py, skills_slot, subagent_from_py, summarization_slot,
    tools_from_py,
};
use super::stream::{AsyncEventStream, EventStream, Item, QueueSink, StreamState, parse_mode};
use crate::agent::{Agent, StackKind, StackParts};
use crate::events::{Emitter, EventKind};
use crate::messages::SystemMessage;
use crate::middleware::{Middleware, ToolProvider};
use crate::run::{RunOptions, StartTask, Stops};
use crate::subagents::TaskTool;
use crate::tools::Tool;

#[pyclass(frozen, module = "deepagents_rs._core")]
pub(crate) struct CoreAgent {
    agent: Agent,
    /// The node names of the subagents the core runs, by name (see `TaskTool::subagent_nodes`).
    subagent_nodes: Vec<(String, Vec<String>)>,
}

/// Python's `mimetypes` table, handed to the core once (see `files::media::mime_type`).
/// A `PyOnceLock`: a thread waiting for another's first call detaches from the interpreter
/// meanwhile (`mimetypes.init` reads files, releasing the GIL), so agents created in two
/// threads at once do not deadlock.
fn host_mime_types(py: Python<'_>) -> PyResult<()> {
    static DONE: pyo3::sync::PyOnceLock<()> = pyo3::sync::PyOnceLock::new();
    DONE.get_or_try_init(py, || -> PyResult<()> {
        let mimetypes = py.import("mimetypes")?;
        if !mimetypes.getattr("inited")?.is_truthy()? {
            mimetypes.call_method0("init")?;
        }
        let types: std::collections::HashMap<String, String> =
            mimetypes.getattr("types_map")?.extract()?;
        // And the other way: each known type's extension (summarization names the
        // media it offloads by it).
        let mut extensions = std::collections::HashMap::new();
        for ty in types.values() {
            if extensions.contains_key(ty) {
                continue;
            }
            let ext: Option<String> = mimetypes
                .call_method1("guess_extension", (ty,))?
                .extract()?;
            if let Some(ext) = ext {
                extensions.insert(ty.clone(), ext);
            }
        }
        crate::files::media::set_host_extensions(extensions);
        crate::files::media::set_host_types(types);
        Ok(())
    })?;
    Ok(())
}

/// The sink and queue of one stream: `modes` are LangGraph's stream modes asked for.
fn stream_sink(
    modes: &[String],
    subgraphs: bool,
    name: Option<&str>,
) -> PyResult<(
    Emitter,
    tokio::sync::mpsc::UnboundedSender<Item>,
    tokio::sync::mpsc::UnboundedReceiver<Item>,
)> {
    let kinds = modes
        .iter()
        .map(|m| parse_mode(m).ok_or_else(|| bad_input(format!("unsupported stream mode {m:?}"))))
        .collect::<PyResult<Vec<EventKind>>>()?;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let sink = Arc::new(QueueSink::new(kinds, subgraphs, tx.clone()));
    Ok((Emitter::new(sink, name), tx, rx))
}

#[pymethods]
impl CoreAgent {
    /// `model` is `(provider, name)` for a native provider, or a model adapter object.
    /// `tools` are tool adapters; `system` is the system message as a dict; `subagents` are
    /// normalized subagent specs. With subagents, the `task` tool comes before the user's
    /// tools, where deepagents puts it. `profile` is the harness profile's part of the stack
    /// (`deepagents_rs._harness`), `interrupts` the human-in-the-loop entry, and
    /// `task_description` the profile's `task` description: a string, or a function given
    /// the list of subagents.
    #[new]
    #[pyo3(signature = (model, tools, system, name=None, subagents=None, response_format=None, middleware=None, private_keys=None, files=None, summarization=None, memory=None, skills=None, profile=None, interrupts=None, task_description=None, plain=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        model: &Bound<'_, PyAny>,
        tools: &Bound<'_, PyAny>,
        system: &Bound<'_, PyAny>,
        name: Option<String>,
        subagents: Option<Vec<Bound<'_, PyDict>>>,
        response_format: Option<Bound<'_, PyAny>>,
        middleware: Option<Bound<'_, PyAny>>,
        private_keys: Option<Bound<'_, PyAny>>,
        files: Option<Bound<'_, PyAny>>,
        summarization: Option<Bound<'_, PyAny>>,
        memory: Option<Bound<'_, PyAny>>,
        skills: Option<Bound<'_, PyAny>>,
        profile: Option<Bound<'_, PyAny>>,
        interrupts: Option<Bound<'_, PyAny>>,
        task_description: Option<Bound<'_, PyAny>>,
        plain: bool,
    ) -> PyResult<Self> {
        super::errors::guard(|| {
            host_mime_types(model.py())?;
            let model = model_from_py(model)?;
            let user_tools = tools_from_py(tools)?;
            // The `task` tool's entry, over the subagents.
            let mut task_tool: Option<Arc<TaskTool>> = None;
            let subagent_mw: Option<Arc<dyn Middleware>> = match subagents {
                Some(specs) => {
                    let parsed = specs
                        .iter()
                        .map(subagent_from_py)
                        .collect::<PyResult<Vec<_>>>()?;
                    let task = TaskTool::new(parsed).map_err(to_py)?;
                    let task = match task_description {
                        Some(d) => {
                            let description = if d.is_callable() {
                                d.call1((task.listing(),))?.extract()?
                            } else {
                                d.extract()?
                            };
                            task.with_description(description)
                        }
                        None => task,
                    };
                    let tool = Arc::new(task);
                    task_tool = Some(tool.clone());
                    let task: Arc<dyn Tool> = tool;
                    Some(Arc::new(ToolProvider::new(
                        "SubAgentMiddleware",
                        vec![task],
                    )))
                }
                None => None,
            };
            // `plain`: LangChain's `create_agent` (deepagents' rubric grader), whose chain is
            // the user's middleware alone.
            let kind = if plain {
                StackKind::Plain
            } else {
                StackKind::Main
            };
            let parts = StackParts {
                files: files_from_py(files)?,
                subagents: subagent_mw,
                summarization: summarization_slot(summarization)?,
                user: middleware_from_py(middleware)?,
                profile: profile_from_py(profile)?,
                skills: skills_slot(skills)?,
                memory: memory
                    .map(|m| Ok::<_, PyErr>(Arc::new(memory_from_py(&m)?) as _))
                    .transpose()?,
                interrupts: entry_from_py(interrupts)?,
            };
            let system: SystemMessage = super::value::from_py(system)?;
            let mut agent = Agent::from_parts(kind, parts, model, user_tools, system)
                .map_err(to_py)?
                .with_response_format(response_format_from_py(response_format)?);
            agent.name = name;
            agent.private_keys = private_keys_from_py(private_keys)?;
            let subagent_nodes = task_tool.map_or_else(Vec::new, |t| t.subagent_nodes(&agent));
            Ok(CoreAgent {
                agent,
                subagent_nodes,
            })
        })
    }

    /// Sets the state keys that take one write per step (see `Agent::last_value_keys`),
    /// once the host knows the agent's graph; later calls change nothing.
    fn set_last_value_keys(&self, keys: Vec<String>) {
        let _ = self.agent.last_value_keys.set(Arc::from(keys));
    }

    /// Sets the state's reducers (see `Agent::reducers`): a `_reducers.Reducers` (its `keys`
    /// and `fold`), or None when no key has one; later calls change nothing.
    fn set_reducers(&self, reducers: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(r) = super::reducers::reducers_from_py(reducers)? {
            let _ = self.agent.reducers.set(r);
        }
        Ok(())
    }

    /// The id of the model, `provider:name`.
    #[getter]
    fn model_id(&self) -> String {
        self.agent.model.id()
    }

    /// Where the loop goes after `node` on `state` (a state dict), by the graph's edges:
    /// `("node", name)`, `("calls", [tool call, ...])` or `("end", None)`.
    #[pyo3(signature = (node, state, jump_to=None))]
    fn route_after<'py>(
        &self,
        py: Python<'py>,
        node: &str,
        state: &Bound<'py, PyDict>,
        jump_to: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::errors::guard(|| {
            let state = state_from_py(state)?;
            let jump = jump_to.and_then(crate::state::Jump::parse);
            let route = self
                .agent
                .route_after(node, &state, jump)
                .map_err(super::errors::to_py)?;
            super::stream_payloads::route_to_py(py, &route)
        })
    }

    /// The node names of the subagents the core runs (declarative and forks), by name.
    #[getter]
    fn subagent_nodes(&self) -> Vec<(String, Vec<String>)> {
        self.subagent_nodes.clone()
    }

    /// The graph's node names (hook nodes, `model`, `tools`) in LangChain's order.
    #[getter]
    fn node_names(&self) -> Vec<String> {
        self.agent.chain.node_names()
    }

    /// The graph's node names in the order LangChain registers them (`Chain::registered_node_names`).
    #[getter]
    fn registered_node_names(&self) -> Vec<String> {
        self.agent.chain.registered_node_names()
    }

    /// The tool names in the order the model sees them.
    #[getter]
    fn tool_names(&self) -> Vec<String> {
        self.agent
            .tools
            .specs()
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    /// Runs the agent to completion on `state`; blocks with the GIL released. `config` is the
    /// caller's run config, handed to tools and compiled subagents; `subagent_response_format`
    /// a response format adapter subagents must answer in.
    #[pyo3(signature = (state, recursion_limit, config=None, subagent_response_format=None, tracer=None))]
    fn invoke(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyDict>,
        recursion_limit: u64,
        config: Option<Py<PyAny>>,
        subagent_response_format: Option<Bound<'_, PyAny>>,
        tracer: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        super::errors::guard(|| {
            // Inside Python until the result is made (it runs Python code): the exit waits.
            let _inside = super::exit_gate::enter_holding(py);
            let files = input_files(state);
            let (state, given) = input_state_from_py(state)?;
            let options = run_options(
                recursion_limit,
                PyHost::for_sync(py, config)?,
                subagent_response_format,
                tracer,
            )?;
            let agent = self.agent.clone();
            let runtime = pyo3_async_runtimes::tokio::get_runtime();
            // The run's state machine (about 13 KB) is made and boxed at the task's first poll,
            // on a worker: made here it would be built in this frame and copied into the
            // task, touching that much of every caller thread's stack for good (1,000 callers
            // blocked in `invoke` each keep it).
            let mut handle = runtime.spawn(async move {
                let outcome = Box::pin(agent.run_guarded(state, options)).await;
                outcome.map(|(state, _)| state)
            });
            // A finished run's state is queued before this thread waits for the GIL, its
            // result made with the others queued by whichever caller has it first
            // (`result_batch`).
            let mut given = Some(given);
            // Timers are built inside the runtime: they need its clock.
            let waited = super::blocking::wait_for(py, |limit| {
                let joined = runtime.block_on(async {
                    match limit {
                        Some(limit) => tokio::time::timeout(limit, &mut handle).await.ok(),
                        None => Some((&mut handle).await),
                    }
                })?;
                Some(match joined {
                    Ok(Ok(state)) => Ok(Ok(super::result_batch::queue(
                        state,
                        given.take().unwrap_or_default(),
                    ))),
                    Ok(Err(failure)) => Ok(Err(failure)),
                    Err(e) => Err(e),
                })
            });
            let outcome = match waited {
                Ok(joined) => joined,
                // Ctrl-C (or another signal handler's error) stops the run.
                Err(e) => {
                    handle.abort();
                    return Err(e);
                }
            };
            let waiting = outcome
                .map_err(|e| {
                    pyo3::exceptions::PyRuntimeError::new_err(format!("agent task failed: {e}"))
                })?
                .map_err(|f| super::errors::out_of_generator(failure_to_py(f, files.as_ref())))?;
            let out = super::result_batch::result(py, waiting);
            self.agent.release_unused();
            out
        })
    }

    /// Runs the agent on the caller's event loop; returns an awaitable.
    #[pyo3(signature = (state, recursion_limit, config=None, subagent_response_format=None, tracer=None))]
    fn ainvoke<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyDict>,
        recursion_limit: u64,
        config: Option<Py<PyAny>>,
        subagent_response_format: Option<Bound<'py, PyAny>>,
        tracer: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        super::errors::guard(|| {
            let files = input_files(state);
            let (state, given) = input_state_from_py(state)?;
            let host = PyHost::for_async(py, config)?;
            let (inbox, event_loop) = PyHost::from_context(&host)
                .map(|h| (h.inbox.clone(), h.locals.event_loop(py)))
                .ok_or_else(|| {
                    pyo3::exceptions::PyRuntimeError::new_err("ainvoke: no event loop host")
                })?;
            let options = run_options(recursion_limit, host, subagent_response_format, tracer)?;
            let agent = self.agent.clone();
            let release = self.agent.clone();
            // Boxed: the run's state machine (about 13 KB) made at the task's first poll, on
            // a worker, not in this frame.
            let run = Box::pin(async move { agent.run_guarded(state, options).await });
            // The result made on the loop's thread, which holds the GIL to resume the caller
            // anyway (`loop_future`): never on a tokio worker, nor on another thread that
            // would take the GIL only to hand it over. A failure's partial state likewise.
            super::loop_inbox::loop_future(
                py,
                &inbox,
                &event_loop,
                run,
                // Made inside the drain's pause of the collector (`loop_inbox`): what may run
                // Python code (an exception's constructor, a finalizer of an object let go)
                // goes through `as_left`.
                Box::new(move |py, outcome| {
                    let made = outcome.map(|(state, _)| (result_to_py(py, &state, &given), state));
                    super::collector_pause::as_left(py, move || {
                        let out = match made {
                            Ok((out, state)) => {
                                drop(state);
                                out
                            }
                            Err(f) => Err(failure_to_py(f, files.as_ref())),
                        };
                        // The caller's objects let go with the interpreter attached.
                        drop(given);
                        release.release_unused();
                        out
                    })
                }),
            )
        })
    }

    /// Runs the agent, reporting its steps: an iterator of raw `(mode, ns, payload)` items
    /// ending with `("done", (), state)`, shaped into LangGraph's chunks by the Python side.
    #[pyo3(signature = (state, recursion_limit, modes, subgraphs=false, config=None, subagent_response_format=None, tracer=None, steps_before=0, start=None, stops=None, resumed=None, subagents=None, control=None, awaited=None))]
    #[allow(clippy::too_many_arguments)]
    fn stream(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyDict>,
        recursion_limit: u64,
        modes: Vec<String>,
        subgraphs: bool,
        config: Option<Py<PyAny>>,
        subagent_response_format: Option<Bound<'_, PyAny>>,
        tracer: Option<Py<PyAny>>,
        steps_before: u64,
        start: Option<StartArg<'_>>,
        stops: Option<(Vec<String>, Vec<String>)>,
        resumed: Option<Vec<String>>,
        subagents: Option<Vec<ResumeArg<'_>>>,
        control: Option<Py<PyAny>>,
        awaited: Option<Vec<String>>,
    ) -> PyResult<EventStream> {
        super::errors::guard(|| {
            let host = PyHost::for_sync(py, config)?;
            let resume_subagents = subagent_resumes(py, &host, subagents, awaited)?;
            let late = LateResumes::new(&resume_subagents, &host);
            let run = StreamRun {
                modes,
                subgraphs,
                subagent_response_format,
                tracer,
                steps_before,
                start: start_tasks(start)?,
                stops: stops_of(stops, control),
                resumed_calls: resumed.unwrap_or_default(),
                resume_subagents,
            };
            Ok(EventStream::new(
                self.start_stream(state, recursion_limit, host, run)?,
                late,
            ))
        })
    }

    /// `stream` for `astream`: callbacks run on the caller's loop.
    #[pyo3(signature = (state, recursion_limit, modes, subgraphs=false, config=None, subagent_response_format=None, tracer=None, steps_before=0, start=None, stops=None, resumed=None, subagents=None, control=None, awaited=None))]
    #[allow(clippy::too_many_arguments)]
    fn astream(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyDict>,
        recursion_limit: u64,
        modes: Vec<String>,
        subgraphs: bool,
        config: Option<Py<PyAny>>,
        subagent_response_format: Option<Bound<'_, PyAny>>,
        tracer: Option<Py<PyAny>>,
        steps_before: u64,
        start: Option<StartArg<'_>>,
        stops: Option<(Vec<String>, Vec<String>)>,
        resumed: Option<Vec<String>>,
        subagents: Option<Vec<ResumeArg<'_>>>,
        control: Option<Py<PyAny>>,
        awaited: Option<Vec<String>>,
    ) -> PyResult<AsyncEventStream> {
        super::errors::guard(|| {
            let host = PyHost::for_async(py, config)?;
            let resume_subagents = subagent_resumes(py, &host, subagents, awaited)?;
            let late = LateResumes::new(&resume_subagents, &host);
            let run = StreamRun {
                modes,
                subgraphs,
                subagent_response_format,
                tracer,
                steps_before,
                start: start_tasks(start)?,
                stops: stops_of(stops, control),
                resumed_calls: resumed.unwrap_or_default(),
                resume_subagents,
            };
            Ok(AsyncEventStream::new(
                self.start_stream(state, recursion_limit, host, run)?,
                late,
            ))
        })
    }
}

/// What a `stream`/`astream` call asks for besides the state.
struct StreamRun<'py> {
    modes: Vec<String>,
    subgraphs: bool,
    subagent_response_format: Option<Bound<'py, PyAny>>,
    tracer: Option<Py<PyAny>>,
    /// See `RunOptions::steps_before`.
    steps_before: u64,
    /// See `RunOptions::start`.
    start: Vec<StartTask>,
    /// See `RunOptions::stops`.
    stops: Stops,
    /// See `RunOptions::resumed_calls`.
    resumed_calls: Vec<String>,
    /// See `RunOptions::resume_subagents`.
    resume_subagents: crate::subagents::SubagentResumes,
}

impl CoreAgent {
    /// Starts a streamed run on tokio: its events queue up for the iterator.
    fn start_stream(
        &self,
        state: &Bound<'_, PyDict>,
        recursion_limit: u64,
        host: crate::tools::HostContext,
        run_args: StreamRun<'_>,
    ) -> PyResult<StreamState> {
        let files = input_files(state);
        let (state, given) = input_state_from_py(state)?;
        let (emitter, tx, rx) = stream_sink(
            &run_args.modes,
            run_args.subgraphs,
            self.agent.name.as_deref(),
        )?;
        let limit = max_concurrency(&host);
        let options = RunOptions {
            recursion_limit,
            host,
            forked: false,
            subagent_response_format: response_format_from_py(run_args.subagent_response_format)?,
            events: Some(emitter),
            trace: trace_from_py(run_args.tracer),
            steps_before: run_args.steps_before,
            start: run_args.start,
            stops: run_args.stops,
            resumed_calls: run_args.resumed_calls,
            namespace: Vec::new(),
            subagent: None,
            resume_subagents: run_args.resume_subagents,
            max_concurrency: limit,
        };
        let agent = self.agent.clone();
        // Made and boxed at the task's first poll, as `invoke`'s run: not copied through the
        // caller's stack.
        let task = pyo3_async_runtimes::tokio::get_runtime().spawn(async move {
            let outcome = Box::pin(agent.run_guarded(state, options)).await;
            let outcome = outcome.map(|(state, _)| state);
            let _ = tx.send(Item::Done(Box::new(outcome)));
        });
        Ok(StreamState::new(
            rx,
            task,
            self.agent.clone(),
            (streamed_state_to_py, given),
            Box::new(move |f| failure_to_py(f, files.as_ref())),
        ))
    }
}
