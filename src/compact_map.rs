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

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A declared field of a shape of nulls, and the shape of its value when it has one.
pub(crate) type Field = (&'static str, Nested);

/// What a declared field's value is declared as.
#[derive(Clone, Copy)]
pub(crate) enum Nested {
    Plain,
    /// An object with declared fields of its own.
    Model(&'static [Field]),
    /// A list of such objects.
    Models(&'static [Field]),
}

/// The fields a kind of object always has, null when it has nothing to say: left out of a
/// map's text and put back when it is read. Defined once, as a static, by whoever knows the
/// kind (a provider, for its replies).
pub(crate) struct NullFields {
    /// The object with the left-out nulls back in their places.
    pub fill: fn(Map<String, Value>) -> Map<String, Value>,
    /// What `fill` does, declared, for readers that make the object from the text without a
    /// `Map` (the Python boundary): the declared fields in order, each null when left out and
    /// a `Model` object filled by its own fields, then the others as the text has them.
    // Read only by the Python boundary.
    #[cfg_attr(not(feature = "python"), allow(dead_code))]
    pub fields: &'static [Field],
    /// Top-level fields whose value `fill` rewrites beyond putting nulls back: an object
    /// holding one is read through `fill`.
    #[cfg_attr(not(feature = "python"), allow(dead_code))]
    pub rewritten: &'static [&'static str],
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

    /// An object's text as `text_of` writes it (`serde_json`'s compact text of a `Map`, the
    /// empty object as the empty string), written by a reader that makes it without a `Map`
    /// in between; `nulls` the shape whose nulls it leaves out, if any.
    pub(crate) fn from_text(text: String, nulls: Option<&'static NullFields>) -> Self {
        CompactMap {
            text: text.into_boxed_str(),
            nulls,
        }
    }

    /// The text as kept, for tests that hold two makings of it to the same bytes.
    #[cfg(test)]
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether it reads as `{}` (no text, no nulls to put back): the result messages of a
    /// history make its dict directly.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty() && self.nulls.is_none()
    }

    /// The value under `key` as the whole object reads (a left-out null included): for tests,
    /// the reference the scans (`get_str`, `raw_entries`) are checked against. The core reads
    /// its values through those scans, which parse nothing.
    #[cfg(test)]
    pub fn get(&self, key: &str) -> Option<Value> {
        self.to_map().get(key).cloned()
    }

    /// The text value under `key`, if it is a string: borrowed from the map's text unless it
    /// has escapes. Read a few times a step (a reply's provider, its output version), so it
    /// parses nothing and allocates nothing in the common case. A left-out null is not a
    /// string, so the shape of nulls plays no part.
    pub fn get_str(&self, key: &str) -> Option<Cow<'_, str>> {
        let raw = raw_value(&self.text, key)?;
        let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
        if inner.contains('\\') {
            serde_json::from_str::<String>(raw).ok().map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(inner))
        }
    }

    /// Each entry's key and its value's text, in order, as the text has them (without the
    /// left-out nulls: for maps made by `from_map`, as usage details are).
    pub(crate) fn raw_entries(&self) -> RawEntries<'_> {
        RawEntries {
            text: &self.text,
            at: 1,
        }
    }

    /// Whether the text holds the whole object (no nulls left out).
    pub(crate) fn has_null_shape(&self) -> bool {
        self.nulls.is_some()
    }

    /// The shape whose nulls the text leaves out, if any: for readers of `raw_entries` that
    /// put them back themselves.
    #[cfg(feature = "python")]
    pub(crate) fn null_fields(&self) -> Option<&'static NullFields> {
        self.nulls
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

/// The entries of an object's compact text, read by hand: the text is always
/// `serde_json::to_string` of a `Map` (no spaces, valid), so a key's end is its closing quote
/// and a value's end is found by counting brackets outside strings. Scanning this way costs a
/// few instructions a byte, a tenth of a serde reader's skipping.
pub(crate) struct RawEntries<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> RawEntries<'t> {
    /// The entries of `object`, the text of an object value `raw_entries` gave (`{...}`).
    #[cfg(feature = "python")]
    pub(crate) fn of(object: &'t str) -> Self {
        RawEntries {
            text: object,
            at: 1,
        }
    }
}

