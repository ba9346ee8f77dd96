//! The PyO3 binding: converts at the boundary, releases the GIL around all Rust work, and
//! calls Python tools and models back from tokio.

mod agent;
mod agent_run_args;
mod agent_state;
mod backends;
mod bare_objects;
mod blocking;
mod call_task_ids;
mod call_timing;
mod checkpoint_ids;
mod collector_pause;
mod compact_dict;
mod composite;
mod composite_batch;
mod composite_ops;
mod composite_plan;
mod composite_replies;
mod composite_search;
mod convert;
mod dict_templates;
mod disk_change;
mod disk_paths;
mod entry_call;
mod errors;
mod executor;
mod exit_gate;
mod file_ops;
mod file_searches;
mod files;
mod frozen_records;
mod fs_outside;
mod host;
mod input_messages;
mod input_objects;
mod interned_keys;
mod loop_inbox;
mod memory;
mod method_call;
mod middleware;
mod model;
mod model_call_handler;
mod plain_calls;
mod plain_tool_config;
mod python_calls;
mod reducers;
mod reply_shaper;
mod result_batch;
mod result_fields;
mod result_objects;
mod run_ids;
mod runnable;
mod runtime_threads;
mod sandbox;
mod sandbox_calls;
mod sandbox_shell;
mod skill_parts;
mod skills;
mod stack_parts;
mod store_items;
mod store_plan;
mod stream;
mod stream_payloads;
mod string_cache;
mod structured;
mod summarization;
mod summarization_call;
mod task_notes;
mod thread_clock;
mod token_counter;
mod tool_call_handler;
mod tools;
mod tracer;
mod value;
mod video;

use pyo3::prelude::*;

/// `warnings.warn(text, UserWarning)`, raised back when a filter makes it an error.
fn warn_in(py: Python<'_>, text: &str) -> Result<(), crate::error::BoxError> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    py.import("warnings")
        .and_then(|w| w.call_method1("warn", (text, category)))
        .map(|_| ())
        .map_err(|e| Box::new(e) as crate::error::BoxError)
}

/// `warn_in` on the calling thread.
fn user_warning(text: &str) -> Result<(), crate::error::BoxError> {
    runtime_threads::attach(|py| warn_in(py, text))
}

/// `f` run where the run of `host` runs Python: on its loop's thread under `ainvoke` /
/// `astream`, with the core's other Python calls under `invoke` / `stream`.
async fn on_host<R: Send + 'static>(
    host: &crate::tools::HostContext,
    f: impl for<'py> FnOnce(Python<'py>) -> R + Send + 'static,
) -> Result<R, python_calls::Lost> {
    match host::PyHost::from_context(host).filter(|h| h.is_async) {
        Some(h) => loop_inbox::run_on_loop(&h.inbox, f).await,
        None => python_calls::call(f).await,
    }
}

/// `user_warning` issued where the run of `host` runs Python: on its loop's thread under
/// `ainvoke` / `astream` (where the caller's `warnings.catch_warnings` runs), with the core's
/// other Python calls under `invoke` / `stream`; never on the tokio worker that asks.
fn user_warning_on_host(
    host: crate::tools::HostContext,
    text: String,
) -> futures::future::BoxFuture<'static, Result<(), crate::error::BoxError>> {
    Box::pin(async move {
        on_host(&host, move |py| warn_in(py, &text))
            .await
            .unwrap_or_else(|e| Err(Box::new(e) as crate::error::BoxError))
    })
}

