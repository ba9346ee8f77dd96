//! The chat-model interface the agent loop drives: one request in, one AI message out,
//! optionally reporting the reply's chunks as the provider produces them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::error::ModelError;
use crate::events::{Event, MessageEvent, MessagePayload, ModelInfo, NodeTrace, StepEmitter};
use crate::host::HostValue;
use crate::messages::{AiMessage, Message, SystemMessage};
use crate::state::AgentState;
use crate::tools::{HostContext, ToolSpec};

/// One model call: the model, the system message, the conversation, and the tools offered.
/// Middleware may change any of it before the call (LangChain's `ModelRequest.override`).
#[derive(Clone)]
pub struct ModelRequest {
    pub model: Arc<dyn ChatModel>,
    /// `None` when middleware removed it (`override(system_message=None)`): none is sent.
    pub system: Option<Arc<SystemMessage>>,
    /// Shared with the history and the request's copies until a middleware edits them.
    pub messages: crate::request_messages::Messages,
    pub tools: Arc<[ToolSpec]>,
    /// Where in `tools` the structured output's schema tools start, when it added some:
    /// LangChain adds them after the middleware, so the tool the caching breakpoint goes on
    /// (the middleware's last) is the one before.
    pub schema_tools_at: Option<usize>,
    /// `"any"` makes the model call a tool (structured output through a tool); `"auto"`,
    /// `"none"` or a tool's name as LangChain takes them.
    pub tool_choice: Option<String>,
    /// A provider-native structured-output format (LangChain's `ProviderStrategy` kwargs:
    /// `{"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}`).
    pub response_format: Option<Value>,
    /// A middleware's own structured output for this call (LangChain's
    /// `request.override(response_format=...)`), bound and parsed in place of the agent's:
    /// `Some(None)` for none. `None`: the agent's.
    pub format_override: Option<Option<Arc<dyn crate::structured::StructuredOutput>>>,
    /// Extra call parameters (LangChain's `model_settings`: `temperature`, ...), bound to
    /// the model for this call.
    pub model_settings: Map<String, Value>,
    /// The prompt-cache breakpoint marker (`{"type": "ephemeral", "ttl": "5m"}`) when the
    /// caching entry of the chain asked for breakpoints; the provider places them.
    /// Shared: the entry hands the same marker to every call.
    pub cache_control: Option<Arc<Value>>,
    /// The state the model step started from (what middleware sees as `request.state`).
    pub state: AgentState,
    /// Where the reply's chunks go when the caller streams tokens.
    pub tokens: Option<TokenSink>,
    /// The run's host context (for middleware written in the host language).
    pub host: HostContext,
    /// The model node's run, when the run is traced.
    pub trace: Option<NodeTrace>,
    /// The model node's place (see `NodePlace`).
    pub place: Option<crate::middleware::NodePlace>,
}

/// What of a request is shown to the host besides the call itself: the system message, the
/// messages and the tools (to a host model, or to a host token counter measuring it).
#[derive(Clone, Copy)]
pub struct RequestParts<'a> {
    pub system: Option<&'a Arc<SystemMessage>>,
    pub messages: &'a [Arc<Message>],
    /// The history `messages` are as read, if they are (see `Messages::read_from`).
    pub read_from: Option<&'a crate::history::History>,
    pub tools: &'a Arc<[ToolSpec]>,
}

impl ModelRequest {
    /// A request of `messages` with the agent's prompt and tools and nothing else set: no
    /// output format, settings, breakpoints, state, host or trace.
    pub fn new(
        model: Arc<dyn ChatModel>,
        system: Option<Arc<SystemMessage>>,
        messages: crate::request_messages::Messages,
        tools: Arc<[ToolSpec]>,
    ) -> Self {
        ModelRequest {
            model,
            system,
            messages,
            tools,
            schema_tools_at: None,
            tool_choice: None,
            response_format: None,
            format_override: None,
            model_settings: Map::new(),
            cache_control: None,
            state: AgentState::default(),
            tokens: None,
            host: None,
            trace: None,
            place: None,
        }
    }

