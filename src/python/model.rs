//! A LangChain chat model called back through Python.
//!
//! The adapter (`deepagents_rs._models.ModelAdapter`) binds the tools, calls `invoke`/`ainvoke`
//! and returns the AI message as a dict. Each history message becomes a LangChain message
//! once: the objects are cached per shared message, so a call costs the new messages only
//! (LangGraph, too, hands the model the same objects every turn).

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::convert::message_to_py;
use super::errors::HostError;
use super::host::{PyHost, await_coroutine_then, call_in_context};
use super::stream::ChunkCallback;
use crate::error::ModelError;
use crate::host::HostValue;
use crate::message_prefix::Prefixes;
use crate::messages::{AiMessage, Message, SystemMessage};
use crate::model::{ChatModel, InputProfile, ModelRequest, RequestParts, TokenSink};
use crate::tools::{HostContext, ToolSpec};

pub(crate) struct PyChatModel {
    // Shared, so a call takes them without the GIL (on a tokio worker).
    adapter: Arc<Py<PyAny>>,
    /// `adapter.to_message`: a message dict to a LangChain message.
    to_message: Arc<Py<PyAny>>,
    id: String,
    cache: Arc<Mutex<ObjectCache>>,
    /// LangChain's `_get_ls_params()` of the model.
    ls_params: serde_json::Map<String, serde_json::Value>,
    /// The LangChain model object itself.
    model: HostValue,
    /// Whether the model implements `_stream` / `_astream` (LangChain streams a call only
    /// then, and only when the caller listens for tokens).
    streams_sync: bool,
    streams_async: bool,
    /// A `ChatAnthropic`: deepagents' caching middleware acts on it.
    prompt_caching: bool,
    /// The model's `profile` input fields, read once (a model object's profile is fixed).
    input_profile: InputProfile,
    /// The model object's classes by qualified name (`ModelAdapter.model_classes`).
    classes: Vec<String>,
}

/// Whether a middleware whose model wrapper acts only on the model classes `only` (by name;
/// `None`: on every model) acts on a request to `model`.
pub(crate) fn acts_on(only: Option<&[String]>, model: &dyn ChatModel) -> bool {
    only.is_none_or(|names| model.host_classes().iter().any(|c| names.contains(c)))
}

/// Python objects made for shared Rust values, keyed by the value's address. The `Weak`
/// keeps the allocation, so an address is never reused while its entry exists; entries whose
/// value is gone are purged as the cache grows.
#[derive(Default)]
pub(crate) struct ObjectCache {
    messages: HashMap<usize, (Weak<Message>, Py<PyAny>)>,
    system: Slot<SystemMessage>,
    tools: Slot<[ToolSpec]>,
    live_after_purge: usize,
    /// Per conversation, the objects of the messages its model was last called with, in a
    /// list of our own that no Python code sees: the next call (the next step, or a fork)
    /// copies the part it shares and looks up its new messages only.
    prompts: Prefixes<Py<PyList>>,
}

/// Entries taken out of the cache. Freeing a Python object can run arbitrary code (a
/// `__del__` that releases the GIL), so they are dropped only after the lock is released:
/// a thread waiting for the lock may hold the GIL.
type Evicted = Vec<Py<PyAny>>;

impl ObjectCache {
    /// The object made for `message`, if it is still cached.
    fn hit(&self, py: Python<'_>, message: &Arc<Message>) -> Option<Py<PyAny>> {
        self.messages
            .get(&(Arc::as_ptr(message) as usize))
            .filter(|(w, _)| w.strong_count() > 0)
            .map(|(_, o)| o.clone_ref(py))
    }

    /// Drops what is kept for messages no run holds any more.
    pub(crate) fn purge(&mut self) -> Vec<Py<PyAny>> {
        self.take_dead()
    }

