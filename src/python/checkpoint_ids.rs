//! A checkpoint id's text from its fields (`deepagents_rs._checkpoint_ids`, which keeps
//! LangGraph's clock and random bits): formatting them in Python, an f-string of five masked
//! and shifted hex fields, was some 40 bytecodes a step on the thread every run's tool calls
//! share, and as many again in a plain commit.

use pyo3::prelude::*;

/// `str(UUID(int=..., version=6))` of LangGraph's `uuid6` fields: the timestamp (100 ns
/// intervals since 1582) in its version-6 order, the step as the clock sequence (its low 14
/// bits, as Python's `&` takes them from a negative one) and a 48-bit random node.
#[pyfunction]
pub(crate) fn _uuid6_text(timestamp: u64, step: i64, node: u64) -> String {
    let high = u128::from(timestamp >> 12);
    let fields = (high << 80)
        | (u128::from(0x6000 | (timestamp & 0x0FFF)) << 64)
        | (u128::from(0x8000 | (step as u64 & 0x3FFF)) << 48)
        | u128::from(node & 0xFFFF_FFFF_FFFF);
    uuid::Uuid::from_u128(fields).hyphenated().to_string()
}
