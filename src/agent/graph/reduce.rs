//! A node's write folded by the state's reducers before it is applied (see `state::Reducers`).

use super::Run;
use crate::agent::Agent;
use crate::error::Error;
use crate::state::{AgentState, StateDelta};

impl Agent {
    /// Sets `delta.folded`: the values its writes of keys with a reducer leave on `state`.
    /// Nothing to do (and no host call) when none of its keys has one.
    pub(super) async fn fold_write(
        &self,
        state: &AgentState,
        delta: &mut StateDelta,
        run: &Run<'_>,
    ) -> Result<(), Error> {
        let Some(reducers) = self.reducers.get() else {
            return Ok(());
        };
        let writes = reducers.writes([&*delta]);
        delta.folded = reducers.fold(state, writes, &run.options.host).await?;
        Ok(())
    }

    /// A tool call's writes of keys with a reducer folded onto the step's state (`state`),
    /// as LangGraph's edge after each call reads the state with that call's writes alone
    /// (its `local_read`): a reducer refusing them fails there, on the state before the
    /// step, before the step's writes are folded together. No host call when the call wrote
    /// no such key.
    pub(super) async fn fold_call(
        &self,
        state: &AgentState,
        result: &crate::tools::ToolResult,
        host: &crate::tools::HostContext,
    ) -> Result<(), Error> {
        let Some(reducers) = self.reducers.get() else {
            return Ok(());
        };
        let writes = reducers.writes_in(result.key_writes());
        reducers.fold(state, writes, host).await.map(drop)
    }

    /// A step of several tasks: their writes of keys with a reducer, in the step's write
    /// order, folded onto the step's state (`snapshot`), as LangGraph applies them all to the
    /// channel at once.
    pub(super) async fn fold_step<'a>(
        &self,
        snapshot: &AgentState,
        deltas: impl IntoIterator<Item = &'a StateDelta>,
        run: &Run<'_>,
    ) -> Result<crate::state::Extra, Error> {
        let Some(reducers) = self.reducers.get() else {
            return Ok(Default::default());
        };
        let writes = reducers.writes(deltas);
        reducers.fold(snapshot, writes, &run.options.host).await
    }
}
