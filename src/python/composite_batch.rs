//! A `CompositePlan`'s upload or download: the paths grouped by the backend owning them
//! (as a dict groups its keys, so backends that compare equal share a batch), one batched
//! call per backend, and the replies put back in input order under the caller's paths.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use super::composite_ops::{Next, Op, Stage};
use super::composite_plan::{CompositePlan, done};
use super::composite_replies::make;

impl CompositePlan {
    /// Upload and download: `(position, inner path)` per backend, in the order backends
    /// first appear, keyed as a dict keys them, so each backend gets one batched call.
    pub(super) fn group(&mut self, py: Python<'_>, paths: &[Bound<'_, PyAny>]) -> PyResult<()> {
        let index = PyDict::new(py);
        for (position, path) in paths.iter().enumerate() {
            let (backend, inner) = self.key(py, path)?;
            match index.get_item(&backend)? {
                Some(at) => self.groups[at.extract::<usize>()?]
                    .1
                    .push((position, inner.unbind())),
                None => {
                    index.set_item(&backend, self.groups.len())?;
                    self.groups
                        .push((backend.unbind(), vec![(position, inner.unbind())]));
                }
            }
        }
        self.responses = (0..paths.len()).map(|_| None).collect();
        Ok(())
    }

    /// `reply` answers the batched call of group `index - 1`; the call of group `index` is
    /// next, or the responses in input order when none is left.
    pub(super) fn batch(
        &mut self,
        py: Python<'_>,
        index: usize,
        reply: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Next> {
        if let Some(reply) = reply {
            self.place(py, index - 1, &reply)?;
        }
        let Some((backend, batch)) = self.groups.get(index) else {
            let responses = self
                .responses
                .iter()
                .map(|r| r.as_ref().map(|r| r.bind(py)));
            return done(PyList::new(py, responses)?.into_any());
        };
        let backend = backend.bind(py).clone();
        let call = match &self.op {
            Op::Upload { files } => {
                let payload = batch
                    .iter()
                    .map(|(position, inner)| {
                        PyTuple::new(py, [inner.bind(py), files[*position].1.bind(py)])
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                let args = PyTuple::new(py, [PyList::new(py, payload)?])?;
                self.call(py, &backend, "upload_files", args, None)?
            }
            _ => {
                let inner = PyList::new(py, batch.iter().map(|(_, inner)| inner.bind(py)))?;
                self.call(
                    py,
                    &backend,
                    "download_files",
                    PyTuple::new(py, [inner])?,
                    None,
                )?
            }
        };
        self.stage = Stage::Batch(index + 1);
        Ok(call)
    }

    /// A backend's replies to its batch, put at their files' positions under the caller's
    /// paths; a reply missing from a short list counts as empty.
    pub(super) fn place(
        &mut self,
        py: Python<'_>,
        group: usize,
        reply: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let replied = reply.len()?;
        let positions: Vec<usize> = self.groups[group].1.iter().map(|(p, _)| *p).collect();
        for (n, position) in positions.into_iter().enumerate() {
            let answer = if n < replied {
                Some(reply.get_item(n)?)
            } else {
                None
            };
            let field = |name: &str| -> PyResult<Bound<'_, PyAny>> {
                match &answer {
                    Some(answer) => answer.getattr(name),
                    None => Ok(py.None().into_bound(py)),
                }
            };
            let response = match &self.op {
                Op::Upload { files } => make(
                    py,
                    "FileUploadResponse",
                    &[
                        ("path", files[position].0.bind(py).clone()),
                        ("error", field("error")?),
                    ],
                )?,
                Op::Download { paths } => make(
                    py,
                    "FileDownloadResponse",
                    &[
                        ("path", paths[position].bind(py).clone()),
                        ("content", field("content")?),
                        ("error", field("error")?),
                    ],
                )?,
                _ => return Err(PyRuntimeError::new_err("the composite plan has no files")),
            };
            self.responses[position] = Some(response.unbind());
        }
        Ok(())
    }
}
