//! A plain tool call's config, made by the core from its run's template
//! (`deepagents_rs._plain_tool_calls.RunBase`, worked out once a run) and the call's own
//! parts: its step's checkpoint and LangGraph's task id of its send, its task namespace and
//! metadata, LangGraph's loop objects (channels, runtime, scratchpad, functional-API caller)
//! and the tool run's child callback manager. Made in Python the same dicts, ids and records
//! were some 440 bytecodes a tool call, on the one thread every run's Python calls share
//! (the drainer); here they are C calls. What the tool sees is the general path's config
//! (`_stream.full_config`, then `_direct_tools`' child config of the tool run): the
//! plain tool call tests compare the two key by key.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use super::bare_objects::BareClass;

/// The classes, makers and key names a call's config is made of
/// (`_plain_tool_calls._langgraph`: LangGraph's and ours, spelled there once), found at the
/// first call.
struct Names {
    checkpoint_id: Py<PyAny>,
    xxh3_128_hexdigest: Py<PyAny>,
    tool_task_id: Py<PyAny>,
    task_channels: Py<PyAny>,
    lazy_files: Py<PyAny>,
    execution_info: Py<PyAny>,
    runtime: Py<PyAny>,
    runtime_writing: Py<PyAny>,
    counter: Py<PyAny>,
    scratchpad: Py<PyAny>,
    no_resume: Py<PyAny>,
    caller: Py<PyAny>,
    /// `TaskChannels` and `Caller` made as their `__init__`s make them (`object.__new__`
    /// and their slots set; through Python each was a call and some 25 bytecodes a tool
    /// call on the drainer).
    channels_made: BareClass<7>,
    caller_made: BareClass<4>,
    /// LangGraph's `LazyAtomicCounter` (three a call's scratchpad) and our
    /// `LazyFilesContext` (its task's files) made without their `__init__` (a Python call
    /// each, some 1,500 instructions), when a probe shows what their `__init__` makes
    /// (`bare_counter`, `bare_files`); `None`: called.
    counter_made: Option<BareClass<1>>,
    files_made: Option<BareClass<1>>,
    run_id: Py<PyAny>,
    /// `contextvars.copy_context`, and the `set` of LangChain's `var_child_runnable_config`
    /// and of our `CURRENT_FILES`, bound once (a context variable's `set` is the same call
    /// whenever bound): the call's context (`call_context`).
    copy_context: Py<PyAny>,
    config_set: Py<PyAny>,
    files_set: Py<PyAny>,
    object_new: Py<PyAny>,
    /// `("__pregel_push",)`: every call's `langgraph_triggers`.
    triggers: Py<PyAny>,
    /// The configurable's keys, in the order the general path sets them.
    task_id_key: Py<PyString>,
    checkpoint_map_key: Py<PyString>,
    runtime_key: Py<PyString>,
    send_key: Py<PyString>,
    read_key: Py<PyString>,
    checkpointer_key: Py<PyString>,
    read_state_key: Py<PyString>,
    replay_state_key: Py<PyString>,
    scratchpad_key: Py<PyString>,
    call_key: Py<PyString>,
    pushed_parts_key: Py<PyString>,
    run_ns_key: Py<PyString>,
}