    /// The request's parts, with `messages` in place of its own.
    pub fn parts_with<'a>(
        &'a self,
        messages: &'a crate::request_messages::Messages,
    ) -> RequestParts<'a> {
        RequestParts {
            system: self.system.as_ref(),
            messages,
            read_from: messages.read_from(),
            tools: &self.tools,
        }
    }
}

impl std::fmt::Debug for ModelRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRequest")
            .field("model", &self.model.id())
            .field("messages", &self.messages.len())
            .field("tools", &self.tools.len())
            .field("tool_choice", &self.tool_choice)
            .finish()
    }
}

/// A streamed call's chunks, each as the fields it was sent with.
pub type Chunks = Vec<Map<String, Value>>;

/// Receives a streamed reply's chunks and reports them as message events of the model step.
#[derive(Clone)]
pub struct TokenSink {
    emitter: StepEmitter,
    model: Option<Arc<ModelInfo>>,
    sent: Arc<AtomicBool>,
    /// LangChain's id for the call's chunks and the message they make: `lc_run--<run id>`.
    call_id: Arc<str>,
    /// The chunks sent, kept when the host makes the reply from them (`recording`).
    recorded: Option<Arc<parking_lot::Mutex<Chunks>>>,
}

impl TokenSink {
    pub fn new(emitter: StepEmitter) -> Self {
        TokenSink {
            emitter,
            model: None,
            sent: Arc::default(),
            call_id: Arc::from(""),
            recorded: None,
        }
    }

    /// The sink for one call of the model described by `model`.
    pub fn for_model(self, model: Arc<ModelInfo>) -> Self {
        TokenSink {
            model: Some(model),
            sent: Arc::default(),
            call_id: crate::run::new_id_between("lc_run--", "").into(),
            recorded: None,
            ..self
        }
    }

    /// The sink, keeping each chunk it sends (see `take_recorded`).
    pub fn recording(self) -> Self {
        TokenSink {
            recorded: Some(Arc::default()),
            ..self
        }
    }

    /// The chunks sent so far, when recording.
    pub fn take_recorded(&self) -> Option<Chunks> {
        self.recorded
            .as_ref()
            .map(|r| std::mem::take(&mut *r.lock()))
    }

    fn report(&self, payload: MessagePayload) {
        // A subagent's model streams whenever `messages` is asked for, but its chunks are
        // shown only with `subgraphs=True`.
        if !self.emitter.wants(crate::events::EventKind::Messages) {
            return;
        }
        self.emitter.emit(Event::Message(MessageEvent {
            node: "model".into(),
            payload,
            model: self.model.clone(),
        }));
    }

    /// A chunk in the host's own form.
    pub fn host_chunk(&self, chunk: HostValue) {
        self.sent.store(true, Ordering::Relaxed);
        self.report(MessagePayload::HostChunk(chunk));
    }

    /// A chunk the core made (LangChain `AIMessageChunk` fields), tagged with the call's id
    /// unless the provider gave it one (LangChain keeps a provider's id).
    pub fn native_chunk(&self, mut fields: Map<String, Value>) {
        self.sent.store(true, Ordering::Relaxed);
        if !fields.get("id").is_some_and(Value::is_string) {
            fields.insert("id".into(), Value::String(self.call_id.to_string()));
        }
        if let Some(recorded) = &self.recorded {
            recorded.lock().push(fields.clone());
        }
        self.report(MessagePayload::NativeChunk(fields));
    }

    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The whole reply of a call that did not stream.
    pub fn whole(&self, message: Arc<Message>) {
        self.report(MessagePayload::Whole(message));
    }

    /// Whether any chunk went out (else the whole reply is reported when it arrives).
    pub fn streamed(&self) -> bool {
        self.sent.load(Ordering::Relaxed)
    }
}

