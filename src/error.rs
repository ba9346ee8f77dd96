//! Typed errors of the core. The Python binding maps them to exceptions in one place
//! (`python/errors.rs`); nothing here knows about Python.

use std::sync::Arc;

/// An error raised by code the core calls but does not own (a host tool, a host model); the
/// binding layer downcasts it to re-raise the original exception unchanged.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Mirrors LangGraph's `GraphRecursionError` wording, which users match on.
    #[error(
        "Recursion limit of {limit} reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key.\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"
    )]
    RecursionLimit { limit: u64 },

    /// A tool failed in a way that must reach the caller (deepagents re-raises these).
    #[error("tool '{tool}' failed: {source}")]
    Tool {
        tool: String,
        #[source]
        source: BoxError,
    },

    #[error(transparent)]
    Model(#[from] ModelError),

    #[error("{0}")]
    InvalidInput(String),

    /// A tool's `Command(graph=Command.PARENT)` on its way out of a subagent's run: the
    /// write its parent's `task` call makes (see `CommandWrite::to_parent`).
    #[error("a Command for the parent graph left a run that has none")]
    ParentCommand(Box<crate::tools::ToolOutput>),

    /// LangGraph's `InvalidUpdateError` for a `LastValue` channel that two tasks of one step
    /// wrote (its words: users match on them).
    #[error(
        "At key '{key}': Can receive only one value per step. Use an Annotated key to handle multiple values.\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/INVALID_CONCURRENT_GRAPH_UPDATE"
    )]
    InvalidUpdate { key: String },

    /// A bug: a panic caught at the edge of a run, so it ends the run and not the process.
    #[error("internal error in deepagents_rs (a bug): {0}")]
    Internal(String),

    /// A builtin exception Python raises itself in the code deepagents runs, on a value that
    /// code cannot read (LangChain's readers of a message's content blocks).
    #[error("{0}")]
    Builtin(Builtin),
}

/// A builtin Python exception and its argument (a `KeyError`'s is the missing key).
#[derive(Debug, Clone, PartialEq)]
pub enum Builtin {
    Key(String),
    Type(String),
    Value(String),
    Attribute(String),
    Assertion(String),
}

impl std::fmt::Display for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Builtin::Key(key) => write!(f, "KeyError: {}", crate::pyrepr::str_repr(key)),
            Builtin::Type(text) => write!(f, "TypeError: {text}"),
            Builtin::Value(text) => write!(f, "ValueError: {text}"),
            Builtin::Attribute(text) => write!(f, "AttributeError: {text}"),
            Builtin::Assertion(text) => write!(f, "AssertionError: {text}"),
        }
    }
}

impl Builtin {
    /// `'<type>' object has no attribute '<name>'`.
    pub fn no_attribute(value: &serde_json::Value, name: &str) -> Self {
        let kind = crate::pyrepr::type_name(value);
        Builtin::Attribute(format!("'{kind}' object has no attribute '{name}'"))
    }
}

/// How the host tells a pause (LangGraph's `GraphInterrupt`) from a failure, set by the
/// binding; without it nothing pauses.
static PAUSE_TEST: std::sync::OnceLock<fn(&BoxError) -> bool> = std::sync::OnceLock::new();

/// Sets the host's pause test (once; later calls are ignored).
pub fn set_pause_test(test: fn(&BoxError) -> bool) {
    let _ = PAUSE_TEST.set(test);
}

/// How the host shows a warning to the user (Python's `warnings.warn(text, UserWarning)`),
/// set by the binding; an `Err` is the host raising it (a filter turning warnings into
/// errors). Without a host the warning is logged.
static WARN: std::sync::OnceLock<WarnFn> = std::sync::OnceLock::new();

/// The host's warning: shows `text`, or raises it back.
pub type WarnFn = fn(&str) -> Result<(), BoxError>;

/// Sets the host's warning (once; later calls are ignored).
pub fn set_warn(warn: WarnFn) {
    let _ = WARN.set(warn);
}

