//! Micro-benchmarks of the core's hot paths, in pure Rust (no Python): what one model call
//! costs the harness before and after the network. `cargo bench --bench micro` measures;
//! `cargo test --benches` (run by `.ci/run`) runs each once so they cannot rot.
//!
//! The histories are a task followed by tool-calling turns, as an agent's grow: an assistant
//! turn calling `read_file`, then the tool's result of a few hundred characters.

// A benchmark whose setup fails should stop loudly, not measure something else.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use deepagents_rs::history::History;
use deepagents_rs::messages::{AiMessage, Content, HumanMessage, Message, SystemMessage, ToolCall};
use deepagents_rs::middleware::PatchToolCalls;
use deepagents_rs::model::ModelRequest;
use deepagents_rs::providers::SseParser;
use deepagents_rs::providers::anthropic::{AnthropicChat, AnthropicConfig, StreamAssembler};
use deepagents_rs::providers::openai::{OpenAiApi, OpenAiChat, OpenAiConfig};
use deepagents_rs::subagents::fork_history;
use deepagents_rs::summarization::tokens::Counter;
use deepagents_rs::tools::ToolSpec;
use divan::{Bencher, black_box};
use serde_json::json;

fn main() {
    divan::main();
}

/// A conversation of `n` messages: the task, then (assistant tool call, tool result) pairs.
fn history(n: usize) -> History {
    let mut h = History::new();
    h.push(Message::Human(HumanMessage {
        content: "Read the project's files and summarise what each module does.".into(),
        id: Some("h0".into()),
        ..Default::default()
    }));
    let mut i = 0;
    while h.len() < n {
        let id = format!("toolu_{i:020}");
        h.push(Message::Ai(AiMessage {
            content: Content::Text(format!("Reading file number {i} next.")),
            tool_calls: vec![ToolCall::new(
                "read_file",
                json!({"file_path": format!("/src/module_{i}.rs"), "offset": 0, "limit": 100}),
                id.clone(),
            )],
            id: Some(format!("msg_{i}")),
            ..Default::default()
        }));
        let text: String = (1..=8)
            .map(|l| format!("{l:>6}\tfn item_{i}_{l}(x: u64) -> u64 {{ x * {l} }}\n"))
            .collect();
        // Read as the binding reads a LangChain message: every other field at its default.
        let tool: Message = serde_json::from_value(json!({
            "type": "tool", "content": text, "tool_call_id": id, "name": "read_file",
            "status": "success", "id": format!("tool_{i}"),
        }))
        .expect("tool message");
        h.push(tool);
        i += 1;
    }
    h
}

/// deepagents' built-in tools' shape: a name, a paragraph of description, a small schema.
fn tools() -> Arc<[ToolSpec]> {
    [
        "ls",
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "task",
    ]
    .iter()
    .map(|name| ToolSpec {
        name: (*name).into(),
        description: format!("The {name} tool. ").repeat(40),
        parameters: json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path."},
                "offset": {"type": "integer", "default": 0},
                "limit": {"type": "integer", "default": 100},
            },
            "required": ["file_path"],
        }),
        provider_definition: None,
        json_spec: false,
        json_dict: None,
        defer_loading: false,
    })
    .collect()
}

fn request(model: Arc<dyn deepagents_rs::model::ChatModel>, n: usize) -> ModelRequest {
    let system = Arc::new(SystemMessage {
        content: "You are a deep agent. ".repeat(200).into(),
        ..Default::default()
    });
    let messages = history(n).to_vec().into();
    ModelRequest {
        cache_control: Some(Arc::new(json!({"type": "ephemeral", "ttl": "5m"}))),
        ..ModelRequest::new(model, Some(system), messages, tools())
    }
}

const SIZES: &[usize] = &[10, 200, 2000];

/// A client of the Messages API at an address nothing listens on (no request is sent).
fn anthropic_config() -> AnthropicConfig {
    AnthropicConfig::new(
        "claude-sonnet-4-5",
        Some("k".into()),
        Some("http://127.0.0.1:9".into()),
    )
    .expect("config")
}

/// The request body of one Anthropic Messages call, serialized.
#[divan::bench(args = SIZES)]
fn request_anthropic(bencher: Bencher, n: usize) {
    let config = anthropic_config();
    let chat = Arc::new(AnthropicChat::new(config).expect("client"));
    let request = request(chat.clone(), n);
    bencher.bench(|| {
        chat.request_payload(black_box(&request), false)
            .expect("body")
    });
}

/// A fork's first request body, after its caller's last: the caller's turns are written
/// from the bytes kept when it sent them, and only the task's turn is rendered.
#[divan::bench(args = [10, 1000, 10000])]
fn request_anthropic_fork(bencher: Bencher, n: usize) {
    let config = anthropic_config();
    let parent = history(n);
    let fork = fork_history(&parent, "Summarise module 3.", None).to_vec();
    bencher
        .with_inputs(|| {
            let chat = Arc::new(AnthropicChat::new(config.clone()).expect("client"));
            let mut caller = request(chat.clone(), n);
            // The caller's last request: its messages before the reply that called `task`.
            caller.messages = fork[..fork.len() - 1].to_vec().into();
            chat.request_payload(&caller, false).expect("body");
            caller.messages = fork.clone().into();
            (chat, caller)
        })
        .bench_values(|(chat, fork)| chat.request_payload(black_box(&fork), false).expect("body"));
}

