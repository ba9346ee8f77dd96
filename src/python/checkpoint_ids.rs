//! A checkpoint id made as LangGraph's `uuid6(clock_seq=step)` makes it
//! (`deepagents_rs._checkpoint_ids`, which checks that LangGraph keeps its clock where this
//! reads it): its clock, random bits and last timestamp read and written as its Python reads
//! and writes them, the id formatted here. In Python the same reads and the f-string of five
//! masked and shifted hex fields were some 80 bytecodes a step on the thread every run's tool
//! calls share, and as many again in a plain commit.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// 100 ns intervals from the UUID epoch (1582-10-15) to the Unix epoch.
const UUID_EPOCH_OFFSET: u64 = 0x01B2_1DD2_1381_4000;

/// `str(UUID(int=..., version=6))` of LangGraph's `uuid6` fields: the timestamp (100 ns
/// intervals since 1582) in its version-6 order, the step as the clock sequence (its low 14
/// bits, as Python's `&` takes them from a negative one) and a 48-bit random node.
fn uuid6_text(timestamp: u64, step: i64, node: u64) -> String {
    let high = u128::from(timestamp >> 12);
    let fields = (high << 80)
        | (u128::from(0x6000 | (timestamp & 0x0FFF)) << 64)
        | (u128::from(0x8000 | (step as u64 & 0x3FFF)) << 48)
        | u128::from(node & 0xFFFF_FFFF_FFFF);
    uuid::Uuid::from_u128(fields).hyphenated().to_string()
}

/// `str(uuid6(clock_seq=step))`, LangGraph's last timestamp kept in `clock` (its `uuid6`'s
/// module globals, under `last`): the time from `time.time_ns()` and the node from
/// `random.getrandbits(48)`, `time` and `random` read from those globals at each call as
/// LangGraph's module reads them (a patched module there is seen), the timestamp one past the
/// last when the clock has not moved past it.
#[pyfunction]
pub(crate) fn _checkpoint_id(
    clock: &Bound<'_, PyDict>,
    last: &Bound<'_, PyAny>,
    step: i64,
) -> PyResult<String> {
    let py = clock.py();
    fn global<'py>(
        clock: &Bound<'py, PyDict>,
        name: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        clock
            .get_item(name)?
            .ok_or_else(|| pyo3::exceptions::PyNameError::new_err(name.clone().unbind()))
    }
    let time = global(clock, intern!(py, "time"))?;
    let random = global(clock, intern!(py, "random"))?;
    let now: u64 = time.getattr(intern!(py, "time_ns"))?.call0()?.extract()?;
    let mut timestamp = now / 100 + UUID_EPOCH_OFFSET;
    if let Some(previous) = clock.get_item(last)?.filter(|p| !p.is_none()) {
        let previous: u64 = previous.extract()?;
        if timestamp <= previous {
            timestamp = previous + 1;
        }
    }
    clock.set_item(last, timestamp)?;
    let node: u64 = random
        .getattr(intern!(py, "getrandbits"))?
        .call1((48,))?
        .extract()?;
    Ok(uuid6_text(timestamp, step, node))
}
