//! `CompositeBackend`'s routing rule (`crate::files::composite`) for deepagents' private
//! `_route_for_path`, which the file middleware and the backend adapter also use; the
//! class's operations are `CompositePlan`s (`composite_plan.rs`).

use pyo3::prelude::*;

use crate::files::composite as rules;

/// The route owning `path` among `sorted_prefixes` (longest first): `(index, inner path)`,
/// or `None` for the default backend.
#[pyfunction]
pub(crate) fn composite_route(sorted_prefixes: Vec<String>, path: &str) -> Option<(usize, String)> {
    rules::route(&sorted_prefixes, path)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(composite_route, m)?)?;
    Ok(())
}
