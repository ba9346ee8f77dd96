//! deepagents' `[video]` extra on the Python side: the frame extractor the core's `read_file`
//! calls (`deepagents_rs.middleware._video_read`, which calls `extract_video_frames` as
//! deepagents' module holds it), and the core's sampling rules and texts handed to the
//! `_video` module that drives PyAV.

use std::sync::Arc;

use futures::future::BoxFuture;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict};
use serde_json::Value;

use crate::error::BoxError;
use crate::files::video::{self, Caps, Step};
use crate::middleware::filesystem::{FrameSource, Slot};
use crate::tools::HostContext;

/// The host's extractor: `_video_read.read_frames` (`aread_frames` under `ainvoke`).
pub(crate) struct PyFrames {
    adapter: Arc<Py<PyAny>>,
}

impl PyFrames {
    pub(crate) fn new(py: Python<'_>) -> PyResult<Self> {
        let adapter = py.import("deepagents_rs.middleware._video_read")?;
        Ok(PyFrames {
            adapter: Arc::new(adapter.into_any().unbind()),
        })
    }
}

/// What the extractor raised, told apart where it was raised (holding the GIL, off the
/// runtime's workers): `VideoExtractionError`'s text refuses the video.
struct FramesError(Result<String, PyErr>);

impl super::errors::HostError for FramesError {
    fn raised(py: Python<'_>, error: PyErr) -> Self {
        static REFUSAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let refusal = REFUSAL
            .import(
                py,
                "deepagents_rs.middleware._video",
                "VideoExtractionError",
            )
            .map(|r| error.is_instance(py, r));
        match refusal {
            Ok(true) => FramesError(Ok(error.value(py).to_string())),
            _ => FramesError(Err(error)),
        }
    }

    fn lost(error: PyErr) -> Self {
        FramesError(Err(error))
    }
}

impl FrameSource for PyFrames {
    fn extract(
        &self,
        host: HostContext,
        bytes: Vec<u8>,
        offset: f64,
        duration: f64,
        rate: f64,
    ) -> BoxFuture<'static, Result<Result<Vec<Value>, String>, BoxError>> {
        let adapter = self.adapter.clone();
        Box::pin(async move {
            let out = super::host::call_adapter_then(
                adapter,
                host,
                "read_frames",
                move |py, _| {
                    Ok(vec![
                        PyBytes::new(py, &bytes).into_any(),
                        offset.into_pyobject(py)?.into_any(),
                        duration.into_pyobject(py)?.into_any(),
                        rate.into_pyobject(py)?.into_any(),
                    ])
                },
                // The blocks read where the call ran; one that does not convert fails the run.
                |blocks| Ok(super::value::strict(blocks)),
            )
            .await;
            match out {
                Ok(Ok(Value::Array(blocks))) => Ok(Ok(blocks)),
                Ok(Ok(other)) => Ok(Ok(vec![other])),
                Ok(Err(e)) | Err(FramesError(Err(e))) => Err(Box::new(e) as BoxError),
                Err(FramesError(Ok(refused))) => Ok(Err(refused)),
            }
        })
    }

    /// `MAX_VIDEO_INPUT_BYTES` as `deepagents_rs.middleware.filesystem` holds it now.
    fn max_input(&self) -> BoxFuture<'static, usize> {
        Box::pin(async {
            super::python_calls::call(|py| {
                py.import("deepagents_rs.middleware.filesystem")
                    .and_then(|m| m.getattr("MAX_VIDEO_INPUT_BYTES"))
                    .and_then(|v| v.extract::<usize>())
                    .unwrap_or(video::MAX_INPUT_BYTES)
            })
            .await
            .unwrap_or(video::MAX_INPUT_BYTES)
        })
    }
}

/// The core's choice of frames for the `_video` module (`_sample_frames_in_window`), which
/// decodes and encodes them; refusals are raised as the `error` class given.
#[pyclass(module = "deepagents_rs._core")]
pub(crate) struct FrameSampler {
    inner: Option<video::FrameSampler>,
    error: Py<PyAny>,
}

impl FrameSampler {
    fn refuse(&self, py: Python<'_>, text: String) -> PyErr {
        match self.error.bind(py).call1((text,)) {
            Ok(e) => PyErr::from_value(e),
            Err(e) => e,
        }
    }
}

