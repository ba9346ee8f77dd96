//! The PyO3 binding: converts at the boundary, releases the GIL around all Rust work, and
//! calls Python tools and models back from tokio.

mod agent;
mod backends;
mod convert;
mod errors;
mod files;
mod host;
mod memory;
mod middleware;
mod model;
mod runnable;
mod skills;
mod stream;
mod structured;
mod summarization;
mod tools;
mod tracer;
mod value;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<agent::CoreAgent>()?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_class::<files::GlobMatcher>()?;
    m.add_class::<files::FsInterrupts>()?;
    m.add_function(wrap_pyfunction!(files::globmatch, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_glob, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_grep, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_read_text, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_read_base64, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_write_text, m)?)?;
    m.add_function(wrap_pyfunction!(files::disk_list, m)?)?;
    m.add_class::<stream::EventStream>()?;
    m.add_class::<stream::AsyncEventStream>()?;
    m.add_class::<stream::StreamWriter>()?;
    m.add_class::<stream::ChunkCallback>()?;
    m.add_class::<middleware::ModelNextPy>()?;
    m.add_class::<middleware::ToolNextPy>()?;
    m.add_function(wrap_pyfunction!(summarization::native_limits, m)?)?;
    // Summarization's default prompt, for `DEEPAGENTS_DEFAULT_SUMMARY_PROMPT`.
    use crate::summarization::texts as summary;
    m.add("SUMMARY_PROMPT_HEAD", summary::SUMMARY_PROMPT_HEAD)?;
    m.add("SUMMARY_PROMPT_TAIL", summary::SUMMARY_PROMPT_TAIL)?;
    // deepagents' subagent texts, for the Python side's prompt assembly.
    use crate::subagents::prompts;
    m.add("DEFAULT_SUBAGENT_PROMPT", prompts::DEFAULT_SUBAGENT_PROMPT)?;
    m.add(
        "DEFAULT_GENERAL_PURPOSE_DESCRIPTION",
        prompts::DEFAULT_GENERAL_PURPOSE_DESCRIPTION,
    )?;
    // deepagents' memory texts and checks, for `deepagents_rs.middleware.memory`.
    m.add(
        "MEMORY_SYSTEM_PROMPT",
        crate::middleware::MEMORY_SYSTEM_PROMPT,
    )?;
    m.add_function(wrap_pyfunction!(memory::check_memory_prompt, m)?)?;
    // deepagents' skills texts and checks, for `deepagents_rs.middleware.skills`.
    m.add(
        "SKILLS_SYSTEM_PROMPT",
        crate::middleware::SKILLS_SYSTEM_PROMPT,
    )?;
    m.add_function(wrap_pyfunction!(skills::check_skills_prompt, m)?)?;
    m.add_function(wrap_pyfunction!(skills::skill_source_label, m)?)?;
    Ok(())
}
