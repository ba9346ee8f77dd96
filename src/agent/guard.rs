//! A run whose panics end the run, not the caller: the host's entry points use it so a bug
//! in the core becomes an error the user can catch and the agent stays usable.

use futures::FutureExt;

use super::{Agent, RunFailure, RunOptions, RunReport};
use crate::error::{Error, panic_text};
use crate::state::AgentState;

impl Agent {
    /// `run`, with a panic anywhere inside it (a tool, a hook, the loop) ending the run as
    /// `Error::Internal`; the input state comes back as the run's state.
    pub async fn run_guarded(
        &self,
        state: AgentState,
        options: RunOptions,
    ) -> Result<(AgentState, RunReport), RunFailure> {
        let input = state.clone();
        // Nothing the run shares outlives it half-updated: the agent's own fields are
        // immutable, and its caches are dropped or rebuilt per message.
        match std::panic::AssertUnwindSafe(self.run(state, options))
            .catch_unwind()
            .await
        {
            Ok(outcome) => outcome,
            Err(payload) => Err(RunFailure {
                error: Error::Internal(panic_text(payload)),
                state: input,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::future::BoxFuture;
    use serde_json::{Value, json};

    use super::*;
    use crate::error::ModelError;
    use crate::messages::{AiMessage, HumanMessage, Message, SystemMessage, ToolCall};
    use crate::model::{ChatModel, ModelRequest};
    use crate::tools::{HostContext, Tool, ToolContext, ToolError, ToolOutput, ToolSet, ToolSpec};

    /// Calls `explode` on its first call, then answers "done".
    struct Scripted(AtomicUsize);

    impl ChatModel for Scripted {
        fn id(&self) -> String {
            "test:scripted".into()
        }
        fn invoke(
            &self,
            _: ModelRequest,
            _: HostContext,
        ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
            let n = self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                Ok(if n == 0 {
                    AiMessage {
                        tool_calls: vec![ToolCall {
                            name: "explode".into(),
                            args: json!({}),
                            id: Some("call_1".into()),
                            r#type: "tool_call".into(),
                            args_origin: None,
                        }],
                        ..Default::default()
                    }
                } else {
                    AiMessage {
                        content: "done".into(),
                        ..Default::default()
                    }
                })
            })
        }
    }

    struct Explode(ToolSpec);

    impl Tool for Explode {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn call(
            &self,
            _: Value,
            _: ToolContext,
        ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
            Box::pin(async { panic!("the tool's bug") })
        }
    }

    fn agent() -> Agent {
        let spec = ToolSpec {
            name: "explode".into(),
            description: "Panics.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            provider_definition: None,
            json_spec: false,
            json_dict: None,
            defer_loading: false,
        };
        let tools = ToolSet::new(vec![Arc::new(Explode(spec)) as Arc<dyn Tool>]).expect("tools");
        Agent::new(
            Arc::new(Scripted(AtomicUsize::new(0))),
            tools,
            SystemMessage::default(),
        )
    }

    fn hi() -> AgentState {
        AgentState::with_messages(
            [Message::Human(HumanMessage {
                content: "hi".into(),
                ..Default::default()
            })]
            .into_iter()
            .collect(),
        )
    }

    #[tokio::test]
    async fn a_panic_inside_a_run_ends_it_as_an_internal_error_and_the_agent_runs_again() {
        let agent = agent();
        let failure = agent
            .run_guarded(hi(), RunOptions::default())
            .await
            .expect_err("the tool panicked");
        assert!(
            matches!(&failure.error, Error::Internal(text) if text == "the tool's bug"),
            "{:?}",
            failure.error
        );
        assert_eq!(
            failure.state.messages.len(),
            1,
            "the input state comes back"
        );
        // The same agent (its model now past the tool call) finishes the next run.
        let (state, _) = agent
            .run_guarded(hi(), RunOptions::default())
            .await
            .expect("a clean run");
        let last = state.messages.to_vec().last().cloned().expect("a reply");
        assert_eq!(last.content().text(), "done");
    }
}