    /// Takes out the entries whose message is gone.
    fn take_dead(&mut self) -> Evicted {
        let dead: Vec<usize> = self
            .messages
            .iter()
            .filter(|(_, (w, _))| w.strong_count() == 0)
            .map(|(k, _)| *k)
            .collect();
        let mut evicted: Evicted = dead
            .iter()
            .filter_map(|k| self.messages.remove(k))
            .map(|(_, o)| o)
            .collect();
        self.live_after_purge = self.messages.len();
        // A finished run's conversation goes with its messages. (A message replaced in a
        // live conversation keeps its object in that conversation's list until its next
        // call cuts the list short there.)
        evicted.extend(self.prompts.prune().into_iter().map(Py::into_any));
        evicted
    }

    fn take_dead_if_grown(&mut self) -> Evicted {
        if self.messages.len() > 2 * self.live_after_purge + 256 {
            self.take_dead()
        } else {
            Vec::new()
        }
    }
}

impl PyChatModel {
    pub fn new(adapter: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyChatModel {
            id: adapter.getattr("model_id")?.extract()?,
            to_message: Arc::new(adapter.getattr("to_message")?.unbind()),
            ls_params: super::value::from_py(&adapter.getattr("ls_params")?)?,
            model: HostValue::new(adapter.getattr("model")?.unbind()),
            streams_sync: adapter.getattr("streams_sync")?.extract()?,
            streams_async: adapter.getattr("streams_async")?.extract()?,
            prompt_caching: adapter.getattr("prompt_caching")?.extract()?,
            input_profile: {
                let (fields, documents): ([Option<bool>; 6], Vec<String>) =
                    adapter.getattr("input_profile")?.extract()?;
                InputProfile {
                    inline_documents: documents.into(),
                    ..InputProfile::from_fields(fields)
                }
            },
            classes: adapter.getattr("model_classes")?.extract()?,
            adapter: Arc::new(adapter.clone().unbind()),
            cache: Arc::default(),
        })
    }
}

type Slot<T> = Option<(Weak<T>, Py<PyAny>)>;

/// The object cached in a one-value slot, if it was made for `current`.
fn slot_hit<T: ?Sized>(py: Python<'_>, slot: &Slot<T>, current: &Arc<T>) -> Option<Py<PyAny>> {
    slot.as_ref()
        .filter(|(w, _)| w.upgrade().is_some_and(|v| Arc::ptr_eq(&v, current)))
        .map(|(_, o)| o.clone_ref(py))
}

/// A slot entry for `obj`, made for `value`. The caller drops what it replaces only after
/// releasing the lock (see `Evicted`).
fn slot<T: ?Sized>(py: Python<'_>, value: &Arc<T>, obj: &Py<PyAny>) -> (Weak<T>, Py<PyAny>) {
    (Arc::downgrade(value), obj.clone_ref(py))
}

