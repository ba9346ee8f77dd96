//! deepagents' `[video]` extra: the rules of a video `read_file` (deepagents'
//! `middleware._video`). The host decodes frames (PyAV) and encodes them (Pillow); what is a
//! video, the window in seconds, which frames are kept, the caps on what one read sends, and
//! every text the model sees are decided here.

use serde_json::{Value, json};

use crate::pyrepr::float_repr;

/// `MAX_VIDEO_INPUT_BYTES`: the largest video, decoded, that a read extracts frames from.
pub const MAX_INPUT_BYTES: usize = 1024 * 1024 * 1024;
/// `_VIDEO_SAMPLING_RATE`: frames per second of source a read samples.
pub const SAMPLING_RATE: f64 = 0.5;
/// `MAX_VIDEO_SAMPLED_FRAMES`.
pub const MAX_SAMPLED_FRAMES: usize = 64;
/// `MAX_VIDEO_FRAME_PIXELS`: a frame larger than this is scaled down.
pub const MAX_FRAME_PIXELS: usize = 1920 * 1080;
/// `MAX_VIDEO_FRAME_SIDE`: a frame wider or taller than this is refused.
pub const MAX_FRAME_SIDE: usize = 4096;
/// `MAX_VIDEO_OUTPUT_WIDTH` and `MAX_VIDEO_OUTPUT_HEIGHT`: the box frames are scaled into.
pub const MAX_OUTPUT_WIDTH: usize = 1920;
pub const MAX_OUTPUT_HEIGHT: usize = 1080;
/// `MAX_VIDEO_EMITTED_BYTES`: the frame texts and base64 images one read may send.
pub const MAX_EMITTED_BYTES: usize = 4 * 1024 * 1024;
/// `MAX_VIDEO_DECODE_SECONDS`: the wall-clock budget of one read's decoding.
pub const MAX_DECODE_SECONDS: f64 = 10.0;
/// `_JPEG_QUALITY`.
pub const JPEG_QUALITY: usize = 85;

/// deepagents' texts, by the names the host's `_video` module asks for them.
pub mod texts {
    pub const MISSING_VIDEO_HINT: &str = "Reading video files requires the optional video dependencies. Install them with `uv add 'deepagents[video]'`.";
    pub const OFFSET_NEGATIVE: &str = "offset_seconds must be >= 0, got {value}";
    pub const RATE_NOT_POSITIVE: &str = "sampling_rate must be > 0, got {value}";
    pub const DURATION_NOT_POSITIVE: &str = "duration_seconds must be > 0, got {value}";
    pub const OPEN_FAILED: &str = "Failed to open video payload: {error}";
    pub const DECODE_FAILED: &str = "Failed to decode video frames: {error}";
    pub const NO_VIDEO_STREAM: &str = "Video payload contains no video stream";
    pub const NO_TIME_BASE: &str =
        "Video stream has no time_base; cannot determine frame timestamps";
    pub const ZERO_TIME_BASE: &str =
        "Video stream time_base is zero; cannot determine frame timestamps";
    pub const NO_FRAMES: &str = "No frames decoded for window [{start}s, {end}s)";
    pub const FRAME_TOO_LARGE: &str =
        "Video frame dimensions {width}x{height} exceed the maximum {side}px side";
    pub const DEADLINE: &str = "Video decoding exceeded the {seconds}s safety budget";
    pub const FIRST_FRAME_TOO_LARGE: &str =
        "Video frame output exceeded the {bytes} byte safety budget before emitting a frame";
    pub const FRAME_AT: &str = "Frame at t={timestamp}";
    pub const MISSING_DEPENDENCY: &str = "{hint} (underlying error: {error})";
    pub const TRUNCATED: &str = "Coverage truncated at t={timestamp}: the output or frame cap was reached before the full window was decoded. Continue from offset={offset} to see the remaining frames.";

