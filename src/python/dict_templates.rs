//! Dicts of a repeated key shape made as copies of a template.
//!
//! A reply's `response_metadata` (and its `usage`) has the same keys in the same order reply
//! after reply. Made key by key, each key is found in `string_cache` and inserted (hashed
//! into the table, the table grown as it fills). Here a shape's first dict leaves a template
//! behind (its keys, every value `None`); a later dict of that shape is `PyDict_Copy` of the
//! template (the key table copied whole, nothing hashed or grown) with its values written
//! over the `None`s. What comes out is what inserting would make: the same key objects (the
//! interned ones), in the same order, the same values.
//!
//! At most `SLOTS` templates are kept, a slot another shape hashes to taken over, and only
//! small shapes of short keys are kept, so arbitrary keys (file names) do not pile up. Like
//! `string_cache`'s, the lock is taken with the GIL held and let go before anything that can
//! run Python code (a copy can start the collector, whose finalizers can let the GIL go).

use std::borrow::Cow;
use std::sync::Arc;

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::interned_keys::{dict_key, interning_frees};

/// Templates kept (a power of two); a reply meets a few shapes.
const SLOTS: usize = 32;
/// The most keys a kept shape has (`response_metadata`'s ten, `usage`'s ten fit).
const MOST_KEYS: usize = 24;
/// The longest key a kept shape has, in bytes (as `string_cache` keeps).
const LONGEST_KEY: usize = 32;

/// A dict's entries as made: its keys in order, each with its value.
pub(super) type Entries<'k, 'py> = Vec<(Cow<'k, str>, Bound<'py, PyAny>)>;

struct Template {
    /// The shape's keys as text, in order (what a dict's keys are compared with).
    texts: Box<[Box<str>]>,
    /// The key objects, in order (what the values are written under).
    keys: Box<[Py<PyString>]>,
    /// The keys in order, every value `None`; never handed out, only copied.
    dict: Py<PyDict>,
}

static TEMPLATES: Mutex<[Option<Arc<Template>>; SLOTS]> = Mutex::new([const { None }; SLOTS]);

/// The dict of `entries` (keys unique, in order; keys as `dict_key` makes them): a copy of
/// their shape's template when it has one, else made key by key (leaving a template behind).
pub(super) fn dict<'py>(
    py: Python<'py>,
    entries: Entries<'_, 'py>,
) -> PyResult<Bound<'py, PyDict>> {
    // Where keys are not interned (`interning_frees`), each dict has its own: no template.
    let Some(at) = slot_of(&entries).filter(|_| interning_frees(py)) else {
        return inserted(py, entries);
    };
    let kept = TEMPLATES.lock()[at].clone();
    if let Some(template) = kept
        && template.texts.len() == entries.len()
        && template
            .texts
            .iter()
            .zip(&entries)
            .all(|(t, (k, _))| **t == **k)
    {
        return filled(py, &template, entries);
    }
    let keys: Vec<Bound<'py, PyString>> = entries.iter().map(|(k, _)| dict_key(py, k)).collect();
    let template = PyDict::new(py);
    for key in &keys {
        template.set_item(key, py.None())?;
    }
    // Keys equal twice would leave fewer entries than keys: no template of that.
    if template.len() == keys.len() {
        let kept = Arc::new(Template {
            texts: entries.iter().map(|(k, _)| Box::from(&**k)).collect(),
            keys: keys.iter().map(|k| k.clone().unbind()).collect(),
            dict: template.unbind(),
        });
        // The template it held, if any, is let go after the lock (its last references go then).
        let _previous = TEMPLATES.lock()[at].replace(kept.clone());
        return filled(py, &kept, entries);
    }
    let dict = PyDict::new(py);
    for (key, (_, value)) in keys.into_iter().zip(entries) {
        dict.set_item(key, value)?;
    }
    Ok(dict)
}

/// A copy of `template` with `entries`' values (its shape's) written over the `None`s.
fn filled<'py>(
    py: Python<'py>,
    template: &Template,
    entries: Entries<'_, 'py>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = template.dict.bind(py).copy()?;
    for (key, (_, value)) in template.keys.iter().zip(entries) {
        // The template's value is already `None`.
        if !value.is_none() {
            dict.set_item(key.bind(py), value)?;
        }
    }
    Ok(dict)
}

/// The dict made key by key (a shape not kept).
fn inserted<'py>(py: Python<'py>, entries: Entries<'_, 'py>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in entries {
        dict.set_item(dict_key(py, &key), value)?;
    }
    Ok(dict)
}

/// The slot of the shape of `entries`' keys, or `None` for a shape not kept (none, too many
/// or too long keys): a multiply-rotate hash (FxHash's step) of each key's length and bytes.
fn slot_of(entries: &Entries<'_, '_>) -> Option<usize> {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    if entries.is_empty() || entries.len() > MOST_KEYS {
        return None;
    }
    let mut hash = entries.len() as u64;
    for (key, _) in entries {
        let bytes = key.as_bytes();
        if bytes.len() > LONGEST_KEY {
            return None;
        }
        hash = (hash.rotate_left(5) ^ bytes.len() as u64).wrapping_mul(SEED);
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
        }
    }
    // The high bits: the multiply mixes into them.
    Some((hash >> (64 - SLOTS.trailing_zeros())) as usize)
}