/// The request body of one OpenAI Responses call, serialized.
#[divan::bench(args = SIZES)]
fn request_openai_responses(bencher: Bencher, n: usize) {
    let config = OpenAiConfig::new(
        "gpt-5.4",
        OpenAiApi::Responses,
        Some("k".into()),
        Some("http://127.0.0.1:9/v1".into()),
    )
    .expect("config");
    let chat = Arc::new(OpenAiChat::new(config).expect("client"));
    let request = request(chat.clone(), n);
    bencher.bench(|| {
        chat.request_payload(black_box(&request), false)
            .expect("body")
    });
}

/// An Anthropic streamed reply of `n` text deltas then a tool call, as the API sends it.
fn anthropic_stream(n: usize) -> Vec<u8> {
    let mut s = String::new();
    let mut event = |name: &str, data: serde_json::Value| {
        s.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1000, "output_tokens": 1}}}),
    );
    event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    for i in 0..n {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": format!("word{i} ")}}),
        );
    }
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}}}),
    );
    for part in [r#"{"file_pa"#, r#"th": "/src/"#, r#"lib.rs"}"#] {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": part}}),
        );
    }
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 1}),
    );
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 50}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    s.into_bytes()
}

/// SSE parsing and assembly of a streamed Anthropic reply, fed in 1 KiB network reads.
#[divan::bench(args = [10, 500])]
fn sse_anthropic_reply(bencher: Bencher, deltas: usize) {
    let bytes = anthropic_stream(deltas);
    bencher.bench(|| {
        let mut parser = SseParser::default();
        let mut assembler = StreamAssembler::new(false);
        for chunk in black_box(&bytes).chunks(1024) {
            for event in parser.feed(chunk) {
                assembler.event(&event).expect("event");
            }
        }
        assembler.finish().expect("reply")
    });
}

/// A fork's starting conversation from a parent whose last turn is the `task` call.
#[divan::bench(args = [10, 1000, 10000])]
fn fork_start(bencher: Bencher, n: usize) {
    let parent = history(n);
    bencher.bench(|| fork_history(black_box(&parent), "Summarise module 3.", None));
}

/// The run-start look for tool calls without a result (`PatchToolCalls`), on a history seen
/// for the first time: every message ...
#[divan::bench(args = [10, 1000, 10000])]
fn dangling_calls_first_look(bencher: Bencher, n: usize) {
    let parent = history(n);
    bencher
        .with_inputs(PatchToolCalls::default)
        .bench_values(|patch| patch.any_dangling(black_box(&parent)));
}

/// ... and a fork's, after its caller's was found clean: the fork's own messages only.
#[divan::bench(args = [10, 1000, 10000])]
fn dangling_calls_fork_look(bencher: Bencher, n: usize) {
    let parent = history(n);
    let patch = PatchToolCalls::default();
    assert!(!patch.any_dangling(&parent));
    let fork = fork_history(&parent, "Summarise module 3.", None);
    bencher.bench(|| patch.any_dangling(black_box(&fork)));
}

/// The summarization trigger's count of a whole request, the first time (every message
/// measured) ...
#[divan::bench(args = SIZES)]
fn tokens_first_count(bencher: Bencher, n: usize) {
    let messages = history(n).to_vec();
    let tools = tools();
    bencher.bench(|| {
        let counter = Counter::new(3.3);
        let chars = counter.tools_chars(&tools);
        counter.count(None, black_box(&messages), Some(chars))
    });
}

/// ... and on a later step, where only new messages are measured.
#[divan::bench(args = SIZES)]
fn tokens_next_step(bencher: Bencher, n: usize) {
    let messages = history(n).to_vec();
    let tools = tools();
    let counter = Counter::new(3.3);
    counter.count(None, &messages, Some(counter.tools_chars(&tools)));
    bencher.bench(|| {
        let chars = counter.tools_chars(&tools);
        counter.count(None, black_box(&messages), Some(chars))
    });
}

/// A fork's first count, after its caller's last: the fork's conversation is the caller's
/// with the task behind it, so only the task is added up, whatever the caller's length.
#[divan::bench(args = [10, 1000, 10000])]
fn tokens_fork_first_count(bencher: Bencher, n: usize) {
    let parent = history(n);
    let fork = fork_history(&parent, "Summarise module 3.", None).to_vec();
    // The caller's last request: its messages before the reply that called `task`.
    let caller = fork[..fork.len() - 1].to_vec();
    bencher
        .with_inputs(|| {
            let counter = Counter::new(3.3);
            counter.count(None, &caller, None);
            counter
        })
        .bench_values(|counter| counter.count(None, black_box(&fork), None));
}