/// `logging.getLogger(logger).warning(text)` where the run of `host` runs Python (as
/// `user_warning_on_host`); a failing handler is reported as unraisable.
fn log_warning_on_host(
    host: crate::tools::HostContext,
    logger: String,
    text: String,
) -> futures::future::BoxFuture<'static, ()> {
    fn log(py: Python<'_>, logger: &str, text: &str) {
        let logged = py
            .import("logging")
            .and_then(|l| l.call_method1("getLogger", (logger,)))
            .and_then(|l| l.call_method1("warning", (text,)));
        if let Err(e) = logged {
            e.write_unraisable(py, None);
        }
    }
    Box::pin(async move {
        // A run whose host is gone has nobody left to read its log.
        let _ = on_host(&host, move |py| log(py, &logger, &text)).await;
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Before anything starts the runtime: its worker threads are named apart.
    runtime_threads::install();
    crate::error::set_pause_test(tools::is_pause_error);
    crate::error::set_warn(user_warning);
    crate::error::set_warn_on_host(user_warning_on_host);
    crate::error::set_log_on_host(log_warning_on_host);
    crate::agent::set_task_note(task_notes::note_task);
    crate::tools::set_call_task_id(call_task_ids::call_task_id);
    crate::host::set_async_test(|h| host::PyHost::from_context(h).is_some_and(|p| p.is_async));
    reply_shaper::register();
    m.add_class::<loop_inbox::LoopInbox>()?;
    m.add_class::<agent::CoreAgent>()?;
    m.add_class::<frozen_records::SlotRecords>()?;
    m.add_function(wrap_pyfunction!(run_ids::_run_id, m)?)?;
    m.add_function(wrap_pyfunction!(plain_tool_config::_plain_tool_config, m)?)?;
    m.add_function(wrap_pyfunction!(plain_calls::_plain_call, m)?)?;
    m.add_function(wrap_pyfunction!(checkpoint_ids::_checkpoint_id, m)?)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(
        result_objects::_result_objects_for_tests,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(result_objects::_result_threads, m)?)?;
    m.add_function(wrap_pyfunction!(
        input_objects::_input_objects_for_tests,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(input_messages::all_plain_messages, m)?)?;
    m.add_function(wrap_pyfunction!(runtime_threads::_gil_on_workers, m)?)?;
    m.add_function(wrap_pyfunction!(interned_keys::_interns_strings, m)?)?;
    m.add_function(wrap_pyfunction!(python_calls::_python_calls_stats, m)?)?;
    m.add_function(wrap_pyfunction!(
        python_calls::_delay_python_call_turns_for_tests,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(call_timing::_call_timing, m)?)?;
    let close_gate = wrap_pyfunction!(exit_gate::_close_exit_gate, m)?;
    m.py()
        .import("atexit")?
        .call_method1("register", (&close_gate,))?;
    m.add_function(close_gate)?;
    composite::register(m)?;
    composite_plan::register(m)?;
    sandbox::register(m)?;
    sandbox_calls::register(m)?;
    file_ops::register(m)?;
    store_plan::register(m)?;
    disk_paths::register(m)?;
    disk_change::register(m)?;
    m.add_class::<files::GlobMatcher>()?;
    m.add_class::<files::FsInterrupts>()?;
    m.add_function(wrap_pyfunction!(files::globmatch, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_glob, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_grep, m)?)?;
    m.add_function(wrap_pyfunction!(files::grep_context_spans, m)?)?;
    m.add_function(wrap_pyfunction!(files::ripgrep_frame, m)?)?;
    m.add_function(wrap_pyfunction!(files::ripgrep_command, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_context_lines, m)?)?;
    m.add_function(wrap_pyfunction!(files::grep_context_attach, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_read_text, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_write_text, m)?)?;
    m.add_function(wrap_pyfunction!(files::shell_execute, m)?)?;
    m.add_class::<stream::EventStream>()?;
    m.add_class::<stream::AsyncEventStream>()?;
    m.add_class::<stream::StreamWriter>()?;
    m.add_class::<stream::ChunkCallback>()?;
    m.add_class::<runnable::GraphParts>()?;
    m.add_class::<model_call_handler::ModelNextPy>()?;
    m.add_class::<tool_call_handler::ToolNextPy>()?;
    m.add_function(wrap_pyfunction!(summarization::native_limits, m)?)?;
    m.add_class::<summarization_call::SummarizationCall>()?;
    m.add_function(wrap_pyfunction!(summarization::upload_response_error, m)?)?;
    m.add_function(wrap_pyfunction!(summarization::summary_message, m)?)?;
    m.add_function(wrap_pyfunction!(summarization::drop_bound_reasoning, m)?)?;
    m.add_function(wrap_pyfunction!(summarization::state_cutoff, m)?)?;
    m.add_function(wrap_pyfunction!(summarization::content_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(summarization::dangling_tool_results, m)?)?;
    // The file tools' texts under deepagents' constant names, for its module constants.
    use crate::middleware::filesystem::texts as fs;
    let fs_texts = pyo3::types::PyDict::new(m.py());
    for (name, text) in [
        ("LIST_FILES_TOOL_DESCRIPTION", fs::LS_DESCRIPTION),
        ("READ_FILE_TOOL_DESCRIPTION", fs::READ_FILE_DESCRIPTION),
        (
            "READ_FILE_VIDEO_TOOL_DESCRIPTION",
            fs::READ_FILE_VIDEO_DESCRIPTION,
        ),
        ("EDIT_FILE_TOOL_DESCRIPTION", fs::EDIT_FILE_DESCRIPTION),
        ("WRITE_FILE_TOOL_DESCRIPTION", fs::WRITE_FILE_DESCRIPTION),
        ("DELETE_TOOL_DESCRIPTION", fs::DELETE_DESCRIPTION),
        ("GLOB_TOOL_DESCRIPTION", fs::GLOB_DESCRIPTION),
        (
            "GREP_REGEX_EXECUTE_FALLBACK",
            fs::GREP_REGEX_EXECUTE_FALLBACK,
        ),
        ("GREP_TOOL_DESCRIPTION", fs::GREP_DESCRIPTION),
        ("REGEX_LITERAL_HINT", fs::REGEX_LITERAL_HINT),
        ("EXECUTE_TOOL_DESCRIPTION", fs::EXECUTE_DESCRIPTION),
        (
            "_GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE",
            fs::GREP_DESCRIPTION_WITHOUT_EXECUTE,
        ),
        (
            "_EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY",
            fs::EXECUTE_DESCRIPTION_WITH_GREP_ONLY,
        ),
        (
            "_EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY",
            fs::EXECUTE_DESCRIPTION_WITH_GLOB_ONLY,
        ),
        (
            "_EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH",
            fs::EXECUTE_DESCRIPTION_WITHOUT_SEARCH,
        ),
        (
            "ROUTE_HOST_PATH_PROMPT_INTRO",
            fs::ROUTE_HOST_PATH_PROMPT_INTRO,
        ),
        (
            "ROUTE_HOST_PATH_MAPPINGS_HEADING",
            fs::ROUTE_HOST_PATH_MAPPINGS_HEADING,
        ),
        (
            "ROUTE_HOST_PATH_MAPPING_LINE",
            fs::ROUTE_HOST_PATH_MAPPING_LINE,
        ),
        (
            "ROUTE_NO_HOST_MAPPING_HEADING",
            fs::ROUTE_NO_HOST_MAPPING_HEADING,
        ),
        ("ROUTE_NO_HOST_MAPPING_LINE", fs::ROUTE_NO_HOST_MAPPING_LINE),
        ("EMPTY_CONTENT_WARNING", fs::EMPTY_CONTENT_WARNING),
        ("NO_LINES_REQUESTED_WARNING", fs::NO_LINES_REQUESTED_WARNING),
        ("GREP_TRUNCATION_NOTE", fs::GREP_TRUNCATION_NOTE),
        ("GLOB_TRUNCATION_NOTE", fs::GLOB_TRUNCATION_NOTE),
        ("GLOB_UNREADABLE_NOTE", fs::GLOB_UNREADABLE_NOTE),
        ("GLOB_PATHLESS_DENIED_HINT", fs::GLOB_PATHLESS_DENIED_HINT),
        ("READ_FILE_TRUNCATION_MSG", fs::READ_FILE_TRUNCATION_MSG),
        ("MISSING_BLOB_TEXT", fs::MISSING_BLOB_TEXT),
        ("GREP_GLOB_DESCRIPTION", fs::GREP_GLOB_FIELD_DESCRIPTION),
        (
            "GREP_OUTPUT_MODE_DESCRIPTION",
            fs::GREP_OUTPUT_MODE_FIELD_DESCRIPTION,
        ),
    ] {
        fs_texts.set_item(name, text)?;
    }
    m.add("FS_TOOL_TEXTS", fs_texts)?;
    // A harness profile's excluded-tool refusal, for `_ToolExclusionMiddleware`'s face.
    m.add("TOOL_NOT_AVAILABLE", crate::middleware::TOOL_NOT_AVAILABLE)?;
    // The file tools' parameter schemas, by deepagents' schema class name, for the
    // pydantic `args_schema` classes made from them.
    let fs_parameters = pyo3::types::PyDict::new(m.py());
    for (name, schema) in [
        ("LsSchema", fs::LS_PARAMETERS),
        ("ReadFileSchema", fs::READ_FILE_PARAMETERS),
        ("ReadVideoFileSchema", fs::READ_FILE_VIDEO_PARAMETERS),
        ("WriteFileSchema", fs::WRITE_FILE_PARAMETERS),
        ("EditFileSchema", fs::EDIT_FILE_PARAMETERS),
        ("DeleteSchema", fs::DELETE_PARAMETERS),
        ("GlobSchema", fs::GLOB_PARAMETERS),
        ("GrepSchema", fs::GREP_PARAMETERS),
        ("ExecuteSchema", fs::EXECUTE_PARAMETERS),
    ] {
        fs_parameters.set_item(name, schema)?;
    }
    m.add("FS_TOOL_PARAMETERS", fs_parameters)?;
    // Summarization's default prompt, for `DEEPAGENTS_DEFAULT_SUMMARY_PROMPT`.
    use crate::summarization::texts as summary;
    m.add("SUMMARY_PROMPT_HEAD", summary::SUMMARY_PROMPT_HEAD)?;
    m.add("SUMMARY_PROMPT_TAIL", summary::SUMMARY_PROMPT_TAIL)?;
    m.add("COMPACT_DESCRIPTION", summary::COMPACT_DESCRIPTION)?;
    // The compact tool's answers, for the face's own flow.
    m.add("NOTHING_TO_COMPACT", summary::NOTHING_TO_COMPACT)?;
    m.add("COMPACTED", summary::COMPACTED)?;
    m.add("COMPACT_FAILED", summary::COMPACT_FAILED)?;
    // deepagents' subagent texts, for the Python side's prompt assembly.
    use crate::subagents::prompts;
    m.add("DEFAULT_SUBAGENT_PROMPT", prompts::DEFAULT_SUBAGENT_PROMPT)?;
    m.add(
        "DEFAULT_GENERAL_PURPOSE_DESCRIPTION",
        prompts::DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
    )?;
    // The `task` tool's texts, for `deepagents_rs.middleware.subagents` (LangChain's agents).
    let subagent_texts = pyo3::types::PyDict::new(m.py());
    for (name, text) in [
        ("TASK_TOOL_DESCRIPTION", prompts::TASK_TOOL_DESCRIPTION),
        (
            "FORKED_SUBAGENT_TOOL_NOTE",
            prompts::FORKED_SUBAGENT_TOOL_NOTE,
        ),
        ("FORK_TASK_PREAMBLE", prompts::FORK_TASK_PREAMBLE),
        ("FORK_RECURSION_REFUSAL", prompts::FORK_RECURSION_REFUSAL),
        ("TASK_DESCRIPTION_ARG", prompts::TASK_DESCRIPTION_ARG),
        ("SUBAGENT_TYPE_ARG", prompts::SUBAGENT_TYPE_ARG),
        (
            "UNEXPECTED_TASK_ARGUMENT",
            prompts::UNEXPECTED_TASK_ARGUMENT,
        ),
        ("UNKNOWN_SUBAGENT", prompts::UNKNOWN_SUBAGENT),
        (
            "COMPILED_RESPONSE_SCHEMA",
            prompts::COMPILED_RESPONSE_SCHEMA,
        ),
    ] {
        subagent_texts.set_item(name, text)?;
    }
    m.add("SUBAGENT_TEXTS", subagent_texts)?;
    // deepagents' memory texts and checks, for `deepagents_rs.middleware.memory`.
    m.add(
        "MEMORY_SYSTEM_PROMPT",
        crate::middleware::MEMORY_SYSTEM_PROMPT,
    )?;
    m.add_function(wrap_pyfunction!(memory::check_memory_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(memory::format_memory, m)?)?;
    // deepagents' skills texts and checks, for `deepagents_rs.middleware.skills`.
    m.add(
        "SKILLS_SYSTEM_PROMPT",
        crate::middleware::SKILLS_SYSTEM_PROMPT,
    )?;
    m.add_function(wrap_pyfunction!(skills::check_skills_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(skills::skill_source_label, m)?)?;
    m.add_function(wrap_pyfunction!(skill_parts::parse_skill_metadata, m)?)?;
    m.add_function(wrap_pyfunction!(
        skill_parts::skill_metadata_from_download,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(skill_parts::skill_name_problem, m)?)?;
    m.add_function(wrap_pyfunction!(skill_parts::skill_annotations, m)?)?;
    m.add_function(wrap_pyfunction!(skill_parts::skills_locations, m)?)?;
    m.add_function(wrap_pyfunction!(skill_parts::skills_list_text, m)?)?;
    m.add_function(wrap_pyfunction!(skill_parts::skills_load_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(
        skill_parts::truncate_skill_load_warning,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(skill_parts::list_skills, m)?)?;
    // deepagents' numeric module constants (`MAX_SKILL_FILE_SIZE`, `NUM_CHARS_PER_TOKEN`,
    // ...), from the values the core works with.
    use crate::middleware as sk;
    let limits = pyo3::types::PyDict::new(m.py());
    for (name, value) in [
        ("MAX_SKILL_FILE_SIZE", sk::MAX_SKILL_FILE_SIZE),
        ("MAX_SKILL_NAME_LENGTH", sk::MAX_SKILL_NAME_LENGTH),
        (
            "MAX_SKILL_DESCRIPTION_LENGTH",
            sk::MAX_SKILL_DESCRIPTION_LENGTH,
        ),
        (
            "MAX_SKILL_COMPATIBILITY_LENGTH",
            sk::MAX_SKILL_COMPATIBILITY_LENGTH,
        ),
        ("MAX_SKILLS_LOAD_WARNINGS", sk::MAX_SKILLS_LOAD_WARNINGS),
        (
            "MAX_SKILL_LOAD_WARNING_LENGTH",
            sk::MAX_SKILL_LOAD_WARNING_LENGTH,
        ),
        ("NUM_CHARS_PER_TOKEN", fs::NUM_CHARS_PER_TOKEN),
        ("DEFAULT_READ_OFFSET", fs::DEFAULT_READ_OFFSET),
        ("DEFAULT_READ_LIMIT", fs::DEFAULT_READ_LIMIT),
        ("PREVIEW_LINE_CHAR_LIMIT", fs::PREVIEW_LINE_CHAR_LIMIT),
        ("PREVIEW_HEAD_LINES", fs::PREVIEW_HEAD_LINES),
        ("PREVIEW_TAIL_LINES", fs::PREVIEW_TAIL_LINES),
    ] {
        limits.set_item(name, value)?;
    }
    m.add("LIMITS", limits)?;
    m.add("GLOB_TIMEOUT", fs::GLOB_TIMEOUT_SECS)?;
    video::add_to(m)?;
    m.add_class::<entry_call::EntryCall>()?;
    Ok(())
}
