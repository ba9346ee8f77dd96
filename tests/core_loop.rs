//! The agent loop in pure Rust, with a scripted model and native tools: no Python involved.

// Test helpers outside `#[test]` functions: a failed setup fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use deepagents_rs::agent::Agent;
use deepagents_rs::error::{Error, ModelError};
use deepagents_rs::history::History;
use deepagents_rs::messages::{AiMessage, Content, Message, SystemMessage, ToolCall, ToolStatus};
use deepagents_rs::middleware::{Chain, Hook, HookContext, HookOutput, Middleware};
use deepagents_rs::model::{ChatModel, ModelRequest};
use deepagents_rs::run::RunOptions;
use deepagents_rs::state::{AgentState, Jump, StateDelta};
use deepagents_rs::subagents::{ForkSpec, fork_history};
use deepagents_rs::tools::{
    HostContext, Tool, ToolContext, ToolError, ToolOutput, ToolSet, ToolSpec,
};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::{Value, json};

/// Replies from a script; records every request.
struct Scripted {
    replies: Mutex<Vec<AiMessage>>,
    requests: Mutex<Vec<ModelRequest>>,
    /// When set, every call asks for this tool (for recursion tests).
    forever: Option<ToolCall>,
}

impl Scripted {
    fn new(replies: Vec<AiMessage>) -> Arc<Self> {
        Arc::new(Scripted {
            replies: Mutex::new(replies.into_iter().rev().collect()),
            requests: Mutex::new(vec![]),
            forever: None,
        })
    }
}

impl ChatModel for Scripted {
    fn id(&self) -> String {
        "scripted:test".into()
    }

    fn invoke(
        &self,
        request: ModelRequest,
        _host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        self.requests.lock().push(request);
        let n = self.requests.lock().len();
        let reply = match &self.forever {
            Some(call) => Ok(calls(vec![ToolCall::new(
                &call.name,
                call.args.clone(),
                format!("c{n}"),
            )])),
            None => self
                .replies
                .lock()
                .pop()
                .ok_or_else(|| ModelError::Config("script exhausted".into())),
        };
        Box::pin(async move { reply })
    }
}

fn calls(tool_calls: Vec<ToolCall>) -> AiMessage {
    AiMessage {
        tool_calls,
        ..Default::default()
    }
}

fn say(text: &str) -> AiMessage {
    AiMessage {
        content: Content::Text(text.into()),
        ..Default::default()
    }
}

/// Sleeps, then echoes its `text` argument; counts how many calls ran at once.
struct Echo {
    spec: ToolSpec,
    running: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

impl Echo {
    fn new() -> Arc<Self> {
        Arc::new(Echo {
            spec: ToolSpec {
                name: "echo".into(),
                description: "Echo the text.".into(),
                parameters: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
                provider_definition: None,
                json_spec: false,
                json_dict: None,
                defer_loading: false,
            },
            running: Arc::default(),
            peak: Arc::default(),
        })
    }
}

impl Tool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(
        &self,
        args: Value,
        _ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let running = self.running.clone();
        let peak = self.peak.clone();
        Box::pin(async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
            running.fetch_sub(1, Ordering::SeqCst);
            match args.get("text").and_then(Value::as_str) {
                Some("fail") => Err(ToolError::Fatal("the tool broke".into())),
                Some(t) => Ok(ToolOutput::text(t)),
                None => Ok(ToolOutput::error("missing text")),
            }
        })
    }
}

fn agent(model: Arc<Scripted>, tool: Arc<Echo>) -> Agent {
    Agent::new(
        model,
        ToolSet::new(vec![tool]).unwrap(),
        SystemMessage::default(),
    )
}

fn input() -> AgentState {
    AgentState::with_messages([Message::human("hi")].into_iter().collect::<History>())
}

