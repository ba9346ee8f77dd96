"""Texts of the filesystem tools that `deepagents.middleware.filesystem` exports, word for word.

The texts the model sees are held once, in the Rust core (`src/middleware/filesystem/texts.rs`,
exported as `_core.FS_TOOL_TEXTS` under deepagents' constant names); the module constants
deepagents' users import are made from them here. Below them, the messages the
`FilesystemMiddleware` configuration raises or warns with, which only Python shows.
"""

from .._core import FS_TOOL_TEXTS

LIST_FILES_TOOL_DESCRIPTION = FS_TOOL_TEXTS["LIST_FILES_TOOL_DESCRIPTION"]
READ_FILE_TOOL_DESCRIPTION = FS_TOOL_TEXTS["READ_FILE_TOOL_DESCRIPTION"]
READ_FILE_VIDEO_TOOL_DESCRIPTION = FS_TOOL_TEXTS["READ_FILE_VIDEO_TOOL_DESCRIPTION"]
EDIT_FILE_TOOL_DESCRIPTION = FS_TOOL_TEXTS["EDIT_FILE_TOOL_DESCRIPTION"]
# deepagents' constants for these two end with a newline, which the tool (and so the model)
# does not get: `StructuredTool.from_function` strips descriptions.
WRITE_FILE_TOOL_DESCRIPTION = FS_TOOL_TEXTS["WRITE_FILE_TOOL_DESCRIPTION"] + "\n"
DELETE_TOOL_DESCRIPTION = FS_TOOL_TEXTS["DELETE_TOOL_DESCRIPTION"] + "\n"
GLOB_TOOL_DESCRIPTION = FS_TOOL_TEXTS["GLOB_TOOL_DESCRIPTION"]
#: The line the no-execute variant of the grep description leaves out, with its leading
#: newline (deepagents' `_GREP_REGEX_EXECUTE_FALLBACK`).
GREP_REGEX_EXECUTE_FALLBACK = FS_TOOL_TEXTS["GREP_REGEX_EXECUTE_FALLBACK"]
GREP_TOOL_DESCRIPTION = FS_TOOL_TEXTS["GREP_TOOL_DESCRIPTION"]
EXECUTE_TOOL_DESCRIPTION = FS_TOOL_TEXTS["EXECUTE_TOOL_DESCRIPTION"]
# The variants a request gets for what it can do: grep with no shell to point at, execute
# with fewer search tools to recommend.
_GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE = FS_TOOL_TEXTS["_GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE"]
_EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY = FS_TOOL_TEXTS["_EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY"]
_EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY = FS_TOOL_TEXTS["_EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY"]
_EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH = FS_TOOL_TEXTS["_EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH"]
ROUTE_HOST_PATH_PROMPT_INTRO = FS_TOOL_TEXTS["ROUTE_HOST_PATH_PROMPT_INTRO"]
ROUTE_HOST_PATH_MAPPINGS_HEADING = FS_TOOL_TEXTS["ROUTE_HOST_PATH_MAPPINGS_HEADING"]
ROUTE_HOST_PATH_MAPPING_LINE = FS_TOOL_TEXTS["ROUTE_HOST_PATH_MAPPING_LINE"]
ROUTE_NO_HOST_MAPPING_HEADING = FS_TOOL_TEXTS["ROUTE_NO_HOST_MAPPING_HEADING"]
ROUTE_NO_HOST_MAPPING_LINE = FS_TOOL_TEXTS["ROUTE_NO_HOST_MAPPING_LINE"]
EMPTY_CONTENT_WARNING = FS_TOOL_TEXTS["EMPTY_CONTENT_WARNING"]
NO_LINES_REQUESTED_WARNING = FS_TOOL_TEXTS["NO_LINES_REQUESTED_WARNING"]
GREP_TRUNCATION_NOTE = FS_TOOL_TEXTS["GREP_TRUNCATION_NOTE"]
GLOB_TRUNCATION_NOTE = FS_TOOL_TEXTS["GLOB_TRUNCATION_NOTE"]
GLOB_UNREADABLE_NOTE = FS_TOOL_TEXTS["GLOB_UNREADABLE_NOTE"]
GLOB_PATHLESS_DENIED_HINT = FS_TOOL_TEXTS["GLOB_PATHLESS_DENIED_HINT"]
READ_FILE_TRUNCATION_MSG = FS_TOOL_TEXTS["READ_FILE_TRUNCATION_MSG"]
GREP_GLOB_DESCRIPTION = FS_TOOL_TEXTS["GREP_GLOB_DESCRIPTION"]
GREP_OUTPUT_MODE_DESCRIPTION = FS_TOOL_TEXTS["GREP_OUTPUT_MODE_DESCRIPTION"]

# deepagents 0.7.32, middleware/filesystem.py: FilesystemMiddleware._set_permissions
PERMISSIONS_WITH_EXECUTION = (
    "FilesystemMiddleware does not yet support permissions with backends that "
    "provide command execution (SandboxBackendProtocol). Tool-level permissions "
    "for the execute tool are not implemented. Either remove permissions or use "
    "a backend without execution support."
)

# deepagents 0.7.32, middleware/filesystem.py: FilesystemMiddleware.__init__ (backend factory)
BACKEND_FACTORY_REMOVED = (
    "backend must be an initialized backend instance. Backend factories "
    "were removed in deepagents 0.7; pass StateBackend(), "
    "CompositeBackend(...), or another BackendProtocol instance instead."
)

# deepagents 0.7.32, middleware/filesystem.py: FilesystemMiddleware.__init__ (field: blobs)
OFFLOAD_TO_STATE_HAS_NO_EFFECT = (
    "`offload_binary_content` has no effect: `{blobs}/` routes to a `StateBackend`, "
    "which keeps files in checkpointed state."
)

# deepagents 0.7.32, middleware/filesystem.py: FilesystemMiddleware.__init__ (langchain_core's
# warn_deprecated text for `_permissions`)
PRIVATE_PERMISSIONS_DEPRECATED = (
    "`FilesystemMiddleware(_permissions=...)` was deprecated in deepagents 0.7.31 and will be "
    "removed in 0.9.0. Use FilesystemMiddleware(permissions=...) instead."
)