/// The request as the adapter's arguments: the prompt (the system message, then the
/// messages) and the tools, as Python objects, reusing those made for earlier calls.
fn request_args<'py>(
    py: Python<'py>,
    request: &ModelRequest,
    to_message: &Py<PyAny>,
    cache: &Mutex<ObjectCache>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyAny>)> {
    let parts = request.parts_with(&request.messages);
    let messages = parts.messages;
    let (system, tools, kept, objects) = {
        let c = cache.lock();
        let system = parts.system.and_then(|s| slot_hit(py, &c.system, s));
        let tools = slot_hit(py, &c.tools, parts.tools);
        let kept = c
            .prompts
            .find(messages)
            .map(|(list, found)| (list.clone_ref(py), found));
        let from = kept.as_ref().map_or(0, |(_, found)| found.shared);
        let objects: Vec<Option<Py<PyAny>>> =
            messages[from..].iter().map(|m| c.hit(py, m)).collect();
        (system, tools, kept, objects)
    };
    let (system, tools) =
        system_and_tools(py, parts, system, tools, to_message, cache, |py, tools| {
            Ok(pythonize::pythonize(py, tools)?.unbind())
        })?;
    let from = kept.as_ref().map_or(0, |(_, found)| found.shared);
    let new = fill_missing(py, &messages[from..], objects, to_message, cache)?;
    // The kept list is only ever appended to or replaced, so its first `from` stay as found.
    let prompt = match &kept {
        Some((list, _)) => list.bind(py).get_slice(0, from),
        None => PyList::empty(py),
    };
    for object in new.iter() {
        prompt.append(object)?;
    }
    match kept {
        // The conversation goes on from its last call: its list grows in place. Appending
        // makes no Python object, so no finalizer runs (and releases the GIL) under the lock.
        Some((list, found)) if found.shared == found.kept => {
            drop(list);
            cache.lock().prompts.update(messages, found, |own| {
                let own = own.bind(py);
                for object in new.iter() {
                    if own.append(object).is_err() {
                        break;
                    }
                }
                own.len()
            });
        }
        // A fork, or a conversation rewritten: a list of its own, made before locking.
        _ => {
            let own = prompt.get_slice(0, prompt.len()).unbind();
            let gone = cache.lock().prompts.insert(messages, own);
            drop(gone);
        }
    }
    if !system.is_none(py) {
        prompt.insert(0, system)?;
    }
    Ok((prompt, tools.into_bound(py)))
}

/// The system message's and the tools' objects: those the cache had (`system`, `tools`),
/// or made now and kept.
fn system_and_tools<'py>(
    py: Python<'py>,
    parts: RequestParts<'_>,
    system: Option<Py<PyAny>>,
    tools: Option<Py<PyAny>>,
    to_message: &Py<PyAny>,
    cache: &Mutex<ObjectCache>,
    tools_to_py: impl FnOnce(Python<'py>, &[ToolSpec]) -> PyResult<Py<PyAny>>,
) -> PyResult<(Py<PyAny>, Py<PyAny>)> {
    let system = match (system, parts.system) {
        (Some(s), _) => s,
        (None, None) => py.None(),
        (None, Some(system)) => {
            let dict = pythonize::pythonize(py, &Message::System(system.as_ref().clone()))?;
            let obj = to_message.call1(py, (dict,))?;
            // Two statements: the lock is released before the replaced object is freed.
            let old = cache.lock().system.replace(slot(py, system, &obj));
            drop(old);
            obj
        }
    };
    let tools = match tools {
        Some(t) => t,
        None => {
            let obj = tools_to_py(py, parts.tools)?;
            let old = cache.lock().tools.replace(slot(py, parts.tools, &obj));
            drop(old);
            obj
        }
    };
    Ok((system, tools))
}

/// A request's parts as Python objects, reusing those `cache` kept from earlier calls;
/// `tools_to_py` makes the tools' object when the tool list is new. No Python code runs
/// while the cache is locked: a thread waiting for the lock would hold the GIL that the
/// converting thread needs.
pub(crate) fn parts_to_py<'py>(
    py: Python<'py>,
    parts: RequestParts<'_>,
    to_message: &Py<PyAny>,
    cache: &Mutex<ObjectCache>,
    tools_to_py: impl FnOnce(Python<'py>, &[ToolSpec]) -> PyResult<Py<PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>, Bound<'py, PyAny>)> {
    let (system, tools, objects) = {
        let c = cache.lock();
        let system = parts.system.and_then(|s| slot_hit(py, &c.system, s));
        let tools = slot_hit(py, &c.tools, parts.tools);
        let objects: Vec<Option<Py<PyAny>>> = parts.messages.iter().map(|m| c.hit(py, m)).collect();
        (system, tools, objects)
    };
    let (system, tools) =
        system_and_tools(py, parts, system, tools, to_message, cache, tools_to_py)?;
    let list = fill_missing(py, parts.messages, objects, to_message, cache)?;
    Ok((system.into_bound(py), list, tools.into_bound(py)))
}

