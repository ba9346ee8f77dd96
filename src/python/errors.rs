//! The one place core errors become Python exceptions. A host exception (raised by a Python
//! tool or model) is re-raised as the original object, type and traceback intact.

use pyo3::exceptions::{
    PyAssertionError, PyAttributeError, PyKeyError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use std::sync::Arc;

use crate::error::{BoxError, Builtin, Error, ModelError};
use crate::providers::ProviderError;

fn original(source: &BoxError) -> Option<PyErr> {
    py_err(source).map(|e| super::runtime_threads::attach(|py| e.clone_ref(py)))
}

/// A Python exception a tool, a tool wrapper or a backend raised, told apart where it was
/// raised (on the thread holding the GIL: the drainer, or the loop's thread for a
/// coroutine): whether it is LangGraph's `GraphInterrupt`, or Python's
/// `NotImplementedError`. The core asks whether a tool's error pauses the run
/// (`crate::error::set_pause_test`) on the tokio worker that awaited the call, and a composite
/// backend whether a route's `delete` is unsupported; with the answers carried here it reads
/// a flag there instead of taking the GIL on the worker (which stalls every run scheduled on
/// it while the GIL is busy). The exception is shared so that a worker can hand it on
/// without the GIL too (`PendingException`: the tracer's report of a failure).
#[derive(Debug)]
pub(crate) struct Raised {
    pub(crate) error: Arc<PyErr>,
    pub(crate) pauses: bool,
    pub(crate) not_implemented: bool,
}

impl Raised {
    pub(crate) fn new(py: Python<'_>, error: PyErr) -> Self {
        let pauses = super::tools::is_graph_interrupt(py, &error);
        let not_implemented = error.is_instance_of::<pyo3::exceptions::PyNotImplementedError>(py);
        Raised {
            error: Arc::new(error),
            pauses,
            not_implemented,
        }
    }
}

/// The error a host call's awaiter gets: made where the exception is caught, holding the GIL
/// (`raised`), or without it for a call that never ran to the end (`lost`: the loop or the
/// drainer dropped it, a cancellation, of no kind to tell apart). A `PyErr` as it is, a
/// `Raised` told apart, or a model call's `ModelError` classified.
pub(crate) trait HostError: Send + 'static {
    fn raised(py: Python<'_>, error: PyErr) -> Self;
    fn lost(error: PyErr) -> Self;
}

impl HostError for PyErr {
    fn raised(_: Python<'_>, error: PyErr) -> Self {
        error
    }

    fn lost(error: PyErr) -> Self {
        error
    }
}

impl HostError for Raised {
    fn raised(py: Python<'_>, error: PyErr) -> Self {
        Raised::new(py, error)
    }

    fn lost(error: PyErr) -> Self {
        Raised {
            error: Arc::new(error),
            pauses: false,
            not_implemented: false,
        }
    }
}

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Raised {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

/// The Python exception an error of the core carries as the host raised it: a `PyErr`, or
/// one told apart (`Raised`).
pub(crate) fn py_err(source: &BoxError) -> Option<&PyErr> {
    match source.downcast_ref::<Raised>() {
        Some(raised) => Some(&*raised.error),
        None => source.downcast_ref::<PyErr>(),
    }
}

/// A tool's fatal error: a Python exception it raised, or a core error from inside it (a
/// subagent that failed), mapped like any other.
pub(crate) fn from_tool(source: BoxError) -> PyErr {
    let source = match source.downcast::<Raised>() {
        // The only holder once a tracer's report of it is done (`PendingException`).
        Ok(raised) => {
            return Arc::try_unwrap(raised.error).unwrap_or_else(|shared| {
                super::runtime_threads::attach(|py| shared.clone_ref(py))
            });
        }
        Err(source) => source,
    };
    match source.downcast::<PyErr>() {
        Ok(e) => *e,
        Err(source) => match source.downcast::<Error>() {
            Ok(inner) => to_py(*inner),
            Err(source) => match source.downcast::<crate::error::SharedError>() {
                Ok(shared) => shared_to_py(&shared.0),
                Err(other) => PyRuntimeError::new_err(other.to_string()),
            },
        },
    }
}

/// A shared error's exception: the host's own when it carries one (an interrupt, whose
/// event holds it too), else as `exception_of` describes it.
pub(crate) fn shared_to_py(err: &std::sync::Arc<Error>) -> PyErr {
    if let Some(e) = err.host_error().and_then(py_err) {
        return super::runtime_threads::attach(|py| e.clone_ref(py));
    }
    // A core error (a subagent's refusal, its bad input) keeps its kind.
    super::runtime_threads::attach(|py| exception_of(py, err))
}

/// An exception class defined in `deepagents_rs.errors`, so users can import and catch it.
fn exception<'py, A>(py: Python<'py>, class: &str, args: A) -> PyErr
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let build = || -> PyResult<PyErr> {
        let cls = py.import("deepagents_rs.errors")?.getattr(class)?;
        Ok(PyErr::from_value(cls.call1(args)?))
    };
    build().unwrap_or_else(|e| e)
}