fn names(py: Python<'_>) -> PyResult<&'static Names> {
    static NAMES: PyOnceLock<Names> = PyOnceLock::new();
    NAMES.get_or_try_init(py, || {
        let graph = py
            .import("deepagents_rs._plain_tool_calls")?
            .getattr("_langgraph")?
            .call0()?;
        let get = |name: &str| graph.getattr(name).map(Bound::unbind);
        let key = |name: &str| -> PyResult<Py<PyString>> {
            let text: String = graph.getattr(name)?.extract()?;
            Ok(PyString::intern(py, &text).unbind())
        };
        let channels = graph.getattr("TaskChannels")?;
        let caller = graph.getattr("Caller")?;
        let counter = graph.getattr("LazyAtomicCounter")?;
        let lazy_files = graph.getattr("LazyFilesContext")?;
        Ok(Names {
            counter_made: bare_counter(&counter)?,
            files_made: bare_files(&lazy_files)?,
            channels_made: BareClass::of(
                &channels,
                [
                    "files",
                    "_state_of",
                    "_state",
                    "_forward",
                    "writes",
                    "keys",
                    "own",
                ],
            )?,
            caller_made: BareClass::of(
                &caller,
                ["configurable", "metadata", "asynchronous", "pushed"],
            )?,
            checkpoint_id: get("checkpoint_id")?,
            xxh3_128_hexdigest: get("xxh3_128_hexdigest")?,
            tool_task_id: get("tool_task_id")?,
            task_channels: channels.clone().unbind(),
            lazy_files: lazy_files.clone().unbind(),
            execution_info: get("execution_info")?,
            runtime: get("runtime")?,
            runtime_writing: get("runtime_writing")?,
            counter: counter.clone().unbind(),
            scratchpad: get("scratchpad")?,
            no_resume: get("no_resume")?,
            caller: caller.clone().unbind(),
            run_id: get("run_id")?,
            copy_context: get("copy_context")?,
            config_set: graph.getattr("config_var")?.getattr("set")?.unbind(),
            files_set: graph.getattr("files_var")?.getattr("set")?.unbind(),
            object_new: py
                .import("builtins")?
                .getattr("object")?
                .getattr("__new__")?
                .unbind(),
            triggers: PyTuple::new(py, ["__pregel_push"])?.into_any().unbind(),
            task_id_key: key("TASK_ID_KEY")?,
            checkpoint_map_key: key("CHECKPOINT_MAP_KEY")?,
            runtime_key: key("RUNTIME_KEY")?,
            send_key: key("SEND_KEY")?,
            read_key: key("READ_KEY")?,
            checkpointer_key: key("CHECKPOINTER_KEY")?,
            read_state_key: key("READ_STATE_KEY")?,
            replay_state_key: key("REPLAY_STATE_KEY")?,
            scratchpad_key: key("SCRATCHPAD_KEY")?,
            call_key: key("CALL_KEY")?,
            pushed_parts_key: key("PUSHED_PARTS_KEY")?,
            run_ns_key: key("RUN_NS_KEY")?,
        })
    })
}

/// How `LazyAtomicCounter()` is made without its `__init__`: when the class keeps its state
/// in one slot, `_counter`, and a counter made by the class has it `None` (LangGraph's
/// `__init__` sets just that); `None` (the class called) for a counter of another shape.
fn bare_counter(cls: &Bound<'_, PyAny>) -> PyResult<Option<BareClass<1>>> {
    let py = cls.py();
    let slots = cls.getattr_opt(intern!(py, "__slots__"))?;
    let one_slot = slots.is_some_and(|s| {
        s.cast::<PyTuple>().is_ok_and(|t| {
            t.len() == 1
                && t.get_item(0)
                    .is_ok_and(|n| n.eq("_counter").unwrap_or(false))
        })
    });
    let only_object = cls
        .getattr(intern!(py, "__mro__"))?
        .cast::<PyTuple>()
        .is_ok_and(|mro| mro.len() == 2);
    if !(one_slot && only_object) {
        return Ok(None);
    }
    let probe = cls.call0()?;
    if probe.getattr_opt(intern!(py, "__dict__"))?.is_some()
        || !probe.getattr(intern!(py, "_counter"))?.is_none()
    {
        return Ok(None);
    }
    BareClass::of(cls, ["_counter"]).map(Some)
}

/// How `LazyFilesContext(reader)` is made without its `__init__`: a new instance given the
/// dict its `__init__` gives it (`_reader`, `_files` `None`, an empty `pending`), when a
/// probe made by the class has exactly that dict; `None` (the class called) otherwise.
fn bare_files(cls: &Bound<'_, PyAny>) -> PyResult<Option<BareClass<1>>> {
    let py = cls.py();
    let reader = PyTuple::empty(py);
    let probe = cls.call1((&reader,))?;
    let Some(state) = probe.getattr_opt(intern!(py, "__dict__"))? else {
        return Ok(None);
    };
    let Ok(state) = state.cast::<PyDict>() else {
        return Ok(None);
    };
    let expected = files_state(py, reader.as_any())?;
    let keys = |d: &Bound<'_, PyDict>| d.keys().iter().map(|k| k.to_string()).collect::<Vec<_>>();
    if keys(state) != keys(&expected) || !state.eq(&expected)? {
        return Ok(None);
    }
    BareClass::of(cls, ["__dict__"]).map(Some)
}

/// The instance dict `LazyFilesContext.__init__` gives a files context over `reader`.
fn files_state<'py>(py: Python<'py>, reader: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let state = PyDict::new(py);
    state.set_item(intern!(py, "_reader"), reader)?;
    state.set_item(intern!(py, "_files"), py.None())?;
    state.set_item(intern!(py, "pending"), PyList::empty(py))?;
    Ok(state)
}