/// The fields of a model's profile (LangChain's `ModelProfile`) that say which content
/// blocks it takes as input; `None` where the profile does not say (taken).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputProfile {
    pub image_inputs: Option<bool>,
    pub audio_inputs: Option<bool>,
    pub video_inputs: Option<bool>,
    pub pdf_inputs: Option<bool>,
    /// Images and PDFs inside a tool message, which some providers gate apart.
    pub image_tool_message: Option<bool>,
    pub pdf_tool_message: Option<bool>,
    /// The MIME types of inline documents the model takes, which no profile field
    /// describes (OpenAI's file types, for an OpenAI model on the Responses API).
    pub inline_documents: Arc<[String]>,
}

/// A provider's generated table of profile input fields (see `from_fields`), by model name.
pub type InputProfiles = [(&'static str, [Option<bool>; 6])];

impl InputProfile {
    /// The profile `table` has for `model` (an exact name, as LangChain's lookups), or an
    /// empty one.
    pub fn lookup(table: &InputProfiles, model: &str) -> Self {
        table
            .iter()
            .find(|(id, _)| *id == model)
            .map(|(_, fields)| InputProfile::from_fields(*fields))
            .unwrap_or_default()
    }

    /// The six fields in the order above.
    pub fn from_fields(f: [Option<bool>; 6]) -> Self {
        InputProfile {
            image_inputs: f[0],
            audio_inputs: f[1],
            video_inputs: f[2],
            pdf_inputs: f[3],
            image_tool_message: f[4],
            pdf_tool_message: f[5],
            inline_documents: Arc::from(Vec::new()),
        }
    }
}

pub trait ChatModel: Send + Sync {
    /// `provider:name`, as deepagents names models (used in errors and profiles).
    fn id(&self) -> String;

    /// LangChain's tracing parameters of the model (`ls_provider`, `ls_model_name`, ...),
    /// reported in message metadata.
    fn ls_params(&self) -> Map<String, Value> {
        let id = self.id();
        let (provider, name) = id.split_once(':').unwrap_or(("", id.as_str()));
        let mut params = Map::new();
        params.insert("ls_provider".into(), json!(provider));
        params.insert("ls_model_name".into(), json!(name));
        params.insert("ls_model_type".into(), json!("chat"));
        params
    }

    /// One call. A model that can stream reports chunks to `request.tokens` when it is set.
    fn invoke(
        &self,
        request: ModelRequest,
        host: HostContext,
    ) -> BoxFuture<'static, Result<AiMessage, ModelError>>;

    /// Whether the model raises its own callbacks (a LangChain model, given the node's run
    /// as parent); the loop reports the others.
    fn traces_itself(&self) -> bool {
        false
    }

    /// Whether the model's requests read back a reply of its own made into LangChain's v1
    /// content blocks (`output_version: "v1"`) as the blocks it was made of; only then is a
    /// streamed reply made so under LangGraph's v3 stream (see `crate::host::ReplyShaper`).
    fn reads_v1_replies(&self) -> bool {
        false
    }

    /// Whether the model takes Anthropic prompt-cache breakpoints (deepagents' caching
    /// middleware acts only on such models).
    fn supports_prompt_cache(&self) -> bool {
        false
    }

    /// The model as the host's own object (a LangChain chat model), for middleware that
    /// looks at `request.model`.
    fn host_handle(&self) -> Option<HostValue> {
        None
    }

    /// The qualified names of the host object's classes (its MRO), for middleware that acts
    /// on some model classes only; a model the core calls itself has none.
    fn host_classes(&self) -> &[String] {
        &[]
    }

    /// Called when a run ends: drop whatever was kept for messages no longer in use.
    fn release_unused(&self) {}

    /// What the model's profile says it takes as input.
    fn input_profile(&self) -> InputProfile {
        InputProfile::default()
    }

    /// Whether the model's profile takes tools in the middle of the conversation
    /// (`mid_conversation_tools`), for a model the core calls itself; a host's model object
    /// answers for itself.
    fn mid_conversation_tools(&self) -> bool {
        false
    }
}