#[tokio::test]
async fn runs_tools_concurrently_and_keeps_call_order() {
    let model = Scripted::new(vec![
        calls(vec![
            ToolCall::new("echo", json!({"text": "a"}), "1"),
            ToolCall::new("echo", json!({"text": "b"}), "2"),
            ToolCall::new("nope", json!({}), "3"),
        ]),
        say("done"),
    ]);
    let tool = Echo::new();
    let (state, report) = agent(model.clone(), tool.clone())
        .run(input(), RunOptions::default())
        .await
        .unwrap();
    // Both echo calls were running at the same moment.
    assert_eq!(tool.peak.load(Ordering::SeqCst), 2);
    assert_eq!(report.model_calls, 2);
    let messages = state.messages.to_vec();
    let tool_results: Vec<(String, String, ToolStatus)> = messages
        .iter()
        .filter_map(|m| match m.as_ref() {
            Message::Tool(t) => Some((t.tool_call_id.clone(), t.content.text(), t.status.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        tool_results,
        vec![
            ("1".into(), "a".into(), ToolStatus::Success),
            ("2".into(), "b".into(), ToolStatus::Success),
            (
                "3".into(),
                "Error: nope is not a valid tool, try one of [echo].".into(),
                ToolStatus::Error
            ),
        ]
    );
    // Every message the run added got an id (the input's ids are the caller's business).
    assert!(messages[1..].iter().all(|m| m.id().is_some()));
    // The second request saw the whole first round.
    assert_eq!(model.requests.lock()[1].messages.len(), 5);
}

#[tokio::test]
async fn recursion_limit_counts_supersteps_like_langgraph() {
    // deepagents 0.7.32 observed: limit 1 -> 0 model calls, 2..3 -> 1, 4..5 -> 2, 6 -> 3.
    for (limit, expected_calls) in [(1, 0), (2, 1), (3, 1), (4, 2), (5, 2), (6, 3)] {
        let model = Arc::new(Scripted {
            replies: Mutex::new(vec![]),
            requests: Mutex::new(vec![]),
            forever: Some(ToolCall::new("echo", json!({"text": "x"}), "")),
        });
        let options = RunOptions {
            recursion_limit: limit,
            ..Default::default()
        };
        let failure = agent(model.clone(), Echo::new())
            .run(input(), options)
            .await
            .unwrap_err();
        assert!(matches!(failure.error, Error::RecursionLimit { limit: l } if l == limit));
        assert_eq!(model.requests.lock().len(), expected_calls, "limit {limit}");
    }
}

#[tokio::test]
async fn a_fatal_tool_error_keeps_the_state_so_far() {
    let model = Scripted::new(vec![calls(vec![ToolCall::new(
        "echo",
        json!({"text": "fail"}),
        "1",
    )])]);
    let failure = agent(model, Echo::new())
        .run(input(), RunOptions::default())
        .await
        .unwrap_err();
    assert!(matches!(failure.error, Error::Tool { ref tool, .. } if tool == "echo"));
    // The human message and the AI message that asked for the tool are both still there.
    assert_eq!(failure.state.messages.len(), 2);
}

#[test]
fn duplicate_tool_names_are_rejected() {
    let err = ToolSet::new(vec![Echo::new(), Echo::new()]).err().unwrap();
    assert!(err.to_string().contains("duplicate tool name 'echo'"));
}

/// Asks for one more attempt the first time the agent would stop: an `after_agent` node
/// with a declared jump to the model (deepagents' rubric grader works this way).
struct OneMoreAttempt {
    asked: AtomicUsize,
}

impl Middleware for OneMoreAttempt {
    fn name(&self) -> &str {
        "OneMoreAttempt"
    }

    fn has_hook(&self, hook: Hook) -> bool {
        hook == Hook::AfterAgent
    }

    fn run_hook(
        &self,
        _hook: Hook,
        _cx: HookContext,
    ) -> BoxFuture<'static, Result<Option<HookOutput>, Error>> {
        let first = self.asked.fetch_add(1, Ordering::SeqCst) == 0;
        Box::pin(async move {
            Ok(first.then(|| HookOutput {
                delta: StateDelta {
                    jump_to: Some(Jump::Model),
                    ..StateDelta::append(vec![Message::human("try again")])
                },
                reported: None,
                jump_declared: true,
            }))
        })
    }
}

#[tokio::test]
async fn a_declared_jump_from_after_agent_goes_back_to_the_model() {
    let model = Scripted::new(vec![say("first"), say("second")]);
    let mut agent = agent(model.clone(), Echo::new());
    let entry = Arc::new(OneMoreAttempt {
        asked: AtomicUsize::new(0),
    });
    agent.chain = Chain::new(vec![entry.clone()]).unwrap();
    let (state, report) = agent.run(input(), RunOptions::default()).await.unwrap();
    assert_eq!(report.model_calls, 2);
    assert_eq!(entry.asked.load(Ordering::SeqCst), 2);
    let texts: Vec<String> = state
        .messages
        .to_vec()
        .iter()
        .map(|m| m.content().text())
        .collect();
    assert_eq!(texts, ["hi", "first", "try again", "second"]);
}

#[tokio::test]
async fn a_profile_layer_hides_and_refuses_excluded_tools_and_drops_excluded_slots() {
    use deepagents_rs::agent::{StackKind, StackParts};
    use deepagents_rs::middleware::ProfileLayer;

    let model = Scripted::new(vec![
        calls(vec![
            ToolCall::new("echo", json!({"text": "a"}), "1"),
            ToolCall::new("hidden", json!({}), "2"),
        ]),
        say("done"),
    ]);
    let mut hidden = Echo::new();
    Arc::get_mut(&mut hidden).unwrap().spec.name = "hidden".into();
    let parts = StackParts {
        profile: ProfileLayer {
            excluded: vec!["PatchToolCallsMiddleware".into()],
            excluded_tools: vec!["hidden".into()],
            ..Default::default()
        },
        ..Default::default()
    };
    let agent = Agent::from_parts(
        StackKind::Main,
        parts,
        model.clone(),
        vec![Echo::new(), hidden],
        SystemMessage::default(),
    )
    .unwrap();
    let names: Vec<&str> = agent.chain.entries().iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        [
            "_ParentNotifierMiddleware",
            "AnthropicPromptCachingMiddleware",
            "UnsupportedContentMiddleware",
            "_ToolExclusionMiddleware"
        ]
    );
    let (state, _) = agent.run(input(), RunOptions::default()).await.unwrap();
    // The model is never offered the excluded tool, and its call is refused.
    let offered: Vec<String> = model.requests.lock()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["echo"]);
    let refusal = state.messages.to_vec()[3].clone();
    match refusal.as_ref() {
        Message::Tool(t) => {
            assert_eq!(t.content.text(), "Error: hidden is not available.");
            assert_eq!(t.status, ToolStatus::Error);
            assert_eq!(t.name.as_deref(), Some("hidden"));
        }
        other => panic!("expected the refusal, got {other:?}"),
    }
}

