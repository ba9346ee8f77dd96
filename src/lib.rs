//! deepagents-rs: the Rust core of a fast, drop-in replacement for the `deepagents` agent
//! harness. Everything outside `python` is plain Rust with no knowledge of Python; the
//! `python` module is the thin PyO3 binding that converts at the boundary.

/// The core's modules, public for the integration tests and benchmarks. Built with
/// `--cfg dead_code_check` (`.ci/run` does) they are crate-private, so that the compiler
/// reports whatever nothing in the crate uses.
macro_rules! modules {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(not(dead_code_check))]
            pub mod $name;
            #[cfg(dead_code_check)]
            pub(crate) mod $name;
        )*
    };
}

modules!(
    agent,
    compact_map,
    error,
    events,
    files,
    history,
    host,
    message_memo,
    message_prefix,
    message_scan,
    messages,
    middleware,
    model,
    providers,
    py_json,
    pyrepr,
    run,
    stand_ins,
    state,
    structured,
    subagents,
    summarization,
    tools,
);

#[cfg(test)]
mod heap_count;

#[cfg(feature = "python")]
mod python;
