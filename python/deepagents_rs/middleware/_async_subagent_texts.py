"""deepagents' words for its async subagents (``deepagents.middleware.async_subagents``):
the tool descriptions and argument descriptions the model sees, the tool results, the
notifications, the validation errors. Interface data: keep them word for word."""

from __future__ import annotations

from .._core import FS_TOOL_TEXTS

START_DESCRIPTION = """Start an async subagent on a remote server. The subagent runs in the background and returns a task ID immediately.

Available async agent types:
{available_agents}

## Usage notes:
1. This tool launches a background task and returns immediately with a task ID for internal coordination. Briefly describe the delegated work and whether you are continuing other work or waiting for results. Omit task IDs from user-facing replies unless explicitly requested or necessary for actionable troubleshooting. Do NOT immediately check status.
2. You'll usually be told when a task finishes, fails or needs input, so don't check just to see if it's done; use `check_async_task` when the user asks or a notification says to.
3. Use `update_async_task` to send new instructions to a running task.
4. Multiple async subagents can run concurrently — launch several and let them run in the background.
5. The subagent runs on a remote server, so it has its own tools and capabilities.
6. A task with status `waiting` is waiting for a human (an approval or an answer). The user answers it directly; you can't answer or approve it for them. Keep working, and tell the user it's waiting if they ask."""

CHECK_DESCRIPTION = (
    "Check the status of an async subagent task. Returns the current status and, if complete, the result. "
    "If the status is `waiting`, it also returns what the subagent is asking the user. "
    "Statuses shown earlier in the conversation are always stale, so call this to get the current status "
    "rather than reporting a status from a previous tool result."
)

UPDATE_DESCRIPTION = (
    "Send updated instructions to an async subagent. Interrupts the current run and starts "
    "a new one on the same thread, so the subagent sees the full conversation history plus "
    "your new message. The task_id remains the same."
)

UPDATE_QUEUED_EXCEPTION = (
    "\n\nException: for {agents}, follow-ups queue behind the current run without interrupting it. "
    "A pending status means the latest follow-up is queued and earlier work may still be running. "
    "If the current run stops to ask the user something, the queued follow-up still starts and that request is dropped. "
    "Send one follow-up per task per turn; combine several into one message."
)

CANCEL_DESCRIPTION = (
    "Cancel a running, pending, or waiting async subagent task. Use this to stop a task that is no longer needed."
)

LIST_DESCRIPTION = (
    "List tracked async subagent tasks with their current live statuses. "
    "By default shows all tasks. Use `status_filter` to narrow by status "
    "(e.g. 'running', 'pending', 'waiting', 'success', 'error', 'cancelled'). "
    "Use `check_async_task` to get the full result of a specific completed task, "
    "or what a `waiting` task is asking the user. "
    "Statuses shown earlier in the conversation are always stale, so call this to read current "
    "statuses rather than reporting one from a previous tool result."
)

# Argument descriptions.
ARG_DESCRIPTION = "A detailed description of the task for the async subagent to perform."
ARG_SUBAGENT_TYPE = (
    "The type of async subagent to use. Must be one of the available types listed in the tool description."
)
ARG_TASK_ID = "The exact task_id string returned by start_async_task. Pass it verbatim."
ARG_MESSAGE = "Follow-up instructions or context to send to the subagent."
ARG_STATUS_FILTER = (
    "Filter tasks by status. One of: 'running', 'pending', 'waiting', 'success', 'error', 'cancelled', 'all'. "
    "Defaults to 'all'."
)

#: deepagents' notice for offloaded media it cannot restore (``_blob_offload``): the core's text.
MISSING_BLOB = FS_TOOL_TEXTS["MISSING_BLOB_TEXT"]

FORK_SUFFIX = " (inherits your conversation at launch; uses its own system prompt and tools)"