/// A tool other than `task` that forks the agent calling it through `RunScope::agent` (the
/// `Spawner` the agent hands its tools) and answers with the fork's reply.
struct AskAFork {
    spec: ToolSpec,
    model: Arc<Scripted>,
}

impl Tool for AskAFork {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(
        &self,
        _args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let model = self.model.clone();
        Box::pin(async move {
            let spec = ForkSpec {
                model: Some(model),
                ..Default::default()
            };
            let fork = ctx
                .run
                .agent
                .fork("helper", &spec, None)
                .map_err(|e| ToolError::Fatal(Box::new(e)))?;
            let history = fork_history(&ctx.run.history, "sum it up", None);
            let options = RunOptions {
                forked: true,
                ..Default::default()
            };
            let (state, _) = fork
                .run(AgentState::with_messages(history), options)
                .await
                .map_err(|f| ToolError::Fatal(Box::new(f.error)))?;
            let answer = state.messages.last().map(|m| m.content().text());
            Ok(ToolOutput::text(answer.unwrap_or_default()))
        })
    }
}

#[tokio::test]
async fn a_tool_forks_its_caller_through_the_spawner() {
    let caller_model = Scripted::new(vec![
        calls(vec![ToolCall::new("ask_a_fork", json!({}), "1")]),
        say("done"),
    ]);
    let fork_model = Scripted::new(vec![say("the fork's answer")]);
    let tool = Arc::new(AskAFork {
        spec: ToolSpec {
            name: "ask_a_fork".into(),
            description: "Ask a fork of yourself.".into(),
            parameters: json!({"type": "object", "properties": {}}),
            provider_definition: None,
            json_spec: false,
            json_dict: None,
            defer_loading: false,
        },
        model: fork_model.clone(),
    });
    let agent = Agent::new(
        caller_model.clone(),
        ToolSet::new(vec![tool, Echo::new()]).unwrap(),
        SystemMessage::default(),
    );
    let (state, _) = agent.run(input(), RunOptions::default()).await.unwrap();
    let msgs = state.messages.to_vec();
    assert_eq!(msgs[2].content().text(), "the fork's answer");
    assert_eq!(msgs[3].content().text(), "done");
    // The fork continued the caller's conversation without its delegating turn, with the
    // caller's tools, on its own model.
    let requests = fork_model.requests.lock();
    assert_eq!(requests.len(), 1);
    let seen: Vec<String> = requests[0]
        .messages
        .iter()
        .map(|m| m.content().text())
        .collect();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], "hi");
    assert!(seen[1].ends_with("sum it up"), "{seen:?}");
    let names = |tools: &[ToolSpec]| tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&requests[0].tools),
        names(&caller_model.requests.lock()[0].tools)
    );
    assert_eq!(caller_model.requests.lock().len(), 2);
}
