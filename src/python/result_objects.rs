//! A run's result messages as LangChain message objects, made here.
//!
//! `invoke` returns every message of the conversation as an object, so a 1,000-thread run
//! makes 40,000 and a long history thousands per run. `_convert.from_core` makes them as
//! pydantic's validation leaves them (`_validated_as_given`), from the dict `message_to_py`
//! writes; that dict, its copies and the checks in Python were most of a result's cost (about
//! 12 us a reply with tool calls and usage). A message is made here instead, from the core's
//! message directly: the same `__dict__` (values and order), set fields, extras and private
//! attributes as `from_core` makes of its dict, each field's value as `result_fields` makes
//! it. What `from_core` leaves to LangChain's constructor (a shape its validation could
//! change), or a message read inexactly from a host's object, still goes through `from_core`.

use parking_lot::Mutex;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PySet, PyString, PyTuple};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::bare_objects::{BareClass, Instance};
use super::collector_pause::{CollectorPaused, as_left};
use super::convert::{host_object, message_to_py};
use super::input_messages::GivenObjects;
use super::interned_keys::text_value;
use super::result_fields as values_of;
use crate::messages::{Message, ToolStatus};

/// One of LangChain's message classes as `_convert._plain_class` describes it.
struct MessageClass {
    cls: Py<PyAny>,
    /// Its `__dict__` with every field `None` but `type`, in the order its validated
    /// `__dict__` holds them: a copy keeps the order and the table's size, so a message's
    /// writes are overwrites (no growing, no reordering).
    template: Py<PyDict>,
    /// How an instance is made with pydantic's four attributes set (`PYDANTIC_ATTRIBUTES`'
    /// order), without a lookup or a call through Python.
    made: BareClass<4>,
}

/// What pydantic's `model_construct` sets on an instance with `object.__setattr__`, in order.
const PYDANTIC_ATTRIBUTES: [&str; 4] = [
    "__dict__",
    "__pydantic_fields_set__",
    "__pydantic_extra__",
    "__pydantic_private__",
];

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Content,
    AdditionalKwargs,
    ResponseMetadata,
    Type,
    Name,
    Id,
    ToolCalls,
    InvalidToolCalls,
    UsageMetadata,
    ToolCallId,
    Artifact,
    Status,
}

const FIELDS: [Field; 12] = [
    Field::Content,
    Field::AdditionalKwargs,
    Field::ResponseMetadata,
    Field::Type,
    Field::Name,
    Field::Id,
    Field::ToolCalls,
    Field::InvalidToolCalls,
    Field::UsageMetadata,
    Field::ToolCallId,
    Field::Artifact,
    Field::Status,
];

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Content => "content",
            Field::AdditionalKwargs => "additional_kwargs",
            Field::ResponseMetadata => "response_metadata",
            Field::Type => "type",
            Field::Name => "name",
            Field::Id => "id",
            Field::ToolCalls => "tool_calls",
            Field::InvalidToolCalls => "invalid_tool_calls",
            Field::UsageMetadata => "usage_metadata",
            Field::ToolCallId => "tool_call_id",
            Field::Artifact => "artifact",
            Field::Status => "status",
        }
    }

    fn of(name: &str) -> Option<Field> {
        FIELDS.into_iter().find(|f| f.name() == name)
    }
}

struct Maker {
    human: MessageClass,
    system: MessageClass,
    ai: MessageClass,
    tool: MessageClass,
    /// Each field's name, interned, in `FIELDS`' order.
    names: Vec<Py<PyString>>,
    /// The set fields of each combination met so far (a bit per field, by `FIELDS`' order),
    /// copied per message: a set filled one name at a time grows past its size for five
    /// names (32 slots where `from_core`'s `set(d)` has 16: 256 bytes more a message), a
    /// copy is sized as the template (no rehashing either). A handful of combinations occur.
    sets: Mutex<Vec<(u16, Py<PySet>)>>,
}