thread_local! {
    /// The warnings of the sync code `holding_warnings` runs on this thread, held for its
    /// async caller.
    static HELD: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f`, sync code that warns through `warn` (a native client's request encoding, on a
/// tokio worker), with its warnings held rather than issued: they come back in order, for
/// the async caller to issue with `warn_all_on_host`, so no warning takes the GIL there. A
/// warning the host would raise back (an "error" filter) then raises before anything `f`
/// built is used, as it would have stopped `f`.
pub fn holding_warnings<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    /// Gives back the outer hold (none, or a caller's) however `f` ends.
    struct Restore(Option<Vec<String>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            HELD.with(|held| *held.borrow_mut() = outer);
        }
    }
    let outer = HELD.with(|held| held.replace(Some(Vec::new())));
    let restore = Restore(outer);
    let out = f();
    let texts = HELD
        .with(|held| held.borrow_mut().take())
        .unwrap_or_default();
    drop(restore);
    (out, texts)
}

/// Issues `texts` (held by `holding_warnings`) from inside the run of `host`, in order,
/// stopping at the first the host raises back.
pub async fn warn_all_on_host(
    host: &crate::tools::HostContext,
    texts: Vec<String>,
) -> Result<(), BoxError> {
    for text in texts {
        warn_on_host(host, &text).await?;
    }
    Ok(())
}

/// Warns the user of `text`: held when `holding_warnings` runs the caller, else through the
/// host when it has set a warning, else in the log.
pub fn warn(text: &str) -> Result<(), BoxError> {
    let held = HELD.with(|held| {
        held.borrow_mut()
            .as_mut()
            .map(|texts| texts.push(text.to_owned()))
            .is_some()
    });
    if held {
        return Ok(());
    }
    match WARN.get() {
        Some(warn) => warn(text),
        None => {
            tracing::warn!("{text}");
            Ok(())
        }
    }
}

/// The host's warning issued where the host runs Python for the run `HostContext` names
/// (its loop's thread under `ainvoke`, its own Python threads under `invoke`), so a warning
/// raised from a tokio worker takes no GIL there; an `Err` is the host raising it back.
pub type WarnOnHostFn = fn(
    crate::tools::HostContext,
    String,
) -> futures::future::BoxFuture<'static, Result<(), BoxError>>;

static WARN_ON_HOST: std::sync::OnceLock<WarnOnHostFn> = std::sync::OnceLock::new();

/// Sets the host's warning for a run (once; later calls are ignored).
pub fn set_warn_on_host(warn: WarnOnHostFn) {
    let _ = WARN_ON_HOST.set(warn);
}

/// Warns the user of `text` from inside the run of `host`: where that run's host calls
/// are made when the binding has set that, else as `warn` does.
pub async fn warn_on_host(host: &crate::tools::HostContext, text: &str) -> Result<(), BoxError> {
    match WARN_ON_HOST.get() {
        Some(warn) => warn(host.clone(), text.to_owned()).await,
        None => warn(text),
    }
}

/// The host's logger, called where the host runs Python for the run `HostContext` names
/// (as `WarnOnHostFn`): `(logger name, text)` logged at warning level.
pub type LogOnHostFn =
    fn(crate::tools::HostContext, String, String) -> futures::future::BoxFuture<'static, ()>;

static LOG_ON_HOST: std::sync::OnceLock<LogOnHostFn> = std::sync::OnceLock::new();

/// Sets the host's logger (once; later calls are ignored).
pub fn set_log_on_host(log: LogOnHostFn) {
    let _ = LOG_ON_HOST.set(log);
}

/// Logs `text` as a warning of the host's logger `logger` (where a host library would log
/// it) from inside the run of `host`, else in the core's log.
pub async fn log_on_host(host: &crate::tools::HostContext, logger: &str, text: &str) {
    match LOG_ON_HOST.get() {
        Some(log) => log(host.clone(), logger.to_owned(), text.to_owned()).await,
        None => tracing::warn!(target: "deepagents_rs", "{logger}: {text}"),
    }
}

/// An error shared between the run it ended and the event that reported it (a subagent's
/// pause, see `Event::SubagentPaused`).
#[derive(Debug)]
pub struct SharedError(pub Arc<Error>);

impl std::fmt::Display for SharedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SharedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Whether an error a tool raised is a pause: the core's own error (a subagent's run) that
/// is one, or the host's interrupt as the host raised it (middleware wrapping the tool may
/// have raised it again in the host's own form).
pub fn is_pause_source(source: &BoxError) -> bool {
    if let Some(shared) = source.downcast_ref::<SharedError>() {
        return shared.0.is_pause();
    }
    if let Some(error) = source.downcast_ref::<Error>() {
        return error.is_pause();
    }
    PAUSE_TEST.get().is_some_and(|test| test(source))
}

impl Error {
    /// The host error this error carries, as the host raised it (a hook's, a tool's).
    pub fn host_error(&self) -> Option<&BoxError> {
        match self {
            Error::Tool { source, .. } => {
                if let Some(inner) = source.downcast_ref::<Error>() {
                    inner.host_error()
                } else if let Some(shared) = source.downcast_ref::<SharedError>() {
                    shared.0.host_error()
                } else {
                    Some(source)
                }
            }
            Error::Model(
                ModelError::Host(source)
                | ModelError::HostInvalidRequest(source)
                | ModelError::HostContextOverflow(source),
            ) => Some(source.as_ref()),
            _ => None,
        }
    }

    /// Whether the run stopped for the host's interrupt rather than failing (a subagent's
    /// human-in-the-loop gate, a tool's `interrupt()`).
    pub fn is_pause(&self) -> bool {
        match (PAUSE_TEST.get(), self.host_error()) {
            (Some(test), Some(source)) => test(source),
            _ => false,
        }
    }
}

/// Why a model call failed.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A native provider's call failed (after its retries), classified. Boxed: it is large
    /// and rare, and every `Result` of the loop carries this type.
    #[error(transparent)]
    Provider(Box<crate::providers::ProviderError>),
    /// Missing API key, bad model string and the like.
    #[error("{0}")]
    Config(String),
    /// A model implemented by the host (a Python chat model) raised.
    #[error("chat model failed: {0}")]
    Host(Arc<BoxError>),
    /// A host model raised an invalid-request error (LangChain's
    /// `ModelInvalidRequestError`), told apart when the host raised it.
    #[error("chat model failed: {0}")]
    HostInvalidRequest(Arc<BoxError>),
    /// A host model raised a context-window error, told apart as deepagents' summarization
    /// recognises one (LangChain's `ContextOverflowError`, or a 400/413/422 that says so).
    #[error("chat model failed: {0}")]
    HostContextOverflow(Arc<BoxError>),
    /// The input cannot be made to fit (LangChain's `ContextOverflowError`, raised by
    /// summarization's budget check).
    #[error("{0}")]
    ContextOverflow(String),
}

impl From<crate::providers::ProviderError> for ModelError {
    fn from(e: crate::providers::ProviderError) -> Self {
        ModelError::Provider(Box::new(e))
    }
}

impl ModelError {
    pub fn host(e: BoxError) -> Self {
        ModelError::Host(Arc::new(e))
    }

    /// The provider refused the request itself (a 400 that is not a context overflow):
    /// worth retrying with other content, as deepagents' file middleware does for a rejected
    /// image.
    pub fn is_invalid_request(&self) -> bool {
        match self {
            ModelError::Provider(e) => e.kind == crate::providers::ErrorKind::BadRequest,
            ModelError::HostInvalidRequest(_) => true,
            _ => false,
        }
    }

    /// The host's own exception, when it raised one.
    pub fn host_source(&self) -> Option<&Arc<BoxError>> {
        match self {
            ModelError::Host(s)
            | ModelError::HostInvalidRequest(s)
            | ModelError::HostContextOverflow(s) => Some(s),
            _ => None,
        }
    }

    /// The prompt did not fit the model's context window.
    pub fn is_context_overflow(&self) -> bool {
        match self {
            ModelError::Provider(e) => e.kind == crate::providers::ErrorKind::ContextOverflow,
            ModelError::HostContextOverflow(_) | ModelError::ContextOverflow(_) => true,
            _ => false,
        }
    }

    /// Whether LangChain's `with_retry` (its `default_retry_on`) tries the call again: a
    /// provider error by its kind, any other host exception but an invalid request or an
    /// overflow.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Provider(e) => e.is_retryable(),
            ModelError::Host(_) => true,
            _ => false,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The message a panic was raised with.
pub fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}
