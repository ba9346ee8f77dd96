//! A harness profile's part of a middleware stack: plain data the stack builder (`agent`)
//! and a fork's description (`subagents::ForkStack`) both hold.

use std::sync::Arc;

use super::Middleware;

/// A harness profile's part of one stack: the middleware it adds (`extra_middleware`, after
/// the user's entries), the built-in slots its `excluded_middleware` drops (by name), and the
/// tools its `excluded_tools` hide. `caching` holds the other providers' prompt caching
/// middleware (deepagents adds Bedrock's and Fireworks' when their packages are installed),
/// placed after Anthropic's entry: here because the profile's exclusions decide which remain.
#[derive(Clone, Default)]
pub struct ProfileLayer {
    pub extra: Vec<Arc<dyn Middleware>>,
    pub excluded: Vec<String>,
    pub excluded_tools: Vec<String>,
    pub caching: Vec<Arc<dyn Middleware>>,
}