/// The LangChain objects for `messages`, made once per shared message and reused by every
/// later call (the model's, and middleware's, whose hooks see the same history).
pub(crate) fn message_objects<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
    to_message: &Py<PyAny>,
    cache: &Mutex<ObjectCache>,
) -> PyResult<Bound<'py, PyList>> {
    let objects = {
        let c = cache.lock();
        messages.iter().map(|m| c.hit(py, m)).collect()
    };
    fill_missing(py, messages, objects, to_message, cache)
}

/// Makes the objects the cache did not have, and keeps them.
fn fill_missing<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
    mut objects: Vec<Option<Py<PyAny>>>,
    to_message: &Py<PyAny>,
    cache: &Mutex<ObjectCache>,
) -> PyResult<Bound<'py, PyList>> {
    let mut made = Vec::new();
    for (m, slot) in messages.iter().zip(objects.iter_mut()) {
        if slot.is_none() {
            let obj = to_message.call1(py, (message_to_py(py, m)?,))?;
            made.push((
                Arc::as_ptr(m) as usize,
                Arc::downgrade(m),
                obj.clone_ref(py),
            ));
            *slot = Some(obj);
        }
    }
    if !made.is_empty() {
        let mut evicted: Evicted = Vec::new();
        {
            let mut c = cache.lock();
            for (key, weak, obj) in made {
                evicted.extend(c.messages.insert(key, (weak, obj)).map(|(_, o)| o));
            }
            evicted.extend(c.take_dead_if_grown());
        }
        drop(evicted);
    }
    PyList::new(py, objects.into_iter().flatten())
}

/// The `model_settings` argument: None when there are none (the common case); the caching
/// entry's `cache_control` travels with them, as langchain-anthropic binds it, and a native
/// response format goes first, as LangChain binds `{**response_format_kwargs, **settings}`.
fn settings_arg<'py>(py: Python<'py>, request: &ModelRequest) -> PyResult<Bound<'py, PyAny>> {
    if request.model_settings.is_empty()
        && request.cache_control.is_none()
        && request.response_format.is_none()
    {
        return Ok(py.None().into_bound(py));
    }
    let mut settings = serde_json::Map::new();
    if let Some(rf) = &request.response_format {
        settings.insert("response_format".into(), rf.clone());
    }
    settings.extend(request.model_settings.clone());
    if let Some(cc) = &request.cache_control {
        settings.insert("cache_control".into(), serde_json::Value::clone(cc));
    }
    Ok(pythonize::pythonize(py, &settings)?)
}

/// The `parent` argument: the model node's run manager when the run is traced (the model
/// raises its own callbacks under it, as LangChain models do).
fn trace_arg<'py>(py: Python<'py>, request: &ModelRequest) -> PyResult<Bound<'py, PyAny>> {
    Ok(match &request.trace {
        Some(t) => super::tracer::run_manager(py, &t.run)?,
        None => py.None().into_bound(py),
    })
}

/// The `config` and `place` arguments: the run's config and the model node's place, from
/// which the adapter makes the config LangGraph hands the model node's task (a Python model
/// reads it with `get_config()`, and its callbacks' metadata are the node's), as hooks get
/// theirs (see `middleware::place_arg`).
fn node_args<'py>(
    py: Python<'py>,
    request: &ModelRequest,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let config = PyHost::config_arg(PyHost::from_context(&request.host), py);
    let place =
        super::middleware::place_arg(py, request.place.as_ref(), request.trace.as_ref(), None)?;
    Ok((config, place))
}

