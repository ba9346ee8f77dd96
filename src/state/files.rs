//! The `files` state key: writes to it, merged as deepagents' reducer merges them, and the
//! host's own objects that travel beside the core's reading of it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::host::{HostValue, Origin};

/// What the core carries beside a files map for the host: the caller's object for each
/// entry it could not read exactly (returned in its place while the reading is unchanged),
/// and entries under keys that are not str paths. deepagents keeps those in its state dict;
/// no file tool can reach them, so the core never reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesHost {
    /// By path.
    pub origins: HashMap<String, Origin>,
    /// By the key's identity (its type and repr, given by the host), in the order written:
    /// the key object and its entry; in a write, `None` deletes.
    pub foreign: indexmap::IndexMap<String, (HostValue, Option<HostValue>)>,
}

impl FilesHost {
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty() && self.foreign.is_empty()
    }
}

/// A files map and the host's objects beside it, both shared.
pub type FilesSnapshot = (Arc<Map<String, Value>>, Arc<FilesHost>);

/// One write to `files`: entries by path, a `null` entry deleting, and the host's objects
/// for the entries written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesWrite {
    pub entries: Map<String, Value>,
    pub host: FilesHost,
}

impl From<Map<String, Value>> for FilesWrite {
    fn from(entries: Map<String, Value>) -> Self {
        FilesWrite {
            entries,
            host: FilesHost::default(),
        }
    }
}

impl FilesWrite {
    /// `later` written after this write, as one write.
    pub fn extend(&mut self, later: &FilesWrite) {
        for path in later.entries.keys() {
            self.host.origins.remove(path);
        }
        self.entries
            .extend(later.entries.iter().map(|(k, v)| (k.clone(), v.clone())));
        self.host.origins.extend(
            later
                .host
                .origins
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        self.host.foreign.extend(
            later
                .host
                .foreign
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
    }

    /// Applies the write to a files map and its host objects as deepagents' reducer does:
    /// a `null` (or `None`) entry deletes, any other replaces.
    pub fn apply(&self, files: &mut Arc<Map<String, Value>>, host: &mut Arc<FilesHost>) {
        if !self.entries.is_empty() {
            let map = Arc::make_mut(files);
            for (path, data) in &self.entries {
                if data.is_null() {
                    map.shift_remove(path);
                } else {
                    map.insert(path.clone(), data.clone());
                }
            }
        }
        // Most writes come from the core's own file tools and most states carry no host
        // objects: nothing to copy then.
        let stale =
            !host.origins.is_empty() && self.entries.keys().any(|p| host.origins.contains_key(p));
        if !stale && self.host.is_empty() {
            return;
        }
        let host = Arc::make_mut(host);
        for path in self.entries.keys() {
            host.origins.remove(path);
        }
        for (path, origin) in &self.host.origins {
            if self.entries.get(path).is_some_and(|v| !v.is_null()) {
                host.origins.insert(path.clone(), origin.clone());
            }
        }
        for (id, (key, entry)) in &self.host.foreign {
            match entry {
                Some(_) => {
                    host.foreign
                        .insert(id.clone(), (key.clone(), entry.clone()));
                }
                None => {
                    host.foreign.shift_remove(id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_write_replaces_deletes_and_drops_the_old_object_of_an_entry_it_replaces() {
        let mut files = Arc::new(map(json!({"/a": {"content": "1"}, "/b": {"content": "2"}})));
        let mut host = FilesHost::default();
        host.origins.insert(
            "/a".into(),
            Origin::new(HostValue::new(1u8), &json!({"content": "1"})),
        );
        let mut host = Arc::new(host);
        FilesWrite::from(map(json!({"/a": {"content": "3"}, "/b": null})))
            .apply(&mut files, &mut host);
        assert_eq!(*files, map(json!({"/a": {"content": "3"}})));
        assert!(
            host.origins.is_empty(),
            "the replaced entry's object is stale"
        );
    }

    #[test]
    fn a_write_of_core_entries_to_a_state_without_host_objects_copies_nothing() {
        let mut files = Arc::new(Map::new());
        let mut host = Arc::new(FilesHost::default());
        let shared = host.clone();
        FilesWrite::from(map(json!({"/a": {"content": "1"}}))).apply(&mut files, &mut host);
        assert!(Arc::ptr_eq(&host, &shared));
    }
}