pub(crate) fn to_py(err: Error) -> PyErr {
    super::runtime_threads::attach(|py| match err {
        Error::Tool { source, .. } => from_tool(source),
        Error::Model(
            ModelError::Host(ref source)
            | ModelError::HostInvalidRequest(ref source)
            | ModelError::HostContextOverflow(ref source),
        ) => original(source).unwrap_or_else(|| PyRuntimeError::new_err(err.to_string())),
        Error::Model(ModelError::ContextOverflow(ref message)) => context_overflow(py, message),
        Error::RecursionLimit { .. } => exception(py, "GraphRecursionError", (err.to_string(),)),
        Error::Model(ModelError::Provider(ref e)) => provider_error(py, e),
        Error::Model(ModelError::Config(_)) | Error::InvalidInput(_) => {
            PyValueError::new_err(err.to_string())
        }
        Error::Internal(_) => PyRuntimeError::new_err(err.to_string()),
        Error::ParentCommand(_) => PyRuntimeError::new_err(err.to_string()),
        Error::InvalidUpdate { .. } => invalid_update(py, &err.to_string()),
        Error::Builtin(ref raised) => builtin(raised),
    })
}

/// An outcome's error made the exception its Python caller gets, where the outcome is made
/// Python (`super::summarization_call::finish`: on the loop's thread for an awaited one, on
/// the calling thread otherwise), not on the tokio worker the work ended on.
pub(crate) trait IntoPyErr: Send + 'static {
    fn into_py_err(self) -> PyErr;
}

impl IntoPyErr for PyErr {
    fn into_py_err(self) -> PyErr {
        self
    }
}

impl IntoPyErr for Error {
    fn into_py_err(self) -> PyErr {
        to_py(self)
    }
}

impl IntoPyErr for ModelError {
    fn into_py_err(self) -> PyErr {
        to_py(Error::Model(self))
    }
}

impl IntoPyErr for crate::tools::ToolError {
    fn into_py_err(self) -> PyErr {
        super::runtime_threads::attach(|py| tool_exception_of(py, &self))
    }
}

/// LangGraph's `InvalidUpdateError` (a `ValueError` without LangGraph).
fn invalid_update(py: Python<'_>, message: &str) -> PyErr {
    imported(py, ("langgraph.errors", "InvalidUpdateError"), message)
        .unwrap_or_else(|| PyValueError::new_err(message.to_owned()))
}

/// The exception class `module.class` made with `message`, when it can be imported.
fn imported(py: Python<'_>, (module, class): (&str, &str), message: &str) -> Option<PyErr> {
    py.import(module)
        .and_then(|m| m.getattr(class))
        .and_then(|cls| cls.call1((message,)))
        .map(PyErr::from_value)
        .ok()
}

/// The builtin exception Python raises for `raised`.
pub(crate) fn builtin(raised: &Builtin) -> PyErr {
    match raised {
        Builtin::Key(key) => PyKeyError::new_err(key.clone()),
        Builtin::Type(text) => PyTypeError::new_err(text.clone()),
        Builtin::Value(text) => PyValueError::new_err(text.clone()),
        Builtin::Attribute(text) => PyAttributeError::new_err(text.clone()),
        Builtin::Assertion(text) => PyAssertionError::new_err(text.clone()),
    }
}

/// A provider's classified error as the `deepagents_rs.errors` class for its kind.
fn provider_error(py: Python<'_>, e: &ProviderError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let make = py
            .import("deepagents_rs.errors")?
            .getattr("_provider_error")?;
        let exc = make.call1((
            e.kind.name(),
            e.to_string(),
            e.provider,
            e.status,
            e.error_type.as_deref(),
            e.code.as_deref(),
            e.message.clone(),
            e.request_id.as_deref(),
        ))?;
        // The notes of the tasks it left (`crate::agent::set_task_note`).
        for note in e.notes.iter().flat_map(|notes| notes.iter()) {
            exc.call_method1("add_note", (note,))?;
        }
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|err| err)
}

