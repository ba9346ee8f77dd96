//! What a `CompositePlan` (`composite_plan`) carries out and where it stands: the operation
//! with the caller's arguments, the stage that says which reply comes next, the batched
//! groups, and what each step hands back.

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The operation a plan carries out, with its arguments as the caller gave them.
pub(super) enum Op {
    Read {
        path: Py<PyAny>,
        offset: Py<PyAny>,
        limit: Py<PyAny>,
    },
    Write {
        path: Py<PyAny>,
        content: Py<PyAny>,
    },
    Edit {
        path: Py<PyAny>,
        old: Py<PyAny>,
        new: Py<PyAny>,
        replace_all: Py<PyAny>,
    },
    Delete {
        path: Py<PyAny>,
    },
    Execute {
        command: Py<PyAny>,
        timeout: Py<PyAny>,
    },
    Ls {
        path: Py<PyAny>,
    },
    Grep {
        pattern: Py<PyAny>,
        path: Py<PyAny>,
        glob: Py<PyAny>,
        max_count: Option<isize>,
    },
    Glob {
        pattern: Py<PyAny>,
        path: Py<PyAny>,
    },
    Upload {
        files: Vec<(Py<PyAny>, Py<PyAny>)>,
    },
    Download {
        paths: Vec<Py<PyAny>>,
    },
}

/// Where a plan stands: which reply `send` is given next.
pub(super) enum Stage {
    Start,
    /// The one backend call of a routed operation, made with `inner` for the path; `prefix`
    /// is the route's (`None`: the default backend).
    Call {
        inner: Py<PyAny>,
        prefix: Option<String>,
    },
    /// A root grep or glob: the default backend's part.
    RootDefault,
    /// A root grep or glob: the part of the route at this index of `routes`, asked with this
    /// grep cap.
    RootRoute(usize, Option<isize>),
    /// Upload or download: the batched call of the group at this index.
    Batch(usize),
    Done,
}

/// A backend and the `(position, inner path)` pairs it gets in its one batched call.
pub(super) type Group = (Py<PyAny>, Vec<(usize, Py<PyAny>)>);

/// What `send` hands back: `(method, args, kwargs)` for the call wanted next, or
/// `(None, result, None)` once the operation is done.
pub(super) type Next = (Option<Py<PyAny>>, Py<PyAny>, Option<Py<PyDict>>);
