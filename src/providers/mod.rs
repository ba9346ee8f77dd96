//! Native model providers speaking the vendors' HTTP APIs, in layers: the transport (HTTP,
//! timeouts, the retry policy), one SSE parser, one classified error, LangChain's chunk
//! arithmetic, and an adapter per provider that alone knows its wire format.

pub mod anthropic;
mod chunks;
pub mod error;
pub mod native;
pub mod openai;
mod sse;
pub mod transport;

pub use anthropic::{AnthropicChat, AnthropicConfig};
pub use error::{ErrorKind, ProviderError};
pub use transport::RetryPolicy;
