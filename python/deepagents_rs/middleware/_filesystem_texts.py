"""Texts of the filesystem tools that `deepagents.middleware.filesystem` exports, word for word.

The Rust core offers the model its own copies (`src/middleware/filesystem/texts.rs`);
these are the module constants deepagents' users import, plus the messages the
`FilesystemMiddleware` configuration raises or warns with.
"""

# deepagents 0.7.32, middleware/filesystem.py: LIST_FILES_TOOL_DESCRIPTION
LIST_FILES_TOOL_DESCRIPTION = """Lists all files in a directory.

This is useful for exploring the filesystem and finding the right file to read or edit.
You should almost ALWAYS use this tool before using the read_file or edit_file tools."""

# deepagents 0.7.32, middleware/filesystem.py: READ_FILE_TOOL_DESCRIPTION
READ_FILE_TOOL_DESCRIPTION = """Reads a file from the filesystem. Assume any path the user provides is valid; reading a missing file returns an error.

Usage:
- By default, it reads up to 100 lines starting from the beginning of the file. Use `offset`/`limit` to page through large files instead of reading them whole.
- A status header, `@@ field | field | ... @@`, sits above the file content, and every line after it is verbatim file content. When content is truncated, there may be an explanation before the header. Never include the header when editing.
- Speculatively batch multiple `read_file` calls in one response when several files may be useful.
- An empty file returns a system-reminder warning in place of contents.
- Large tool results may be offloaded to a file; the tool message gives the path. Read that path here, paging with `offset`/`limit`.
- Images (`.png`, `.jpg`, etc.), audio, video, and PDFs return multimodal content blocks (https://docs.langchain.com/oss/python/langchain/messages#multimodal).
- For images and PDFs, pagination via `offset`/`limit` is text-only - supply `file_path` only
- Always read a file before editing it."""

# deepagents 0.7.32, middleware/filesystem.py: READ_FILE_VIDEO_TOOL_DESCRIPTION
READ_FILE_VIDEO_TOOL_DESCRIPTION = """Reads a file from the filesystem. Assume any path the user provides is valid; reading a missing file returns an error.

Usage:
- For text files, by default it reads up to 100 lines starting from the beginning of the file. Use `offset`/`limit` to page through large files instead of reading them whole.
- A status header, `@@ field | field | ... @@`, sits above the file content, and every line after it is verbatim file content. When content is truncated, there may be an explanation before the header. Never include the header when editing.
- Speculatively batch multiple `read_file` calls in one response when several files may be useful.
- An empty file returns a system-reminder warning in place of contents.
- Large tool results may be offloaded to a file; the tool message gives the path. Read that path here, paging with `offset`/`limit`.
- Images (`.png`, `.jpg`, etc.), audio, video, and PDFs return multimodal content blocks (https://docs.langchain.com/oss/python/langchain/messages#multimodal).
- For images and PDFs, pagination via `offset`/`limit` is text-only - supply `file_path` only
- For videos, `offset`/`limit` are interpreted as seconds (default window 100 s; sampled at a fixed rate). Use smaller windows when you need more temporal detail.
- Always read a file before editing it."""

# deepagents 0.7.32, middleware/filesystem.py: EDIT_FILE_TOOL_DESCRIPTION
EDIT_FILE_TOOL_DESCRIPTION = """Performs exact string replacements in files.

Usage:
- You must read the file before editing; this tool errors otherwise.
- Preserve the exact source indentation from the read output, and never include the read status header in old_string or new_string.
- Prefer editing an existing file over creating a new one.
- Only use emojis if the user explicitly requests it."""

# deepagents 0.7.32, middleware/filesystem.py: WRITE_FILE_TOOL_DESCRIPTION
WRITE_FILE_TOOL_DESCRIPTION = """Writes content to a file. Creates the file if it does not exist; replaces it entirely if it does.

Usage:
- Use this tool when you intend to create a new file or replace the whole file. You do not need to read the file first.
- Prefer to edit existing files (with the edit_file tool) over creating new ones when possible.
"""

