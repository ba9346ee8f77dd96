//! One classified error for every provider. Adapters turn their wire errors into it (status,
//! the provider's error type and code, its message, the request id); everything past the
//! adapter (retries, the loop, the binding) looks only at the `ErrorKind`.

use std::fmt;
use std::time::Duration;

/// What went wrong, in terms a caller can act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// 429 for requests or tokens: worth waiting and retrying.
    RateLimited,
    /// Out of credit (OpenAI's `insufficient_quota`, Anthropic's 402 `billing_error`):
    /// retrying cannot help.
    QuotaExceeded,
    /// Anthropic's 529 and OpenAI's 503 "overloaded".
    Overloaded,
    /// Any other 5xx.
    Server,
    /// 401.
    Authentication,
    /// 403.
    Permission,
    /// 404 (usually an unknown model).
    NotFound,
    /// The prompt does not fit the model's context window, in any provider's wording.
    ContextOverflow,
    /// Any other 4xx: the request itself is wrong.
    BadRequest,
    /// No answer: connection refused or reset, or the stream broke off.
    Connection,
    /// No answer within the model's timeout.
    Timeout,
    /// An answer that cannot be read (bad JSON, a malformed event stream).
    Decode,
}

impl ErrorKind {
    /// The kind for an HTTP status, before any look at the body.
    pub fn from_status(status: u16) -> Self {
        match status {
            401 => ErrorKind::Authentication,
            402 => ErrorKind::QuotaExceeded,
            403 => ErrorKind::Permission,
            404 => ErrorKind::NotFound,
            408 => ErrorKind::Timeout,
            429 => ErrorKind::RateLimited,
            529 => ErrorKind::Overloaded,
            s if s >= 500 => ErrorKind::Server,
            _ => ErrorKind::BadRequest,
        }
    }

    /// How the kind is named in messages and to Python.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::QuotaExceeded => "quota_exceeded",
            ErrorKind::Overloaded => "overloaded",
            ErrorKind::Server => "server_error",
            ErrorKind::Authentication => "authentication",
            ErrorKind::Permission => "permission",
            ErrorKind::NotFound => "not_found",
            ErrorKind::ContextOverflow => "context_overflow",
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::Connection => "connection",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Decode => "decode",
        }
    }
}

/// A provider call that failed, after any retries.
#[derive(Clone, Debug)]
pub struct ProviderError {
    pub provider: &'static str,
    pub kind: ErrorKind,
    /// The HTTP status, when the provider answered with one (an in-stream error carries the
    /// status its error type stands for).
    pub status: Option<u16>,
    /// The provider's own error type (`overloaded_error`, `invalid_request_error`, ...).
    /// (`Box<str>` fields keep the error small: it travels in every `Result` of a call.)
    pub error_type: Option<Box<str>>,
    /// The provider's error code when it gives one (`context_length_exceeded`, ...).
    pub code: Option<Box<str>>,
    /// The provider's message, or what failed on our side.
    pub message: String,
    pub request_id: Option<Box<str>>,
    /// The server's `retry-after(-ms)`, when it sent one.
    pub retry_after: Option<Duration>,
    /// Set when the server said `x-should-retry`; it overrides the kind's own rule.
    pub should_retry: Option<bool>,
    /// The notes the error got on its way out of the tasks it left, innermost first (the
    /// host's, as LangGraph's runner adds them: `crate::agent::set_task_note`). Boxed: every
    /// `Result` of a provider call carries the error, and notes are rare.
    #[allow(clippy::box_collection)]
    pub notes: Option<Box<Vec<String>>>,
}

impl ProviderError {
    pub fn new(provider: &'static str, kind: ErrorKind, message: impl Into<String>) -> Self {
        ProviderError {
            provider,
            kind,
            status: None,
            error_type: None,
            code: None,
            message: message.into(),
            request_id: None,
            retry_after: None,
            should_retry: None,
            notes: None,
        }
    }

    pub fn connection(provider: &'static str, message: impl Into<String>) -> Self {
        Self::new(provider, ErrorKind::Connection, message)
    }

    pub fn decode(provider: &'static str, message: impl Into<String>) -> Self {
        Self::new(provider, ErrorKind::Decode, message)
    }

    /// An error status answered by the provider, classified from the status and then, since
    /// providers reuse 400 and 429 for several things, from the type, code and message.
    pub fn from_response(
        provider: &'static str,
        status: u16,
        error_type: Option<String>,
        code: Option<String>,
        message: String,
    ) -> Self {
        let mut kind = ErrorKind::from_status(status);
        let quota = |s: &Option<String>| {
            s.as_deref()
                .is_some_and(|s| s == "insufficient_quota" || s == "billing_error")
        };
        if quota(&error_type) || quota(&code) {
            kind = ErrorKind::QuotaExceeded;
        } else if error_type.as_deref() == Some("overloaded_error") {
            kind = ErrorKind::Overloaded;
        } else if matches!(status, 400 | 413 | 422)
            && is_context_overflow(code.as_deref(), &message)
        {
            kind = ErrorKind::ContextOverflow;
        }
        ProviderError {
            status: Some(status),
            error_type: error_type.map(Into::into),
            code: code.map(Into::into),
            ..Self::new(provider, kind, message)
        }
    }

