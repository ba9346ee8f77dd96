//! The core's stream events as the raw tuples `deepagents_rs._stream` shapes into
//! LangGraph's chunks, `(mode, ns, payload)`: node writes, messages with their metadata,
//! custom values, routes.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use super::convert::{host_object, message_to_py};
use super::input_messages::GivenObjects;
use super::result_objects::message_objects;
use crate::events::{Event, EventKind, MessagePayload, Namespace, Route, Update};
use crate::state::{MessagesDelta, StateDelta};
use pyo3::IntoPyObjectExt;

fn mode_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Updates => "updates",
        EventKind::Values => "values",
        EventKind::Messages => "messages",
        EventKind::Custom => "custom",
        EventKind::Graph => "graph",
        EventKind::Routes => "routes",
    }
}

/// A node's write as the dict LangGraph streams; `__remove_all__` marks a write that
/// replaced the whole list (shaped as `RemoveMessage(REMOVE_ALL)` first by the Python side).
pub(crate) fn delta_to_py<'py>(
    py: Python<'py>,
    delta: &StateDelta,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    if !delta.keys_first {
        messages_to_py(py, &out, delta)?;
    }
    if let Some(files) = &delta.files {
        out.set_item("files", super::convert::files_write_to_py(py, files)?)?;
    }
    if let Some(obj) = delta
        .structured_host
        .as_ref()
        .and_then(|h| host_object(py, h))
    {
        out.set_item("structured_response", obj)?;
    } else if let Some(sr) = &delta.structured_response {
        out.set_item("structured_response", pythonize::pythonize(py, sr)?)?;
    }
    for (k, v) in &delta.extra {
        out.set_item(k, super::convert::opaque_to_py(py, v)?)?;
    }
    if delta.keys_first {
        messages_to_py(py, &out, delta)?;
    }
    if let Some(jump) = delta.jump_to {
        let name = match jump {
            crate::state::Jump::Model => "model",
            crate::state::Jump::Tools => "tools",
            crate::state::Jump::End => "end",
        };
        out.set_item("jump_to", name)?;
    }
    Ok(out)
}

fn messages_to_py(py: Python<'_>, out: &Bound<'_, PyDict>, delta: &StateDelta) -> PyResult<()> {
    match &delta.messages {
        MessagesDelta::None => {}
        MessagesDelta::Append(m) => {
            out.set_item("messages", super::convert::message_list(py, m)?)?;
            if !delta.removed.is_empty() {
                // The write's `RemoveMessage`s, put in their places by the Python side.
                out.set_item("__removed__", delta.removed.clone())?;
            }
        }
        MessagesDelta::Replace(m) => {
            out.set_item("messages", super::convert::message_list(py, m)?)?;
            out.set_item("__remove_all__", true)?;
        }
    }
    Ok(())
}

/// The messages of a node's write as the message objects the Python side streams and
/// writes to the thread's channel (`_stream._update`), made by the core's result makers as
/// `_convert.from_core` would make them of the write's dicts: in Python that was a
/// third of a checkpointed step's calling-thread bytecode. `None` for a write without
/// messages. No caller's objects are reused: the update shows each message made anew, as
/// before.
fn written_objects<'py>(py: Python<'py>, delta: &StateDelta) -> PyResult<Bound<'py, PyAny>> {
    match &delta.messages {
        MessagesDelta::None => Ok(py.None().into_bound(py)),
        MessagesDelta::Append(m) | MessagesDelta::Replace(m) => {
            Ok(message_objects(py, m, &GivenObjects::default())?.into_any())
        }
    }
}