#[pymethods]
impl FrameSampler {
    #[new]
    #[pyo3(signature = (offset, duration, rate, time_base, stream_start, max_frames, max_bytes, error))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        offset: f64,
        duration: f64,
        rate: f64,
        time_base: f64,
        stream_start: f64,
        max_frames: usize,
        max_bytes: usize,
        error: Py<PyAny>,
    ) -> Self {
        let caps = Caps {
            max_frames,
            max_bytes,
        };
        let inner = video::FrameSampler::new(offset, duration, rate, time_base, stream_start, caps);
        FrameSampler {
            inner: Some(inner),
            error,
        }
    }

    /// A frame's time in seconds from the video's start (`None` without `pts` and `time`).
    #[pyo3(signature = (pts, time))]
    fn seconds(&self, pts: Option<f64>, time: Option<f64>) -> Option<f64> {
        self.inner.as_ref().and_then(|s| s.seconds(pts, time))
    }

    /// `"keep"`, `"skip"` or `"stop"` for the frame at `at` seconds.
    fn step(&mut self, at: Option<f64>) -> &'static str {
        match self.inner.as_mut().map(|s| s.step(at)) {
            Some(Step::Keep) => "keep",
            Some(Step::Skip) => "skip",
            Some(Step::Stop) | None => "stop",
        }
    }

    /// Adds a kept frame; False when the byte cap stops the read here.
    fn add(&mut self, py: Python<'_>, at: f64, image_base64: String) -> PyResult<bool> {
        let added = match self.inner.as_mut() {
            Some(s) => s.add(at, image_base64),
            None => Ok(false),
        };
        added.map_err(|text| self.refuse(py, text))
    }

    /// The content blocks (the sampler is spent).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let blocks = self.inner.take().map(|s| s.finish()).unwrap_or_default();
        Ok(pythonize::pythonize(py, &blocks)?)
    }
}

/// `_validate_video_window`'s refusal of a window, if any.
#[pyfunction]
pub(crate) fn video_window_error(
    offset: &Bound<'_, PyAny>,
    duration: &Bound<'_, PyAny>,
    rate: &Bound<'_, PyAny>,
) -> PyResult<Option<String>> {
    let values = [offset.extract()?, duration.extract()?, rate.extract()?];
    let reprs = [offset.repr()?, duration.repr()?, rate.repr()?];
    let reprs = [reprs[0].to_str()?, reprs[1].to_str()?, reprs[2].to_str()?];
    Ok(video::check_window(values, reprs).err())
}

/// The refusal of a window no frame was decoded in.
#[pyfunction]
pub(crate) fn video_no_frames(offset: f64, duration: f64) -> String {
    video::no_frames(offset, duration)
}

/// `_validate_dimensions`'s refusal, if any.
#[pyfunction]
pub(crate) fn video_frame_size_error(width: i64, height: i64) -> Option<String> {
    video::frame_size_error(width, height)
}

/// Whether a frame is scaled into the output box before it is encoded.
#[pyfunction]
pub(crate) fn video_needs_downscale(width: i64, height: i64) -> bool {
    video::needs_downscale(width, height)
}

/// The refusal of a read whose decoding ran past its budget.
#[pyfunction]
pub(crate) fn video_deadline_error() -> String {
    video::deadline_error()
}

/// `_move_media_results_after_tool_results`' order of a history given as each message's
/// kind (`"calls"`: an AI message with tool calls, `"tool"`, `"media"`: a video read's
/// media message, anything else): the indices in the order to send them, or None.
#[pyfunction]
pub(crate) fn media_after_tool_results_order(kinds: Vec<String>) -> Option<Vec<usize>> {
    let slots: Vec<Slot> = kinds
        .iter()
        .map(|k| match k.as_str() {
            "calls" => Slot::Calls,
            "tool" => Slot::Tool,
            "media" => Slot::Media,
            _ => Slot::Other,
        })
        .collect();
    crate::middleware::filesystem::media_after_tool_results_order(&slots)
}

/// deepagents' `_video` texts and numeric constants, by name.
pub(crate) fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let texts = PyDict::new(py);
    for (name, text) in video::texts::ALL {
        texts.set_item(name, text)?;
    }
    m.add("VIDEO_TEXTS", texts)?;
    let limits = PyDict::new(py);
    for (name, value) in [
        ("MAX_VIDEO_INPUT_BYTES", video::MAX_INPUT_BYTES),
        ("MAX_VIDEO_SAMPLED_FRAMES", video::MAX_SAMPLED_FRAMES),
        ("MAX_VIDEO_FRAME_PIXELS", video::MAX_FRAME_PIXELS),
        ("MAX_VIDEO_FRAME_SIDE", video::MAX_FRAME_SIDE),
        ("MAX_VIDEO_OUTPUT_WIDTH", video::MAX_OUTPUT_WIDTH),
        ("MAX_VIDEO_OUTPUT_HEIGHT", video::MAX_OUTPUT_HEIGHT),
        ("MAX_VIDEO_EMITTED_BYTES", video::MAX_EMITTED_BYTES),
        ("JPEG_QUALITY", video::JPEG_QUALITY),
    ] {
        limits.set_item(name, value)?;
    }
    limits.set_item("MAX_VIDEO_DECODE_SECONDS", video::MAX_DECODE_SECONDS)?;
    limits.set_item("VIDEO_SAMPLING_RATE", video::SAMPLING_RATE)?;
    m.add("VIDEO_LIMITS", limits)?;
    m.add_class::<FrameSampler>()?;
    m.add_function(wrap_pyfunction!(video_window_error, m)?)?;
    m.add_function(wrap_pyfunction!(video_no_frames, m)?)?;
    m.add_function(wrap_pyfunction!(video_frame_size_error, m)?)?;
    m.add_function(wrap_pyfunction!(video_needs_downscale, m)?)?;
    m.add_function(wrap_pyfunction!(video_deadline_error, m)?)?;
    m.add_function(wrap_pyfunction!(media_after_tool_results_order, m)?)?;
    Ok(())
}
