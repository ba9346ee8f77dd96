//! Native model providers speaking the vendors' HTTP APIs.

pub mod anthropic;
mod anthropic_messages;
mod anthropic_profiles;
mod anthropic_stream;
mod http;
mod sse;

pub use anthropic::{AnthropicChat, AnthropicConfig};