/// A new `LazyAtomicCounter`.
fn new_counter<'py>(py: Python<'py>, names: &Names) -> PyResult<Bound<'py, PyAny>> {
    let counter = names.counter.bind(py);
    match &names.counter_made {
        Some(made) => made.make(counter, [&py.None().into_bound(py)]),
        None => counter.call0(),
    }
}

/// What LangGraph hashes into the task id of each `tools` send at `step` (from
/// `checkpoint`) before the send's index: the checkpoint's bytes, the node's namespace, the
/// step, the node and the send's trigger (`_task_config.send_prefix`, the same bytes).
fn send_prefix(namespace: &Bound<'_, PyAny>, step: i64, checkpoint: &str) -> PyResult<Vec<u8>> {
    let hex: Vec<u8> = checkpoint.bytes().filter(|b| *b != b'-').collect();
    if !hex.len().is_multiple_of(2) {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "a checkpoint id of odd length",
        ));
    }
    let digit = |b: u8| {
        (b as char).to_digit(16).map(|d| d as u8).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("a checkpoint id with a non-hex digit")
        })
    };
    let mut out = Vec::with_capacity(hex.len() / 2 + 64);
    for pair in hex.chunks(2) {
        out.push(digit(pair[0])? << 4 | digit(pair[1])?);
    }
    for part in namespace.try_iter()? {
        out.extend_from_slice(part?.cast::<PyString>()?.to_str()?.as_bytes());
        out.push(b'|');
    }
    out.extend_from_slice(format!("tools{step}tools__pregel_push").as_bytes());
    Ok(out)
}

/// LangGraph's task id of the `index`-th send of the step whose `send_prefix` is `prefix`:
/// the XXH3-128 of the send's path in a UUID's five groups (`_task_config.send_task_id`).
fn send_task_id<'py>(
    py: Python<'py>,
    names: &Names,
    prefix: &[u8],
    index: i64,
) -> PyResult<Bound<'py, PyString>> {
    let mut path = prefix.to_vec();
    path.extend_from_slice(index.to_string().as_bytes());
    let digest = names
        .xxh3_128_hexdigest
        .bind(py)
        .call1((PyBytes::new(py, &path),))?;
    let hex = digest.cast::<PyString>()?.to_str()?;
    if hex.len() != 32 || !hex.is_ascii() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "an XXH3-128 digest that is not 32 hex digits",
        ));
    }
    let id = format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    );
    Ok(PyString::new(py, &id))
}

/// A copy of the current context with the call's config set, and its task's files as the
/// general path's adapter sets them (`use_files(channels.files)` around the call): made in
/// Python it was a function's some 25 bytecodes a call; here the same C calls.
fn call_context<'py>(
    names: &Names,
    config: &Bound<'py, PyDict>,
    files: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = config.py();
    let context = names.copy_context.bind(py).call0()?;
    let run = context.getattr(intern!(py, "run"))?;
    run.call1((names.config_set.bind(py), config))?;
    run.call1((names.files_set.bind(py), files))?;
    Ok(context)
}

