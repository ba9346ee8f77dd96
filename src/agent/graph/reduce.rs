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

    /// A tools step whose calls wrote keys with a reducer: LangGraph's edge after each call
    /// reads the step's state with that call's writes alone (its `local_read`), so a reducer
    /// fails there on one call's write, folded onto the step's state, before the step's
    /// writes are folded together. Only when more than one call wrote such keys: with one,
    /// that read is the step's own fold.
    pub(super) async fn fold_each_call(
        &self,
        state: &AgentState,
        results: &[crate::tools::ToolResult],
        run: &Run<'_>,
    ) -> Result<(), Error> {
        let Some(reducers) = self.reducers.get() else {
            return Ok(());
        };
        let own: Vec<_> = results
            .iter()
            .filter_map(|r| r.extra.as_ref().map(|e| reducers.writes_in(e)))
            .filter(|w| !w.is_empty())
            .collect();
        if own.len() < 2 {
            return Ok(());
        }
        for writes in own {
            reducers.fold(state, writes, &run.options.host).await?;
        }
        Ok(())
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
