//! Native model providers speaking the vendors' HTTP APIs.

pub mod anthropic;
mod anthropic_messages;
mod anthropic_profiles;
mod http;

pub use anthropic::{AnthropicChat, AnthropicConfig};
