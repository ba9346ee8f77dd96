//! State keys with a reducer (LangGraph's `BinaryOperatorAggregate` channels: a key declared
//! `Annotated[list, operator.add]` in a state schema, deepagents' `async_tasks`): each write
//! is folded into the key's value by the reducer, in the order LangGraph applies a step's
//! writes, instead of replacing it. The reducers are the host's functions, so the fold is one
//! host call per write that touches such keys (`FoldHost`); the write then carries the folded
//! values (`StateDelta::folded`), which `AgentState::apply` puts in place of the raw ones.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::{AgentState, Extra, StateDelta};
use crate::error::Error;
use crate::host::Opaque;
use crate::tools::HostContext;

/// One write of a key with a reducer: the key, the value written, and whether it replaces
/// the value past the reducer (LangGraph's `Overwrite`).
pub type KeyWrite = (String, Opaque, bool);

/// The host's side: folds `writes` (in order) into `old` (the keys' values before them,
/// absent for a key never written) with each key's reducer, and gives every written key's
/// value after them. A reducer that raises fails the fold with its own error.
pub trait FoldHost: Send + Sync {
    fn fold(
        &self,
        host: HostContext,
        old: Extra,
        writes: Vec<KeyWrite>,
    ) -> BoxFuture<'static, Result<Extra, Error>>;

    /// The keys of `pairs` (`(key, before, after)`) whose two values are the same by the
    /// host's rule (the same object, or equal), where the core cannot tell.
    fn unchanged(
        &self,
        host: HostContext,
        pairs: Vec<(String, Opaque, Opaque)>,
    ) -> BoxFuture<'static, Result<Vec<String>, Error>>;
}

/// The keys of an agent's state that have a reducer, and the host that runs the reducers.
#[derive(Clone)]
pub struct Reducers {
    pub keys: Arc<[String]>,
    pub host: Arc<dyn FoldHost>,
}

impl Reducers {
    fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key)
    }

    /// `deltas`' writes of keys with a reducer, in order (each delta's in its write order).
    pub fn writes<'a>(&self, deltas: impl IntoIterator<Item = &'a StateDelta>) -> Vec<KeyWrite> {
        let mut out = Vec::new();
        for delta in deltas {
            let own: Box<dyn Iterator<Item = (&String, &Opaque)>> = if delta.writes.is_empty() {
                Box::new(delta.extra.iter())
            } else {
                Box::new(delta.writes.iter().map(|(k, v)| (k, v)))
            };
            for (key, value) in own.filter(|(k, _)| self.has(k)) {
                let overwrite = delta.overwrites.iter().any(|k| k == key);
                out.push((key.clone(), value.clone(), overwrite));
            }
        }
        out
    }

    /// A tool call's writes (`ToolResult::key_writes`) of keys with a reducer, in order.
    pub fn writes_in<'a>(
        &self,
        writes: impl Iterator<Item = (&'a String, &'a Opaque)>,
    ) -> Vec<KeyWrite> {
        writes
            .filter(|(k, _)| self.has(k))
            .map(|(k, v)| (k.clone(), v.clone(), false))
            .collect()
    }

    /// The values `writes` leave their keys at, folded onto `state` (empty when nothing was
    /// written to a key with a reducer: no host call then).
    pub async fn fold(
        &self,
        state: &AgentState,
        writes: Vec<KeyWrite>,
        host: &HostContext,
    ) -> Result<Extra, Error> {
        if writes.is_empty() {
            return Ok(Extra::new());
        }
        let mut old = Extra::new();
        for (key, _, _) in &writes {
            if let Some(v) = state.extra.get(key) {
                old.insert(key.clone(), v.clone());
            }
        }
        self.host.fold(host.clone(), old, writes).await
    }
}
