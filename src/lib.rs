//! deepagents-rs: the Rust core of a fast, drop-in replacement for the `deepagents` agent
//! harness. Everything outside `python` is plain Rust with no knowledge of Python; the
//! `python` module is the thin PyO3 binding that converts at the boundary.

pub mod agent;
pub mod error;
pub mod events;
pub mod files;
pub mod history;
pub mod host;
pub mod messages;
pub mod middleware;
pub mod model;
pub mod providers;
pub mod pyrepr;
pub mod state;
pub mod structured;
pub mod subagents;
pub mod summarization;
pub mod tools;

#[cfg(feature = "python")]
mod python;