    /// Whether the official SDKs would try again: rate limits, overload, server errors,
    /// timeouts and lost connections, unless the server said otherwise.
    pub fn is_retryable(&self) -> bool {
        if let Some(explicit) = self.should_retry {
            return explicit;
        }
        match self.kind {
            ErrorKind::RateLimited
            | ErrorKind::Overloaded
            | ErrorKind::Server
            | ErrorKind::Connection
            | ErrorKind::Timeout => true,
            // 409 (a conflict) is retried by the SDKs too.
            ErrorKind::BadRequest => self.status == Some(409),
            _ => false,
        }
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(
                f,
                "{} API error {} ({}): {}",
                self.provider,
                status,
                self.error_type.as_deref().unwrap_or(self.kind.name()),
                self.message
            ),
            None => match self.kind {
                ErrorKind::Decode => {
                    write!(
                        f,
                        "{} returned an unreadable response: {}",
                        self.provider, self.message
                    )
                }
                ErrorKind::Timeout => {
                    write!(f, "{} request timed out: {}", self.provider, self.message)
                }
                _ => write!(f, "{} connection error: {}", self.provider, self.message),
            },
        }
    }
}

impl std::error::Error for ProviderError {}

/// Every provider's way of saying the prompt is too long: Anthropic's two messages, OpenAI's
/// `context_length_exceeded` code, and the phrasings deepagents' own overflow detector knows
/// for other providers.
pub fn is_context_overflow(code: Option<&str>, message: &str) -> bool {
    if code == Some("context_length_exceeded") {
        return true;
    }
    let m = message.to_ascii_lowercase();
    const PHRASES: [&str; 11] = [
        "prompt is too long",
        "input length and `max_tokens` exceed context limit",
        "context_length_exceeded",
        "maximum context length",
        "exceeds the context window",
        "context window exceeded",
        "context limit exceeded",
        "input tokens exceed the configured limit",
        "exceeds the available context size",
        "contextwindowexceedederror",
        "input exceeds the context window",
    ];
    PHRASES.iter().any(|p| m.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(status: u16, ty: Option<&str>, code: Option<&str>, msg: &str) -> ErrorKind {
        ProviderError::from_response(
            "test",
            status,
            ty.map(str::to_owned),
            code.map(str::to_owned),
            msg.to_owned(),
        )
        .kind
    }

    #[test]
    fn statuses_and_bodies_classify_as_the_sdks_do() {
        assert_eq!(
            classify(429, Some("rate_limit_error"), None, "slow down"),
            ErrorKind::RateLimited
        );
        assert_eq!(
            classify(
                429,
                Some("insufficient_quota"),
                Some("insufficient_quota"),
                "pay"
            ),
            ErrorKind::QuotaExceeded
        );
        assert_eq!(
            classify(529, Some("overloaded_error"), None, "Overloaded"),
            ErrorKind::Overloaded
        );
        assert_eq!(classify(502, None, None, ""), ErrorKind::Server);
        assert_eq!(classify(401, None, None, ""), ErrorKind::Authentication);
        assert_eq!(classify(403, None, None, ""), ErrorKind::Permission);
        assert_eq!(classify(404, None, None, ""), ErrorKind::NotFound);
        assert_eq!(classify(400, None, None, "bad"), ErrorKind::BadRequest);
    }

    #[test]
    fn every_overflow_wording_is_one_kind() {
        for msg in [
            "prompt is too long: 210000 tokens > 200000 maximum",
            "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again",
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
            "Your input exceeds the context window of this model. Please adjust your input and try again.",
        ] {
            assert_eq!(
                classify(400, Some("invalid_request_error"), None, msg),
                ErrorKind::ContextOverflow,
                "{msg}"
            );
        }
        assert_eq!(
            classify(400, None, Some("context_length_exceeded"), "whatever"),
            ErrorKind::ContextOverflow
        );
        // A 500 mentioning the words is still a server error.
        assert_eq!(
            classify(500, None, None, "prompt is too long"),
            ErrorKind::Server
        );
    }

    #[test]
    fn retry_follows_kind_unless_the_server_says() {
        let mut e = ProviderError::from_response("t", 500, None, None, String::new());
        assert!(e.is_retryable());
        e.should_retry = Some(false);
        assert!(!e.is_retryable());
        let quota = ProviderError::from_response(
            "t",
            429,
            None,
            Some("insufficient_quota".into()),
            String::new(),
        );
        assert!(!quota.is_retryable());
        let conflict = ProviderError::from_response("t", 409, None, None, String::new());
        assert!(conflict.is_retryable());
    }
}