impl<'t> Iterator for RawEntries<'t> {
    /// The key (unescaped if it has escapes) and its value's JSON text.
    type Item = (Cow<'t, str>, &'t str);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(bytes, self.at)?;
        let raw_key = self.text.get(self.at..=key_end)?;
        let key = match raw_key.get(1..raw_key.len() - 1)? {
            k if k.contains('\\') => Cow::Owned(serde_json::from_str::<String>(raw_key).ok()?),
            k => Cow::Borrowed(k),
        };
        // `"key":value` then `,` or the closing `}`.
        let start = key_end + 2;
        let end = value_end(bytes, start)?;
        self.at = end + 1;
        Some((key, self.text.get(start..end)?))
    }
}

/// The text of the value under `key`, found by scanning (the first such key: a `Map` has one).
fn raw_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    RawEntries { text, at: 1 }
        .find(|(k, _)| k == key)
        .map(|(_, raw)| raw)
}

/// The index of the quote closing the string that opens at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at);
        }
        // An escape: the next byte is escaped (a quote or a backslash included).
        at += 2;
    }
}

/// The index just past the value that starts at `start`.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => Some(string_end(bytes, start)? + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = start;
            loop {
                match bytes.get(at)? {
                    b'"' => at = string_end(bytes, at)?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at + 1);
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
        }
        // A number, `true`, `false` or `null`: up to the next separator.
        _ => Some(start + memchr::memchr2(b',', b'}', bytes.get(start..)?)?),
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

    /// The hand scan finds what a parse of the whole object finds, for every key of objects
    /// whose strings hold quotes, backslashes and brackets, whose values nest: `get` the same
    /// value, `get_str` the same text (borrowed when it has no escapes), `raw_entries` the
    /// same keys in order; and a key only seen inside a value or a string is not found.
    #[test]
    fn the_scan_reads_what_a_parse_reads() {
        let objects = [
            json!({"model_provider": "anthropic", "output_version": "v1", "id": "msg_1"}),
            json!({
                "a\\": "x\\", "b": "}\",{\"model_provider\":\"z\"", "c": [1, {"d": "]"}, [[]]],
                "e": {"model_provider": "inner", "f": {"g": "}}"}}, "h\"": null, "i": true,
                "j": -1.5e-7, "k": "\u{e9}\u{1F600}\n", "l": [], "m": {}, "model_provider": "last"
            }),
            json!({"only": {"model_provider": "nested"}}),
        ];
        for value in objects {
            let map = object(value);
            let compact = CompactMap::from_map(&map);
            let keys: Vec<String> = compact.raw_entries().map(|(k, _)| k.into_owned()).collect();
            assert_eq!(keys, map.keys().cloned().collect::<Vec<_>>());
            for (key, value) in &map {
                assert_eq!(compact.get(key).as_ref(), Some(value), "{key}");
                let text = compact.get_str(key);
                assert_eq!(text.as_deref(), value.as_str(), "{key}");
                if let Some(Cow::Borrowed(s)) = text {
                    assert!(!s.contains('\\'));
                }
            }
            for absent in ["g", "d", "anthropic", "model", "nested", ""] {
                assert_eq!(compact.get(absent), None, "{absent}");
                assert_eq!(compact.get_str(absent), None, "{absent}");
            }
        }
        let plain = CompactMap::from_map(&object(json!({"p": "openai"})));
        assert!(matches!(plain.get_str("p"), Some(Cow::Borrowed("openai"))));
    }

    /// A shape of two always-present fields, `a` and `b`, first in that order.
    static AB: NullFields = NullFields {
        fields: &[("a", Nested::Plain), ("b", Nested::Plain)],
        rewritten: &[],
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
