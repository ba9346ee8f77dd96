//! A reply as the Anthropic SDK's `model_dump` gives it, which is what langchain-anthropic
//! keeps in a message's `response_metadata`: each model's declared fields in the order the
//! SDK declares them, a field the reply left out as null, then the fields the model does not
//! declare, as sent. Kept replies leave those nulls out (`fill: false`) and put them back
//! when read (`REPLY_NULLS`, the shape handed to `CompactMap`), so the parity costs no bytes
//! per message.

use serde_json::{Map, Value};

// A declared field, and the SDK model of its value when it is one (`Model`; `Models` a list
// of them): the shape `CompactMap` puts the nulls back by.
use crate::compact_map::{Field, Nested, NullFields};

use Nested::{Model, Models, Plain};

/// `anthropic.types.Message` (anthropic 2.17), less `content` (a message's content) and `role` /
/// `type` (which langchain-anthropic drops).
const MESSAGE: &[Field] = &[
    ("id", Plain),
    ("container", Model(CONTAINER)),
    ("diagnostics", Model(&[("cache_miss_reason", Plain)])),
    ("model", Plain),
    (
        "stop_details",
        Model(&[("category", Plain), ("explanation", Plain), ("type", Plain)]),
    ),
    ("stop_reason", Plain),
    ("stop_sequence", Plain),
    ("usage", Model(USAGE)),
];

const CONTAINER: &[Field] = &[
    ("id", Plain),
    ("expires_at", Plain),
    (
        "skills",
        Models(&[("skill_id", Plain), ("type", Plain), ("version", Plain)]),
    ),
];

const USAGE: &[Field] = &[
    (
        "cache_creation",
        Model(&[
            ("ephemeral_1h_input_tokens", Plain),
            ("ephemeral_5m_input_tokens", Plain),
        ]),
    ),
    ("cache_creation_input_tokens", Plain),
    ("cache_read_input_tokens", Plain),
    ("inference_geo", Plain),
    ("input_tokens", Plain),
    ("output_tokens", Plain),
    (
        "output_tokens_details",
        Model(&[("thinking_tokens", Plain)]),
    ),
    (
        "server_tool_use",
        Model(&[
            ("web_fetch_requests", Plain),
            ("web_search_requests", Plain),
        ]),
    ),
    ("service_tier", Plain),
    ("speed", Plain),
];

/// The reply's fields (its `content`, `role` and `type` taken out) as `model_dump` orders
/// them; with `fill`, every declared field the reply left out or sent as null is null, and
/// without it, left out.
pub(crate) fn reply_metadata(reply: Map<String, Value>, fill: bool) -> Map<String, Value> {
    let mut out = dump(reply, MESSAGE, fill);
    if let Some(Value::Object(container)) = out.get_mut("container")
        && let Some(Value::String(at)) = container.get_mut("expires_at")
    {
        // The SDK parses it into a `datetime`; langchain-anthropic writes its `isoformat()`.
        *at = isoformat(at);
    }
    out
}

/// A reply's metadata as kept (`reply_metadata(.., false)`): what reading it puts back.
pub(crate) static REPLY_NULLS: NullFields = NullFields {
    fill: |lean| reply_metadata(lean, true),
    fields: MESSAGE,
    // Its `expires_at` is rewritten (`isoformat`).
    rewritten: &["container"],
};

fn dump(mut map: Map<String, Value>, model: &[Field], fill: bool) -> Map<String, Value> {
    let mut out = Map::with_capacity(if fill { model.len() } else { 0 } + map.len());
    for (key, nested) in model {
        let value = match (map.shift_remove(*key), nested) {
            (Some(Value::Object(m)), Model(fields)) => Value::Object(dump(m, fields, fill)),
            (Some(Value::Array(items)), Models(fields)) => Value::Array(
                items
                    .into_iter()
                    .map(|item| match item {
                        Value::Object(m) => Value::Object(dump(m, fields, fill)),
                        other => other,
                    })
                    .collect(),
            ),
            (Some(value), _) => value,
            (None, _) => Value::Null,
        };
        if fill || !value.is_null() {
            out.insert((*key).to_owned(), value);
        }
    }
    // What the model does not declare (pydantic keeps extra fields after the declared ones).
    out.extend(map);
    out
}

