//! Interned strings found by their text without asking Python.
//!
//! `PyString::intern` makes a new `str` of the text, hashes it, looks it up in the
//! interpreter's table of interned strings and drops the new one when an equal one is there.
//! A result message's dicts repeat the same few dozen keys and short values
//! (`response_metadata`'s twenty keys, `usage`'s, a block's `type`): asking Python for each
//! was about 500,000 of the 1.7 million instructions a 20-step `invoke` costs its calling
//! thread (callgrind). Here the text's own bytes find the string in a small table.
//!
//! The table holds a reference to each string it has, so at most `SLOTS` short strings stay
//! alive while nothing else uses them (a few tens of KB); a slot another text hashes to is
//! taken over, so arbitrary texts (file names, tool arguments) do not pile up. What a caller
//! gets is the very object `PyString::intern` gives: an interned string stays in Python's
//! table while this one holds it, and a new one enters both.
//!
//! A lock guards the table, taken with the GIL held and let go before anything can release
//! it, so it never waits on a thread that waits for the GIL, and no thread holds it when
//! another forks.

use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// The longest text kept, in bytes: keys, names, models, stop reasons and `type`s fit.
const LONGEST: usize = 32;
/// Slots in the table (a power of two); a run meets some tens of distinct short texts.
const SLOTS: usize = 512;

struct Slot {
    len: u8,
    bytes: [u8; LONGEST],
    string: Option<Py<PyString>>,
}

impl Slot {
    const EMPTY: Slot = Slot {
        len: 0,
        bytes: [0; LONGEST],
        string: None,
    };
}

static TABLE: Mutex<[Slot; SLOTS]> = Mutex::new([const { Slot::EMPTY }; SLOTS]);

/// The interned string of `text`: the object `PyString::intern` gives.
pub(crate) fn interned<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    let bytes = text.as_bytes();
    if bytes.len() > LONGEST {
        return PyString::intern(py, text);
    }
    let at = slot_of(bytes);
    {
        let table = TABLE.lock();
        let slot = &table[at];
        if let Some(string) = &slot.string
            && usize::from(slot.len) == bytes.len()
            && slot.bytes[..bytes.len()] == *bytes
        {
            return string.bind(py).clone();
        }
    }
    let string = PyString::intern(py, text);
    let mut slot = Slot {
        // At most `LONGEST` (checked above).
        len: bytes.len() as u8,
        bytes: [0; LONGEST],
        string: Some(string.clone().unbind()),
    };
    slot.bytes[..bytes.len()].copy_from_slice(bytes);
    // The string it held, if any, is let go after the lock: its last reference may go then.
    let _previous = std::mem::replace(&mut TABLE.lock()[at], slot);
    string
}

/// Which slot `bytes` go in: a multiply-rotate hash of 8-byte words (FxHash's step).
fn slot_of(bytes: &[u8]) -> usize {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut hash = bytes.len() as u64;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(SEED);
    }
    // The high bits: the multiply mixes into them.
    (hash >> (64 - SLOTS.trailing_zeros())) as usize
}