/// A `PlainCall`'s config, its task's channels and the context its tool runs in
/// (`_plain_tool_calls.call_plain`): the config and channels as the general path makes them, its tool run's child manager a `manager_type`, made bare
/// (`object.__new__` and its `__dict__` set) when `bare` (`_plain_tool_calls._bare_manager`),
/// else called with LangChain's keywords and given a `uuid7` parent run id.
#[pyfunction]
pub(crate) fn _plain_tool_config<'py>(
    call: &Bound<'py, PyAny>,
    manager_type: &Bound<'py, PyAny>,
    bare: bool,
    uuid7: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let py = call.py();
    let names = names(py)?;
    let base = call.getattr(intern!(py, "base"))?;
    let args = call.getattr(intern!(py, "args"))?;
    let args = args.cast::<PyTuple>()?;
    let (run, writer, files) = (args.get_item(0)?, args.get_item(1)?, args.get_item(3)?);
    let step: i64 = args.get_item(4)?.extract()?;
    let index: i64 = args.get_item(5)?.extract::<Option<i64>>()?.unwrap_or(0);
    let call_id = args.get_item(6)?;
    let ids = run.getattr(intern!(py, "ids"))?;
    let ids = ids.cast::<PyDict>()?;
    let ns = base.getattr(intern!(py, "ns"))?;
    let namespace = base.getattr(intern!(py, "namespace"))?;

    // The step's checkpoint (shared with every task of the step) and the bytes each of its
    // sends' task ids starts with, kept on the base for the step's other calls.
    let kept = base.getattr(intern!(py, "step_ids"))?;
    let step_ids = match kept.cast::<PyTuple>() {
        Ok(t) if t.get_item(0)?.extract::<i64>()? == step => t.clone(),
        _ => {
            let key = PyTuple::new(py, [ns.clone(), step.into_pyobject(py)?.into_any()])?;
            let checkpoint = match ids.get_item(&key)? {
                Some(c) => c,
                None => {
                    let made = names.checkpoint_id.bind(py).call1((step.max(0),))?;
                    ids.call_method1(intern!(py, "setdefault"), (key, made))?
                }
            };
            let prefix = send_prefix(&namespace, step, checkpoint.cast::<PyString>()?.to_str()?)?;
            let made = PyTuple::new(
                py,
                [
                    step.into_pyobject(py)?.into_any(),
                    checkpoint,
                    PyBytes::new(py, &prefix).into_any(),
                ],
            )?;
            base.setattr(intern!(py, "step_ids"), &made)?;
            made
        }
    };
    let checkpoint = step_ids.get_item(1)?;
    let task_key = PyTuple::new(
        py,
        [
            ns.clone(),
            step.into_pyobject(py)?.into_any(),
            call_id.clone(),
        ],
    )?;
    let task_id = match ids.get_item(&task_key)? {
        Some(id) => id,
        None if call_id.is_none() => names
            .tool_task_id
            .bind(py)
            .call1((&run, &namespace, step, &call_id))?,
        None => {
            let prefix = step_ids.get_item(2)?;
            let id = send_task_id(py, names, prefix.cast::<PyBytes>()?.as_bytes(), index)?;
            ids.call_method1(intern!(py, "setdefault"), (task_key, id))?
        }
    };
    let task_ns = PyString::new(
        py,
        &format!(
            "{}tools:{}",
            base.getattr(intern!(py, "prefix"))?
                .cast::<PyString>()?
                .to_str()?,
            task_id.cast::<PyString>()?.to_str()?
        ),
    );

    let node_metadata = base
        .getattr(intern!(py, "metadata"))?
        .cast::<PyDict>()?
        .copy()?;
    node_metadata.set_item(intern!(py, "langgraph_step"), step)?;
    node_metadata.set_item(intern!(py, "langgraph_node"), intern!(py, "tools"))?;
    node_metadata.set_item(intern!(py, "langgraph_triggers"), names.triggers.bind(py))?;
    node_metadata.set_item(
        intern!(py, "langgraph_path"),
        (intern!(py, "__pregel_push"), index, false),
    )?;
    node_metadata.set_item(intern!(py, "langgraph_checkpoint_ns"), &task_ns)?;
    let outer = base.getattr(intern!(py, "outer_ns"))?;
    node_metadata.set_item(
        intern!(py, "checkpoint_ns"),
        if outer.is_truthy()? {
            outer
        } else {
            task_ns.clone().into_any()
        },
    )?;

    let lazy_files = names.lazy_files.bind(py);
    let lazy = match &names.files_made {
        Some(made) => made.make(lazy_files, [files_state(py, &files)?.as_any()])?,
        None => lazy_files.call1((&files,))?,
    };
    let lazy = lazy.as_any();
    let none = py.None().into_bound(py);
    // `TaskChannels(lazy, files.state)` with the run's keys; its `own` set below.
    let channels = names.channels_made.make(
        names.task_channels.bind(py),
        [
            lazy,
            &files.getattr(intern!(py, "state"))?,
            &none,
            &none,
            PyList::empty(py).as_any(),
            &base.getattr(intern!(py, "keys"))?,
            PyDict::new(py).as_any(),
        ],
    )?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let info = names.execution_info.bind(py).call1((
        &checkpoint,
        &task_ns,
        &task_id,
        base.getattr(intern!(py, "thread_id"))?,
        py.None(),
        now,
    ))?;
    let (context, store, control) = (
        base.getattr(intern!(py, "context"))?,
        base.getattr(intern!(py, "store"))?,
        base.getattr(intern!(py, "control"))?,
    );
    let own = || -> PyResult<Bound<'py, PyDict>> {
        base.getattr(intern!(py, "own"))?.cast::<PyDict>()?.copy()
    };
    let plain_runtime = || {
        names
            .runtime
            .bind(py)
            .call1((&context, &store, &info, &control))
    };
    let runtime = if writer.is_none() {
        channels.setattr(intern!(py, "own"), own()?)?;
        plain_runtime()?
    } else {
        let custom = match writer.getattr_opt(intern!(py, "custom"))? {
            Some(c) => c.is_truthy()?,
            None => true,
        };
        let parts = match writer.getattr_opt(intern!(py, "parts"))? {
            Some(p) => p.is_truthy()?,
            None => false,
        };
        if !custom || parts {
            // The core's writer of pushed tasks' parts (`_pushed_parts`), with our carriers.
            let carried = base
                .getattr(intern!(py, "own_run"))?
                .cast::<PyDict>()?
                .copy()?;
            carried.set_item(names.pushed_parts_key.bind(py), &writer)?;
            carried.set_item(
                names.run_ns_key.bind(py),
                base.getattr(intern!(py, "run_ns"))?,
            )?;
            channels.setattr(intern!(py, "own"), carried)?;
        } else {
            channels.setattr(intern!(py, "own"), own()?)?;
        }
        if custom {
            names
                .runtime_writing
                .bind(py)
                .call1((&context, &store, &info, &control, &writer))?
        } else {
            plain_runtime()?
        }
    };

    let configurable = base
        .getattr(intern!(py, "configurable"))?
        .cast::<PyDict>()?
        .copy()?;
    configurable.set_item(names.task_id_key.bind(py), &task_id)?;
    configurable.set_item(intern!(py, "checkpoint_id"), py.None())?;
    let checkpoints = base
        .getattr(intern!(py, "parents"))?
        .cast::<PyDict>()?
        .copy()?;
    checkpoints.set_item(&ns, &checkpoint)?;
    configurable.set_item(names.checkpoint_map_key.bind(py), checkpoints)?;
    configurable.set_item(intern!(py, "checkpoint_ns"), &task_ns)?;
    configurable.update(
        base.getattr(intern!(py, "subagent_keys"))?
            .cast::<PyDict>()?
            .as_mapping(),
    )?;
    configurable.set_item(names.runtime_key.bind(py), runtime)?;
    configurable.set_item(
        names.send_key.bind(py),
        channels.getattr(intern!(py, "send"))?,
    )?;
    configurable.set_item(
        names.read_key.bind(py),
        channels.getattr(intern!(py, "read"))?,
    )?;
    configurable.set_item(names.checkpointer_key.bind(py), py.None())?;
    configurable.set_item(names.read_state_key.bind(py), py.None())?;
    configurable.set_item(names.replay_state_key.bind(py), py.None())?;
    let stop: i64 = base.getattr(intern!(py, "stop"))?.extract()?;
    let scratchpad = names.scratchpad.bind(py).call1((
        step,
        step + stop,
        new_counter(py, names)?,
        new_counter(py, names)?,
        names.no_resume.bind(py),
        PyList::empty(py),
        new_counter(py, names)?,
    ))?;
    configurable.set_item(names.scratchpad_key.bind(py), scratchpad)?;
    // `Caller(configurable, metadata, asynchronous)`: a copy of the configurable (which has
    // no `__pregel_call` yet, the one key its `__init__` drops) and of the metadata.
    let caller = names.caller_made.make(
        names.caller.bind(py),
        [
            configurable.copy()?.as_any(),
            node_metadata.copy()?.as_any(),
            &base.getattr(intern!(py, "asynchronous"))?,
            &none,
        ],
    )?;
    configurable.set_item(
        names.call_key.bind(py),
        caller.getattr(intern!(py, "call"))?,
    )?;
    // A tool inside its `wrap_tool_call` middleware shares its task's writes.
    if let Some(found) = run
        .getattr(intern!(py, "tasks"))?
        .cast::<PyDict>()?
        .get_item(&task_ns)?
        && !found.is_none()
    {
        channels.call_method1(intern!(py, "share"), (found,))?;
    }
    let model = base.getattr(intern!(py, "model"))?;
    if !model.is_none() {
        node_metadata.set_item(intern!(py, "model"), model)?;
    }
    // LangChain's `_merge_metadata_dicts({}, node_metadata)`: a copy, with a copy of its
    // `lc_versions` (the run's), the one nested mapping LangChain's merges copy.
    let inherited = node_metadata.copy()?;
    if base.getattr(intern!(py, "versions"))?.is_truthy()? {
        let versions = inherited
            .get_item(intern!(py, "lc_versions"))?
            .map(|v| v.cast_into::<PyDict>().map_err(PyErr::from))
            .transpose()?;
        if let Some(versions) = versions {
            inherited.set_item(intern!(py, "lc_versions"), versions.copy()?)?;
        }
    }
    let manager = if bare {
        // What `manager_type(handlers=[], ..., parent_run_id=...)` sets, in its order.
        let manager = names.object_new.bind(py).call1((manager_type,))?;
        let attributes = PyDict::new(py);
        attributes.set_item(intern!(py, "handlers"), PyList::empty(py))?;
        attributes.set_item(intern!(py, "inheritable_handlers"), PyList::empty(py))?;
        attributes.set_item(intern!(py, "parent_run_id"), names.run_id.bind(py).call0()?)?;
        attributes.set_item(intern!(py, "tags"), PyList::empty(py))?;
        attributes.set_item(intern!(py, "inheritable_tags"), PyList::empty(py))?;
        attributes.set_item(intern!(py, "metadata"), inherited.copy()?)?;
        attributes.set_item(intern!(py, "inheritable_metadata"), inherited)?;
        manager.setattr(intern!(py, "__dict__"), attributes)?;
        manager
    } else {
        let keywords = PyDict::new(py);
        keywords.set_item(intern!(py, "handlers"), PyList::empty(py))?;
        keywords.set_item(intern!(py, "tags"), PyList::empty(py))?;
        keywords.set_item(intern!(py, "inheritable_tags"), PyList::empty(py))?;
        keywords.set_item(intern!(py, "metadata"), inherited.copy()?)?;
        keywords.set_item(intern!(py, "inheritable_metadata"), inherited)?;
        let manager = manager_type.call((), Some(&keywords))?;
        manager.setattr(intern!(py, "parent_run_id"), uuid7.call0()?)?;
        manager
    };
    let config = PyDict::new(py);
    config.set_item(intern!(py, "tags"), PyList::empty(py))?;
    config.set_item(intern!(py, "metadata"), node_metadata)?;
    config.set_item(intern!(py, "callbacks"), manager)?;
    config.set_item(
        intern!(py, "recursion_limit"),
        base.getattr(intern!(py, "limit"))?,
    )?;
    config.set_item(intern!(py, "configurable"), configurable)?;
    config.update(
        base.getattr(intern!(py, "extras"))?
            .cast::<PyDict>()?
            .as_mapping(),
    )?;
    let context = call_context(names, &config, lazy)?;
    Ok((config, channels, context))
}
