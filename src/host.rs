//! Values owned by the host language that the core carries without looking inside: a
//! Python object the user's code returned (a tool's artifact, a parsed structured response)
//! goes back to the user as the same object.

use std::any::Any;
use std::sync::{Arc, OnceLock};

use crate::tools::HostContext;

/// How the host tells a run its caller awaits on an event loop (Python's `ainvoke`) from
/// one it waits for (`invoke`), set by the binding; without it every run is the latter.
static ASYNC_TEST: OnceLock<fn(&HostContext) -> bool> = OnceLock::new();

/// Sets the host's test (once; later calls are ignored).
pub fn set_async_test(test: fn(&HostContext) -> bool) {
    let _ = ASYNC_TEST.set(test);
}

/// Whether the run's caller awaits it: deepagents does some steps concurrently there.
pub fn is_async(host: &HostContext) -> bool {
    ASYNC_TEST.get().is_some_and(|test| test(host))
}

/// How the host makes a streamed reply of a model it does not run itself into the message its
/// own chat models make of the same chunks, when the run asks for that (LangChain's v3
/// stream assembles every reply from content-block events: v1 blocks). Set by the binding.
pub struct ReplyShaper {
    /// Whether the run's replies are made by the host (its chunks are then kept).
    pub wants: fn(&HostContext) -> bool,
    /// The reply made of the call's chunks (`call id`, chunks), or `None` to keep the core's.
    pub shape: ShapeReply,
}

/// `ReplyShaper::shape`: async, since the host's code runs on a thread of its own, not on
/// the runtime's worker that awaits it.
pub type ShapeReply = fn(
    HostContext,
    String,
    crate::model::Chunks,
) -> futures::future::BoxFuture<
    'static,
    Result<Option<crate::messages::AiMessage>, crate::error::BoxError>,
>;

static REPLY_SHAPER: OnceLock<ReplyShaper> = OnceLock::new();

/// Sets the host's reply shaper (once; later calls are ignored).
pub fn set_reply_shaper(shaper: ReplyShaper) {
    let _ = REPLY_SHAPER.set(shaper);
}

/// The host's reply shaper, when the run wants its replies made by it.
pub fn reply_shaper(host: &HostContext) -> Option<&'static ReplyShaper> {
    REPLY_SHAPER.get().filter(|s| (s.wants)(host))
}

#[derive(Clone)]
pub struct HostValue(pub Arc<dyn Any + Send + Sync>);

impl HostValue {
    pub fn new(value: impl Any + Send + Sync) -> Self {
        HostValue(Arc::new(value))
    }

    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for HostValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostValue(..)")
    }
}

impl PartialEq for HostValue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A host object the core holds beside its own reading of it (the "view"): the view is what
/// the core reads and sends, with a stand-in where the object holds something JSON cannot (a
/// `datetime`, a lone surrogate, a nesting deeper than the core reads). The object goes back
/// to the host in place of the view, but only while the view is the one it was made for: any
/// change the core makes to the view (a new message, an edit) leaves the object behind.
///
/// Behind one shared pointer: every message and tool call has a place for one (rarely
/// filled), and a conversation keeps every message, each as large as the largest kind.
#[derive(Clone)]
pub struct Origin(Arc<OriginParts>);

struct OriginParts {
    object: HostValue,
    fingerprint: u64,
}

impl Origin {
    pub fn new(object: HostValue, view: &impl serde::Serialize) -> Self {
        Origin(Arc::new(OriginParts {
            object,
            fingerprint: fingerprint(view),
        }))
    }

    /// The host's object.
    pub fn object(&self) -> &HostValue {
        &self.0.object
    }

    /// Whether `view` is still the view this object was made for.
    pub fn matches(&self, view: &impl serde::Serialize) -> bool {
        fingerprint(view) == self.0.fingerprint
    }
}

impl std::fmt::Debug for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Origin(..)")
    }
}

/// Values are compared by their views: where an object came from does not make two equal
/// messages differ.
impl PartialEq for Origin {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A hash of `value`'s JSON form, written straight into the hasher.
fn fingerprint(value: &impl serde::Serialize) -> u64 {
    use std::hash::Hasher;
    struct Sink(std::collections::hash_map::DefaultHasher);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut sink = Sink(Default::default());
    // A view is JSON the core made: serializing it cannot fail; if it ever did, the partial
    // hash would simply not match and the view would be used.
    let _ = serde_json::to_writer(&mut sink, value);
    sink.0.finish()
}

/// A state value: the host's object by reference (a user's key, carried and never read), or
/// a value the core itself wrote or reads (JSON, a message, a record of those, such as
/// summarization's event with its summary message).
#[derive(Clone, Debug, PartialEq)]
pub enum Opaque {
    Json(serde_json::Value),
    Host(HostValue),
    Message(Arc<crate::messages::Message>),
    Record(Arc<indexmap::IndexMap<String, Opaque>>),
}

impl Opaque {
    pub fn as_json(&self) -> Option<&serde_json::Value> {
        match self {
            Opaque::Json(v) => Some(v),
            _ => None,
        }
    }
}

impl From<serde_json::Value> for Opaque {
    fn from(v: serde_json::Value) -> Self {
        Opaque::Json(v)
    }
}