/// The `on_chunk` argument: a callback reporting each chunk, or None (no streaming).
fn chunk_callback(py: Python<'_>, sink: Option<TokenSink>) -> PyResult<Bound<'_, PyAny>> {
    match sink {
        Some(sink) => Ok(Bound::new(py, ChunkCallback::new(sink))?.into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

impl ChatModel for PyChatModel {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn ls_params(&self) -> serde_json::Map<String, serde_json::Value> {
        self.ls_params.clone()
    }

    fn host_handle(&self) -> Option<HostValue> {
        Some(self.model.clone())
    }

    fn host_classes(&self) -> &[String] {
        &self.classes
    }

    fn supports_prompt_cache(&self) -> bool {
        self.prompt_caching
    }

    fn traces_itself(&self) -> bool {
        true
    }

    fn input_profile(&self) -> InputProfile {
        self.input_profile.clone()
    }

    /// Frees the objects made for messages no run holds any more (tool artifacts among
    /// them), so they do not outlive the run that made them.
    fn release_unused(&self) {
        super::runtime_threads::attach(|py| {
            let evicted = self.cache.lock().take_dead();
            drop(evicted);
            let _ = py;
        });
    }

    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        let (adapter, to_message) = (self.adapter.clone(), self.to_message.clone());
        let cache = self.cache.clone();
        let (streams_sync, streams_async) = (self.streams_sync, self.streams_async);
        Box::pin(async move {
            let is_async = PyHost::from_context(&host).is_some_and(|h| h.is_async);
            // LangChain's `_should_stream`: only when somebody listens for tokens, and the
            // model implements streaming for this API (async falls back to `_stream`).
            let streams = if is_async {
                streams_async || streams_sync
            } else {
                streams_sync
            };
            let on_chunk = request.tokens.clone().filter(|_| streams);
            if is_async {
                let host = PyHost::from_context(&host).ok_or_else(|| {
                    ModelError::host(Box::new(pyo3::exceptions::PyRuntimeError::new_err(
                        "an async model call without its run's event loop",
                    )))
                })?;
                // Its exception made the model's error on the loop's thread (`HostError for
                // ModelError`), not on this worker.
                await_coroutine_then(
                    host,
                    move |py| {
                        let (prompt, tools) = request_args(py, &request, &to_message, &cache)?;
                        let on_chunk = chunk_callback(py, on_chunk)?;
                        let settings = settings_arg(py, &request)?;
                        let callbacks = trace_arg(py, &request)?;
                        let (config, place) = node_args(py, &request)?;
                        adapter.bind(py).call_method1(
                            "ainvoke",
                            (
                                prompt,
                                tools,
                                request.tool_choice.clone(),
                                on_chunk,
                                settings,
                                callbacks,
                                config,
                                place,
                            ),
                        )
                    },
                    ai_reply,
                )
                .await
            } else {
                super::python_calls::call(move |py| {
                    // Its exception made the model's error here, holding the GIL.
                    let call = || {
                        let (prompt, tools) = request_args(py, &request, &to_message, &cache)?;
                        let choice = request.tool_choice.clone().into_pyobject(py)?.into_any();
                        let on_chunk = chunk_callback(py, on_chunk)?;
                        let settings = settings_arg(py, &request)?;
                        let callbacks = trace_arg(py, &request)?;
                        let (config, place) = node_args(py, &request)?;
                        let args = vec![
                            prompt.into_any(),
                            tools,
                            choice,
                            on_chunk,
                            settings,
                            callbacks,
                            config,
                            place,
                        ];
                        let host = PyHost::from_context(&host);
                        let out = call_in_context(py, host, adapter.bind(py), "invoke", args)?;
                        ai_reply(&out)
                    };
                    call().map_err(|e| ModelError::raised(py, e))
                })
                .await
                .map_err(|e| ModelError::host(Box::new(e)))?
            }
        })
    }
}

/// The model's reply as the core's AI message.
fn ai_reply(reply: &Bound<'_, PyAny>) -> PyResult<AiMessage> {
    match super::convert::message_from_py(reply)? {
        Message::Ai(ai) => Ok(ai),
        _ => Err(pyo3::exceptions::PyTypeError::new_err(
            "the model must answer with an AI message",
        )),
    }
}
