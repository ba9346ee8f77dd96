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

use super::convert::{host_object, message_to_py};
use super::input_messages::GivenObjects;
use super::interned_keys::text_value;
use super::result_fields as values_of;
use crate::messages::{Message, ToolStatus};

/// One of LangChain's message classes as `_convert._plain_class` describes it.
struct MessageClass {
    cls: Py<PyAny>,
    /// How an instance is made, without a lookup or a call through Python.
    instance: Instance,
    /// Its `__dict__` with every field `None` but `type`, in the order its validated
    /// `__dict__` holds them: a copy keeps the order and the table's size, so a message's
    /// writes are overwrites (no growing, no reordering).
    template: Py<PyDict>,
    /// How pydantic's four attributes are set on an instance (`PYDANTIC_ATTRIBUTES`' order).
    attributes: [Setter; 4],
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
    let made = MAKER.get_or_try_init(py, || -> PyResult<Option<Maker>> {
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
            let Some(instance) = Instance::of(&cls) else {
                return Ok(None);
            };
            let mut attributes = Vec::with_capacity(PYDANTIC_ATTRIBUTES.len());
            for name in PYDANTIC_ATTRIBUTES {
                attributes.push(Setter::of(&cls, name)?);
            }
            let attributes = match <[Setter; 4]>::try_from(attributes) {
                Ok(setters) => setters,
                Err(_) => return Ok(None),
            };
            Ok(Some(MessageClass {
                attributes,
                instance,
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
        let obj = class.instance.make(class.cls.bind(py))?;
        let [dict, fields_set, extra, private] = &class.attributes;
        dict.set(&obj, values.dict.as_any())?;
        fields_set.set(&obj, set.as_any())?;
        extra.set(&obj, PyDict::new(py).as_any())?;
        private.set(&obj, &py.None().into_bound(py))?;
        Ok(Some(obj))
    }
}

/// How a message class's instance is made.
#[derive(Clone, Copy)]
enum Instance {
    /// The class's `__new__` is `object.__new__`: its allocator, which is what `object.__new__`
    /// calls, less the instance dict it then prepares. Pydantic replaces that dict at once
    /// (`__dict__` set), and CPython 3.11 makes a real dict of the prepared values to throw it
    /// away (a dict and a values array made and freed a message: ~600 instructions and one
    /// allocation more toward the collector's count). A new instance with no dict is one whose
    /// `__dict__` was deleted, a state CPython supports on every version (the dict is made
    /// when one is first needed).
    Alloc(pyo3::ffi::allocfunc),
    /// Another `__new__`: called as `cls.__new__(cls)` calls it.
    New(pyo3::ffi::newfunc),
}

impl Instance {
    /// `None` for a class with neither slot (not instantiable).
    fn of(cls: &Bound<'_, PyAny>) -> Option<Instance> {
        use pyo3::ffi;
        let slot = |ty: *mut ffi::PyTypeObject, slot| {
            // SAFETY: `ty` is a live type object; `PyType_GetSlot` reads any type's slots
            // (static types' too, since 3.10).
            let found = unsafe { ffi::PyType_GetSlot(ty, slot) };
            (!found.is_null()).then_some(found)
        };
        let ty = cls.as_ptr().cast::<ffi::PyTypeObject>();
        // `object` itself, alive as long as the interpreter.
        let object = std::ptr::addr_of_mut!(ffi::PyBaseObject_Type);
        let new = slot(ty, ffi::Py_tp_new)?;
        // `object.__new__` refuses an abstract class (its check, kept: such a class takes the
        // call).
        // SAFETY: `ty` is a live type object.
        let is_abstract = unsafe { ffi::PyType_GetFlags(ty) } & ffi::Py_TPFLAGS_IS_ABSTRACT != 0;
        if Some(new) == slot(object, ffi::Py_tp_new)
            && !is_abstract
            && let Some(alloc) = slot(ty, ffi::Py_tp_alloc)
        {
            // SAFETY: the `Py_tp_alloc` slot holds an `allocfunc`.
            return Some(Instance::Alloc(unsafe {
                std::mem::transmute::<*mut std::ffi::c_void, ffi::allocfunc>(alloc)
            }));
        }
        // SAFETY: the `Py_tp_new` slot holds a `newfunc`.
        Some(Instance::New(unsafe {
            std::mem::transmute::<*mut std::ffi::c_void, ffi::newfunc>(new)
        }))
    }

    /// A new instance of `cls` (the class this was read from), its `__dict__` to be set.
    fn make<'py>(self, cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let ty = cls.as_ptr().cast();
        // SAFETY: each is `cls`'s own slot, called as CPython calls it (`tp_alloc(type, 0)`
        // as `object.__new__` does; `tp_new(type, (), NULL)` as `cls.__new__(cls)` does);
        // either returns a new reference or null with an exception set.
        unsafe {
            let made = match self {
                Instance::Alloc(alloc) => alloc(ty, 0),
                Instance::New(new) => new(ty, PyTuple::empty(py).as_ptr(), std::ptr::null_mut()),
            };
            Bound::from_owned_ptr_or_err(py, made)
        }
    }
}

/// `object.__setattr__(obj, name, value)` for one attribute of a class (pydantic's own
/// `__setattr__` would validate and track the write), four times per message of a run's
/// result. Each is a data descriptor of the class (`__dict__`'s getset, the slots' members),
/// which `object.__setattr__` looks up on the type and calls: called here directly, found
/// once. A name found otherwise goes through `object`'s own slot.
enum Setter {
    Descriptor {
        descr: Py<PyAny>,
        set: pyo3::ffi::descrsetfunc,
    },
    Generic(Py<PyString>),
}

impl Setter {
    fn of(cls: &Bound<'_, PyAny>, name: &str) -> PyResult<Setter> {
        let py = cls.py();
        let types = py.import("types")?;
        let plain_kinds = [
            types.getattr("GetSetDescriptorType")?,
            types.getattr("MemberDescriptorType")?,
        ];
        // The type's attribute as `object.__setattr__` finds it: the first in the MRO.
        let mut found = None;
        for klass in cls.getattr(intern!(py, "__mro__"))?.try_iter()? {
            if let Ok(d) = klass?.getattr(intern!(py, "__dict__"))?.get_item(name) {
                found = Some(d);
                break;
            }
        }
        let generic = || Setter::Generic(PyString::intern(py, name).unbind());
        let Some(descr) = found else {
            return Ok(generic());
        };
        let kind = descr.get_type();
        if !plain_kinds.iter().any(|k| k.is(&kind)) {
            return Ok(generic());
        }
        // SAFETY: `kind` is a live type object (a static one: `PyType_GetSlot` reads those
        // since 3.10).
        let set =
            unsafe { pyo3::ffi::PyType_GetSlot(kind.as_ptr().cast(), pyo3::ffi::Py_tp_descr_set) };
        if set.is_null() {
            return Ok(generic());
        }
        Ok(Setter::Descriptor {
            descr: descr.unbind(),
            // SAFETY: the `Py_tp_descr_set` slot holds a `descrsetfunc`.
            set: unsafe {
                std::mem::transmute::<*mut std::ffi::c_void, pyo3::ffi::descrsetfunc>(set)
            },
        })
    }

    fn set(&self, obj: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = obj.py();
        // SAFETY: the pointers are live objects held for the whole call; the setter is the
        // descriptor's own, called as `object.__setattr__` calls it (descriptor, instance,
        // value), or `object`'s slot with the attribute's name.
        let status = unsafe {
            match self {
                Setter::Descriptor { descr, set } => {
                    set(descr.as_ptr(), obj.as_ptr(), value.as_ptr())
                }
                Setter::Generic(name) => {
                    pyo3::ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr())
                }
            }
        };
        if status == 0 {
            Ok(())
        } else {
            Err(PyErr::fetch(py))
        }
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
    let from_core = py.import("deepagents_rs._convert")?.getattr("from_core")?;
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
                // collector as the caller left it.
                drop(paused);
                list.append(from_core.call1((message_to_py(py, m)?,))?)?;
                paused = CollectorPaused::start();
            }
        }
    }
    drop(paused);
    if made_here > 0 {
        note_making_thread(made_here);
    }
    Ok(list)
}

/// The cyclic collector paused while a result's messages are made here, and resumed as it
/// was (`Drop`, on an error too; left off if the caller had turned it off).
///
/// A long history's result is thousands of new containers in one burst, no garbage among
/// them: every 700 allocations a young collection walks the objects made since the last
/// one, and every tenth a middle one walks them again, all found alive. Paused, the
/// messages are walked once by the first young collection after the burst. No Python code
/// runs while it is paused (the stretch makes objects only; `from_core` resumes it first),
/// so no other thread sees the collector off.
struct CollectorPaused(bool);

impl CollectorPaused {
    fn start() -> CollectorPaused {
        // SAFETY: called with the GIL held (the caller holds a `Python` token); returns
        // whether the collector was on.
        CollectorPaused(unsafe { pyo3::ffi::PyGC_Disable() } != 0)
    }
}

impl Drop for CollectorPaused {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: the GIL is still held (the value never leaves the function that made
            // it, which holds the token).
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
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