/// LangChain's `ContextOverflowError`, which deepagents' summarization raises when the
/// input cannot be made to fit.
fn context_overflow(py: Python<'_>, message: &str) -> PyErr {
    imported(
        py,
        ("langchain_core.exceptions", "ContextOverflowError"),
        message,
    )
    .unwrap_or_else(|| PyRuntimeError::new_err(message.to_owned()))
}

/// A run's exception as a synchronous caller gets it: LangGraph's `invoke` and `stream`
/// run in a generator, so a `StopIteration` raised inside the run (a model's exhausted
/// iterator, a tool's) leaves it as Python's `RuntimeError("generator raised
/// StopIteration")` caused by it, rather than ending the caller's iteration silently. (An
/// async caller gets asyncio's own conversion when the error reaches its future.)
pub(crate) fn out_of_generator(err: PyErr) -> PyErr {
    super::runtime_threads::attach(|py| {
        if !err.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) {
            return err;
        }
        let outer = PyRuntimeError::new_err("generator raised StopIteration");
        // The state the run had reached stays on the exception the caller catches.
        if let Ok(state) = err.value(py).getattr("partial_state") {
            let _ = outer.value(py).setattr("partial_state", state);
        }
        // Python's own conversion (PEP 479) sets both.
        let _ = outer.value(py).setattr("__context__", err.value(py));
        outer.set_cause(py, Some(err));
        outer
    })
}

