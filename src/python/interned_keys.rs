//! Dicts made from the core's values with their keys interned.
//!
//! Every message handed to Python repeats the same few keys (`type`, `id`, `input_tokens`,
//! `model_provider`, ...), and the host keeps each message's dicts for the whole conversation
//! (a run's result holds them all). A fresh `str` per key costs about 60 bytes in every one of
//! those dicts; deepagents' own messages share their keys (they come from pydantic's field
//! names and the JSON parser's key cache). Interned, each distinct key is one object.
//! Python drops an interned string once nothing uses it, so arbitrary keys (file paths) do
//! not pile up.
//!
//! Short text values are interned too: a reply repeats a few of them in every message (the
//! tool's name in its block, its call and its tool message; the model's name twice; a
//! block's `type`), which deepagents' messages share (the SDK's parsed objects, its
//! literals). Fresh, they were about 13 KB more per 20-step result than deepagents' (351 `str`
//! objects against 139). Longer values (ids, texts) are mostly unique: left as made.
//!
//! The interned strings are found through `string_cache` (by their text, without making a
//! new `str` to look each up).
//!
//! Not on CPython 3.12.0 to 3.12.6, whose interned strings are immortal (gh-113993, fixed in
//! 3.12.7): there every distinct key and short value a long-lived process hands to Python
//! (file paths, tool arguments) would stay until exit, so the strings are left as made.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyMapping, PyString};
use pythonize::{PythonizeMappingType, PythonizeTypes, PythonizeUnnamedMappingAdapter};

use super::string_cache::interned;

pub(crate) struct InternedKeys;

impl PythonizeTypes for InternedKeys {
    type Map = InternedDict;
    type NamedMap = PythonizeUnnamedMappingAdapter<InternedDict>;
    type List = PyList;
}

pub(crate) struct InternedDict;

/// The longest text value interned, in bytes: names, types, models and stop reasons fit;
/// the API's ids (28 bytes and more) and uuids do not.
const SHORT_VALUE: usize = 24;

impl PythonizeMappingType for InternedDict {
    type Builder<'py> = Bound<'py, PyDict>;

    fn builder<'py>(py: Python<'py>, _len: Option<usize>) -> PyResult<Self::Builder<'py>> {
        Ok(PyDict::new(py))
    }

    fn push_item<'py>(
        builder: &mut Self::Builder<'py>,
        key: Bound<'py, PyAny>,
        value: Bound<'py, PyAny>,
    ) -> PyResult<()> {
        let py = builder.py();
        if !interning_frees(py) {
            return builder.set_item(key, value);
        }
        let value = match value.cast_exact::<PyString>() {
            Ok(s) => match s.to_str()? {
                short if short.len() <= SHORT_VALUE => interned(py, short).into_any(),
                _ => value,
            },
            Err(_) => value,
        };
        match key.cast_exact::<PyString>() {
            Ok(s) => builder.set_item(interned(py, s.to_str()?), value),
            Err(_) => builder.set_item(key, value),
        }
    }

    fn finish<'py>(builder: Self::Builder<'py>) -> PyResult<Bound<'py, PyMapping>> {
        Ok(builder.into_mapping())
    }
}

/// A text value as `InternedDict` writes it into a dict: interned when short (and interning
/// frees), else new. For values a caller puts in a dict itself (`result_fields`).
pub(crate) fn text_value<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    if text.len() <= SHORT_VALUE && interning_frees(py) {
        interned(py, text)
    } else {
        PyString::new(py, text)
    }
}

/// A dict key as `InternedDict` writes it: interned (where interning frees), else new. For
/// dicts a caller makes itself (`compact_dict`).
pub(crate) fn dict_key<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    if interning_frees(py) {
        interned(py, key)
    } else {
        PyString::new(py, key)
    }
}

/// Whether this interpreter drops an interned string once nothing uses it (read once).
pub(super) fn interning_frees(py: Python<'_>) -> bool {
    static FREES: PyOnceLock<bool> = PyOnceLock::new();
    *FREES.get_or_init(py, || {
        let v = py.version_info();
        frees_interned((v.major, v.minor, v.patch))
    })
}

/// Whether CPython `version` drops an interned string once nothing uses it: all but 3.12.0
/// to 3.12.6, which made every interned string immortal.
fn frees_interned((major, minor, patch): (u8, u8, u8)) -> bool {
    !(major == 3 && minor == 12 && patch < 7)
}

/// Whether dicts handed to Python intern their keys and short values: under `version`
/// (`(major, minor, patch)`), or under this interpreter when `None` (for tests).
#[pyfunction]
#[pyo3(signature = (version=None))]
pub(crate) fn _interns_strings(py: Python<'_>, version: Option<(u8, u8, u8)>) -> bool {
    version.map_or_else(|| interning_frees(py), frees_interned)
}
