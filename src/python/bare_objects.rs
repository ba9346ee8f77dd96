//! Objects made as CPython's own `object.__new__` and `object.__setattr__` make them, from
//! the slots found once per class instead of a look-up and a call through Python per object:
//! what `result_objects` needs to make a long history's message objects at the cost of the
//! objects themselves (the collector paused meanwhile: `collector_pause`).

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// How a message class's instance is made.
#[derive(Clone, Copy)]
pub(super) enum Instance {
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
    pub(super) fn of(cls: &Bound<'_, PyAny>) -> Option<Instance> {
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
    pub(super) fn make<'py>(self, cls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
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
pub(super) enum Setter {
    Descriptor {
        descr: Py<PyAny>,
        set: pyo3::ffi::descrsetfunc,
    },
    Generic(Py<PyString>),
}

impl Setter {
    pub(super) fn of(cls: &Bound<'_, PyAny>, name: &str) -> PyResult<Setter> {
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

    pub(super) fn set(&self, obj: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
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

/// How an instance of a class is made with its `N` slots set, in a given order: its
/// allocation and its slots' setters, found once per class.
pub(super) struct BareClass<const N: usize> {
    instance: Instance,
    slots: [Setter; N],
}

impl<const N: usize> BareClass<N> {
    /// A `TypeError` for a class that cannot be instantiated.
    pub(super) fn of(cls: &Bound<'_, PyAny>, slots: [&str; N]) -> PyResult<BareClass<N>> {
        let instance = Instance::of(cls).ok_or_else(|| {
            let name = cls
                .getattr(intern!(cls.py(), "__qualname__"))
                .map_or_else(|_| "a class".to_owned(), |name| name.to_string());
            pyo3::exceptions::PyTypeError::new_err(format!("{name} cannot be instantiated"))
        })?;
        let mut setters = Vec::with_capacity(N);
        for slot in slots {
            setters.push(Setter::of(cls, slot)?);
        }
        let slots = setters
            .try_into()
            .map_err(|_| pyo3::exceptions::PyTypeError::new_err("slot count"))?;
        Ok(BareClass { instance, slots })
    }

    /// A new instance of `cls` (the class this was found on) with `values` in its slots.
    pub(super) fn make<'py>(
        &self,
        cls: &Bound<'py, PyAny>,
        values: [&Bound<'py, PyAny>; N],
    ) -> PyResult<Bound<'py, PyAny>> {
        let made = self.instance.make(cls)?;
        for (setter, value) in self.slots.iter().zip(values) {
            setter.set(&made, value)?;
        }
        Ok(made)
    }
}