/// Conversion failures at the boundary (bad message dicts and the like).
pub(crate) fn bad_input(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The exception a failure is reported to callbacks with, without consuming the error (it
/// still reaches the caller): a host exception is the same object; a core error is described.
pub(crate) fn exception_of(py: Python<'_>, err: &Error) -> PyErr {
    PendingException::of(err).make(py)
}

/// `exception_of` for a tool's fatal error.
pub(crate) fn tool_exception_of(py: Python<'_>, err: &crate::tools::ToolError) -> PyErr {
    PendingException::of_tool(err).make(py)
}

/// `exception_of`'s exception taken apart without the GIL, so that a tokio worker can hand
/// it on (the tracer reports a failure there, `super::tracer`) and the thread that holds the
/// GIL makes it: the host's own exception, shared, or what a core error's is made of.
pub(crate) enum PendingException {
    /// The exception the host raised, told apart where it was raised (`Raised`).
    Host(Arc<PyErr>),
    /// A made exception: a core error's built-in one (made lazily, needing no GIL), or a bare
    /// `PyErr`'s copy (the one case still taking the GIL where it is taken apart).
    Made(PyErr),
    Provider(Box<ProviderError>),
    ContextOverflow(String),
    InvalidUpdate(String),
}

impl PendingException {
    pub(crate) fn of(err: &Error) -> Self {
        match err {
            Error::Tool { source, .. } => {
                if let Some(e) = Self::host(source) {
                    return e;
                }
                if let Some(inner) = source.downcast_ref::<Error>() {
                    return Self::of(inner);
                }
                Self::Made(PyRuntimeError::new_err(err.to_string()))
            }
            Error::Model(
                ModelError::Host(source)
                | ModelError::HostInvalidRequest(source)
                | ModelError::HostContextOverflow(source),
            ) => Self::host(source)
                .unwrap_or_else(|| Self::Made(PyRuntimeError::new_err(err.to_string()))),
            Error::Model(ModelError::Provider(e)) => Self::Provider(e.clone()),
            Error::Model(ModelError::ContextOverflow(message)) => {
                Self::ContextOverflow(message.clone())
            }
            Error::Model(_) | Error::RecursionLimit { .. } | Error::Internal(_) => {
                Self::Made(PyRuntimeError::new_err(err.to_string()))
            }
            Error::InvalidInput(_) => Self::Made(PyValueError::new_err(err.to_string())),
            Error::ParentCommand(_) => Self::Made(PyRuntimeError::new_err(err.to_string())),
            Error::InvalidUpdate { .. } => Self::InvalidUpdate(err.to_string()),
            Error::Builtin(raised) => Self::Made(builtin(raised)),
        }
    }

    /// A tool's fatal error.
    pub(crate) fn of_tool(err: &crate::tools::ToolError) -> Self {
        let crate::tools::ToolError::Fatal(source) = err;
        if let Some(e) = Self::host(source) {
            return e;
        }
        if let Some(inner) = source.downcast_ref::<Error>() {
            return Self::of(inner);
        }
        Self::Made(PyRuntimeError::new_err(source.to_string()))
    }

    /// The host's exception an error carries, if any.
    fn host(source: &BoxError) -> Option<Self> {
        if let Some(raised) = source.downcast_ref::<Raised>() {
            return Some(Self::Host(raised.error.clone()));
        }
        source
            .downcast_ref::<PyErr>()
            .map(|e| Self::Made(super::runtime_threads::attach(|py| e.clone_ref(py))))
    }

    /// The exception, holding the GIL (the host's own object for `Host`).
    pub(crate) fn make(&self, py: Python<'_>) -> PyErr {
        match self {
            Self::Host(e) => e.clone_ref(py),
            Self::Made(e) => e.clone_ref(py),
            Self::Provider(e) => provider_error(py, e),
            Self::ContextOverflow(message) => context_overflow(py, message),
            Self::InvalidUpdate(message) => invalid_update(py, message),
        }
    }
}

/// A host model's exception as the core's error, told apart when it is LangChain's
/// `ModelInvalidRequestError` (the file middleware retries those without rejected media) or
/// a context overflow (summarization's cue). Made where the exception is caught, holding the
/// GIL (`HostError for ModelError`): a model call, a middleware's hooks, a summarizer, a
/// history offload and a token counter alike.
fn model_error(py: Python<'_>, e: PyErr) -> ModelError {
    let is = |name: &str| {
        py.import("langchain_core.exceptions")
            .and_then(|m| m.getattr(name))
            .is_ok_and(|cls| e.is_instance(py, &cls))
    };
    let invalid = is("ModelInvalidRequestError");
    let overflow = is("ContextOverflowError") || says_overflow(py, &e);
    // Told apart here, so a worker asking whether it pauses a run (a subagent's) reads a flag.
    let source = Arc::new(Box::new(Raised::new(py, e)) as BoxError);
    if overflow {
        ModelError::HostContextOverflow(source)
    } else if invalid {
        ModelError::HostInvalidRequest(source)
    } else {
        ModelError::Host(source)
    }
}

/// A model call's error (the host model's, or a middleware hook's) made where its
/// exception is caught, holding the GIL, so the tokio worker that awaited the call takes
/// none to classify it. A call that never ran to the end (`lost`) is of no kind to tell apart.
impl HostError for ModelError {
    fn raised(py: Python<'_>, error: PyErr) -> Self {
        model_error(py, error)
    }

    fn lost(error: PyErr) -> Self {
        ModelError::host(Box::new(<Raised as HostError>::lost(error)))
    }
}

/// deepagents' `_is_context_overflow` for an exception that is not LangChain's own: an HTTP
/// 400, 413 or 422 whose text names the context window.
fn says_overflow(py: Python<'_>, e: &PyErr) -> bool {
    let value = e.value(py);
    let status = value
        .getattr("status_code")
        .ok()
        .and_then(|s| s.extract::<i64>().ok());
    if !matches!(status, Some(400 | 413 | 422)) {
        return false;
    }
    let text = value.str().map(|s| s.to_string()).unwrap_or_default();
    crate::summarization::says_context_overflow(&text)
}

/// Runs `f`, turning a panic into a `RuntimeError`: pyo3 would raise its `PanicException`,
/// a `BaseException` that `except Exception` does not catch. Nothing the core shares
/// is left poisoned by an unwind (its locks are parking_lot's, which do not poison), so the
/// agent serves the next run as before.
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|p| Err(panic_error(p)))
}

/// The `RuntimeError` for a caught panic's payload.
pub(crate) fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    PyRuntimeError::new_err(Error::Internal(crate::error::panic_text(payload)).to_string())
}

/// A panic on purpose, under `guard`: the tests' way to check that a panic reaches Python
/// as a `RuntimeError` and leaves the module working.
#[pyfunction]
pub(crate) fn _panic_for_tests(message: String) -> PyResult<()> {
    guard(|| panic!("{message}"))
}