/// Python's `datetime.isoformat()` of an RFC 3339 time as the SDK parses it: `Z` is
/// `+00:00`, and a fraction is microseconds (six digits, none when zero).
fn isoformat(at: &str) -> String {
    let (stamp, zone) = match at.strip_suffix(['Z', 'z']) {
        Some(stamp) => (stamp, "+00:00"),
        None => match at.rfind(['+', '-']).filter(|&i| i > 10) {
            Some(i) => (&at[..i], &at[i..]),
            None => (at, ""),
        },
    };
    let (seconds, fraction) = stamp.split_once('.').unwrap_or((stamp, ""));
    let micros: String = fraction.chars().chain("000000".chars()).take(6).collect();
    if micros.bytes().all(|b| b == b'0') {
        format!("{seconds}{zone}")
    } else {
        format!("{seconds}.{micros}{zone}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn declared_fields_in_order_then_extras() {
        let Value::Object(reply) = json!({
            "id": "m", "model": "x", "stop_reason": "end_turn", "extra_top": 1,
            "usage": {"input_tokens": 1, "output_tokens": 2, "zz": null,
                      "cache_creation": {"ephemeral_5m_input_tokens": 3},
                      "server_tool_use": {"web_search_requests": 1}},
            "container": {"id": "c", "expires_at": "2025-06-01T12:00:00Z", "zz": 1},
            "stop_details": {"type": "refusal", "explanation": "x"},
        }) else {
            unreachable!("a JSON object")
        };
        // What `construct_type(Message, ...).model_dump()` gives (anthropic 2.17), less content,
        // role and type, the datetime as its isoformat.
        let filled = r#"{"id":"m","container":{"id":"c","expires_at":"2025-06-01T12:00:00+00:00","skills":null,"zz":1},"diagnostics":null,"model":"x","stop_details":{"category":null,"explanation":"x","type":"refusal"},"stop_reason":"end_turn","stop_sequence":null,"usage":{"cache_creation":{"ephemeral_1h_input_tokens":null,"ephemeral_5m_input_tokens":3},"cache_creation_input_tokens":null,"cache_read_input_tokens":null,"inference_geo":null,"input_tokens":1,"output_tokens":2,"output_tokens_details":null,"server_tool_use":{"web_fetch_requests":null,"web_search_requests":1},"service_tier":null,"speed":null,"zz":null},"extra_top":1}"#;
        let full = reply_metadata(reply.clone(), true);
        assert_eq!(serde_json::to_string(&full).unwrap(), filled);
        // Without the nulls, then filled again: the same object, key for key.
        let lean = reply_metadata(reply, false);
        assert!(!serde_json::to_string(&lean).unwrap().contains("speed"));
        assert_eq!(
            serde_json::to_string(&reply_metadata(lean, true)).unwrap(),
            filled
        );
    }

    #[test]
    fn times_as_python_writes_them() {
        assert_eq!(
            isoformat("2025-06-01T12:00:00Z"),
            "2025-06-01T12:00:00+00:00"
        );
        assert_eq!(
            isoformat("2025-06-01T12:00:00.5Z"),
            "2025-06-01T12:00:00.500000+00:00"
        );
        assert_eq!(
            isoformat("2025-06-01T12:00:00.000-02:00"),
            "2025-06-01T12:00:00-02:00"
        );
    }

    /// A reply's metadata is kept without its SDK nulls and read back with them, key for key
    /// and in order, to Python (`to_map`) and to JSON alike.
    #[test]
    fn a_kept_reply_reads_back_its_nulls() {
        use crate::compact_map::CompactMap;
        let Value::Object(full) = json!({
            "id": "msg_1", "container": null, "diagnostics": null, "model": "claude",
            "stop_details": null, "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"cache_creation": null, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 5, "inference_geo": null, "input_tokens": 1,
                      "output_tokens": 2, "output_tokens_details": null,
                      "server_tool_use": null, "service_tier": "standard", "speed": null},
            "model_name": "claude", "model_provider": "anthropic"
        }) else {
            unreachable!("a JSON object")
        };
        let lean = reply_metadata(full.clone(), false);
        let kept = CompactMap::without_nulls(&lean, &REPLY_NULLS);
        let plain = CompactMap::from_map(&full);
        let json = |m: &CompactMap| serde_json::to_string(m).unwrap_or_default();
        // About 130 bytes of nulls fewer than the whole object's text.
        let text = |m: &Map<String, Value>| serde_json::to_string(m).unwrap_or_default();
        assert!(text(&lean).len() + 120 < text(&full).len());
        assert_eq!(kept.to_map(), full);
        assert_eq!(
            kept.to_map().keys().collect::<Vec<_>>(),
            full.keys().collect::<Vec<_>>()
        );
        assert_eq!(json(&kept), text(&full));
        assert_eq!(kept, plain);
        assert_eq!(kept.get("container"), Some(Value::Null));
        assert_eq!(kept.get("usage"), full.get("usage").cloned());
        assert_eq!(kept.get_str("model_provider").as_deref(), Some("anthropic"));
        assert_eq!(kept.get("no_such_key"), None);
    }
}
