//! What a step copies: a call's arguments reach the tool without being copied for each
//! hand-over (the request, the tool's own argument value, a trace never taken), the tool's
//! answer moves into the state, and the system message the entries edit is edited once, not
//! on every model call. A test module: the test build's allocator counts the bytes (see
//! `heap_count`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::{Value, json};

use super::{Agent, RunOptions};
use crate::error::ModelError;
use crate::heap_count::allocated_by;
use crate::messages::{AiMessage, Content, HumanMessage, Message, SystemMessage, ToolCall};
use crate::middleware::{AnthropicPromptCaching, Middleware};
use crate::model::{ChatModel, ModelRequest};
use crate::state::AgentState;
use crate::tools::{HostContext, Tool, ToolContext, ToolError, ToolOutput, ToolSpec};

/// The arguments' one text: large, so that each copy of it stands out of everything else
/// the run allocates.
const TEXT: usize = 1 << 20;

/// A scripted model's reply: its call of a tool with these arguments (the first reply), or
/// "done" (a later one).
pub(super) fn call_or_done(call: Option<(&str, serde_json::Value)>) -> AiMessage {
    if let Some((tool, args)) = call {
        AiMessage {
            tool_calls: vec![ToolCall {
                name: tool.into(),
                args,
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
    }
}

/// Calls `echo` once with `TEXT` bytes of text, then answers "done"; keeps the system
/// message of each request. Takes Anthropic's cache breakpoints.
#[derive(Default)]
struct CallsOnce {
    calls: AtomicUsize,
    systems: Mutex<Vec<Option<Arc<SystemMessage>>>>,
}

impl ChatModel for CallsOnce {
    fn id(&self) -> String {
        "test:calls-once".into()
    }
    fn supports_prompt_cache(&self) -> bool {
        true
    }
    fn invoke(
        &self,
        request: ModelRequest,
        _: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>> {
        self.systems.lock().push(request.system);
        let first = self.calls.fetch_add(1, Ordering::SeqCst) == 0;
        Box::pin(async move {
            // The arguments made for the first reply only (the test counts their copies).
            Ok(call_or_done(
                first.then(|| ("echo", json!({"text": "x".repeat(TEXT)}))),
            ))
        })
    }
}

/// Answers with the text it was given (moved, not copied).
struct Echo(ToolSpec);

impl Tool for Echo {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }
    fn call(
        &self,
        mut args: Value,
        _: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let text = match args["text"].take() {
            Value::String(text) => text,
            _ => String::new(),
        };
        Box::pin(async move {
            Ok(ToolOutput {
                content: text.into(),
                ..Default::default()
            })
        })
    }
}

/// A run of `model` with `echo` and Anthropic's prompt caching, on "hi": its final state,
/// and the bytes it allocated.
fn run(model: Arc<CallsOnce>) -> (AgentState, usize) {
    let spec = ToolSpec {
        name: "echo".into(),
        description: "Echoes.".into(),
        parameters: json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        provider_definition: None,
        json_spec: false,
        json_dict: None,
        defer_loading: false,
    };
    let caching: Arc<dyn Middleware> = Arc::new(AnthropicPromptCaching::default());
    let agent = Agent::assemble(
        model,
        vec![caching],
        vec![Arc::new(Echo(spec)) as Arc<dyn Tool>],
        SystemMessage {
            content: "You are a test.".into(),
            ..Default::default()
        },
    )
    .expect("an agent");
    let input = AgentState::with_messages(
        [Message::Human(HumanMessage {
            content: "hi".into(),
            ..Default::default()
        })]
        .into_iter()
        .collect(),
    );
    // One thread runs everything, so the allocator's count for it is the run's.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // The failure as text: the closure's result stays small.
    let (result, allocated) = allocated_by(|| {
        runtime
            .block_on(agent.run_guarded(input, RunOptions::default()))
            .map_err(|failure| format!("{:?}", failure.error))
    });
    (result.expect("a clean run").0, allocated)
}

#[test]
fn a_tool_step_copies_the_arguments_once() {
    let (state, allocated) = run(Arc::default());
    let messages = state.messages.to_vec();
    let answer = messages[2].content().text();
    assert!(
        answer.len() == TEXT && answer.bytes().all(|b| b == b'x'),
        "the tool answered with the text"
    );
    assert_eq!(messages[3].content().text(), "done");
    // The model makes the text once and the step takes its own copy of the pending calls
    // (the AI message keeps them in the history); one more is made outside the hand-overs
    // this pins (not yet traced: the reply's way into the state, or the answer's content).
    // The request, the tool's argument value, the untraced trace copy and the answer's
    // ToolMessage made four more before the calls and results were moved, and the edge
    // after the model one more (the pending calls copied only to see whether there were any).
    let copies = allocated / TEXT;
    assert_eq!(copies, 3, "{allocated} bytes allocated");
}

#[test]
fn the_system_message_is_tagged_once_for_every_model_call() {
    let model = Arc::new(CallsOnce::default());
    run(model.clone());
    let systems = model.systems.lock();
    let [Some(first), Some(second)] = &systems[..] else {
        panic!("two calls with a system message: {systems:?}");
    };
    assert_eq!(
        first.content,
        Content::Blocks(vec![json!({
            "type": "text",
            "text": "You are a test.",
            "cache_control": {"type": "ephemeral", "ttl": "5m"}
        })])
    );
    assert!(
        Arc::ptr_eq(first, second),
        "the second call's is the first's"
    );
}
