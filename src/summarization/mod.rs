//! Long conversations: deepagents' `SummarizationMiddleware` in the core. The rules of when
//! to summarize and where to cut (`policy`), LangChain's approximate token counter with each
//! message measured once (`tokens`), the transcript the summary is asked over
//! (`transcript`), the event kept in state (`event`), and the chain entry (`middleware`).

mod compact;
pub mod event;
mod middleware;
mod overflow_clip;
pub mod policy;
mod summary;
pub mod texts;
pub mod tokens;
mod transcript;
mod trim;

pub use compact::SummarizationTool;
pub use middleware::{
    Prompt, Summarization, SummarizationConfig, Summarizer, says_context_overflow,
};
