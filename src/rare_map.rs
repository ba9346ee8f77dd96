//! A message's maps that are almost always empty (`additional_kwargs`, and every kind's
//! `response_metadata` but the AI message's): one pointer in place of the map.
//!
//! A conversation keeps every message, and a `Message` is as large as its largest kind: a
//! `serde_json::Map` in place is 72 bytes even when empty, and a tool message held two of
//! them. Here an empty map is a null pointer (no allocation); the first write allocates it.
//! It reads as a `Map` (`Deref`), and compares, serializes and reads back exactly as one.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A JSON object that is usually empty: `None` until it has an entry.
#[derive(Clone, Default)]
pub struct RareMap(Option<Box<Map<String, Value>>>);

/// What an unallocated map reads as.
static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

impl RareMap {
    pub fn new() -> Self {
        RareMap(None)
    }
}

impl Deref for RareMap {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

/// Writing allocates the map (a reader that only looks goes through `Deref`).
impl DerefMut for RareMap {
    fn deref_mut(&mut self) -> &mut Map<String, Value> {
        self.0.get_or_insert_with(Default::default)
    }
}

impl From<Map<String, Value>> for RareMap {
    fn from(map: Map<String, Value>) -> Self {
        RareMap((!map.is_empty()).then(|| Box::new(map)))
    }
}

/// Equal when the maps are: never allocated and emptied alike are the empty map.
impl PartialEq for RareMap {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for RareMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for RareMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RareMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(RareMap::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Empty, it is one null pointer and allocates nothing; written, it holds the entry and
    /// reads, compares and serializes as the `Map` would, in order.
    #[test]
    fn empty_is_a_null_pointer_and_written_is_a_map() {
        use crate::heap_count::held_by;
        assert_eq!(size_of::<RareMap>(), 8);
        let (empty, held) = held_by(|| RareMap::from(Map::new()));
        assert_eq!(held, 0);
        assert!(empty.is_empty() && empty.get("x").is_none());
        assert_eq!(serde_json::to_string(&empty).ok().as_deref(), Some("{}"));
        let mut written = RareMap::new();
        written.insert("b".into(), json!(1));
        written.insert("a".into(), json!({"x": null}));
        assert_eq!(
            serde_json::to_string(&written).ok().as_deref(),
            Some(r#"{"b":1,"a":{"x":null}}"#)
        );
        let Value::Object(map) = json!({"b": 1, "a": {"x": null}}) else {
            unreachable!("an object")
        };
        assert_eq!(written, RareMap::from(map.clone()));
        assert_eq!(*written, map);
        // Emptied after a write, it equals the never-written one.
        written.clear();
        assert_eq!(written, empty);
        let read: RareMap = serde_json::from_str(r#"{"k":[1]}"#).unwrap_or_default();
        assert_eq!(read.get("k"), Some(&json!([1])));
    }
}
