//! The PyO3 binding: converts at the boundary, releases the GIL around all Rust work, and
//! calls Python tools and models back from tokio.

mod agent;
mod errors;
mod host;
mod model;
mod tools;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<agent::CoreAgent>()?;
    Ok(())
}
