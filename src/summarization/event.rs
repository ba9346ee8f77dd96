//! The summarization event kept in state (`_summarization_event`): where the summarized part
//! of the conversation ends and the summary that stands for it. The raw history stays in
//! state; every model call sees `[summary, *messages[cutoff_index:]]`.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use super::texts;
use crate::host::Opaque;
use crate::messages::{AiMessage, Content, HumanMessage, Message};

pub const EVENT_KEY: &str = "_summarization_event";
pub const SESSION_KEY: &str = "_summarization_session_id";

#[derive(Clone, Debug)]
pub struct Event {
    pub cutoff_index: usize,
    pub summary: Arc<Message>,
    pub file_path: Option<String>,
    /// `len(state.messages)` when the event was made: messages kept from before it lose
    /// their bound reasoning. Absent in events written by older versions.
    pub created_at_index: Option<usize>,
}

impl Event {
    /// The event in a state value, if it is one the core can read. A malformed event is
    /// ignored, as deepagents ignores it (with a warning).
    pub fn read(value: Option<&Opaque>) -> Option<Event> {
        let Some(Opaque::Record(r)) = value else {
            if value.is_some_and(|v| !matches!(v, Opaque::Json(Value::Null))) {
                tracing::warn!("Malformed _summarization_event: not a readable record");
            }
            return None;
        };
        let index = |k: &str| {
            r.get(k)
                .and_then(Opaque::as_json)
                .and_then(Value::as_u64)
                .map(|n| n as usize)
        };
        let (Some(cutoff_index), Some(Opaque::Message(summary))) =
            (index("cutoff_index"), r.get("summary_message"))
        else {
            tracing::warn!("Malformed _summarization_event (missing keys)");
            return None;
        };
        Some(Event {
            cutoff_index,
            summary: summary.clone(),
            file_path: r
                .get("file_path")
                .and_then(Opaque::as_json)
                .and_then(Value::as_str)
                .map(str::to_owned),
            created_at_index: index("created_at_index"),
        })
    }

    pub fn to_opaque(&self) -> Opaque {
        let mut r = IndexMap::new();
        r.insert(
            "cutoff_index".into(),
            Opaque::Json(json!(self.cutoff_index)),
        );
        r.insert(
            "summary_message".into(),
            Opaque::Message(self.summary.clone()),
        );
        r.insert(
            "file_path".into(),
            Opaque::Json(self.file_path.clone().map_or(Value::Null, Value::String)),
        );
        if let Some(i) = self.created_at_index {
            r.insert("created_at_index".into(), Opaque::Json(json!(i)));
        }
        Opaque::Record(Arc::new(r))
    }
}

/// `_apply_event_to_messages`: the conversation the model sees.
pub fn apply(event: Option<&Event>, messages: &[Arc<Message>]) -> Vec<Arc<Message>> {
    let Some(event) = event else {
        return messages.to_vec();
    };
    if event.cutoff_index > messages.len() {
        tracing::warn!(
            "Summarization cutoff_index {} exceeds message count {}; remaining slice will be empty",
            event.cutoff_index,
            messages.len()
        );
        return vec![event.summary.clone()];
    }
    let kept_from = event.created_at_index.unwrap_or(event.cutoff_index);
    let mut out = Vec::with_capacity(messages.len() - event.cutoff_index + 1);
    out.push(event.summary.clone());
    for (i, m) in messages.iter().enumerate().skip(event.cutoff_index) {
        out.push(if i < kept_from {
            drop_bound_reasoning(m)
        } else {
            m.clone()
        });
    }
    out
}

/// The reasoning block types of `ai` that are bound to the conversation before them (only
/// Claude binds reasoning so, natively or on Bedrock).
fn bound_types(ai: &AiMessage) -> &'static [&'static str] {
    const NATIVE: &[&str] = &["thinking", "redacted_thinking", "reasoning_content"];
    const CLAUDE: &[&str] = &[
        "thinking",
        "redacted_thinking",
        "reasoning_content",
        "reasoning",
    ];
    let meta = &ai.response_metadata.to_map();
    let Some(provider) = meta.get("model_provider").filter(|p| !p.is_null()) else {
        return NATIVE;
    };
    let provider = provider.as_str().unwrap_or_default();
    let model = match meta.get("model_name") {
        Some(Value::String(s)) => s.to_lowercase(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string().to_lowercase(),
    };
    let bedrock = matches!(provider, "bedrock" | "bedrock_converse");
    if provider == "anthropic"
        || (bedrock && (model.contains("claude") || model.contains("anthropic")))
    {
        CLAUDE
    } else {
        &[]
    }
}

/// `_drop_bound_reasoning`.
pub fn drop_bound_reasoning(message: &Arc<Message>) -> Arc<Message> {
    let Message::Ai(ai) = &**message else {
        return message.clone();
    };
    let Content::Blocks(blocks) = &ai.content else {
        return message.clone();
    };
    let bound = bound_types(ai);
    let is_bound = |b: &Value| {
        b.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| bound.contains(&t))
    };
    if !blocks.iter().any(is_bound) {
        return message.clone();
    }
    let mut copy = ai.clone();
    copy.content = Content::Blocks(blocks.iter().filter(|b| !is_bound(b)).cloned().collect());
    Arc::new(Message::Ai(copy))
}

/// `_compute_state_cutoff`: a cut in the seen conversation as an index into the state's
/// messages (the summary at the front of the seen conversation is no state message).
pub fn state_cutoff(previous: Option<&Event>, effective_cutoff: usize) -> usize {
    match previous {
        Some(p) => (p.cutoff_index + effective_cutoff).saturating_sub(1),
        None => effective_cutoff,
    }
}

/// The summary message (`_build_new_messages_with_path`).
pub fn summary_message(summary: &str, file_path: Option<&str>) -> Message {
    let content = match file_path {
        Some(path) => texts::SUMMARY_WITH_FILE
            .replace("{file_path}", path)
            .replace("{summary}", summary),
        None => texts::SUMMARY_WITHOUT_FILE.replace("{summary}", summary),
    };
    let mut kwargs = Map::new();
    kwargs.insert("lc_source".into(), json!("summarization"));
    Message::Human(HumanMessage {
        content: Content::Text(content),
        additional_kwargs: kwargs.into(),
        ..Default::default()
    })
}

/// A summary message of an earlier summarization (left out of the history file).
pub fn is_summary(message: &Message) -> bool {
    matches!(message, Message::Human(h)
        if h.additional_kwargs.get("lc_source").and_then(Value::as_str) == Some("summarization"))
}

/// `_get_session_id`: the session the state names (so later summaries append to one history
/// file), or a new one.
pub fn session_id(extra: &crate::state::Extra) -> String {
    extra
        .get(SESSION_KEY)
        .and_then(Opaque::as_json)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("session_{}", uuid::Uuid::new_v4().simple()))
}
