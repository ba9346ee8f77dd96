//! A JSON object kept as its compact text: what a message stores of a reply's
//! `response_metadata` and of its usage details.
//!
//! A conversation keeps every reply it was given, and a `serde_json::Map` (ordered) costs
//! about 112 bytes an entry plus an allocation per key, its hash table and any spare
//! capacity: about 2 KB for the seven fields of an Anthropic reply's metadata, against some
//! 250 bytes of text. These maps are read rarely (a key or two per message, once, when a
//! message is first encoded or counted), so the text is scanned for the key asked for and
//! only that value is parsed; the whole object is parsed only where a caller needs it all
//! (the Python boundary). Keys keep their order, and values their exact JSON.
//!
//! An Anthropic reply's metadata holds a dozen nulls (every field its SDK model declares,
//! as langchain-anthropic keeps them): those are left out of the text and put back when it
//! is read, from the model (`providers::anthropic::sdk_dump`), marked by a first byte.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::providers::anthropic::sdk_dump;

/// The first byte of the text of an Anthropic reply's metadata whose declared nulls are left
/// out (a JSON object's text starts with `{`).
const SDK_REPLY: char = '\u{1}';

/// A JSON object as its compact text; the empty object is the empty string (no allocation).
#[derive(Clone, Default)]
pub struct CompactMap(Box<str>);

impl CompactMap {
    /// The object's compact text (an empty map allocates nothing).
    pub fn from_map(map: &Map<String, Value>) -> Self {
        if map.is_empty() {
            return CompactMap::default();
        }
        // Serializing a `Map` of `Value`s cannot fail (its keys are strings).
        CompactMap(
            serde_json::to_string(map)
                .unwrap_or_default()
                .into_boxed_str(),
        )
    }

    /// An Anthropic reply's metadata (`sdk_dump::reply_metadata`'s, without its nulls):
    /// read back, it has them, as `model_dump` gives them.
    pub(crate) fn sdk_reply(lean: &Map<String, Value>) -> Self {
        let mut text = String::from(SDK_REPLY);
        text.push_str(&serde_json::to_string(lean).unwrap_or_default());
        CompactMap(text.into_boxed_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The JSON text, and whether it is an Anthropic reply's without its nulls.
    fn text(&self) -> (&str, bool) {
        match self.0.strip_prefix(SDK_REPLY) {
            Some(text) => (text, true),
            None => (&self.0, false),
        }
    }

    /// The value under `key`, parsed from the text (the others are skipped, not parsed).
    pub fn get(&self, key: &str) -> Option<Value> {
        if self.0.is_empty() {
            return None;
        }
        let (text, sdk) = self.text();
        let mut reader = serde_json::Deserializer::from_str(text);
        let found = (&mut reader).deserialize_map(Find(key)).ok().flatten();
        match found {
            None if sdk && sdk_dump::declared(key) => Some(Value::Null),
            found => found,
        }
    }

    /// The text value under `key`, if it is a string.
    pub fn get_str(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The whole object, parsed.
    pub fn to_map(&self) -> Map<String, Value> {
        if self.0.is_empty() {
            return Map::new();
        }
        let (text, sdk) = self.text();
        let map = serde_json::from_str(text).unwrap_or_default();
        if sdk {
            sdk_dump::reply_metadata(map, true)
        } else {
            map
        }
    }
}

impl From<Map<String, Value>> for CompactMap {
    fn from(map: Map<String, Value>) -> Self {
        CompactMap::from_map(&map)
    }
}

/// Equal when the objects are, as `Map`s compare (order aside); the same text is equal
/// without parsing.
impl PartialEq for CompactMap {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.to_map() == other.to_map()
    }
}

impl fmt::Debug for CompactMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_map(), f)
    }
}

/// Serialized as the object itself (to Python, in checkpoints, in fingerprints), exactly as
/// the `Map` it was made from.
impl Serialize for CompactMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CompactMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(CompactMap::from_map(&Map::deserialize(deserializer)?))
    }
}

/// Reads an object's entries until the key asked for, whose value alone is parsed.
struct Find<'k>(&'k str);