    /// Every text, for the host's module.
    pub const ALL: [(&str, &str); 16] = [
        ("MISSING_DEPENDENCY", MISSING_DEPENDENCY),
        ("MISSING_VIDEO_HINT", MISSING_VIDEO_HINT),
        ("OFFSET_NEGATIVE", OFFSET_NEGATIVE),
        ("RATE_NOT_POSITIVE", RATE_NOT_POSITIVE),
        ("DURATION_NOT_POSITIVE", DURATION_NOT_POSITIVE),
        ("OPEN_FAILED", OPEN_FAILED),
        ("DECODE_FAILED", DECODE_FAILED),
        ("NO_VIDEO_STREAM", NO_VIDEO_STREAM),
        ("NO_TIME_BASE", NO_TIME_BASE),
        ("ZERO_TIME_BASE", ZERO_TIME_BASE),
        ("NO_FRAMES", NO_FRAMES),
        ("FRAME_TOO_LARGE", FRAME_TOO_LARGE),
        ("DEADLINE", DEADLINE),
        ("FIRST_FRAME_TOO_LARGE", FIRST_FRAME_TOO_LARGE),
        ("FRAME_AT", FRAME_AT),
        ("TRUNCATED", TRUNCATED),
    ];
}

/// `_get_read_file_type`: the extra's containers (`.mkv`) are videos only while frames can
/// be extracted; without the extra the shared extension map decides (a `.mkv` is then a
/// generic file block, since backends still read it as binary).
pub fn read_file_type(path: &str, video_enabled: bool) -> &'static str {
    if video_enabled {
        super::media::backend_read_type(path)
    } else {
        super::media::file_type(path)
    }
}

/// `_format_timestamp`: `HH:MM:SS.mmm`, negative times as zero, milliseconds rounded as
/// Python's `round` does (half to even).
pub fn timestamp(seconds: f64) -> String {
    let total = (seconds.max(0.0) * 1000.0).round_ties_even() as u64;
    let (hours, rest) = (total / 3_600_000, total % 3_600_000);
    let (minutes, rest) = (rest / 60_000, rest % 60_000);
    format!(
        "{hours:02}:{minutes:02}:{:02}.{:03}",
        rest / 1000,
        rest % 1000
    )
}

/// `_video_window_header`: the first text the model sees of a read.
pub fn window_header(path: &str, offset: f64, duration: f64, rate: f64) -> String {
    let rate = float_repr(rate);
    if offset <= 0.0 {
        return format!(
            "Reading first {}s of {path} at {rate} fps.",
            duration.trunc() as i64
        );
    }
    format!(
        "Reading [{offset:.3}s, {:.3}s) of {path} at {rate} fps.",
        offset + duration
    )
}

/// `_validate_video_window` of `[offset, duration, rate]`, with deepagents' texts, which
/// show each value as the caller wrote it (`reprs`: an int stays one).
pub fn check_window([offset, duration, rate]: [f64; 3], reprs: [&str; 3]) -> Result<(), String> {
    if offset < 0.0 {
        return Err(texts::OFFSET_NEGATIVE.replace("{value}", reprs[0]));
    }
    if rate <= 0.0 {
        return Err(texts::RATE_NOT_POSITIVE.replace("{value}", reprs[2]));
    }
    if duration <= 0.0 {
        return Err(texts::DURATION_NOT_POSITIVE.replace("{value}", reprs[1]));
    }
    Ok(())
}

/// The refusal of a window no frame was decoded in.
pub fn no_frames(offset: f64, duration: f64) -> String {
    texts::NO_FRAMES
        .replace("{start}", &format!("{offset:.3}"))
        .replace("{end}", &format!("{:.3}", offset + duration))
}

/// `_validate_dimensions`: a frame too large to convert safely (an empty one passes).
pub fn frame_size_error(width: i64, height: i64) -> Option<String> {
    if width <= 0 || height <= 0 {
        return None;
    }
    let side = MAX_FRAME_SIDE as i64;
    (width > side || height > side).then(|| {
        texts::FRAME_TOO_LARGE
            .replace("{width}", &width.to_string())
            .replace("{height}", &height.to_string())
            .replace("{side}", &MAX_FRAME_SIDE.to_string())
    })
}

/// Whether a `width`×`height` frame is scaled into the output box before it is encoded.
pub fn needs_downscale(width: i64, height: i64) -> bool {
    width.saturating_mul(height) > MAX_FRAME_PIXELS as i64
        || width > MAX_OUTPUT_WIDTH as i64
        || height > MAX_OUTPUT_HEIGHT as i64
}

/// The refusal of a read whose decoding ran past its budget.
pub fn deadline_error() -> String {
    texts::DEADLINE.replace("{seconds}", &format!("{MAX_DECODE_SECONDS:.1}"))
}

/// What to do with the next decoded frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Before the next sample, or without a timestamp: decode on.
    Skip,
    /// Past the window, or a cap reached: stop decoding.
    Stop,
    /// A sample: encode it and hand it to `FrameSampler::add`.
    Keep,
}

