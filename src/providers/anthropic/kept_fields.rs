//! The system prompt's and the tools' bytes as last written, spliced into each later body
//! that sends them again: they are the same at every step of a run (a prompt and tool
//! schemas, tens of kilobytes), and building them as JSON values (every tool's schema
//! deep-copied) and serializing those again was about a tenth of a step's harness time.
//!
//! A piece is found by what it was written from: the same `Arc` (the chain hands on the
//! list it was given), else equal contents (a prompt the chain assembles afresh at each step
//! is compared, not serialized again), and for the tools the breakpoint's place and marker.

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::Value;

use crate::error::ModelError;
use crate::messages::SystemMessage;
use crate::tools::ToolSpec;

/// The pieces kept of each kind: a model shared by agents with prompts or tools of their
/// own (a subagent, a fork) keeps each one's without their evicting one another's.
const SLOTS: usize = 4;

/// Pieces' bytes, each under what it was written from, the most recently used first.
type Slots<K> = Mutex<Vec<(K, Bytes)>>;

/// The tools' bytes depend on the list, on which tool carries the breakpoint and on the
/// breakpoint's marker.
struct ToolsKey {
    tools: Arc<[ToolSpec]>,
    tagged: usize,
    cache: Option<Value>,
}

#[derive(Default)]
pub(super) struct KeptFields {
    system: Slots<Arc<SystemMessage>>,
    tools: Slots<ToolsKey>,
}

impl KeptFields {
    /// The bytes of the system prompt `system` alone (no system message merged in from the
    /// input), written by `write` when none kept match.
    pub(super) fn system(
        &self,
        system: &Arc<SystemMessage>,
        write: impl FnOnce() -> Result<Vec<u8>, ModelError>,
    ) -> Result<Bytes, ModelError> {
        kept_or_written(
            &self.system,
            |kept| Arc::ptr_eq(kept, system) || kept.content == system.content,
            || system.clone(),
            write,
        )
    }

    /// The bytes of the tool list `tools` with the breakpoint `cache` on the last of its
    /// first `tagged`, written by `write` when none kept match.
    pub(super) fn tools(
        &self,
        tools: &Arc<[ToolSpec]>,
        tagged: usize,
        cache: Option<&Value>,
        write: impl FnOnce() -> Result<Vec<u8>, ModelError>,
    ) -> Result<Bytes, ModelError> {
        kept_or_written(
            &self.tools,
            |kept| {
                kept.tagged == tagged
                    && kept.cache.as_ref() == cache
                    && (Arc::ptr_eq(&kept.tools, tools) || *kept.tools == **tools)
            },
            || ToolsKey {
                tools: tools.clone(),
                tagged,
                cache: cache.cloned(),
            },
            write,
        )
    }
}