impl<'de> Visitor<'de> for Find<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<Self::Value, A::Error> {
        let mut value = None;
        while let Some(found) = entries.next_key_seed(KeyIs(self.0))? {
            if found && value.is_none() {
                value = Some(entries.next_value()?);
            } else {
                entries.next_value::<IgnoredAny>()?;
            }
        }
        // The rest is skipped, not returned early from: the reader checks that the object
        // ends where it should.
        Ok(value)
    }
}

/// Whether a key is the one asked for, compared without copying it.
struct KeyIs<'k>(&'k str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// `compact` reads back as `map`: the same entries in the same order, to Python (`to_map`)
    /// and to JSON.
    fn reads_as(compact: &CompactMap, map: &Map<String, Value>) {
        let back = compact.to_map();
        assert_eq!(&back, map);
        assert_eq!(
            back.keys().collect::<Vec<_>>(),
            map.keys().collect::<Vec<_>>()
        );
        assert_eq!(
            serde_json::to_string(compact).ok(),
            serde_json::to_string(map).ok()
        );
    }

    #[test]
    fn keeps_order_and_exact_values() {
        let map = object(json!({
            "id": "msg_1", "model": "claude", "stop_sequence": null,
            "usage": {"input_tokens": 100, "ratio": 0.5, "big": 18446744073709551615u64},
            "quote\"d": "a\"b\\c\u{e9}", "model_provider": "anthropic"
        }));
        let compact = CompactMap::from_map(&map);
        reads_as(&compact, &map);
        assert_eq!(compact.get("usage"), map.get("usage").cloned());
        assert_eq!(compact.get("quote\"d"), map.get("quote\"d").cloned());
        assert_eq!(compact.get("stop_sequence"), Some(Value::Null));
        assert_eq!(
            compact.get_str("model_provider").as_deref(),
            Some("anthropic")
        );
        assert_eq!(compact.get("input_tokens"), None);
        assert_eq!(compact.get_str("usage"), None);
    }

    #[test]
    fn empty_allocates_nothing_and_reads_as_empty() {
        let compact = CompactMap::from_map(&Map::new());
        assert!(compact.is_empty());
        assert_eq!(compact.get("x"), None);
        assert_eq!(compact.to_map(), Map::new());
        assert_eq!(serde_json::to_string(&compact).ok().as_deref(), Some("{}"));
        let read: CompactMap = serde_json::from_str("{}").unwrap_or_default();
        assert!(read.is_empty());
    }

    /// An Anthropic reply's metadata is kept without its SDK nulls and read back with them,
    /// key for key and in order, to Python (`to_map`) and to JSON alike.
    #[test]
    fn an_sdk_reply_reads_back_its_nulls() {
        let full = object(json!({
            "id": "msg_1", "container": null, "diagnostics": null, "model": "claude",
            "stop_details": null, "stop_reason": "end_turn", "stop_sequence": null,
            "usage": {"cache_creation": null, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 5, "inference_geo": null, "input_tokens": 1,
                      "output_tokens": 2, "output_tokens_details": null,
                      "server_tool_use": null, "service_tier": "standard", "speed": null},
            "model_name": "claude", "model_provider": "anthropic"
        }));
        let lean = sdk_dump::reply_metadata(full.clone(), false);
        let kept = CompactMap::sdk_reply(&lean);
        let plain = CompactMap::from_map(&full);
        // About 130 bytes of nulls fewer than the whole object's text.
        assert!(
            kept.0.len() + 120 < plain.0.len(),
            "{} {}",
            kept.0.len(),
            plain.0.len()
        );
        reads_as(&kept, &full);
        assert_eq!(kept, plain);
        assert_eq!(kept.get("container"), Some(Value::Null));
        assert_eq!(kept.get("usage"), lean.get("usage").cloned());
        assert_eq!(kept.get_str("model_provider").as_deref(), Some("anthropic"));
        assert_eq!(kept.get("no_such_key"), None);
        // Read back from a checkpoint's JSON, it is the same object.
        let read: CompactMap =
            serde_json::from_str(&serde_json::to_string(&kept).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(read.to_map(), full);
    }
}
