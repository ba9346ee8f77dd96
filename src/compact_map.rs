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
//! Some objects always have fields that are mostly null (a provider's reply metadata holds
//! every field its SDK model declares): whoever builds the map may leave those nulls out of
//! the text and hand over their shape (`NullFields`, a static of its own), which puts them
//! back when the text is read. This type knows no provider.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The fields a kind of object always has, null when it has nothing to say: left out of a
/// map's text and put back when it is read. Defined once, as a static, by whoever knows the
/// kind (a provider, for its replies).
pub(crate) struct NullFields {
    /// Whether `key` is one of them (read as null when the text has no entry for it).
    pub declared: fn(&str) -> bool,
    /// The object with the left-out nulls back in their places.
    pub fill: fn(Map<String, Value>) -> Map<String, Value>,
}

/// A JSON object as its compact text; the empty object is the empty string (no allocation).
/// `nulls` is the shape whose nulls the text leaves out, if any.
#[derive(Clone, Default)]
pub struct CompactMap {
    text: Box<str>,
    nulls: Option<&'static NullFields>,
}

impl CompactMap {
    /// The object's compact text (an empty map allocates nothing).
    pub fn from_map(map: &Map<String, Value>) -> Self {
        CompactMap {
            text: text_of(map),
            nulls: None,
        }
    }

    /// `lean`, an object of the kind `nulls` describes with those nulls left out: read back,
    /// it has them, as `nulls.fill` places them.
    pub(crate) fn without_nulls(lean: &Map<String, Value>, nulls: &'static NullFields) -> Self {
        CompactMap {
            text: text_of(lean),
            nulls: Some(nulls),
        }
    }

    /// Whether it reads as `{}` (no text, no nulls to put back): the result messages of a
    /// history make its dict directly.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.nulls.is_none()
    }

    /// The value under `key`, parsed from the text (the others are skipped, not parsed).
    pub fn get(&self, key: &str) -> Option<Value> {
        let found = if self.text.is_empty() {
            None
        } else {
            let mut reader = serde_json::Deserializer::from_str(&self.text);
            (&mut reader).deserialize_map(Find(key)).ok().flatten()
        };
        match (found, self.nulls) {
            (None, Some(nulls)) if (nulls.declared)(key) => Some(Value::Null),
            (found, _) => found,
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
        let map = if self.text.is_empty() {
            Map::new()
        } else {
            serde_json::from_str(&self.text).unwrap_or_default()
        };
        match self.nulls {
            Some(nulls) => (nulls.fill)(map),
            None => map,
        }
    }
}

/// An object's compact text; the empty object's is empty (no allocation).
fn text_of(map: &Map<String, Value>) -> Box<str> {
    if map.is_empty() {
        return Box::default();
    }
    // Serializing a `Map` of `Value`s cannot fail (its keys are strings).
    serde_json::to_string(map)
        .unwrap_or_default()
        .into_boxed_str()
}

impl From<Map<String, Value>> for CompactMap {
    fn from(map: Map<String, Value>) -> Self {
        CompactMap::from_map(&map)
    }
}

/// Equal when the objects are, as `Map`s compare (order aside); the same text of the same
/// shape is equal without parsing.
impl PartialEq for CompactMap {
    fn eq(&self, other: &Self) -> bool {
        let same_shape = match (self.nulls, other.nulls) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        (same_shape && self.text == other.text) || self.to_map() == other.to_map()
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

    /// A shape of two always-present fields, `a` and `b`, first in that order.
    static AB: NullFields = NullFields {
        declared: |key| matches!(key, "a" | "b"),
        fill: |mut lean| {
            let mut full = Map::new();
            for key in ["a", "b"] {
                full.insert(
                    key.to_owned(),
                    lean.shift_remove(key).unwrap_or(Value::Null),
                );
            }
            full.extend(lean);
            full
        },
    };

    /// An object kept without its shape's nulls reads back with them, key for key and in
    /// order, to Python (`to_map`) and to JSON alike, and equals the whole object's map.
    #[test]
    fn a_map_without_its_nulls_reads_back_with_them() {
        let full = object(json!({"a": null, "b": {"x": 1}, "c": "z"}));
        let kept = CompactMap::without_nulls(&object(json!({"b": {"x": 1}, "c": "z"})), &AB);
        assert_eq!(&*kept.text, r#"{"b":{"x":1},"c":"z"}"#);
        reads_as(&kept, &full);
        let plain = CompactMap::from_map(&full);
        assert_eq!(kept, plain);
        assert_eq!(kept.get("a"), Some(Value::Null));
        assert_eq!(kept.get("b"), Some(json!({"x": 1})));
        assert_eq!(kept.get_str("c").as_deref(), Some("z"));
        assert_eq!(kept.get("d"), None);
        // Only nulls: no text, still not the empty object.
        let only_nulls = CompactMap::without_nulls(&Map::new(), &AB);
        assert!(!only_nulls.is_empty());
        reads_as(&only_nulls, &object(json!({"a": null, "b": null})));
        // Read back from a checkpoint's JSON, it is the same object.
        let read: CompactMap =
            serde_json::from_str(&serde_json::to_string(&kept).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(read.to_map(), full);
    }
}