/// `_sample_frames_in_window`'s choice of frames: one every `1 / rate` seconds of source
/// from `offset` until `offset + duration`, within the frame and byte caps.
#[derive(Clone, Debug)]
pub struct FrameSampler {
    offset: f64,
    end: f64,
    interval: f64,
    next_at: f64,
    time_base: f64,
    stream_start: f64,
    max_frames: usize,
    max_bytes: usize,
    frames: usize,
    bytes: usize,
    last_at: Option<f64>,
    truncated: bool,
    blocks: Vec<Value>,
}

/// The caps one read is held to (deepagents' module constants, which a host may change).
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub max_frames: usize,
    pub max_bytes: usize,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_frames: MAX_SAMPLED_FRAMES,
            max_bytes: MAX_EMITTED_BYTES,
        }
    }
}

impl FrameSampler {
    /// `time_base` and `stream_start` (seconds) put frame timestamps on the video's clock.
    pub fn new(
        offset: f64,
        duration: f64,
        rate: f64,
        time_base: f64,
        stream_start: f64,
        caps: Caps,
    ) -> Self {
        FrameSampler {
            offset,
            end: offset + duration,
            interval: 1.0 / rate,
            next_at: offset,
            time_base,
            stream_start,
            max_frames: caps.max_frames,
            max_bytes: caps.max_bytes,
            frames: 0,
            bytes: 0,
            last_at: None,
            truncated: false,
            blocks: Vec::new(),
        }
    }

    /// `_frame_seconds`: a frame's time from the video's start, from its `pts` (in stream
    /// time-base units) or else its `time` (seconds); `None` when it has neither.
    pub fn seconds(&self, pts: Option<f64>, time: Option<f64>) -> Option<f64> {
        let raw = match (pts, time) {
            (Some(pts), _) => pts * self.time_base,
            (None, Some(time)) => time,
            (None, None) => return None,
        };
        Some((raw - self.stream_start).max(0.0))
    }

    /// Whether the frame at `at` seconds is a sample.
    pub fn step(&mut self, at: Option<f64>) -> Step {
        let Some(at) = at else {
            return Step::Skip;
        };
        if at >= self.end {
            return Step::Stop;
        }
        // A frame a hair early (timestamps rounded by the container) still counts.
        if at + 1e-6 < self.next_at {
            return Step::Skip;
        }
        if self.frames >= self.max_frames {
            self.truncated = true;
            return Step::Stop;
        }
        Step::Keep
    }

    /// Adds the sample at `at` seconds, as its base64 JPEG: `Ok(false)` when it would pass
    /// the byte cap (decoding stops there), an error when not even the first one fits.
    pub fn add(&mut self, at: f64, image_base64: String) -> Result<bool, String> {
        let text = texts::FRAME_AT.replace("{timestamp}", &timestamp(at));
        let cost = text.len() + image_base64.len();
        if self.bytes + cost > self.max_bytes {
            if self.frames == 0 {
                return Err(
                    texts::FIRST_FRAME_TOO_LARGE.replace("{bytes}", &self.max_bytes.to_string())
                );
            }
            self.truncated = true;
            return Ok(false);
        }
        self.blocks.push(json!({"type": "text", "text": text}));
        self.blocks.push(json!({
            "type": "image",
            "base64": image_base64,
            "mime_type": "image/jpeg",
        }));
        self.frames += 1;
        self.bytes += cost;
        self.last_at = Some(at);
        // The next sample is due one interval after the slot this frame filled: a late
        // frame does not push the rest of the schedule back.
        let slot = ((at - self.offset) / self.interval).floor() + 1.0;
        self.next_at = (self.next_at + self.interval).max(self.offset + self.interval * slot);
        Ok(true)
    }

    /// The blocks for the model: each sample's time and image, then where to continue when
    /// a cap cut the window short.
    pub fn finish(mut self) -> Vec<Value> {
        if let (true, Some(last)) = (self.truncated, self.last_at) {
            let text = texts::TRUNCATED
                .replace("{timestamp}", &timestamp(last))
                .replace("{offset}", &format!("{last:.3}"));
            self.blocks.push(json!({"type": "text", "text": text}));
        }
        self.blocks
    }
}