impl Maker {
    /// A new set of the fields in `mask`, untracked by the collector.
    fn fields_set<'py>(&self, py: Python<'py>, mask: u16) -> PyResult<Bound<'py, PySet>> {
        let found = self
            .sets
            .lock()
            .iter()
            .find(|(m, _)| *m == mask)
            .map(|(_, set)| set.clone_ref(py));
        let template = match found {
            Some(set) => set.into_bound(py),
            None => {
                let names = FIELDS
                    .iter()
                    .filter(|&&f| mask & (1 << f as u16) != 0)
                    .map(|&f| self.names[f as usize].bind(py));
                let set = PySet::new(py, names)?;
                self.sets.lock().push((mask, set.clone().unbind()));
                set
            }
        };
        // SAFETY: `PySet_New` of a live set copies it (its table as it is, no rehashing);
        // a new reference or null with an exception set.
        let set =
            unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PySet_New(template.as_ptr()))? };
        // The set holds field names only (pydantic adds names, nothing else), so it can be in
        // no reference cycle: left out of the collector's lists, one tracked container less
        // per message of a result for every collection to walk.
        // SAFETY: `set` is a live set, new here, tracked by `PySet_New`.
        unsafe { pyo3::ffi::PyObject_GC_UnTrack(set.as_ptr().cast()) };
        set.cast_into::<PySet>().map_err(Into::into)
    }
}

/// The classes, once per interpreter; `None` without LangChain or when a class has a field
/// this module does not know (a LangChain this code was not written against).
fn maker(py: Python<'_>) -> PyResult<Option<&'static Maker>> {
    static MAKER: PyOnceLock<Option<Maker>> = PyOnceLock::new();
    // Python code at the first call (an import, `_convert._plain_class`): the collector as
    // the user left it, inside a drain's pause too.
    let made = MAKER.get_or_try_init(py, || {
        as_left(py, || -> PyResult<Option<Maker>> {
            let convert = py.import("deepagents_rs._convert")?;
            let classes = convert.call_method0("_classes")?;
            let describe = |name: &str| -> PyResult<Option<MessageClass>> {
                let cls = classes.get_item(name)?;
                let known = convert.call_method1("_plain_class", (&cls,))?;
                if known.is_none() {
                    return Ok(None);
                }
                let (names, type_value, _is_ai): (Bound<'_, PyTuple>, Bound<'_, PyString>, bool) =
                    known.extract()?;
                let template = PyDict::new(py);
                for name in names.iter() {
                    let Some(field) = Field::of(name.cast::<PyString>()?.to_str()?) else {
                        return Ok(None);
                    };
                    let key = PyString::intern(py, field.name());
                    match field {
                        Field::Type => template.set_item(key, &type_value)?,
                        _ => template.set_item(key, py.None())?,
                    }
                }
                if Instance::of(&cls).is_none() {
                    return Ok(None);
                }
                let made = BareClass::of(&cls, PYDANTIC_ATTRIBUTES)?;
                Ok(Some(MessageClass {
                    made,
                    cls: cls.unbind(),
                    template: template.unbind(),
                }))
            };
            let (Some(human), Some(system), Some(ai), Some(tool)) = (
                describe("human")?,
                describe("system")?,
                describe("ai")?,
                describe("tool")?,
            ) else {
                return Ok(None);
            };
            let names = FIELDS
                .iter()
                .map(|f| PyString::intern(py, f.name()).unbind())
                .collect();
            Ok(Some(Maker {
                human,
                system,
                ai,
                tool,
                names,
                sets: Mutex::new(Vec::new()),
            }))
        })
    })?;
    Ok(made.as_ref())
}

/// A message's `__dict__` and set fields as they are filled in.
struct Values<'py> {
    dict: Bound<'py, PyDict>,
    /// The fields the message's dict has (a bit per field, by `FIELDS`' order).
    set: Cell<u16>,
}

impl<'py> Values<'py> {
    /// `field` holds `value`; `given` when the message's dict has the key (pydantic marks
    /// the fields it was given as set).
    fn put(
        &self,
        maker: &Maker,
        field: Field,
        value: impl IntoPyObject<'py>,
        given: bool,
    ) -> PyResult<()> {
        let key = maker.names[field as usize].bind(self.dict.py());
        self.dict.set_item(key, value)?;
        if given {
            self.given(field);
        }
        Ok(())
    }

    fn given(&self, field: Field) {
        self.set.set(self.set.get() | 1 << field as u16);
    }