/// LangGraph's metadata of a streamed message (the run config's metadata is merged in by
/// the Python side).
fn message_meta<'py>(
    py: Python<'py>,
    ns: &Namespace,
    agent_name: Option<&str>,
    step: u64,
    node: &str,
    model: Option<&crate::events::ModelInfo>,
) -> PyResult<Bound<'py, PyDict>> {
    let meta = PyDict::new(py);
    let task_ns = format!("{node}:{}", crate::agent::new_id());
    let mut path: Vec<String> = ns.to_vec();
    path.push(task_ns);
    let checkpoint_ns = path.join("|");
    meta.set_item("langgraph_step", step)?;
    meta.set_item("langgraph_node", node)?;
    meta.set_item("langgraph_checkpoint_ns", &checkpoint_ns)?;
    meta.set_item("lc_agent_name", agent_name)?;
    if let Some(model) = model {
        meta.set_item(
            "langgraph_triggers",
            PyTuple::new(py, [format!("branch:to:{node}")])?,
        )?;
        meta.set_item("langgraph_path", PyTuple::new(py, ["__pregel_pull", node])?)?;
        meta.set_item("checkpoint_ns", &path[0])?;
        meta.set_item("ls_integration", "langchain_chat_model")?;
        for (k, v) in &model.params {
            meta.set_item(k, pythonize::pythonize(py, v)?)?;
        }
    } else {
        meta.set_item("langgraph_triggers", PyTuple::new(py, ["__pregel_push"])?)?;
        let push = ("__pregel_push", 0, false);
        meta.set_item("langgraph_path", push)?;
        if !ns.is_empty() {
            meta.set_item("checkpoint_ns", &path[0])?;
            meta.set_item("ls_integration", "langchain_create_agent")?;
        }
    }
    Ok(meta)
}