/// `base64.b64decode(text, validate=True)`, with CPython's error texts (the model sees them).
pub fn strict_b64decode(text: &str) -> Result<Vec<u8>, String> {
    if !text.is_ascii() {
        return Err("string argument should contain only ASCII characters".into());
    }
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b'=') {
        return Err("Leading padding not allowed".into());
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let (mut quad, mut acc, mut pads, mut padding) = (0u8, 0u32, 0u8, false);
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'=' {
            padding = true;
            pads += 1;
            if quad >= 2 && quad + pads >= 4 {
                if i + 1 < bytes.len() {
                    return Err("Excess data after padding".into());
                }
                return Ok(out);
            }
            continue;
        }
        let Some(v) = sextet(c) else {
            return Err("Only base64 data is allowed".into());
        };
        if padding {
            return Err("Discontinuous padding not allowed".into());
        }
        pads = 0;
        acc = (acc << 6) | u32::from(v);
        quad += 1;
        match quad {
            2 => out.push((acc >> 4) as u8),
            3 => out.push((acc >> 2) as u8),
            4 => {
                out.push(acc as u8);
                (quad, acc) = (0, 0);
            }
            _ => {}
        }
        acc &= 0xff;
    }
    match quad {
        0 => Ok(out),
        1 => Err(format!(
            "Invalid base64-encoded string: number of data characters ({}) cannot be 1 more than a multiple of 4",
            out.len() / 3 * 4 + 1
        )),
        _ => Err("Incorrect padding".into()),
    }
}

/// The value of a base64 alphabet character.
pub(crate) fn sextet(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_b64_matches_cpython() {
        assert_eq!(strict_b64decode("YWJj").as_deref(), Ok(&b"abc"[..]));
        assert_eq!(strict_b64decode("YQ==").as_deref(), Ok(&b"a"[..]));
        assert_eq!(strict_b64decode("YWI=").as_deref(), Ok(&b"ab"[..]));
        assert_eq!(strict_b64decode("YR==").as_deref(), Ok(&b"a"[..]));
        for (input, error) in [
            ("!!!not-base64!!!", "Only base64 data is allowed"),
            ("abc", "Incorrect padding"),
            ("YQ=", "Incorrect padding"),
            ("ab=c", "Discontinuous padding not allowed"),
            ("YQ==YQ==", "Excess data after padding"),
            ("=abc", "Leading padding not allowed"),
            ("ab\ncd", "Only base64 data is allowed"),
            (
                "abcde",
                "Invalid base64-encoded string: number of data characters (5) cannot be 1 more than a multiple of 4",
            ),
            (
                "a===",
                "Invalid base64-encoded string: number of data characters (1) cannot be 1 more than a multiple of 4",
            ),
        ] {
            assert_eq!(strict_b64decode(input), Err(error.to_owned()), "{input:?}");
        }
    }

    #[test]
    fn timestamps_and_headers() {
        assert_eq!(timestamp(3723.0625), "01:02:03.062");
        assert_eq!(timestamp(-1.0), "00:00:00.000");
        assert_eq!(
            window_header("/v.mp4", 0.0, 100.0, SAMPLING_RATE),
            "Reading first 100s of /v.mp4 at 0.5 fps."
        );
        assert_eq!(
            window_header("/v.mp4", 12.0, 90.0, SAMPLING_RATE),
            "Reading [12.000s, 102.000s) of /v.mp4 at 0.5 fps."
        );
    }

    #[test]
    fn mkv_is_a_video_only_with_the_extra() {
        assert_eq!(read_file_type("/a/b.MKV", true), "video");
        assert_eq!(read_file_type("/a/b.mkv", false), "text");
        assert_eq!(read_file_type("/a/b.mp4", false), "video");
    }

    #[test]
    fn sampler_keeps_one_frame_per_interval_and_reports_truncation() {
        let caps = Caps {
            max_frames: 2,
            max_bytes: MAX_EMITTED_BYTES,
        };
        let mut s = FrameSampler::new(0.0, 10.0, 1.0, 0.5, 0.0, caps);
        let mut kept = Vec::new();
        for pts in 0..20 {
            let at = s.seconds(Some(f64::from(pts)), None);
            match s.step(at) {
                Step::Skip => {}
                Step::Stop => break,
                Step::Keep => {
                    let at = at.unwrap_or_default();
                    kept.push(at);
                    assert_eq!(s.add(at, "AAAA".into()), Ok(true));
                }
            }
        }
        assert_eq!(kept, [0.0, 1.0]);
        let blocks = s.finish();
        assert_eq!(blocks.len(), 5);
        assert!(blocks[4]["text"].as_str().unwrap().contains("offset=1.000"));
    }
}