    /// A text field, `None` (the template's) when absent; in the set when present, or
    /// `always` (the core's dict has the key even when it is `None`: an id).
    fn text(&self, maker: &Maker, field: Field, text: Option<&str>, always: bool) -> PyResult<()> {
        match text {
            Some(text) => self.put(maker, field, text_value(self.dict.py(), text), true),
            None if always => {
                self.given(field);
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// A dict field of the host's kinds, in the set when the core's dict has it (not empty).
    fn map(
        &self,
        maker: &Maker,
        field: Field,
        map: &serde_json::Map<String, serde_json::Value>,
    ) -> PyResult<()> {
        let (value, given) = values_of::map(self.dict.py(), map)?;
        self.put(maker, field, value, given)
    }
}

impl Maker {
    /// The object `from_core` makes of the message's dict, or `None` where `from_core` would
    /// take LangChain's constructor or another dict; its content the caller's own string
    /// `text` when the message was read from one.
    fn make<'py>(
        &self,
        py: Python<'py>,
        message: &Message,
        text: Option<&Bound<'py, PyString>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if message.read_inexactly() {
            return Ok(None);
        }
        let class = match message {
            Message::Human(_) => &self.human,
            Message::System(_) => &self.system,
            Message::Ai(_) => &self.ai,
            Message::Tool(_) => &self.tool,
        };
        let blocks_allowed = matches!(message, Message::Ai(_) | Message::Tool(_));
        let Some(content) = values_of::content(py, message.content(), text, blocks_allowed)? else {
            return Ok(None);
        };
        let values = Values {
            dict: class.template.bind(py).copy()?,
            set: Cell::new(0),
        };
        values.put(self, Field::Content, content, true)?;
        // The keys of the core's dict (its serde attributes leave some out), `type` and a
        // `None` name or usage aside (`from_core` drops them).
        match message {
            Message::Human(m) => {
                values.text(self, Field::Id, m.id.as_deref(), true)?;
                values.text(self, Field::Name, m.name.as_deref(), false)?;
                values.map(self, Field::AdditionalKwargs, &m.additional_kwargs)?;
                values.map(self, Field::ResponseMetadata, &m.response_metadata)?;
            }
            Message::System(m) => {
                values.text(self, Field::Id, m.id.as_deref(), false)?;
                values.map(self, Field::AdditionalKwargs, &m.additional_kwargs)?;
                values.map(self, Field::ResponseMetadata, &m.response_metadata)?;
            }
            Message::Ai(m) => {
                // AIMessage's validator parses these itself, or remakes invalid calls with
                // their error texts: LangChain's constructor's to do.
                if !m.invalid_tool_calls.is_empty()
                    || m.additional_kwargs.contains_key("tool_calls")
                {
                    return Ok(None);
                }
                let Some(calls) = values_of::tool_calls(py, &m.tool_calls)? else {
                    return Ok(None);
                };
                values.put(self, Field::ToolCalls, calls, true)?;
                values.put(self, Field::InvalidToolCalls, PyList::empty(py), false)?;
                if let Some(usage) = &m.usage_metadata {
                    let Some(usage) = values_of::usage(py, usage)? else {
                        return Ok(None);
                    };
                    values.put(self, Field::UsageMetadata, usage, true)?;
                }
                values.text(self, Field::Id, m.id.as_deref(), true)?;
                values.text(self, Field::Name, m.name.as_deref(), false)?;
                let metadata = values_of::compact_map(py, &m.response_metadata)?;
                values.put(self, Field::ResponseMetadata, metadata, true)?;
                values.map(self, Field::AdditionalKwargs, &m.additional_kwargs)?;
            }
            Message::Tool(m) => {
                // `message_to_py` hands over the tool's own return value in its place.
                if m.content_origin
                    .as_ref()
                    .is_some_and(|o| o.matches(&m.content))
                {
                    return Ok(None);
                }
                values.put(
                    self,
                    Field::ToolCallId,
                    text_value(py, &m.tool_call_id),
                    true,
                )?;
                values.text(self, Field::Name, m.name.as_deref(), false)?;
                let status = match m.status {
                    ToolStatus::Success => intern!(py, "success"),
                    ToolStatus::Error => intern!(py, "error"),
                };
                values.put(self, Field::Status, status, true)?;
                values.text(self, Field::Id, m.id.as_deref(), true)?;
                match m.artifact_host.as_ref().and_then(|a| host_object(py, a)) {
                    Some(artifact) => values.put(self, Field::Artifact, artifact, true)?,
                    None => {
                        if let Some(artifact) = &m.artifact {
                            let artifact = values_of::artifact(py, artifact)?;
                            values.put(self, Field::Artifact, artifact, true)?;
                        }
                    }
                }
                values.map(self, Field::ResponseMetadata, &m.response_metadata)?;
                values.map(self, Field::AdditionalKwargs, &m.additional_kwargs)?;
            }
        }
        let set = self.fields_set(py, values.set.get())?;
        let obj = class.made.make(
            class.cls.bind(py),
            [
                values.dict.as_any(),
                set.as_any(),
                PyDict::new(py).as_any(),
                &py.None().into_bound(py),
            ],
        )?;
        Ok(Some(obj))
    }
}

/// The messages as message objects: the caller's own for those it `given` the run, the
/// others made here, or by `_convert.from_core` from their dicts where it would take
/// LangChain's constructor, one at a time (a list of every dict beside the objects would live
/// through the collector's young generations into its oldest).
pub(crate) fn message_objects<'py>(
    py: Python<'py>,
    messages: &[Arc<Message>],
    given: &GivenObjects,
) -> PyResult<Bound<'py, PyList>> {
    let maker = maker(py)?;
    let list = PyList::empty(py);
    let mut made_here = 0;
    let mut paused = CollectorPaused::start();
    for m in messages {
        if let Some(obj) = given.object_of(py, m) {
            list.append(obj)?;
            continue;
        }
        made_here += 1;
        let made = match maker {
            Some(maker) => maker.make(py, m, given.text_of(py, m))?,
            None => None,
        };
        match made {
            Some(obj) => list.append(obj)?,
            None => {
                // Python code runs in `from_core` (other threads may too, meanwhile): the
                // collector as the user left it, inside a drain's pause too.
                // Looked up here, not per result: inside a drain's pause any allocation made
                // with the collector resumed starts the young collection the pause put off.
                let dict = message_to_py(py, m)?;
                list.append(paused.resumed(py, || {
                    super::convert::convert_fn(py, "from_core")?.call1((dict,))
                })?)?;
            }
        }
    }
    drop(paused);
    if made_here > 0 {
        note_making_thread(made_here);
    }
    Ok(list)
}

