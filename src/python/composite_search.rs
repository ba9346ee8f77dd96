//! A `CompositePlan`'s grep or glob from the composite's root: the default backend first,
//! then every route in the order given (`routes.items()`), each asked at its own root with
//! the pattern adapted to it (glob) or the cap's remaining budget (grep); the parts merged
//! with their prefixes put back, the first error result ending the search as it is.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PySlice, PyString, PyTuple};

use super::composite_ops::{Next, Op, Stage};
use super::composite_plan::{CompositePlan, done};
use super::composite_replies::{
    capped_grep, either, failed_glob, glob_parts, items_of, make, prefixed, sorted_by_path,
    worse_reason,
};
use crate::files::composite as rules;

impl CompositePlan {
    /// The default backend's part of a root grep or glob.
    pub(super) fn root_default(
        &mut self,
        py: Python<'_>,
        reply: Bound<'_, PyAny>,
    ) -> PyResult<Next> {
        let (matches, truncated, reason) = match &self.op {
            Op::Grep { max_count, .. } => {
                let found = capped_grep(py, reply, *max_count)?;
                if found.getattr("error")?.is_truthy()? {
                    return done(found);
                }
                (found.getattr("matches")?, found.getattr("truncated")?, None)
            }
            _ => {
                if failed_glob(py, &reply)? {
                    return done(reply);
                }
                let (matches, truncated, reason) = glob_parts(py, &reply)?;
                (matches, truncated, Some(reason))
            }
        };
        self.found = items_of(&matches)?.into_iter().map(Bound::unbind).collect();
        let untruncated = PyBool::new(py, false).to_owned().into_any();
        self.truncated = Some(either(untruncated, truncated)?.unbind());
        if let Some(reason) = reason {
            self.reason = Some(worse_reason(py, py.None().into_bound(py), reason)?.unbind());
        }
        for pair in self
            .composite
            .bind(py)
            .getattr("routes")?
            .call_method0("items")?
            .try_iter()?
        {
            let (prefix, backend): (String, Py<PyAny>) = pair?.extract()?;
            self.routes.push((prefix, backend));
        }
        self.next_route(py, 0)
    }

    /// A route's part of a root grep or glob, asked with `cap`.
    pub(super) fn root_route(
        &mut self,
        py: Python<'_>,
        reply: Bound<'_, PyAny>,
        index: usize,
        cap: Option<isize>,
    ) -> PyResult<Next> {
        let prefix = self.routes[index].0.clone();
        let (matches, truncated) = if let Op::Grep { .. } = &self.op {
            let part = capped_grep(py, reply, cap)?;
            if part.getattr("error")?.is_truthy()? {
                return done(part);
            }
            (part.getattr("matches")?, part.getattr("truncated")?)
        } else {
            if failed_glob(py, &reply)? {
                // A failed route must not pass for a partial success.
                return done(reply);
            }
            let (matches, truncated, reason) = glob_parts(py, &reply)?;
            let current = self.reason.take().unwrap_or_else(|| py.None());
            self.reason = Some(worse_reason(py, current.into_bound(py), reason)?.unbind());
            (matches, truncated)
        };
        self.found.extend(
            prefixed(py, &matches, &prefix)?
                .into_iter()
                .map(Bound::unbind),
        );
        self.fold_truncated(py, truncated)?;
        self.next_route(py, index + 1)
    }

    pub(super) fn fold_truncated(
        &mut self,
        py: Python<'_>,
        incoming: Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let current = self.truncated.take().unwrap_or_else(|| py.None());
        self.truncated = Some(either(current.into_bound(py), incoming)?.unbind());
        Ok(())
    }

    /// The call for the first route from `index` on that a root search asks, or the merged
    /// result when none is left.
    pub(super) fn next_route(&mut self, py: Python<'_>, index: usize) -> PyResult<Next> {
        let root = PyString::new(py, "/").into_any();
        match &self.op {
            Op::Grep { max_count, .. } => {
                let Some((_, backend)) = self.routes.get(index) else {
                    return self.merged(py);
                };
                let budget = rules::grep_budget(max_count.map(|m| m as i64), self.found.len())
                    .map(|b| b as isize);
                if budget == Some(0) {
                    // The cap is met, so the routes left are never searched; the result
                    // may be flagged truncated even when they hold nothing.
                    let flagged = PyBool::new(py, true).to_owned().into_any();
                    self.truncated = Some(flagged.unbind());
                    return self.merged(py);
                }
                let call = self.grep_call(py, backend.bind(py), &root, budget)?;
                self.stage = Stage::RootRoute(index, budget);
                Ok(call)
            }
            Op::Glob { pattern, .. } => {
                let pattern_text = pattern.bind(py).cast::<PyString>()?.to_str()?.to_owned();
                for (at, (prefix, backend)) in self.routes.iter().enumerate().skip(index) {
                    let Some(inner) = rules::route_glob_pattern(&pattern_text, prefix) else {
                        continue;
                    };
                    let args = PyTuple::new(py, [PyString::new(py, &inner).into_any(), root])?;
                    let call = self.call(py, backend.bind(py), "glob", args, None)?;
                    self.stage = Stage::RootRoute(at, None);
                    return Ok(call);
                }
                self.merged(py)
            }
            _ => Err(PyRuntimeError::new_err(
                "the composite plan is not a search",
            )),
        }
    }

    /// A root search's result: every part's matches, the glob's sorted by path.
    pub(super) fn merged(&mut self, py: Python<'_>) -> PyResult<Next> {
        let found: Vec<Bound<'_, PyAny>> = self.found.drain(..).map(|f| f.into_bound(py)).collect();
        let truncated = self
            .truncated
            .take()
            .unwrap_or_else(|| py.None())
            .into_bound(py);
        match &self.op {
            Op::Grep { max_count, .. } => {
                let mut matches = PyList::new(py, found)?.into_any();
                let mut truncated = truncated;
                if let Some(max) = *max_count
                    && matches.len()? as isize > max
                {
                    // Per-call capping keeps the total within bounds except for a negative cap.
                    matches = matches.get_item(PySlice::new(py, 0, max, 1))?;
                    truncated = PyBool::new(py, true).to_owned().into_any();
                }
                done(make(
                    py,
                    "GrepResult",
                    &[("matches", matches), ("truncated", truncated)],
                )?)
            }
            _ => {
                let reason = self
                    .reason
                    .take()
                    .unwrap_or_else(|| py.None())
                    .into_bound(py);
                let matches = sorted_by_path(py, found)?.into_any();
                done(make(
                    py,
                    "GlobResult",
                    &[
                        ("matches", matches),
                        ("truncated", truncated),
                        ("truncation_reason", reason),
                    ],
                )?)
            }
        }
    }
}