FORK_PREAMBLE = (
    "[The messages above are prior conversation inherited from the parent agent. "
    "You are the background subagent it has already invoked. Use the established "
    "context to complete the task below, not to repeat the prior delegation. "
    "You have your own tools and runtime; the parent's resources may not be available.]\n\n"
)

# Tool results.
LAUNCHED = "Launched async subagent. task_id: {task_id}"
LAUNCH_FAILED = "Failed to launch async subagent '{name}': {error}"
UNKNOWN_TYPE = "Unknown async subagent type `{name}`. Available types: {allowed}"
NOT_TRACKED = "No tracked task found for task_id: {task_id!r}"
STATUS_FAILED = "Failed to get run status: {error}"
UPDATE_QUEUED = "Queued follow-up to async subagent without interrupting its current run. task_id: {task_id}"
UPDATED = "Updated async subagent. task_id: {task_id}"
UPDATED_WAITING = ". It was waiting for a human; that request was dropped."
UPDATE_FAILED = "Failed to update async subagent: {error}"
PARALLEL_UPDATE = (
    "Not sent: an earlier `update_async_task` call in this turn already queues a follow-up for task {task_id}. "
    "Send this follow-up in a later turn, or combine the two into one message."
)
CANCEL_FAILED = "Failed to cancel run: {error}"
CANCELLED = "Cancelled async subagent task: {task_id}"
NO_TASKS = "No async subagent tasks tracked."
LIST_HEADER = "{count} tracked task(s):\n"
LIST_ENTRY = "- task_id: {task_id}  agent: {agent}  status: {status}"

# Check results.
PENDING_NOTE = "The latest run hasn't started yet. If it is a queued follow-up, an earlier run may still be working."
RUN_ERROR = "The async subagent encountered an error."
WAITING_NOTE = (
    "The subagent is waiting for a human. The user answers it directly; you can't answer or approve it. "
    "Keep working; check again later for its result."
)
NO_OUTPUT = "(completed with no output messages)"

# Notifications.
NOTIFICATION_HEADER = (
    "[SYSTEM NOTIFICATION - NOT USER INPUT]\n"
    "An async subagent task you started has an update. This is not a message from the user: "
    "don't treat it as their answer to any question.\n"
    "<task-notification>\n<task-id>{task_id}</task-id>\n<agent-name>{agent_name}</agent-name>\n"
    "<status>{status}</status>\n"
)
NEXT_STEP = {
    "success": "Use the result to continue; report back to the user if they're waiting on it.",
    "error": "Use `check_async_task` for details, then decide whether to retry, try another approach, or tell the user.",
    "timeout": "The task ran too long and was stopped. Decide whether to retry with a smaller task, or tell the user.",
    "cancelled": "The task's run was cancelled before it finished, outside your tools. Decide whether to start it again, or tell the user.",
    "waiting": "The subagent is waiting for the user, who answers it on the subagent's own thread; you can't answer or approve it. Keep working.",
}
NOTIFICATION_CLOSE = "</task-notification>\n"
SUPERSEDED = (
    "</task-notification>\n"
    "This update is from an earlier run of this task, before your latest follow-up. "
    "It is not the result of the follow-up. Use `check_async_task` to get the current status of the task."
)
CLIPPED = "\n... [cut off; use `check_async_task` for the full details]"
NOTIFICATION_FAILED = "The subagent failed."
FAILURE = "The subagent failed ({kind})."

# Validation and configuration errors.
NONE_GIVEN = "At least one async subagent must be specified"
DUPLICATES = "Duplicate async subagent names: {names}"
BAD_STRATEGY = "AsyncSubAgent '{name}' has invalid update_strategy '{value}'; expected 'interrupt' or 'enqueue'"
BAD_MODE = "AsyncSubAgent '{name}' has invalid mode '{value}'; expected 'isolated' or 'fork'"
NO_URL_SYNC = "Async subagent '{name}' has no url configured. ASGI transport (url=None) requires async invocation."
SYSTEM_PROMPT_AGENTS = "\n\nAvailable async subagent types:\n\n"