/// The bytes kept under the key `matches` finds (moved to the front), or those `write`
/// makes, kept under `key()` in place of the least recently used.
fn kept_or_written<K>(
    slots: &Slots<K>,
    matches: impl Fn(&K) -> bool,
    key: impl FnOnce() -> K,
    write: impl FnOnce() -> Result<Vec<u8>, ModelError>,
) -> Result<Bytes, ModelError> {
    {
        let mut slots = slots.lock();
        if let Some(at) = slots.iter().position(|(k, _)| matches(k)) {
            slots[..=at].rotate_right(1);
            return Ok(slots[0].1.clone());
        }
    }
    // Written outside the lock: a concurrent request writes its own and keeps it too.
    let bytes = Bytes::from(write()?);
    let mut slots = slots.lock();
    slots.truncate(SLOTS - 1);
    slots.insert(0, (key(), bytes.clone()));
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::messages::{Content, Message};
    use crate::model::ModelRequest;
    use crate::providers::anthropic::kept_turns::KeptTurns;
    use crate::providers::anthropic::request::{format_system, format_tools, request_bytes};
    use crate::providers::anthropic::{AnthropicChat, AnthropicConfig};

    fn config() -> AnthropicConfig {
        AnthropicConfig::new(
            "claude-sonnet-4-5",
            Some("k".into()),
            Some("http://x".into()),
        )
        .unwrap()
    }

    fn tool(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: format!("The {name} tool: \"quoted\"\n"),
            // Keys out of alphabetical order: the order is part of the cache prefix.
            parameters: json!({"type": "object", "required": ["z"],
                "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}),
            provider_definition: None,
            json_spec: false,
            json_dict: None,
            defer_loading: false,
        }
    }

    fn request(system: Option<Content>, tools: Vec<ToolSpec>) -> ModelRequest {
        let model = Arc::new(AnthropicChat::new(config()).unwrap());
        let system = system.map(|content| {
            Arc::new(SystemMessage {
                content,
                ..Default::default()
            })
        });
        let messages = vec![Arc::new(Message::human("task"))].into();
        ModelRequest {
            cache_control: Some(Arc::new(json!({"type": "ephemeral", "ttl": "5m"}))),
            ..ModelRequest::new(model, system, messages, tools.into())
        }
    }

    fn body(request: &ModelRequest, fields: &KeptFields) -> Vec<u8> {
        request_bytes(&config(), request, false, &KeptTurns::default(), fields)
            .unwrap()
            .payload
            .to_vec()
    }

    /// The body as one `serde_json` value serialized whole (as bodies were built before the
    /// pieces were kept), its system prompt and tools formatted afresh.
    fn whole(request: &ModelRequest, spliced: &[u8]) -> Vec<u8> {
        let mut value: Value = serde_json::from_slice(spliced).unwrap();
        let Value::Object(map) = &mut value else {
            panic!("not an object")
        };
        if let (Some(system), Some(slot)) = (&request.system, map.get_mut("system")) {
            *slot = format_system(&system.content, Vec::new());
        }
        if let Some(slot) = map.get_mut("tools")
            && !request.tools.is_empty()
        {
            let tagged = request.schema_tools_at.unwrap_or(request.tools.len());
            *slot = format_tools(&request.tools, tagged, request.cache_control.as_deref());
        }
        serde_json::to_vec(&value).unwrap()
    }

    /// The body sent first and the body sent again from the kept pieces are both the body
    /// serialized whole, byte for byte.
    fn check(request: &ModelRequest) -> Vec<u8> {
        let fields = KeptFields::default();
        let first = body(request, &fields);
        let again = body(request, &fields);
        assert_eq!(
            String::from_utf8_lossy(&first),
            String::from_utf8_lossy(&whole(request, &first))
        );
        assert_eq!(first, again);
        first
    }

    #[test]
    fn a_spliced_body_is_the_body_serialized_whole() {
        let blocks = Content::Blocks(vec![
            json!("plain"),
            json!({"type": "text", "text": "tagged", "cache_control": {"type": "ephemeral"}}),
        ]);
        let mut deferred = tool("later");
        deferred.defer_loading = true;
        let mut search = tool("web_search");
        search.provider_definition =
            Some(json!({"type": "web_search_20250305", "name": "web_search"}));
        let mut spec = tool("spec");
        spec.json_spec = true;
        let cases = [
            request(
                Some("You are an agent.".into()),
                vec![tool("ls"), tool("grep")],
            ),
            request(Some("".into()), vec![]),
            request(Some(blocks), vec![tool("ls"), deferred]),
            request(None, vec![tool("ls"), search.clone()]),
            request(Some("p".into()), vec![search, spec]),
        ];
        for case in &cases {
            check(case);
        }
        let bytes = String::from_utf8(check(&cases[0])).unwrap();
        assert!(bytes.contains(r#""system":"You are an agent.""#), "{bytes}");
        assert!(
            bytes.contains(r#""description":"The grep tool: \"quoted\"\n","cache_control""#),
            "{bytes}"
        );
        // A structured-output schema tool after the middleware's: the breakpoint before it.
        let mut schema = request(Some("p".into()), vec![tool("ls"), tool("Answer")]);
        schema.schema_tools_at = Some(1);
        check(&schema);
        // No tools, a native response format: the empty list, as LangChain binds it.
        let mut format = request(Some("p".into()), vec![]);
        format.response_format = Some(json!({"type": "json_schema",
            "json_schema": {"name": "A", "schema": {"type": "object"}}}));
        let bytes = String::from_utf8(check(&format)).unwrap();
        assert!(bytes.contains(r#""tools":[]"#), "{bytes}");
        // A setting named as a kept piece replaces it.
        let mut setting = request(Some("p".into()), vec![tool("ls")]);
        setting.model_settings.insert("system".into(), json!("own"));
        setting.model_settings.insert("tools".into(), Value::Null);
        let bytes = String::from_utf8(body(&setting, &KeptFields::default())).unwrap();
        assert!(bytes.contains(r#""system":"own""#), "{bytes}");
        assert!(bytes.contains(r#""tools":null"#), "{bytes}");
    }

    #[test]
    fn a_system_message_merged_from_the_input_is_sent_with_the_prompt() {
        let fields = KeptFields::default();
        let mut merged = request(Some("prompt".into()), vec![tool("ls")]);
        let plain = body(&merged, &fields);
        merged.messages = vec![
            Arc::new(Message::System(SystemMessage {
                content: "from the input".into(),
                ..Default::default()
            })),
            Arc::new(Message::human("task")),
        ]
        .into();
        let bytes = String::from_utf8(body(&merged, &fields)).unwrap();
        assert!(
            bytes.contains(
                r#""system":[{"type":"text","text":"prompt"},{"type":"text","text":"from the input"}]"#
            ),
            "{bytes}"
        );
        assert!(
            String::from_utf8(plain)
                .unwrap()
                .contains(r#""system":"prompt""#)
        );
    }

    #[test]
    fn a_changed_prompt_or_tool_list_is_written_afresh() {
        let fields = KeptFields::default();
        let base = request(Some("first prompt".into()), vec![tool("ls"), tool("grep")]);
        let fresh = |r: &ModelRequest| body(r, &KeptFields::default());
        assert_eq!(body(&base, &fields), fresh(&base));
        let mut changed = base.clone();
        changed.system = Some(Arc::new(SystemMessage {
            content: "second prompt".into(),
            ..Default::default()
        }));
        assert_eq!(body(&changed, &fields), fresh(&changed));
        // The same prompt in a message of its own: served from what was kept.
        changed.system = Some(Arc::new(SystemMessage {
            content: "first prompt".into(),
            ..Default::default()
        }));
        assert_eq!(body(&changed, &fields), fresh(&base));
        // A tool edited in a list of its own, one removed, the breakpoint moved or changed,
        // no breakpoint at all.
        let mut edited = tool("grep");
        edited.description = "Search.".into();
        changed.tools = vec![tool("ls"), edited].into();
        assert_eq!(body(&changed, &fields), fresh(&changed));
        changed.tools = vec![tool("ls")].into();
        assert_eq!(body(&changed, &fields), fresh(&changed));
        changed.tools = base.tools.clone();
        changed.schema_tools_at = Some(1);
        assert_eq!(body(&changed, &fields), fresh(&changed));
        changed.schema_tools_at = None;
        changed.cache_control = Some(Arc::new(json!({"type": "ephemeral", "ttl": "1h"})));
        assert_eq!(body(&changed, &fields), fresh(&changed));
        changed.cache_control = None;
        assert_eq!(body(&changed, &fields), fresh(&changed));
        // More prompts and lists than are kept: each still sent as its own.
        for i in 0..SLOTS + 2 {
            changed.system = Some(Arc::new(SystemMessage {
                content: format!("prompt {i}").into(),
                ..Default::default()
            }));
            changed.tools = vec![tool(&format!("t{i}"))].into();
            assert_eq!(body(&changed, &fields), fresh(&changed));
        }
        assert_eq!(body(&base, &fields), fresh(&base));
    }
}
