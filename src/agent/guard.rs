//! A run whose panics end the run, not the caller: the host's entry points use it so a bug
//! in the core becomes an error the user can catch and the agent stays usable.

use std::sync::Arc;

use futures::FutureExt;

use super::{Agent, RunFailure, RunOptions, RunReport};
use crate::error::{Error, panic_text};
use crate::state::AgentState;

impl Agent {
    /// `run`, with a panic anywhere inside it (a tool, a hook, the loop) ending the run as
    /// `Error::Internal`; the input state comes back as the run's state, without its files
    /// (`RunFailure::files_dropped`: the caller holds them).
    ///
    /// Not an `async fn`: one keeps its arguments in its state beside the run that took
    /// them (~500 bytes held by every conversation in flight); this future holds the run and
    /// the input kept for a panic, once each.
    pub fn run_guarded(
        &self,
        state: AgentState,
        options: RunOptions,
    ) -> impl Future<Output = Result<(AgentState, RunReport), RunFailure>> {
        // Everything but the files is cheap to keep (shared history, host references); the
        // files map is not kept, so the run owns it alone and writes it in place.
        let input = AgentState {
            files: Arc::default(),
            files_host: Arc::default(),
            ..state.clone()
        };
        // Nothing the run shares outlives it half-updated: the agent's own fields are
        // immutable, and its caches are dropped or rebuilt per message.
        let run = std::panic::AssertUnwindSafe(self.run(state, options)).catch_unwind();
        async move {
            match run.await {
                Ok(outcome) => outcome,
                Err(payload) => Err(RunFailure {
                    error: Error::Internal(panic_text(payload)),
                    state: input,
                    files_dropped: true,
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use futures::future::BoxFuture;
    use serde_json::{Value, json};

    use super::*;
    use crate::error::ModelError;
    use crate::messages::{AiMessage, HumanMessage, Message, SystemMessage};
    use crate::model::{ChatModel, ModelRequest};
    use crate::tools::{HostContext, Tool, ToolContext, ToolError, ToolOutput, ToolSet, ToolSpec};

    type Call = fn() -> BoxFuture<'static, Result<ToolOutput, ToolError>>;

    /// Calls its one tool on its first call, then answers "done".
    struct Scripted(AtomicUsize, &'static str);

    impl ChatModel for Scripted {
        fn id(&self) -> String {
            "test:scripted".into()
        }
        fn invoke(
            &self,
            _: ModelRequest,
            _: HostContext,
        ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
            let first = self.0.fetch_add(1, Ordering::SeqCst) == 0;
            let tool = self.1;
            Box::pin(async move {
                Ok(crate::agent::step_copies::call_or_done(
                    first.then(|| (tool, json!({}))),
                ))
            })
        }
    }

    struct TestTool(ToolSpec, Call);

    impl Tool for TestTool {
        fn spec(&self) -> &ToolSpec {
            &self.0
        }
        fn call(
            &self,
            _: Value,
            _: ToolContext,
        ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
            (self.1)()
        }
    }

    /// An agent whose model calls `name` once, answered by `call`.
    fn agent(name: &'static str, call: Call) -> Agent {
        let spec = ToolSpec {
            name: name.into(),
            description: "A test tool.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            provider_definition: None,
            json_spec: false,
            json_dict: None,
            defer_loading: false,
        };
        let tools =
            ToolSet::new(vec![Arc::new(TestTool(spec, call)) as Arc<dyn Tool>]).expect("tools");
        Agent::new(
            Arc::new(Scripted(AtomicUsize::new(0), name)),
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
        let agent = agent("explode", || Box::pin(async { panic!("the tool's bug") }));
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
        assert!(
            failure.files_dropped,
            "without its files: the caller holds them"
        );
        // The same agent (its model now past the tool call) finishes the next run.
        let (state, _) = agent
            .run_guarded(hi(), RunOptions::default())
            .await
            .expect("a clean run");
        let last = state.messages.to_vec().last().cloned().expect("a reply");
        assert_eq!(last.content().text(), "done");
    }

    #[tokio::test]
    async fn the_run_writes_its_input_files_in_place() {
        // The guard keeps no share of the input's files: a shared map would be copied whole
        // by the run's first write (13 ms at 10,000 files).
        let agent = agent("write", || {
            Box::pin(async {
                let mut entries = serde_json::Map::new();
                entries.insert("/b".into(), json!({"content": "b"}));
                Ok(ToolOutput {
                    content: "written".into(),
                    files: Some(entries.into()),
                    ..Default::default()
                })
            })
        });
        let mut input = hi();
        let mut files = serde_json::Map::new();
        files.insert("/a".into(), json!({"content": "a"}));
        input.files = Arc::new(files);
        let before = Arc::as_ptr(&input.files);
        let (state, _) = agent
            .run_guarded(input, RunOptions::default())
            .await
            .expect("a clean run");
        assert_eq!(
            state.files.keys().collect::<Vec<_>>(),
            ["/a", "/b"],
            "the write is in the output"
        );
        assert_eq!(
            Arc::as_ptr(&state.files),
            before,
            "written in place, not copied"
        );
    }
}
