//! The process-wide HTTP client and the retry policy shared by every provider.

use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::HeaderMap;

/// One client for the process: it pools connections, so every model call after the first
/// reuses a warm one.
pub(crate) fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // reqwest is built without a default crypto provider (ring builds much faster than
        // aws-lc); install it once. An error means another provider is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .expect("building the HTTP client cannot fail with a valid TLS provider")
    })
}

/// The official SDKs' policy: retry connection errors, 408, 409, 429 and 5xx; the server may
/// override with `x-should-retry`.
pub(crate) fn should_retry(status: u16, headers: &HeaderMap) -> bool {
    match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// How long to wait before retry number `attempt` (0-based): the server's `retry-after-ms` or
/// `retry-after` when given (up to a minute), else exponential backoff with jitter.
pub(crate) fn retry_delay(attempt: u32, headers: Option<&HeaderMap>) -> Duration {
    if let Some(h) = headers {
        let header = |name: &str| h.get(name).and_then(|v| v.to_str().ok());
        if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
            && (0.0..60_000.0).contains(&ms)
        {
            return Duration::from_secs_f64(ms / 1000.0);
        }
        if let Some(s) = header("retry-after").and_then(|v| v.parse::<f64>().ok())
            && (0.0..60.0).contains(&s)
        {
            return Duration::from_secs_f64(s);
        }
    }
    let base = (0.5 * 2f64.powi(attempt as i32)).min(8.0);
    let jitter = 1.0 - 0.25 * (uuid::Uuid::new_v4().as_u128() % 1000) as f64 / 1000.0;
    Duration::from_secs_f64(base * jitter)
}