# deepagents 0.7.32, middleware/filesystem.py: DELETE_TOOL_DESCRIPTION
DELETE_TOOL_DESCRIPTION = """Deletes a file or directory from the filesystem.

Usage:
- Permanently removes the file or directory at the given absolute path.
- Deleting a directory removes it and everything inside it, recursively. Prefer
  deleting a directory in one call over deleting each file individually.
- This cannot be undone, so only delete paths you are sure are no longer needed.
"""

# deepagents 0.7.32, middleware/filesystem.py: GLOB_TOOL_DESCRIPTION
GLOB_TOOL_DESCRIPTION = """Find files matching a glob pattern, returning absolute paths.

Supports `*` (any characters within a path segment), `**` (any directories), `?` (single character), `[abc]` (one character from a set), and `{a,b}` (alternatives), e.g. `*.py`, `src/**/*.py`, `*.{yml,yaml}`.

A pattern without `/` matches the file name at any depth under the search root (`*.py` matches `src/app/main.py`). A pattern containing `/` matches the search-root-relative path (`src/**/*.py`). A leading `/` anchors to the search root (`/*.py` matches only top-level Python files).

Leading-dot names are only matched when the pattern segment itself starts with `.` (use `.env`, or `.github/**/*.yml`). Because `**` will not descend into dot-directories, the bare form `*.yml` is *broader* than `**/*.yml` and is usually what you want."""

# deepagents 0.7.32, middleware/filesystem.py: _GREP_REGEX_EXECUTE_FALLBACK (the line the
# no-execute variant of the grep description leaves out, with its leading newline)
GREP_REGEX_EXECUTE_FALLBACK = "\n- If you genuinely need regex, use the execute tool with `rg '<regex>'` instead."

# deepagents 0.7.32, middleware/filesystem.py: GREP_TOOL_DESCRIPTION
GREP_TOOL_DESCRIPTION = """Search for a LITERAL text pattern across files (NOT regex).

The pattern is matched verbatim: regex metacharacters are ordinary characters, not operators. To match any of several strings, run a separate grep for each; `grep(pattern="foo|bar")` searches for the literal text "foo|bar", and `.*` or `\\.` match those characters literally.
- If you genuinely need regex, use the execute tool with `rg '<regex>'` instead.

Returns matching files or content per `output_mode`. Offloaded large tool results live under the artifacts root (`/large_tool_results/` by default); grep that directory to search them when you do not know the exact path."""

# deepagents 0.7.32, middleware/filesystem.py: EXECUTE_TOOL_DESCRIPTION
EXECUTE_TOOL_DESCRIPTION = """Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- You MUST avoid using search commands like find and grep. Instead use the grep, glob tools to search. Use read_file rather than cat/head/tail.
    - execute(command="find . -name '*.py'")  # Use glob tool instead
    - execute(command="grep -r 'pattern' .")  # Use grep tool instead

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."""

# deepagents 0.7.32, middleware/filesystem.py: _route_host_path_prompt (fixed opening)
ROUTE_HOST_PATH_PROMPT_INTRO = """## Shell paths vs. virtual paths

The `execute` tool runs commands in the host shell and can only access files that exist on the host filesystem.

Some paths returned by the file tools are virtual mounts:

- If a virtual mount has a host path mapping, replace its virtual prefix with the host prefix when running shell commands.
- If a virtual mount does not have a host path mapping, it is not accessible from the shell. Use the file tools listed above to interact with those files.

Do not assume that a path returned by a file tool can be used directly in a shell command."""

# deepagents 0.7.32, middleware/filesystem.py: _route_host_path_prompt (headings and lines;
# `virtual` and `host` end in "/")
ROUTE_HOST_PATH_MAPPINGS_HEADING = "Host path mappings:"
ROUTE_HOST_PATH_MAPPING_LINE = "- `{virtual}` -> `{host}` (e.g. `{virtual}dir/x.py` -> `{host}dir/x.py`)"
ROUTE_NO_HOST_MAPPING_HEADING = "Virtual mounts without a host path mapping (not accessible from the shell):"
ROUTE_NO_HOST_MAPPING_LINE = "- `{prefix}`"

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
