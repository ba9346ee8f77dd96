//! The texts summarization shows the model, word for word as deepagents 0.7.32 has them
//! (`deepagents/middleware/summarization.py`, whose prompt extends LangChain's
//! `DEFAULT_SUMMARY_PROMPT`). Held here once; the Python face reads them from `_core`.

/// `DEEPAGENTS_DEFAULT_SUMMARY_PROMPT` as formatted, before the transcript.
pub const SUMMARY_PROMPT_HEAD: &str = r###"<role>
Context Extraction Assistant
</role>

<primary_objective>
Your sole objective in this task is to extract the highest quality/most relevant context from the conversation history below.
</primary_objective>

<objective_information>
You're nearing the total number of input tokens you can accept, so you must extract the highest quality/most relevant pieces of information from your conversation history.
This context will then overwrite the conversation history presented below. Because of this, ensure the context you extract is only the most important information to continue working toward your overall goal.
</objective_information>

<instructions>
The conversation history below will be replaced with the context you extract in this step.
You want to ensure that you don't repeat any actions you've already completed, so the context you extract from the conversation history should be focused on the most important information to your overall goal.

You should structure your summary using the following sections. Each section acts as a checklist - you must populate it with relevant information or explicitly state "None" if there is nothing to report for that section:

## SESSION INTENT

What is the user's primary goal or request? What overall task are you trying to accomplish? This should be concise but complete enough to understand the purpose of the entire session.

## SUMMARY

Extract and record all of the most important context from the conversation history. Include important choices, conclusions, or strategies determined during this conversation. Include the reasoning behind key decisions. Document any rejected options and why they were not pursued.

## ARTIFACTS

What artifacts, files, or resources were created, modified, or accessed during this conversation? For file modifications, list specific file paths and briefly describe the changes made to each. This section prevents silent loss of artifact information.

## NEXT STEPS

What specific tasks remain to be completed to achieve the session intent? What should you do next?

</instructions>

The user will message you with the full message history from which you'll extract context to create a replacement. Carefully read through it all and think deeply about what information is most important to your overall goal and should be saved:

With all of this in mind, please carefully read over the entire conversation history, and extract the most important and relevant context to replace it so that you can free up space in the conversation history.
Respond ONLY with the extracted context. Do not include any additional information, or text before or after the extracted context.

<media_reference_information>
Conversation history may include XML media reference tags, for example:
<image url="/conversation_history/media/{hash}.png" />
These tags mean the original message included media that was preserved at the referenced backend path.
Treat the tag and path as part of the conversation context. Do not infer visual details that are not available from surrounding text.
When the media could be important for future context, preserve the media reference in your summary.
The model consuming the summary can call `read_file` on the referenced path if it needs to inspect the media.
</media_reference_information>

<messages>
Messages to summarize:
"###;

/// `DEEPAGENTS_DEFAULT_SUMMARY_PROMPT` as formatted, after the transcript.
pub const SUMMARY_PROMPT_TAIL: &str = r###"
</messages>"###;

/// The summary message when the history was saved to a file.
pub const SUMMARY_WITH_FILE: &str = "You are in the middle of a conversation that has been summarized.\n\nThe full conversation history has been saved to {file_path} should you need to refer back to it for details.\n\nA condensed summary follows:\n\n<summary>\n{summary}\n</summary>";

/// The summary message when saving the history failed.
pub const SUMMARY_WITHOUT_FILE: &str =
    "Here is a summary of the conversation to date:\n\n{summary}";

/// What an empty list to summarize gives.
pub const NO_HISTORY: &str = "No previous conversation history.";

/// What a history too long to fit the trim budget gives.
pub const TOO_LONG_TO_SUMMARIZE: &str = "Previous conversation was too long to summarize.";

/// The history file's section heading (`## Summarized at <ISO time>`).
pub const SECTION: &str = "## Summarized at {timestamp}\n\n{messages}\n\n";

/// `ContextOverflowError` texts of the budget check.
pub const STILL_DOES_NOT_FIT: &str = "Model input still does not fit after recovery; reduce input, tools, or configured output tokens.";
pub const ABOVE_BUDGET: &str = "Context remains above the input budget after compaction; reduce input, tools, or configured output tokens.";

/// The warning when the history could not be saved.
pub const OFFLOAD_FAILED: &str = "Offloading conversation history to backend failed during summarization. Older messages will not be recoverable.";

/// What an inline media block that could not be offloaded becomes in the history file and
/// the summary prompt (a text block).
pub const MEDIA_FAILED_PLACEHOLDER: &str = "<image error=\"failed_to_offload\" />";

/// The warning when the history was saved but some media could not be.
pub const MEDIA_OFFLOAD_FAILED: &str = "Conversation history was offloaded to {file_path}, but {n} media block(s) could not be offloaded and appear as failed placeholders in the saved history; the original media is not recoverable.";

/// The `compact_conversation` tool's description.
pub const COMPACT_DESCRIPTION: &str = "Compact the conversation by summarizing older messages into a concise summary. Use this proactively when the conversation is getting long to free up context window space. Use it when moving on to a completely new, unrelated task, or after finishing synthesis or extraction when the previous working context is no longer needed. This tool takes no arguments.";

/// Its answers: nothing eligible, done, failed.
pub const NOTHING_TO_COMPACT: &str =
    "Nothing to compact yet \u{2014} conversation is within the token budget.";
pub const COMPACTED: &str =
    "Conversation compacted. Summarized {n} messages into a concise summary.";
pub const COMPACT_FAILED: &str = "Compaction failed: an error occurred while generating the summary ({error}). The conversation has not been compacted \u{2014} no messages were summarized or removed.";

/// The phrases by which deepagents recognises a provider's context-window error that is not
/// typed as one (with an HTTP 400, 413 or 422).
pub const CONTEXT_OVERFLOW_MARKERS: [&str; 9] = [
    "context_length_exceeded",
    "contextwindowexceedederror",
    "maximum context length",
    "exceeds the context window",
    "exceeds the available context size",
    "context window exceeded",
    "context limit exceeded",
    "input tokens exceed the configured limit",
    "prompt is too long",
];
