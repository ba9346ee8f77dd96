//! The `files` state key: writes to it, merged as deepagents' reducer merges them, and the
//! host's own objects that travel beside the core's reading of it.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::host::{HostValue, Origin};

/// What the core carries beside a files map for the host: the caller's object for each
/// entry (returned in its place while no write has touched the entry, so an untouched file
/// is the caller's own dict, as deepagents' reducer leaves it), and entries under keys that
/// are not str paths. deepagents keeps those in its state dict;
/// no file tool can reach them, so the core never reads them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesHost {
    /// By path, for entries not read exactly: checked against the reading before use.
    pub origins: HashMap<String, Origin>,
    /// By path, for entries read exactly: the object equals the reading until a write to
    /// the path drops it, so no fingerprint is taken (hashing every file's content twice a
    /// run would cost about what handing the object back saves).
    pub exact: HashMap<String, HostValue>,
    /// By the key's identity (its type and repr, given by the host), in the order written:
    /// the key object and its entry; in a write, `None` deletes.
    pub foreign: indexmap::IndexMap<String, (HostValue, Option<HostValue>)>,
}

impl FilesHost {
    pub fn is_empty(&self) -> bool {
        self.origins.is_empty() && self.exact.is_empty() && self.foreign.is_empty()
    }

    /// Whether these objects can stand beside `files`: a kept exact object only for an entry
    /// in the map, and no entry both exact and with an origin. `exact` is handed back with no
    /// check against the entry, so the map and it must change together (`FilesWrite::apply`,
    /// `into_snapshot`); a change to one without the other would hand the caller a stale
    /// object. Checked in debug builds after each change.
    pub fn fits(&self, files: &Map<String, Value>) -> bool {
        self.exact
            .keys()
            .all(|p| files.contains_key(p) && !self.origins.contains_key(p))
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
            self.host.exact.remove(path);
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
        self.host.exact.extend(later.host.exact.clone());
        self.host.foreign.extend(
            later
                .host
                .foreign
                .iter()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
    }

    /// The write applied to an empty files map (a run's input), moving its entries instead
    /// of copying them: for a large input the copy and the freeing of the write after it were
    /// most of a short run's cost.
    pub fn into_snapshot(mut self) -> FilesSnapshot {
        let deleted: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, v)| v.is_null())
            .map(|(k, _)| k.clone())
            .collect();
        for path in &deleted {
            self.entries.shift_remove(path);
            self.host.origins.remove(path);
            self.host.exact.remove(path);
        }
        self.host.foreign.retain(|_, (_, entry)| entry.is_some());
        debug_assert!(
            self.host.fits(&self.entries),
            "files and their exact objects apart"
        );
        (Arc::new(self.entries), Arc::new(self.host))
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
        let stale = (!host.origins.is_empty() || !host.exact.is_empty())
            && self
                .entries
                .keys()
                .any(|p| host.origins.contains_key(p) || host.exact.contains_key(p));
        if !stale && self.host.is_empty() {
            debug_assert!(host.fits(files), "files and their exact objects apart");
            return;
        }
        let host = Arc::make_mut(host);
        for path in self.entries.keys() {
            host.origins.remove(path);
            host.exact.remove(path);
        }
        for (path, origin) in &self.host.origins {
            if self.entries.get(path).is_some_and(|v| !v.is_null()) {
                host.origins.insert(path.clone(), origin.clone());
            }
        }
        for (path, object) in &self.host.exact {
            if self.entries.get(path).is_some_and(|v| !v.is_null()) {
                host.exact.insert(path.clone(), object.clone());
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
        debug_assert!(host.fits(files), "files and their exact objects apart");
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
    fn into_snapshot_is_the_write_applied_to_an_empty_map() {
        let mut write = FilesWrite::from(map(
            json!({"/a": {"content": "1"}, "/b": null, "/c": {"content": "3"}}),
        ));
        write.host.exact.insert("/a".into(), HostValue::new(1u8));
        write.host.exact.insert("/b".into(), HostValue::new(2u8));
        write.host.foreign.insert(
            "k1".into(),
            (HostValue::new(3u8), Some(HostValue::new(4u8))),
        );
        write
            .host
            .foreign
            .insert("k2".into(), (HostValue::new(5u8), None));
        let (mut files, mut host) = (Arc::new(Map::new()), Arc::new(FilesHost::default()));
        write.apply(&mut files, &mut host);
        let (moved, moved_host) = write.into_snapshot();
        assert_eq!(moved, files);
        assert_eq!(moved_host, host);
        assert_eq!(moved_host.exact.len(), 1);
        assert_eq!(moved_host.foreign.len(), 1);
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

    #[test]
    fn exact_objects_stay_only_beside_their_entries() {
        let mut write =
            FilesWrite::from(map(json!({"/a": {"content": "1"}, "/b": {"content": "2"}})));
        write.host.exact.insert("/a".into(), HostValue::new(1u8));
        write.host.exact.insert("/b".into(), HostValue::new(2u8));
        let (mut files, mut host) = write.into_snapshot();
        assert!(host.fits(&files));
        FilesWrite::from(map(json!({"/a": null}))).apply(&mut files, &mut host);
        assert!(host.fits(&files));
        assert_eq!(host.exact.len(), 1);
        // The map changed without its objects: `/b`'s object is no longer beside an entry.
        Arc::make_mut(&mut files).shift_remove("/b");
        assert!(!host.fits(&files));
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "files and their exact objects apart")]
    fn a_write_to_files_apart_from_their_exact_objects_fails_in_debug_builds() {
        let mut host = FilesHost::default();
        host.exact.insert("/gone".into(), HostValue::new(1u8));
        let (mut files, mut host) = (Arc::new(Map::new()), Arc::new(host));
        FilesWrite::from(map(json!({"/a": {"content": "1"}}))).apply(&mut files, &mut host);
    }
}
