//! HTTP for every provider: one pooled client, the retry policy as data, and one attempt
//! loop. An adapter supplies the URL, headers and body, reads error bodies into a
//! `ProviderError`, and decides what an attempt is (a whole streamed reply is one attempt,
//! so a stream that breaks before anything was reported is retried whole).

use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::error::{ErrorKind, ProviderError};
use super::payload::Payload;
use super::sse::{SseEvent, SseParser};

/// One client for the process: it pools connections, so every model call after the first
/// reuses a warm one.
fn client() -> Result<&'static reqwest::Client, String> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            // reqwest is built without a default crypto provider (ring builds much faster
            // than aws-lc); install it once. An error means another provider is already
            // installed.
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .map_err(|e| format!("the HTTP client could not be built: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// When and how long to retry: the official SDKs' policy, with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub max_retries: u32,
    /// How long to wait for the response headers, and then for each piece of the body (the
    /// SDKs' read timeout: a long stream that keeps sending never times out).
    pub timeout: Duration,
    /// The first backoff; doubled per retry up to `max_backoff`, less up to 25% jitter.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// A server's `retry-after` is honoured up to this; a longer (or zero) one falls back to
    /// the backoff.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            timeout: Duration::from_secs(600),
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (0-based).
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after.filter(|d| !d.is_zero() && *d <= self.max_retry_after) {
            return after;
        }
        let backoff = self
            .initial_backoff
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.max_backoff);
        let jitter = 1.0 - 0.25 * (uuid::Uuid::new_v4().as_u128() % 1000) as f64 / 1000.0;
        backoff.mul_f64(jitter)
    }

    /// Runs `attempt` (given the attempt number, for the `x-stainless-retry-count` header)
    /// until it succeeds, fails in a way not worth retrying, or the retries are spent.
    pub async fn run<T, F, Fut>(&self, mut attempt: F) -> Result<T, ProviderError>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        let mut n = 0;
        loop {
            match attempt(n).await {
                Ok(value) => return Ok(value),
                Err(e) if n < self.max_retries && e.is_retryable() => {
                    let delay = self.delay(n, e.retry_after);
                    tracing::debug!(
                        provider = e.provider,
                        attempt = n,
                        kind = e.kind.name(),
                        status = e.status,
                        ?delay,
                        "model request failed; retrying"
                    );
                    tokio::time::sleep(delay).await;
                    n += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Where a provider's requests go. The headers hold the credentials, so this type has no
/// `Debug`.
pub struct Endpoint {
    pub provider: &'static str,
    pub url: String,
    /// `url` parsed at the first request: reqwest parses a `&str` URL on every post (about
    /// 10K instructions); a parsed one is cloned. Not parsed up front, so a bad URL stays an
    /// error of the request, as before.
    pub parsed_url: OnceLock<Option<reqwest::Url>>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Reads an error status's body into the classified error.
    pub read_error: fn(&'static str, u16, &HeaderMap, &[u8]) -> ProviderError,
}

/// A header value that is never printed (reqwest leaves sensitive values out of its debug
/// output).
pub fn secret_header(value: &str) -> Result<HeaderValue, String> {
    let mut v = HeaderValue::from_str(value)
        .map_err(|_| "the API key contains characters not allowed in a header".to_owned())?;
    v.set_sensitive(true);
    Ok(v)
}

/// reqwest's errors print the URL; keep only the cause (a user-configured base URL may carry
/// credentials).
fn without_url(e: reqwest::Error) -> String {
    let e = e.without_url();
    // The chain's innermost cause says what happened (refused, reset, ...).
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        message = format!("{message}: {s}");
        source = s.source();
    }
    message
}

/// The server's `retry-after-ms` or `retry-after` (seconds), as the SDKs read them.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    header("retry-after")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

fn should_retry_header(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry").and_then(|v| v.to_str().ok()) {
        Some("true") => Some(true),
        Some("false") => Some(false),
        _ => None,
    }
}

/// The retry count's header value: the first attempts' (every one the default policy makes)
/// are static, as a number's value is written into an allocation of its own.
fn retry_count(attempt: u32) -> HeaderValue {
    const COUNTS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    match COUNTS.get(attempt as usize) {
        Some(count) => HeaderValue::from_static(count),
        None => HeaderValue::from(attempt),
    }
}

impl Endpoint {
    /// One exchange: the response of a 2xx status, unread, or the classified error.
    pub async fn post(
        &self,
        body: &Payload,
        attempt: u32,
        policy: &RetryPolicy,
    ) -> Result<reqwest::Response, ProviderError> {
        let client = client().map_err(|e| ProviderError::connection(self.provider, e))?;
        let parsed = self
            .parsed_url
            .get_or_init(|| reqwest::Url::parse(&self.url).ok());
        let mut request = match parsed {
            Some(url) => reqwest::Request::new(reqwest::Method::POST, url.clone()),
            // reqwest says what is wrong with it (the error a send of it returned).
            None => client
                .post(&self.url)
                .build()
                .map_err(|e| ProviderError::connection(self.provider, without_url(e)))?,
        };
        *request.headers_mut() = self.request_headers(attempt);
        *request.body_mut() = Some(body.body());
        let sent = tokio::time::timeout(policy.timeout, client.execute(request)).await;
        let response = match sent {
            Err(_) => return Err(self.timed_out(policy)),
            Ok(Err(e)) if e.is_timeout() => return Err(self.timed_out(policy)),
            Ok(Err(e)) => return Err(ProviderError::connection(self.provider, without_url(e))),
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let bytes = tokio::time::timeout(policy.timeout, response.bytes())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let mut error = (self.read_error)(self.provider, status, &headers, &bytes);
        error.retry_after = retry_after(&headers);
        error.should_retry = should_retry_header(&headers);
        Err(error)
    }

    /// An attempt's headers, in the order they are sent: the content type, the attempt's
    /// retry count, then the provider's. Made here and set on the request whole, rather than
    /// through reqwest's builder, which moves itself by value for every header, parses the
    /// names from text and took the count through a `String` (about 5K instructions a step on
    /// the workers). Room is left for the client's default (`accept`), added by reqwest.
    fn request_headers(&self, attempt: u32) -> HeaderMap {
        let mut headers = HeaderMap::with_capacity(self.headers.len() + 3);
        headers.append(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.append(
            HeaderName::from_static("x-stainless-retry-count"),
            retry_count(attempt),
        );
        for (name, value) in &self.headers {
            headers.append(name.clone(), value.clone());
        }
        headers
    }

    fn timed_out(&self, policy: &RetryPolicy) -> ProviderError {
        ProviderError::new(
            self.provider,
            ErrorKind::Timeout,
            format!("no response within {:?}", policy.timeout),
        )
    }

    /// A 2xx response's whole body.
    pub async fn read_body(
        &self,
        response: reqwest::Response,
        policy: &RetryPolicy,
    ) -> Result<bytes::Bytes, ProviderError> {
        match tokio::time::timeout(policy.timeout, response.bytes()).await {
            Err(_) => Err(self.timed_out(policy)),
            Ok(Err(e)) => Err(ProviderError::connection(
                self.provider,
                format!("the response broke off: {}", without_url(e)),
            )),
            Ok(Ok(b)) => Ok(b),
        }
    }

    /// One exchange whose 2xx body is JSON.
    pub async fn post_json(
        &self,
        body: &Payload,
        attempt: u32,
        policy: &RetryPolicy,
    ) -> Result<serde_json::Value, ProviderError> {
        let response = self.post(body, attempt, policy).await?;
        let bytes = self.read_body(response, policy).await?;
        serde_json::from_slice(&bytes)
            .map_err(|e| ProviderError::decode(self.provider, e.to_string()))
    }

    /// A 2xx response's event stream, each event handed to `on_event` as it completes. A
    /// stream that breaks off, or goes quiet for longer than the timeout, is an error.
    pub async fn read_events(
        &self,
        mut response: reqwest::Response,
        policy: &RetryPolicy,
        mut on_event: impl FnMut(SseEvent) -> Result<(), ProviderError>,
    ) -> Result<(), ProviderError> {
        let mut parser = SseParser::default();
        loop {
            let chunk = match tokio::time::timeout(policy.timeout, response.chunk()).await {
                Err(_) => {
                    return Err(ProviderError::new(
                        self.provider,
                        ErrorKind::Timeout,
                        format!("the response stream went quiet for {:?}", policy.timeout),
                    ));
                }
                Ok(r) => r,
            };
            match chunk {
                Ok(Some(bytes)) => {
                    for event in parser.feed(&bytes) {
                        on_event(event)?;
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    return Err(ProviderError::connection(
                        self.provider,
                        format!("the response stream broke off: {}", without_url(e)),
                    ));
                }
            }
        }
        if let Some(event) = parser.finish() {
            on_event(event)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_honoured_within_bounds_else_backoff() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        // Zero and over-long waits fall back to the exponential backoff, as the SDKs do.
        for after in [Duration::ZERO, Duration::from_secs(61)] {
            let d = p.delay(0, Some(after));
            assert!(d <= Duration::from_millis(500) && d >= Duration::from_millis(375));
        }
        let d = p.delay(10, None);
        assert!(d <= Duration::from_secs(8) && d >= Duration::from_secs(6));
    }

    #[test]
    fn an_attempts_headers_are_its_content_type_retry_count_and_the_providers_in_order() {
        let endpoint = Endpoint {
            provider: "anthropic",
            url: "http://localhost/v1/messages".to_owned(),
            parsed_url: OnceLock::new(),
            headers: vec![
                (
                    HeaderName::from_static("x-api-key"),
                    HeaderValue::from_static("k"),
                ),
                (
                    HeaderName::from_static("anthropic-version"),
                    HeaderValue::from_static("2023-06-01"),
                ),
            ],
            read_error: |provider, _, _, _| ProviderError::new(provider, ErrorKind::Server, ""),
        };
        let headers = endpoint.request_headers(12);
        let sent: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            sent,
            [
                ("content-type", "application/json"),
                ("x-stainless-retry-count", "12"),
                ("x-api-key", "k"),
                ("anthropic-version", "2023-06-01"),
            ]
        );
    }

    /// Every count is its decimal digits; those of the default policy's attempts are made
    /// with no allocation.
    #[test]
    fn a_retry_count_is_its_digits_and_a_first_attempts_allocates_nothing() {
        for attempt in [0, 1, 2, 9, 10, 12, 4_294_967_295] {
            let (value, allocated) = crate::heap_count::allocated_by(|| retry_count(attempt));
            assert_eq!(value.to_str().unwrap(), attempt.to_string());
            assert_eq!(allocated == 0, attempt < 10, "{attempt}: {allocated} bytes");
        }
    }

    #[test]
    fn retry_after_headers_parse_ms_first() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        h.insert("retry-after-ms", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
    }

    /// A body of several pieces goes out whole, with its exact `Content-Length` (not
    /// chunked): a real server on loopback reads it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_body_of_pieces_is_sent_with_its_length() {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = Vec::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" {
                    break;
                }
                head.push(line.trim_end().to_ascii_lowercase());
            }
            let len: usize = head
                .iter()
                .find_map(|h| h.strip_prefix("content-length: "))
                .expect("a content-length")
                .parse()
                .unwrap();
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            let mut stream = stream;
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
                .unwrap();
            (head, body)
        });
        let endpoint = Endpoint {
            provider: "test",
            url: format!("http://127.0.0.1:{port}/v1/messages"),
            parsed_url: OnceLock::new(),
            headers: Vec::new(),
            read_error: |p, status, _, _| {
                ProviderError::from_response(p, status, None, None, String::new())
            },
        };
        let turns = "x".repeat(100_000);
        let payload = Payload::new(
            [
                &b"{\"messages\":[\""[..],
                turns.as_bytes(),
                b"\"],\"model\":\"m\"}",
            ]
            .map(bytes::Bytes::copy_from_slice)
            .to_vec(),
        );
        let reply = endpoint
            .post_json(&payload, 0, &RetryPolicy::default())
            .await
            .unwrap();
        assert_eq!(reply, serde_json::json!({}));
        let (head, body) = server.join().unwrap();
        assert!(
            !head.iter().any(|h| h.starts_with("transfer-encoding")),
            "{head:?}"
        );
        assert_eq!(body, payload.to_vec());
        assert_eq!(body.len(), turns.len() + 29);
    }

    /// The URL is parsed at the first post and the parse kept (reqwest parses a `&str` at
    /// every post); one that does not parse stays each request's error, as reqwest words it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn the_url_is_parsed_once_and_a_bad_one_is_the_requests_error() {
        let endpoint = |url: &str| Endpoint {
            provider: "test",
            url: url.to_owned(),
            parsed_url: OnceLock::new(),
            headers: Vec::new(),
            read_error: |p, status, _, _| {
                ProviderError::from_response(p, status, None, None, String::new())
            },
        };
        let payload = Payload::new(vec![bytes::Bytes::from_static(b"{}")]);
        // Nothing listens on port 1: the post fails after the URL was parsed.
        let good = endpoint("http://127.0.0.1:1/v1/messages");
        assert!(good.parsed_url.get().is_none());
        let err = good.post(&payload, 0, &RetryPolicy::default()).await;
        assert_eq!(err.unwrap_err().kind, ErrorKind::Connection);
        assert_eq!(
            good.parsed_url.get().cloned().flatten().map(String::from),
            Some("http://127.0.0.1:1/v1/messages".to_owned())
        );
        let bad = endpoint("not a url/v1/messages");
        let err = bad
            .post(&payload, 0, &RetryPolicy::default())
            .await
            .unwrap_err();
        assert_eq!(bad.parsed_url.get(), Some(&None));
        assert_eq!(err.kind, ErrorKind::Connection);
        let direct = client()
            .unwrap()
            .post("not a url/v1/messages")
            .send()
            .await
            .unwrap_err();
        assert_eq!(err.message, without_url(direct));
    }

    #[tokio::test]
    async fn run_stops_on_a_final_error_and_retries_a_retryable_one() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(1),
            ..RetryPolicy::default()
        };
        let mut calls = 0;
        let r: Result<(), _> = policy
            .run(|_| {
                calls += 1;
                async {
                    Err(ProviderError::from_response(
                        "t",
                        401,
                        None,
                        None,
                        String::new(),
                    ))
                }
            })
            .await;
        assert!(r.is_err());
        assert_eq!(calls, 1);
        let mut calls = 0;
        let r = policy
            .run(|n| {
                calls += 1;
                async move {
                    if n < 2 {
                        Err(ProviderError::connection("t", "reset"))
                    } else {
                        Ok(n)
                    }
                }
            })
            .await;
        assert_eq!(r.unwrap(), 2);
        assert_eq!(calls, 3);
    }
}