pub(super) fn event_to_py(
    py: Python<'_>,
    ns: &Namespace,
    agent_name: Option<&str>,
    step: u64,
    event: Event,
    state_to_py: super::stream::StateToPy,
    given: &GivenObjects,
) -> PyResult<Py<PyAny>> {
    let ns_py = PyTuple::new(py, ns.iter())?;
    let (kind, payload): (EventKind, Bound<'_, PyAny>) = match event {
        Event::Update { node, update } => {
            // The flag tells a core write (message dicts to shape) from a hook's own value.
            // For a core write, the flag is the tuple of each write's messages as objects
            // (`written_objects`), `True` for a write list with none.
            let (payload, core) = match update {
                None => (py.None().into_bound(py), false.into_bound_py_any(py)?),
                Some(Update::Delta(delta)) => (
                    delta_to_py(py, &delta)?.into_any(),
                    PyTuple::new(py, [written_objects(py, &delta)?])?.into_any(),
                ),
                Some(Update::Writes(writes)) => {
                    let list = PyList::empty(py);
                    let mut objects = Vec::with_capacity(writes.len());
                    for w in &writes {
                        list.append(delta_to_py(py, w)?)?;
                        objects.push(written_objects(py, w)?);
                    }
                    let core = if objects.is_empty() {
                        true.into_bound_py_any(py)?
                    } else {
                        PyTuple::new(py, objects)?.into_any()
                    };
                    (list.into_any(), core)
                }
                Some(Update::Host(value)) => (
                    host_object(py, &value).unwrap_or_else(|| py.None().into_bound(py)),
                    false.into_bound_py_any(py)?,
                ),
            };
            (
                EventKind::Updates,
                (node.as_ref(), payload, core).into_pyobject(py)?.into_any(),
            )
        }
        // The caller's objects are the root's: a subagent's state is its own.
        Event::Values(state) => {
            let given = if ns.is_empty() {
                given
            } else {
                &GivenObjects::default()
            };
            (
                EventKind::Values,
                state_to_py(py, &state, given)?.into_bound(py),
            )
        }
        Event::Message(m) => {
            let message = match &m.payload {
                MessagePayload::Whole(message) => message_to_py(py, message)?,
                MessagePayload::HostChunk(chunk) => {
                    host_object(py, chunk).unwrap_or_else(|| py.None().into_bound(py))
                }
                MessagePayload::NativeChunk(fields) => py
                    .import("deepagents_rs._stream")?
                    .getattr("native_chunk")?
                    .call1((pythonize::pythonize(py, fields)?,))?,
            };
            let meta = message_meta(py, ns, agent_name, step, &m.node, m.model.as_deref())?;
            let is_chunk = !matches!(m.payload, MessagePayload::Whole(_));
            (
                EventKind::Messages,
                (message, meta, is_chunk).into_pyobject(py)?.into_any(),
            )
        }
        Event::Custom(value) => (
            EventKind::Custom,
            host_object(py, &value).unwrap_or_else(|| py.None().into_bound(py)),
        ),
        // `(call id, (namespace, mode, payload))`.
        Event::Graph { call_id, part } => (
            EventKind::Graph,
            (
                call_id,
                host_object(py, &part).unwrap_or_else(|| py.None().into_bound(py)),
            )
                .into_pyobject(py)?
                .into_any(),
        ),
        // `(node, "node", name)`, `(node, "calls", [tool call, ...])` or `(node, "end", None)`.
        Event::Route { node, next } => {
            let route = route_to_py(py, &next)?;
            let (kind, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = route.extract()?;
            (
                EventKind::Routes,
                (node.as_ref(), kind, value).into_pyobject(py)?.into_any(),
            )
        }
        // `("__end__", "paused", (call id, exception))`.
        Event::SubagentPaused { call_id, error } => {
            let exc = super::errors::shared_to_py(&error).into_value(py);
            (
                EventKind::Routes,
                ("__end__", "paused", (call_id, exc))
                    .into_pyobject(py)?
                    .into_any(),
            )
        }
        // `(node, "place", place)`.
        Event::TaskPlace { node, place } => (
            EventKind::Routes,
            (node.as_ref(), "place", place)
                .into_pyobject(py)?
                .into_any(),
        ),
        // `("tools", "call", (call id, kind, value))`, the route as `route_to_py` gives it.
        Event::CallRoute { call_id, next } => {
            let route = route_to_py(py, &next)?;
            let (kind, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = route.extract()?;
            (
                EventKind::Routes,
                ("tools", "call", (call_id, kind, value))
                    .into_pyobject(py)?
                    .into_any(),
            )
        }
        // `("__start__", "subagent", (call id, state, node names, agent name))`.
        Event::SubagentStart {
            call_id,
            input,
            nodes,
        } => {
            let start = (
                call_id,
                state_to_py(py, &input, &GivenObjects::default())?,
                nodes,
                agent_name,
            );
            (
                EventKind::Routes,
                ("__start__", "subagent", start)
                    .into_pyobject(py)?
                    .into_any(),
            )
        }
    };
    Ok((mode_name(kind), ns_py, payload)
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// A route as `(kind, value)`: `("node", name)`, `("calls", [tool call, ...])`,
/// `("send", (name, state))`, `("branches", [route, ...])` or `("end", None)`.
pub(crate) fn route_to_py<'py>(py: Python<'py>, route: &Route) -> PyResult<Bound<'py, PyAny>> {
    let (kind, value) = match route {
        Route::Node(name) => ("node", name.as_ref().into_pyobject(py)?.into_any()),
        Route::Calls(calls) => {
            let list = PyList::empty(py);
            for call in calls {
                list.append(super::convert::call_to_py(py, call)?)?;
            }
            ("calls", list.into_any())
        }
        Route::Send(send) => (
            "send",
            (
                send.node.as_str(),
                super::agent_state::state_to_py(py, &send.state)?,
            )
                .into_pyobject(py)?
                .into_any(),
        ),
        Route::Branches(routes) => {
            let list = PyList::empty(py);
            for route in routes {
                list.append(route_to_py(py, route)?)?;
            }
            ("branches", list.into_any())
        }
        Route::End => ("end", py.None().into_bound(py)),
    };
    Ok((kind, value).into_pyobject(py)?.into_any())
}