/// The threads that made result messages (by `threading.get_ident()`) and how many each
/// made, since the last `_result_threads()`. A run's messages are made in one call, so this
/// is a lock per run, not per message. Kept only once a test has asked (`RECORDING`): a
/// program that never asks pays one atomic load a run, and the record cannot grow with
/// the threads a long-lived process runs on.
static MADE_ON: Mutex<Vec<(u64, usize)>> = Mutex::new(Vec::new());
static RECORDING: AtomicBool = AtomicBool::new(false);

fn note_making_thread(count: usize) {
    if !RECORDING.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY: pthread_self has no preconditions. Python's `threading.get_ident()` is the same
    // value (`PyThread_get_thread_ident`).
    let thread = unsafe { libc::pthread_self() } as u64;
    let mut made = MADE_ON.lock();
    match made.iter_mut().find(|(t, _)| *t == thread) {
        Some((_, n)) => *n += count,
        None => made.push((thread, count)),
    }
}

/// For the tests: which threads made result messages here, and how many each, since the last
/// call (they must be the event loop's under `ainvoke`, never a tokio worker's). The first
/// call starts the record (it returns nothing then).
#[pyfunction]
pub(crate) fn _result_threads() -> Vec<(u64, usize)> {
    RECORDING.store(true, Ordering::Relaxed);
    std::mem::take(&mut *MADE_ON.lock())
}

/// For the tests: the messages of the given core dicts made here and by `from_core`, side
/// by side, with whether each was made here, and the dicts `from_core` was given.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn _result_objects_for_tests<'py>(
    py: Python<'py>,
    dicts: &Bound<'py, PyAny>,
) -> PyResult<(
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Vec<bool>,
    Bound<'py, PyList>,
)> {
    let messages: Vec<Arc<Message>> = super::convert::messages_from_py(dicts)?
        .into_iter()
        .map(Arc::new)
        .collect();
    let native = match maker(py)? {
        Some(maker) => messages
            .iter()
            .map(|m| Ok(maker.make(py, m, None)?.is_some()))
            .collect::<PyResult<_>>()?,
        None => vec![false; messages.len()],
    };
    let made = message_objects(py, &messages, &GivenObjects::default())?;
    let reference = super::convert::message_object_list(py, &messages)?;
    let core_dicts = super::convert::message_list(py, &messages)?;
    Ok((made, reference, native, core_dicts))
}
