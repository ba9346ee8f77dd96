//! Long conversations: deepagents' `SummarizationMiddleware` in the core. The rules of when
//! to summarize and where to cut (`policy`), what they measure with (`counter`: LangChain's
//! approximate token counter with each message measured once, `tokens`, or the user's own),
//! the transcript the summary is asked over (`transcript`), the event kept in state
//! (`event`), and the chain entry (`middleware`).

mod anthropic_blocks;
mod compact;
mod content_blocks;
pub mod counter;
pub mod event;
mod file_signatures;
mod gather;
mod groq_blocks;
mod media;
mod middleware;
mod openai_blocks;
mod openai_server_tools;
mod overflow_clip;
pub mod policy;
mod provider_blocks;
mod steps;
mod summary;
pub mod texts;
pub mod tokens;
mod transcript;
mod trim;

pub use compact::SummarizationTool;
pub use content_blocks::content_blocks;
pub use counter::{Counting, TokenCounter, Tokens};
pub use media::upload_error;
pub use middleware::{
    HistoryOffload, Prompt, ReplacedSteps, Summarization, SummarizationConfig, Summarizer,
    says_context_overflow,
};
