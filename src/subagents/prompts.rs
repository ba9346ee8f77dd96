//! deepagents 0.7.32's subagent texts, verbatim (MIT License): models read them, and the
//! prompt cache is keyed on their exact bytes.

/// The `task` tool's description; `{available_agents}` is filled with one line per subagent.
pub const TASK_TOOL_DESCRIPTION: &str = "Launch an ephemeral subagent to handle a complex, multi-step task.\n\nAvailable agent types and the tools they have access to:\n{available_agents}\n\nSpecify subagent_type to select the agent. Usage notes:\n- Launch multiple agents concurrently when their tasks are independent, using a single message with multiple tool calls.\n- Each invocation is stateless by default: the agent sees only the prompt you give it and returns a single final report. Put full detail in the prompt and state exactly what it should return — unless an agent type below says it inherits your conversation instead.\n- The agent's report is not shown to the user; relay a summary yourself.\n- Tell the agent whether to create content, analyze, or only research, since it can't necessarily see the user's intent unless it inherits your conversation, as noted per agent type below.\n- If an agent's description says to use it proactively, do so without waiting to be asked.\n- When only general-purpose is available, use it for any complex, context-heavy task; it has the same capabilities as the main agent.";

/// Appended to a fork's line in the listing.
pub const FORKED_SUBAGENT_TOOL_NOTE: &str =
    " (inherits your full conversation and system prompt — no need to restate context here)";

/// Opens a fork's task message: tells the fork it is the subagent.
pub const FORK_TASK_PREAMBLE: &str = "[The messages above are a prior conversation you are continuing as the subagent that was just invoked. Any mention in them of delegating to a subagent already happened — you are that subagent, not the one being asked to delegate further. If you try to delegate to another subagent yourself, it will be refused — complete this task directly. Use the specific facts, figures, and identifiers already established in that conversation when completing the task below — do not answer generically when exact details are already available above. Your actual task is below.]\n\n";

/// A fork's `task` call gets this (with status success).
pub const FORK_RECURSION_REFUSAL: &str = "You are a subagent and cannot delegate to another subagent. Complete this task yourself instead of calling this tool again.";

/// The default general-purpose subagent's description.
pub const DEFAULT_GENERAL_PURPOSE_DESCRIPTION: &str = "General-purpose agent for researching complex questions, searching for files and content, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries use this agent to perform the search for you. This agent has access to all tools as the main agent.";

/// The default general-purpose subagent's system prompt.
pub const DEFAULT_SUBAGENT_PROMPT: &str = "In order to complete the objective that the user asks of you, you have access to a number of standard tools.\n\nThe calling agent only sees your final assistant message, not your intermediate work, tool results, or status tracking. Ensure your final\nresponse contains the complete answer.";

/// The `task` tool's `description` argument, as deepagents' `TaskToolSchema` describes it.
pub const TASK_DESCRIPTION_ARG: &str = "A detailed description of the task for the subagent to perform autonomously. Include all necessary context and specify the expected output format.";

/// The `task` tool's `subagent_type` argument, as deepagents' `TaskToolSchema` describes it.
pub const SUBAGENT_TYPE_ARG: &str = "The type of subagent to use. Must be one of the available agent types listed in the tool description.";

/// A `task` call with an argument the schema does not define; `{key}` is its `repr`.
pub const UNEXPECTED_TASK_ARGUMENT: &str =
    "Unexpected argument {key}; put all instructions for the subagent in `description`.";

/// A `task` call naming no known subagent; `{subagent_type}` and `{allowed}` are filled.
pub const UNKNOWN_SUBAGENT: &str = "We cannot invoke subagent {subagent_type} because it does not exist, the only allowed types are {allowed}";

/// A dynamic response format asked of a compiled subagent; `{name}` is the subagent's.
pub const COMPILED_RESPONSE_SCHEMA: &str = "response_schema cannot be used with compiled subagent \"{name}\"; dynamic schemas require a raw SubAgent spec.";
