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
    doorbell,
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
    rare_map,
    request_messages,
    run,
    stand_ins,
    state,
    structured,
    subagents,
    summarization,
    tools,
    usage_sum,
);

// `cargo fmt` formats the modules it finds declared, and it does not look inside macro
// calls: these declarations, never compiled, show it the modules above.
#[cfg(any())]
mod agent;
#[cfg(any())]
mod compact_map;
#[cfg(any())]
mod doorbell;
#[cfg(any())]
mod error;
#[cfg(any())]
mod events;
#[cfg(any())]
mod files;
#[cfg(any())]
mod history;
#[cfg(any())]
mod host;
#[cfg(any())]
mod message_memo;
#[cfg(any())]
mod message_prefix;
#[cfg(any())]
mod message_scan;
#[cfg(any())]
mod messages;
#[cfg(any())]
mod middleware;
#[cfg(any())]
mod model;
#[cfg(any())]
mod providers;
#[cfg(any())]
mod py_json;
#[cfg(any())]
mod pyrepr;
#[cfg(any())]
mod rare_map;
#[cfg(any())]
mod request_messages;
#[cfg(any())]
mod run;
#[cfg(any())]
mod stand_ins;
#[cfg(any())]
mod state;
#[cfg(any())]
mod structured;
#[cfg(any())]
mod subagents;
#[cfg(any())]
mod summarization;
#[cfg(any())]
mod tools;
#[cfg(any())]
mod usage_sum;

#[cfg(test)]
mod heap_count;

#[cfg(feature = "python")]
mod python;

#[cfg(test)]
mod module_lists {
    /// A module added to `modules!` and not to the list `cargo fmt` reads would go unformatted
    /// and unchecked by `cargo fmt --check`.
    #[test]
    fn cargo_fmt_is_shown_every_module() {
        let source = include_str!("lib.rs");
        let call = source.split("modules!(").nth(1).unwrap_or_default();
        let listed: Vec<&str> = call
            .split(");")
            .next()
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect();
        let lines: Vec<&str> = source.lines().map(str::trim).collect();
        let shown: Vec<&str> = lines
            .windows(2)
            .filter(|pair| pair[0] == "#[cfg(any())]")
            .map(|pair| pair[1].trim_start_matches("mod ").trim_end_matches(';'))
            .collect();
        assert!(!listed.is_empty());
        assert_eq!(listed, shown);
    }
}
