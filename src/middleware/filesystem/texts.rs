//! Model-visible texts of deepagents 0.7.32's built-in filesystem tools, verbatim.
//!
//! Copied from `deepagents/middleware/filesystem.py`, `deepagents/backends/utils.py`,
//! `deepagents/middleware/_message_eviction.py` (and a few backend modules) and checked by
//! `tests/test_fs_texts.py` against the installed reference package and the captured fixture
//! `tests/fixtures/fs_tools_0.7.32.json` (`tests/fixtures/capture_fs_tools.py`). Re-run that
//! test after any edit.
//!
//! Conventions:
//! - Templates use `{name}` placeholders; fill them with `str::replace("{name}", value)`.
//!   Templates (consts whose doc comment lists placeholders, plus the `*_MSG`/`*_TEMPLATE`
//!   consts) contain no braces other than their placeholders. Descriptions and schemas are not
//!   templates; they contain literal braces.
//! - Numbers that deepagents formats with Python `str()` render the same in Rust for ints;
//!   floats are noted where they occur (`10.0`, not `10`).
//! - `*_PARAMETERS` are the tools' JSON parameter schemas exactly as
//!   `langchain_core.utils.function_calling.convert_to_openai_tool` emits them (key order
//!   included). Parse with `serde_json` (`preserve_order` is enabled) and put them under
//!   `{"type": "function", "function": {"name", "description", "parameters"}}`.
//! - `*_DESCRIPTION` are the descriptions as the model receives them. `StructuredTool.from_function`
//!   `.strip()`s every description (built-in and `custom_tool_descriptions`), so the two built-in
//!   ones whose Python constant ends with a newline (write_file, delete) are stored stripped. The
//!   request-time swaps of the grep/execute variants (`model_copy`) do not strip; those texts
//!   have no surrounding whitespace anyway.

#![allow(dead_code)]

// --------------------------------------------------------------------------------------
// Tool descriptions
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.LIST_FILES_TOOL_DESCRIPTION`.
pub const LS_DESCRIPTION: &str = r#"Lists all files in a directory.

This is useful for exploring the filesystem and finding the right file to read or edit.
You should almost ALWAYS use this tool before using the read_file or edit_file tools."#;

/// `deepagents.middleware.filesystem.READ_FILE_TOOL_DESCRIPTION` (used when the optional video dependencies are absent).
pub const READ_FILE_DESCRIPTION: &str = r#"Reads a file from the filesystem. Assume any path the user provides is valid; reading a missing file returns an error.

Usage:
- By default, it reads up to 100 lines starting from the beginning of the file. Use `offset`/`limit` to page through large files instead of reading them whole.
- A status header, `@@ field | field | ... @@`, sits above the file content, and every line after it is verbatim file content. When content is truncated, there may be an explanation before the header. Never include the header when editing.
- Speculatively batch multiple `read_file` calls in one response when several files may be useful.
- An empty file returns a system-reminder warning in place of contents.
- Large tool results may be offloaded to a file; the tool message gives the path. Read that path here, paging with `offset`/`limit`.
- Images (`.png`, `.jpg`, etc.), audio, video, and PDFs return multimodal content blocks (https://docs.langchain.com/oss/python/langchain/messages#multimodal).
- For images and PDFs, pagination via `offset`/`limit` is text-only - supply `file_path` only
- Always read a file before editing it."#;

/// `deepagents.middleware.filesystem.READ_FILE_VIDEO_TOOL_DESCRIPTION` (used only when `video_dependencies_available()`).
pub const READ_FILE_VIDEO_DESCRIPTION: &str = r#"Reads a file from the filesystem. Assume any path the user provides is valid; reading a missing file returns an error.

Usage:
- For text files, by default it reads up to 100 lines starting from the beginning of the file. Use `offset`/`limit` to page through large files instead of reading them whole.
- A status header, `@@ field | field | ... @@`, sits above the file content, and every line after it is verbatim file content. When content is truncated, there may be an explanation before the header. Never include the header when editing.
- Speculatively batch multiple `read_file` calls in one response when several files may be useful.
- An empty file returns a system-reminder warning in place of contents.
- Large tool results may be offloaded to a file; the tool message gives the path. Read that path here, paging with `offset`/`limit`.
- Images (`.png`, `.jpg`, etc.), audio, video, and PDFs return multimodal content blocks (https://docs.langchain.com/oss/python/langchain/messages#multimodal).
- For images and PDFs, pagination via `offset`/`limit` is text-only - supply `file_path` only
- For videos, `offset`/`limit` are interpreted as seconds (default window 100 s; sampled at a fixed rate). Use smaller windows when you need more temporal detail.
- Always read a file before editing it."#;

/// `deepagents.middleware.filesystem.WRITE_FILE_TOOL_DESCRIPTION`, `.strip()`ped.
///
/// The Python constant ends with a newline; `StructuredTool.from_function` strips descriptions,
/// so the model sees this text without it.
pub const WRITE_FILE_DESCRIPTION: &str = r#"Writes content to a file. Creates the file if it does not exist; replaces it entirely if it does.

Usage:
- Use this tool when you intend to create a new file or replace the whole file. You do not need to read the file first.
- Prefer to edit existing files (with the edit_file tool) over creating new ones when possible."#;

/// `deepagents.middleware.filesystem.EDIT_FILE_TOOL_DESCRIPTION`.
pub const EDIT_FILE_DESCRIPTION: &str = r#"Performs exact string replacements in files.

Usage:
- You must read the file before editing; this tool errors otherwise.
- Preserve the exact source indentation from the read output, and never include the read status header in old_string or new_string.
- Prefer editing an existing file over creating a new one.
- Only use emojis if the user explicitly requests it."#;

/// `deepagents.middleware.filesystem.DELETE_TOOL_DESCRIPTION`, `.strip()`ped.
///
/// The Python constant ends with a newline; `StructuredTool.from_function` strips descriptions,
/// so the model sees this text without it.
pub const DELETE_DESCRIPTION: &str = r#"Deletes a file or directory from the filesystem.

Usage:
- Permanently removes the file or directory at the given absolute path.
- Deleting a directory removes it and everything inside it, recursively. Prefer
  deleting a directory in one call over deleting each file individually.
- This cannot be undone, so only delete paths you are sure are no longer needed."#;

/// `deepagents.middleware.filesystem.GLOB_TOOL_DESCRIPTION`.
pub const GLOB_DESCRIPTION: &str = r#"Find files matching a glob pattern, returning absolute paths.

Supports `*` (any characters within a path segment), `**` (any directories), `?` (single character), `[abc]` (one character from a set), and `{a,b}` (alternatives), e.g. `*.py`, `src/**/*.py`, `*.{yml,yaml}`.

A pattern without `/` matches the file name at any depth under the search root (`*.py` matches `src/app/main.py`). A pattern containing `/` matches the search-root-relative path (`src/**/*.py`). A leading `/` anchors to the search root (`/*.py` matches only top-level Python files).

Leading-dot names are only matched when the pattern segment itself starts with `.` (use `.env`, or `.github/**/*.yml`). Because `**` will not descend into dot-directories, the bare form `*.yml` is *broader* than `**/*.yml` and is usually what you want."#;

/// `deepagents.middleware.filesystem.GREP_TOOL_DESCRIPTION` (with the `rg` execute fallback line).
///
/// Sent when the execute tool is active for the request (`_with_filtered_grep_description`).
pub const GREP_DESCRIPTION: &str = r#"Search for a LITERAL text pattern across files (NOT regex).

The pattern is matched verbatim: regex metacharacters are ordinary characters, not operators. To match any of several strings, run a separate grep for each; `grep(pattern="foo|bar")` searches for the literal text "foo|bar", and `.*` or `\.` match those characters literally.
- If you genuinely need regex, use the execute tool with `rg '<regex>'` instead.

Returns matching files or content per `output_mode`. Offloaded large tool results live under the artifacts root (`/large_tool_results/` by default); grep that directory to search them when you do not know the exact path."#;

/// `deepagents.middleware.filesystem._GREP_REGEX_EXECUTE_FALLBACK`: the line (with its
/// leading newline) that `GREP_DESCRIPTION` has and the no-execute variant leaves out.
pub const GREP_REGEX_EXECUTE_FALLBACK: &str =
    "\n- If you genuinely need regex, use the execute tool with `rg '<regex>'` instead.";

/// `deepagents.middleware.filesystem._GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE`.
///
/// Sent when execute is not active (not a sandbox backend, or `execute` not enabled).
pub const GREP_DESCRIPTION_WITHOUT_EXECUTE: &str = r#"Search for a LITERAL text pattern across files (NOT regex).

The pattern is matched verbatim: regex metacharacters are ordinary characters, not operators. To match any of several strings, run a separate grep for each; `grep(pattern="foo|bar")` searches for the literal text "foo|bar", and `.*` or `\.` match those characters literally.

Returns matching files or content per `output_mode`. Offloaded large tool results live under the artifacts root (`/large_tool_results/` by default); grep that directory to search them when you do not know the exact path."#;

/// `deepagents.middleware.filesystem.EXECUTE_TOOL_DESCRIPTION` (grep and glob both visible).
pub const EXECUTE_DESCRIPTION: &str = r#"Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- You MUST avoid using search commands like find and grep. Instead use the grep, glob tools to search. Use read_file rather than cat/head/tail.
    - execute(command="find . -name '*.py'")  # Use glob tool instead
    - execute(command="grep -r 'pattern' .")  # Use grep tool instead

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."#;

/// `deepagents.middleware.filesystem._EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY` (grep visible, glob not).
pub const EXECUTE_DESCRIPTION_WITH_GREP_ONLY: &str = r#"Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- You MUST avoid using shell grep for searches. Instead use the grep tool to search text. Use read_file rather than cat/head/tail.
    - execute(command="grep -r 'pattern' .")  # Use grep tool instead

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."#;

/// `deepagents.middleware.filesystem._EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY` (glob visible, grep not).
pub const EXECUTE_DESCRIPTION_WITH_GLOB_ONLY: &str = r#"Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- You MUST avoid using shell find for searches. Instead use the glob tool to find files. Use read_file rather than cat/head/tail.
    - execute(command="find . -name '*.py'")  # Use glob tool instead

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."#;

/// `deepagents.middleware.filesystem._EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH` (neither grep nor glob visible).
pub const EXECUTE_DESCRIPTION_WITHOUT_SEARCH: &str = r#"Executes a shell command in an isolated sandbox and returns combined stdout/stderr with the exit code (truncated if very large).

Usage:
- Quote paths containing spaces (e.g. cd "/path/with spaces").
- Chain commands with ';' or '&&' (use '&&' when a command depends on the previous); do not use newlines except inside quoted strings.
- Use absolute paths and avoid `cd` so the working directory stays stable; use the optional timeout to override the default.
- Use read_file rather than cat/head/tail.

Only available on backends implementing SandboxBackendProtocol; otherwise it returns an error."#;

/// `deepagents.middleware.filesystem.GREP_GLOB_DESCRIPTION` (the `glob` field of `GREP_PARAMETERS`).
pub const GREP_GLOB_FIELD_DESCRIPTION: &str = "Glob pattern (NOT regex) limiting which files are searched (e.g. '*.py', '*.ts'). A pattern without '/' matches the file name at any depth; a pattern containing '/' matches the search-root-relative path (e.g. 'src/**/*.py'). This is an in-tool file filter, not a call to the separate glob tool. Brace expansion (e.g. '*.{ts,tsx}') is not supported on all backends; run a separate search per extension for reliable results.";

/// `deepagents.middleware.filesystem.GREP_OUTPUT_MODE_DESCRIPTION` (the `output_mode` field of `GREP_PARAMETERS`).
pub const GREP_OUTPUT_MODE_FIELD_DESCRIPTION: &str = "Shape of the returned text. 'files_with_matches' (default): newline-separated matching file paths. 'content': matching lines grouped by file under a '<path>:' header, each line indented and formatted '<line_number>: <line text>' (only the matched line, no surrounding context). 'count': one '<path>: <match_count>' line per file.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_tools` order (the order tools are offered in).
///
/// `delete` is dropped from requests when the backend does not override `delete`;
/// `execute` when the backend is not a `SandboxBackendProtocol` (for a `CompositeBackend`: its default).
pub const FS_TOOL_ORDER: &[&str] = &[
    "ls",
    "read_file",
    "write_file",
    "edit_file",
    "delete",
    "glob",
    "grep",
    "execute",
];

// --------------------------------------------------------------------------------------
// Tool parameter schemas (convert_to_openai_tool(...)['function']['parameters'])
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.LsSchema` via `convert_to_openai_tool`.
pub const LS_PARAMETERS: &str = r#"{
  "properties": {
    "path": {
      "description": "Absolute path to the directory to list. Must be absolute, not relative.",
      "type": "string"
    }
  },
  "required": [
    "path"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.ReadFileSchema` via `convert_to_openai_tool`.
pub const READ_FILE_PARAMETERS: &str = r#"{
  "properties": {
    "file_path": {
      "description": "Absolute path to the file to read. Must be absolute, not relative.",
      "type": "string"
    },
    "offset": {
      "default": 0,
      "description": "Line number to start reading from (0-indexed). Use for pagination of large files.",
      "type": "integer"
    },
    "limit": {
      "default": 100,
      "description": "Maximum number of lines to read. Use for pagination of large files.",
      "type": "integer"
    }
  },
  "required": [
    "file_path"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.ReadVideoFileSchema` via `convert_to_openai_tool`.
pub const READ_FILE_VIDEO_PARAMETERS: &str = r#"{
  "properties": {
    "file_path": {
      "description": "Absolute path to the file to read. Must be absolute, not relative.",
      "type": "string"
    },
    "offset": {
      "default": 0,
      "description": "Line number to start reading from for text files (0-indexed). For videos, seconds into the source to start sampling.",
      "type": "integer"
    },
    "limit": {
      "default": 100,
      "description": "Maximum number of lines to read for text files. For videos, seconds of source to sample.",
      "type": "integer"
    }
  },
  "required": [
    "file_path"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.WriteFileSchema` via `convert_to_openai_tool`.
pub const WRITE_FILE_PARAMETERS: &str = r#"{
  "properties": {
    "file_path": {
      "description": "Absolute path where the file should be written. Must be absolute, not relative.",
      "type": "string"
    },
    "content": {
      "description": "The text content to write to the file. This parameter is required.",
      "type": "string"
    }
  },
  "required": [
    "file_path",
    "content"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.EditFileSchema` via `convert_to_openai_tool`.
pub const EDIT_FILE_PARAMETERS: &str = r#"{
  "properties": {
    "file_path": {
      "description": "Absolute path to the file to edit. Must be absolute, not relative.",
      "type": "string"
    },
    "old_string": {
      "description": "The exact text to find and replace. Must be unique in the file unless replace_all is True.",
      "type": "string"
    },
    "new_string": {
      "description": "The text to replace old_string with. Must be different from old_string.",
      "type": "string"
    },
    "replace_all": {
      "default": false,
      "description": "If True, replace all occurrences of old_string. If False (default), old_string must be unique.",
      "type": "boolean"
    }
  },
  "required": [
    "file_path",
    "old_string",
    "new_string"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.DeleteSchema` via `convert_to_openai_tool`.
pub const DELETE_PARAMETERS: &str = r#"{
  "properties": {
    "file_path": {
      "description": "Absolute path to the file to delete. Must be absolute, not relative.",
      "type": "string"
    }
  },
  "required": [
    "file_path"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.GlobSchema` via `convert_to_openai_tool`.
pub const GLOB_PARAMETERS: &str = r#"{
  "properties": {
    "pattern": {
      "description": "Glob pattern to match files (e.g., '*.py', '**/*.py', '/subdir/**/*.md'). A pattern without '/' matches the file name at any depth; a pattern containing '/' matches the search-root-relative path; a leading '/' anchors to the search root ('/*.py' matches only top-level files). Leading-dot names are excluded unless the pattern segment starts with '.', so prefer the bare form '*.py' over '**/*.py' -- '**' will not descend into dot-directories like '.github'.",
      "type": "string"
    },
    "path": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Base directory to search from. Defaults to the backend's default root."
    }
  },
  "required": [
    "pattern"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.GrepSchema` via `convert_to_openai_tool`.
pub const GREP_PARAMETERS: &str = r#"{
  "properties": {
    "pattern": {
      "description": "Text pattern to search for (literal string, not regex).",
      "type": "string"
    },
    "path": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Directory to search in. Defaults to current working directory."
    },
    "glob": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Glob pattern (NOT regex) limiting which files are searched (e.g. '*.py', '*.ts'). A pattern without '/' matches the file name at any depth; a pattern containing '/' matches the search-root-relative path (e.g. 'src/**/*.py'). This is an in-tool file filter, not a call to the separate glob tool. Brace expansion (e.g. '*.{ts,tsx}') is not supported on all backends; run a separate search per extension for reliable results."
    },
    "output_mode": {
      "default": "files_with_matches",
      "description": "Shape of the returned text. 'files_with_matches' (default): newline-separated matching file paths. 'content': matching lines grouped by file under a '<path>:' header, each line indented and formatted '<line_number>: <line text>' (only the matched line, no surrounding context). 'count': one '<path>: <match_count>' line per file.",
      "enum": [
        "files_with_matches",
        "content",
        "count"
      ],
      "type": "string"
    },
    "max_count": {
      "anyOf": [
        {
          "exclusiveMinimum": 0,
          "type": "integer"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Optional cap on the total number of matches returned across all files. Leave unset to use the configured default. When the cap is hit, results are truncated and a note says so; narrow the pattern or path to see the rest."
    }
  },
  "required": [
    "pattern"
  ],
  "type": "object"
}"#;

/// `deepagents.middleware.filesystem.ExecuteSchema` via `convert_to_openai_tool`.
pub const EXECUTE_PARAMETERS: &str = r#"{
  "properties": {
    "command": {
      "description": "Shell command to execute in the sandbox environment.",
      "type": "string"
    },
    "timeout": {
      "anyOf": [
        {
          "type": "integer"
        },
        {
          "type": "null"
        }
      ],
      "default": null,
      "description": "Optional timeout in seconds for this command. Overrides the default timeout."
    }
  },
  "required": [
    "command"
  ],
  "type": "object"
}"#;

// --------------------------------------------------------------------------------------
// System prompt
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem._route_host_path_prompt` (fixed opening lines).
///
/// Only emitted when execute is active and the backend is a `CompositeBackend` with routes.
/// Assembly (lines joined with `\n`): this intro; then, if any route has a host mapping,
/// `""`, `ROUTE_HOST_PATH_MAPPINGS_HEADING`, one `ROUTE_HOST_PATH_MAPPING_LINE` per mapped
/// route; then, if any route has none, `""`, `ROUTE_NO_HOST_MAPPING_HEADING`, one
/// `ROUTE_NO_HOST_MAPPING_LINE` per such route. Routes are taken in `sorted_routes` order
/// (prefix length, longest first). A route maps only when the composite's default is a
/// `LocalShellBackend` and the route is a `FilesystemBackend`: virtual mode maps to
/// `str(route.cwd)`, non-virtual mode to `/`. Both sides get a trailing `/` if missing.
///
/// The system prompt FilesystemMiddleware appends is `"\n\n".join([custom system_prompt (if
/// any), route prompt (if non-empty)]).strip()`; when non-empty it is appended to the system
/// message as a new text block (prefixed with `\n\n` when the message already has blocks).
/// With `create_deep_agent(system_prompt=None)` the system message is `""` (no blocks), so
/// the route prompt becomes the single text block `[{"type": "text", "text": ...}]`.
pub const ROUTE_HOST_PATH_PROMPT_INTRO: &str = r#"## Shell paths vs. virtual paths

The `execute` tool runs commands in the host shell and can only access files that exist on the host filesystem.

Some paths returned by the file tools are virtual mounts:

- If a virtual mount has a host path mapping, replace its virtual prefix with the host prefix when running shell commands.
- If a virtual mount does not have a host path mapping, it is not accessible from the shell. Use the file tools listed above to interact with those files.

Do not assume that a path returned by a file tool can be used directly in a shell command."#;

/// `deepagents.middleware.filesystem._route_host_path_prompt` (mappings heading).
pub const ROUTE_HOST_PATH_MAPPINGS_HEADING: &str = "Host path mappings:";

/// `deepagents.middleware.filesystem._route_host_path_prompt._mapping_line`.
///
/// `{virtual}`: route prefix ending in `/`; `{host}`: host prefix ending in `/`.
pub const ROUTE_HOST_PATH_MAPPING_LINE: &str =
    "- `{virtual}` -> `{host}` (e.g. `{virtual}dir/x.py` -> `{host}dir/x.py`)";

/// `deepagents.middleware.filesystem._route_host_path_prompt` (unmapped heading).
pub const ROUTE_NO_HOST_MAPPING_HEADING: &str =
    "Virtual mounts without a host path mapping (not accessible from the shell):";

/// `deepagents.middleware.filesystem._route_host_path_prompt` (unmapped route line).
///
/// `{prefix}`: the route prefix as configured (not normalized).
pub const ROUTE_NO_HOST_MAPPING_LINE: &str = "- `{prefix}`";

// --------------------------------------------------------------------------------------
// Generic tool errors, paths and permissions
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem` tools: `f"Error: {e}"` / `f"Error: {result.error}"`.
///
/// Wraps `validate_path` errors (all tools) and backend `error`s of ls, read_file and glob.
/// write_file/edit_file/delete return the backend `error` as is (no prefix).
pub const ERROR_WITH_MESSAGE: &str = "Error: {error}";

/// `deepagents.backends.utils.validate_path` (`..` component or leading `~`).
pub const PATH_TRAVERSAL: &str = "Path traversal not allowed: {path}";

/// `deepagents.backends.utils.validate_path` (path matches `^[a-zA-Z]:`).
pub const WINDOWS_ABSOLUTE_PATH: &str = "Windows absolute paths are not supported: {path}. Please use virtual paths starting with / (e.g., /workspace/file.txt)";

/// `deepagents.backends.utils.validate_path` (defense in depth).
pub const PATH_TRAVERSAL_AFTER_NORMALIZATION: &str =
    "Path traversal detected after normalization: {path} -> {normalized}";

/// `deepagents.backends.utils.validate_path` (`allowed_prefixes`).
///
/// `{prefixes}`: Python `repr` of the prefix list, e.g. `['/data/']`.
pub const PATH_PREFIX_NOT_ALLOWED: &str = "Path must start with one of {prefixes}: {path}";

/// `deepagents.middleware.filesystem._permission_error`.
///
/// `{operation}`: `read` or `write`.
pub const PERMISSION_DENIED: &str = "Error: permission denied for {operation} on {path}";

/// `deepagents.middleware.filesystem._resolved_permission_error` / `_delete_permission_error`.
///
/// `{real}`: the symlink-resolved path; delete always uses `write`.
pub const PERMISSION_DENIED_RESOLVED: &str =
    "Error: permission denied for {operation} on {path} (resolves to {real})";

/// `deepagents.middleware.filesystem._resolved_permission_error` / `_delete_permission_error`.
pub const CANNOT_RESOLVE: &str = "Error: cannot resolve {path}";

/// `deepagents.middleware.filesystem._delete_permission_error` (deny patterns).
///
/// `{patterns}`: the denying patterns joined with `, `.
pub const DELETE_PERMISSION_DENIED_RULES: &str =
    "Error: permission denied for write on {path} (matches deny rule(s): {patterns})";

/// `deepagents.middleware.filesystem.GLOB_PATHLESS_DENIED_HINT`.
///
/// Appended directly to `PERMISSION_DENIED` (operation `read`, path `/`) when glob got no `path`.
pub const GLOB_PATHLESS_DENIED_HINT: &str = ". A glob without 'path' is authorized against the backend's default root, not the directories named in 'pattern'. Retry with an explicit 'path' inside an allowed directory and a 'pattern' relative to it.";

/// `deepagents.middleware.filesystem._parallel_file_mutation_error`.
///
/// Returned (status `error`) for a later write_file/edit_file/delete on the same validated path
/// in the same AIMessage.
pub const PARALLEL_FILE_MUTATION_ERROR: &str =
    "Error: parallel file mutations to the same path are not allowed.";

/// `deepagents.middleware.filesystem._replace_rejected_file_content`.
pub const UNSUPPORTED_CONTENT_REPLACEMENT: &str =
    "Unsupported content. The file may be invalid, too large, or of an unsupported mime-type.";

// --------------------------------------------------------------------------------------
// ls / glob
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem._format_file_paths` (empty list).
///
/// Non-empty ls/glob results are Python `str(list_of_paths)` (e.g. `['/a', '/b']`), after
/// `truncate_if_too_long` on the list.
pub const NO_FILES_FOUND: &str = "No files found";

/// `deepagents.middleware.filesystem.GLOB_TRUNCATION_NOTE`.
pub const GLOB_TRUNCATION_NOTE: &str = "Note: the search stopped early because it hit its time or size limit. The paths above are valid but incomplete. Narrow the search (a more specific pattern or a narrower path) to see the rest.";

/// `deepagents.middleware.filesystem.GLOB_UNREADABLE_NOTE`.
pub const GLOB_UNREADABLE_NOTE: &str = "Note: some directories could not be read, so the paths above are valid but incomplete. Narrowing the search will NOT reveal the missing files -- they are inaccessible. Continue with what is listed, or report the access problem rather than retrying.";

/// `deepagents.middleware.filesystem._format_glob_tool_result` (truncated result).
///
/// `{note}`: `GLOB_UNREADABLE_NOTE` if `truncation_reason == "unreadable"`, else `GLOB_TRUNCATION_NOTE`.
pub const GLOB_RESULT_WITH_NOTE: &str = r#"{content}

{note}"#;

/// `deepagents.middleware.filesystem._glob_timeout_message`.
///
/// `{timeout}`: Python float, i.e. `10.0` (see `GLOB_TIMEOUT_SECS`).
pub const GLOB_TIMEOUT_MESSAGE: &str =
    "Error: glob timed out after {timeout}s. Try a more specific pattern or a narrower path.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_glob_tool` (sync, no free worker slot).
pub const GLOB_TOO_MANY_CALLS: &str = "Error: too many glob calls are already running. Try again later with a more specific pattern or a narrower path.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_glob_tool` (backend raised).
pub const GLOB_FAILED: &str = "Error: glob failed: {error}";

/// `deepagents.backends.utils.compile_grep_include_glob` (`..` segment).
///
/// `{pattern}`: Python `repr` of the pattern (e.g. `'../*.py'`).
pub const GLOB_PATTERN_TRAVERSAL: &str = "Path traversal not allowed in glob pattern {pattern}";

/// `deepagents.backends.utils.compile_grep_include_glob` (wcmatch refused the pattern).
///
/// `{pattern}`: Python `repr` of the pattern; `{error}`: wcmatch's message.
pub const GLOB_PATTERN_INVALID: &str = "Invalid glob pattern {pattern}: {error}";

// --------------------------------------------------------------------------------------
// grep
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.GREP_TRUNCATION_NOTE`.
pub const GREP_TRUNCATION_NOTE: &str = "Note: the search stopped early (it hit its time limit or the maximum match count). The matches above are valid but incomplete. Narrow the search (a more specific pattern or a narrower path), or raise max_count, to see the rest.";

/// `deepagents.backends.utils.regex_literal_hint` (return value).
///
/// Added only when there are no matches (before permission filtering) and the pattern
/// matches `\||\.\*|\.\+|\\[.wWdDsSbB(){}\[\]|+*?^$]`.
pub const REGEX_LITERAL_HINT: &str = r#"Note: grep matches literal text, not regex, so characters like `|`, `.*`, and `\.` are searched verbatim. Search for the literal text you need instead; for `|` alternation, run a separate search per alternative."#;

/// `deepagents.middleware.filesystem._format_grep_tool_result` (notes appended).
///
/// `{notes}`: `GREP_TRUNCATION_NOTE` and/or `REGEX_LITERAL_HINT`, joined with `\n\n`.
pub const GREP_RESULT_WITH_NOTES: &str = r#"{formatted}

{notes}"#;

/// `deepagents.middleware.filesystem._format_grep_tool_result` (error with partial matches; status `error`).
///
/// Both parts pass through `truncate_if_too_long` separately. An error with no matches is
/// returned alone (status `error`, no `Error: ` prefix added).
pub const GREP_PARTIAL_MATCHES: &str = r#"{error}

Partial matches:
{formatted}"#;

/// `deepagents.backends.utils.format_grep_matches` (no matches).
pub const NO_MATCHES_FOUND: &str = "No matches found";

/// `deepagents.backends.utils._format_grep_results` (`count` mode, one line per file).
///
/// Files sorted by path; lines joined with `\n`. `files_with_matches` mode: sorted paths joined with `\n`.
pub const GREP_COUNT_LINE: &str = "{path}: {count}";

/// `deepagents.backends.utils._format_grep_results` (`content` mode, per file).
pub const GREP_CONTENT_FILE_HEADER: &str = "{path}:";

/// `deepagents.backends.utils._format_grep_results` (`content` mode, per match).
pub const GREP_CONTENT_LINE: &str = "  {line}: {text}";

/// `deepagents.backends.utils._format_grep_with_context` (per displayed line).
///
/// `{separator}`: `:` for a matching line, `-` for a context line.
pub const GREP_CONTEXT_LINE: &str = "  {line}{separator} {text}";

/// `deepagents.backends.utils._format_grep_with_context` (between non-adjacent groups).
pub const GREP_CONTEXT_GROUP_SEPARATOR: &str = "  --";

/// `deepagents.backends.protocol.BackendProtocol.agrep` / `backends.filesystem` (timeout).
///
/// `{timeout}`: `ASYNC_GREP_TIMEOUT` (an int).
pub const GREP_TIMEOUT_MESSAGE: &str =
    "Error: grep timed out after {timeout}s. Try a more specific pattern or a narrower path.";

// --------------------------------------------------------------------------------------
// read_file
// --------------------------------------------------------------------------------------

/// `deepagents.backends.utils.EMPTY_CONTENT_WARNING` (also re-exported by `deepagents.middleware.filesystem`).
pub const EMPTY_CONTENT_WARNING: &str = "System reminder: File exists but has empty contents";

/// `deepagents.middleware.filesystem.NO_LINES_REQUESTED_WARNING`.
///
/// `{limit}`: the requested limit as given by the model.
pub const NO_LINES_REQUESTED_WARNING: &str = "System reminder: no lines were read because `limit` was {limit}. The file was not inspected and may have contents; retry with `limit` >= 1 to read it.";

/// `deepagents.middleware.filesystem.READ_FILE_TRUNCATION_MSG`.
///
/// `{file_path}`: validated path. `_truncate_paginated_read` uses it `.strip()`ped, as a notice
/// above the header.
pub const READ_FILE_TRUNCATION_MSG: &str = "\n\n[Output was truncated due to size limits. The file content is very large. Consider reformatting the file to make it easier to navigate. For example, if this is JSON, use execute(command='jq . {file_path}') to pretty-print it with line breaks. For other formats, you can use appropriate formatting tools to split long lines.]";

/// `deepagents.middleware.filesystem._clamped_offset_notice` (negative offset).
///
/// Used `.strip()`ped, as a notice line above the header.
pub const CLAMPED_OFFSET_NOTICE: &str =
    "\n\n[Requested offset {offset} is before the start of the file; read from line 1 instead.]";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_read_file_tool` (no `file_data`).
pub const READ_FILE_NO_DATA: &str = "Error: no data returned for '{path}'";

/// `deepagents.middleware.filesystem._read_header`.
///
/// `{fields}`: header fields joined with `READ_HEADER_FIELD_SEPARATOR`. The result is
/// `\n`.join([*notices, header, body]).
pub const READ_HEADER: &str = "@@ {fields} @@";

/// `deepagents.middleware.filesystem._read_header` (field separator).
pub const READ_HEADER_FIELD_SEPARATOR: &str = " | ";

/// `deepagents.middleware.filesystem._window_fields` (first field).
pub const READ_FIELD_LINES: &str = "lines {start_line}-{end_line}";

/// `deepagents.middleware.filesystem._window_fields` (appended to the first field when `total_lines` is known).
pub const READ_FIELD_OF_TOTAL: &str = " of {total_lines}";

/// `deepagents.middleware.filesystem._window_fields` (when the window stops before the end).
pub const READ_FIELD_NEXT_OFFSET: &str = "next offset {next_offset}";

/// `deepagents.middleware.filesystem._truncate_paginated_read`.
pub const READ_FIELD_TRUNCATED_SIZE: &str = "truncated due to size";

/// `deepagents.middleware.filesystem._midline_truncated_read`.
pub const READ_FIELD_TRUNCATED_MID_LINE: &str = "truncated mid-line";

/// `deepagents.middleware.filesystem._midline_truncated_read`.
pub const READ_FIELD_SHOWN_CHARS: &str = "{shown} of {total} chars";

/// `deepagents.backends.utils.slice_read_response` (backend `error`, prefixed with `Error: ` by the tool).
pub const LINE_OFFSET_EXCEEDS: &str =
    "Line offset {offset} exceeds file length ({total_lines} lines)";

/// `deepagents.middleware.filesystem._handle_video_read` (non-positive limit).
pub const READ_VIDEO_LIMIT_ERROR: &str =
    "Error reading video {path}: limit must be > 0, got {limit}";

/// `deepagents.middleware.filesystem._handle_video_read._err`.
pub const READ_VIDEO_ERROR: &str = r#"Error reading video {path}: {message}
{header}"#;

/// `deepagents.middleware.filesystem._video_window_header` (offset <= 0).
///
/// `{seconds}`: `int(duration)`; `{rate}`: Python float (`0.5`).
pub const READ_VIDEO_HEADER_FIRST: &str = "Reading first {seconds}s of {path} at {rate} fps.";

/// `deepagents.middleware.filesystem._video_window_header` (offset > 0).
///
/// `{start}`, `{end}`: formatted `{:.3f}`; `{rate}`: Python float (`0.5`).
pub const READ_VIDEO_HEADER_WINDOW: &str = "Reading [{start}s, {end}s) of {path} at {rate} fps.";

/// `deepagents.middleware.filesystem._handle_video_read` (tool message).
///
/// `{frame_label}`: `frame` if count == 1 else `frames`.
pub const READ_VIDEO_RESULT: &str = "Read video {path}: sampled {count} {frame_label}. The sampled frames are attached in the following message.";

// --------------------------------------------------------------------------------------
// write_file / edit_file / delete
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_write_file_tool`.
///
/// `{path}`: `WriteResult.path`.
pub const WRITE_FILE_SUCCESS: &str = "Updated file {path}";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_edit_file_tool`.
pub const EDIT_FILE_SUCCESS: &str =
    "Successfully replaced {occurrences} instance(s) of the string in '{path}'";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_delete_tool`.
pub const DELETE_SUCCESS: &str = "Deleted {path}";

/// `deepagents.backends.state.StateBackend.edit` / `.delete` (and `FilesystemBackend.edit`).
pub const FILE_NOT_FOUND: &str = "Error: File '{path}' not found";

/// `deepagents.backends.state.StateBackend.read` (prefixed with `Error: ` by the tool).
pub const FILE_NOT_FOUND_READ: &str = "File '{path}' not found";

/// `deepagents.backends.state.StateBackend.edit` (base64 file).
pub const CANNOT_EDIT_BINARY: &str = "Error: Cannot edit binary files with text replacements.";

/// `deepagents.backends.utils.EMPTY_OLD_STRING_ERROR`.
pub const EMPTY_OLD_STRING_ERROR: &str =
    "Error: old_string cannot be empty. Provide the exact text to replace.";

/// `deepagents.backends.utils.perform_string_replacement` (no occurrence).
pub const STRING_NOT_FOUND: &str = "Error: String not found in file: '{old_string}'";

/// `deepagents.backends.utils.perform_string_replacement` (ambiguous, no replace_all).
pub const STRING_MULTIPLE_OCCURRENCES: &str = "Error: String '{old_string}' appears {occurrences} times in file. Use replace_all=True to replace all instances, or provide a more specific string with surrounding context.";

/// `deepagents.backends.utils.perform_string_replacement` (EOF newline mismatch, unique).
pub const OLD_STRING_TRAILING_NEWLINE: &str = "Error: old_string ends with a newline, but the file does not end with a newline. Retry with the trailing newline removed from old_string (and from new_string if it also ends with a newline).";

/// `deepagents.backends.utils.perform_string_replacement` (EOF newline mismatch, ambiguous).
pub const OLD_STRING_TRAILING_NEWLINE_AMBIGUOUS: &str = "Error: old_string ends with a newline, but the file does not end with a newline. With the trailing newline removed, old_string would appear {count} times in the file. Retry with the trailing newline removed and add surrounding context so the match is unique.";

/// `deepagents.backends.composite._DELETE_UNSUPPORTED_ERROR`.
pub const DELETE_UNSUPPORTED: &str = "Error: deletion is not supported for '{file_path}'.";

// --------------------------------------------------------------------------------------
// execute
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool`.
pub const EXECUTE_TIMEOUT_NEGATIVE: &str = "Error: timeout must be non-negative, got {timeout}.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool`.
///
/// `{max_timeout}`: `max_execute_timeout` (default `DEFAULT_MAX_EXECUTE_TIMEOUT`).
pub const EXECUTE_TIMEOUT_EXCEEDS: &str =
    "Error: timeout {timeout}s exceeds maximum allowed ({max_timeout}s).";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool` (backend cannot execute).
pub const EXECUTE_NOT_AVAILABLE: &str = "Error: Execution not available. This agent's backend does not support command execution (SandboxBackendProtocol). To use the execute tool, provide a backend that implements SandboxBackendProtocol.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool` (`execute` has no `timeout`).
pub const EXECUTE_TIMEOUT_UNSUPPORTED: &str = "Error: This sandbox backend does not support per-command timeout overrides. Update your sandbox package to the latest version, or omit the timeout parameter.";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool` (`NotImplementedError`).
pub const EXECUTE_NOT_AVAILABLE_WITH_ERROR: &str = "Error: Execution not available. {error}";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._create_execute_tool` (`ValueError`).
pub const EXECUTE_INVALID_PARAMETER: &str = "Error: Invalid parameter. {error}";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._format_execute_output` (exit code known).
///
/// `{status}`: `succeeded` if exit code is 0 else `failed`. Output is
/// `output + EXECUTE_EXIT_CODE_SUFFIX? + EXECUTE_TRUNCATED_SUFFIX?`.
pub const EXECUTE_EXIT_CODE_SUFFIX: &str = "\n[Command {status} with exit code {exit_code}]";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._format_execute_output` (truncated).
pub const EXECUTE_TRUNCATED_SUFFIX: &str = "\n[Output was truncated due to size limits]";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._interpret_capture_output` (offloaded).
///
/// The preview is `status_line (+ EXECUTE_CAPTURE_TRUNCATED) + "\n" + output`, rendered into
/// `TOO_LARGE_TOOL_MSG`.
pub const EXECUTE_CAPTURE_STATUS_LINE: &str = "[Command {status} with exit code {exit_code}]";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._interpret_capture_output` (capture truncated).
pub const EXECUTE_CAPTURE_TRUNCATED: &str =
    "\n[Output exceeded the capture size limit and was truncated; the saved file is incomplete]";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (empty command, exit code 1).
pub const LOCAL_SHELL_EMPTY_COMMAND: &str = "Error: Command must be a non-empty string.";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (no stdout/stderr).
pub const LOCAL_SHELL_NO_OUTPUT: &str = "<no output>";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (each stripped stderr line).
///
/// Output is `\n`.join([stdout (if any), *stderr lines]).
pub const LOCAL_SHELL_STDERR_LINE: &str = "[stderr] {line}";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (output over `max_output_bytes`).
pub const LOCAL_SHELL_OUTPUT_TRUNCATED: &str = "\n\n... Output truncated at {max_bytes} bytes.";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (non-zero exit).
///
/// `{output}`: output `.rstrip()`ped.
pub const LOCAL_SHELL_EXIT_CODE: &str = r#"{output}

Exit code: {exit_code}"#;

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (timeout given by the call, exit code 124).
pub const LOCAL_SHELL_TIMEOUT_CUSTOM: &str = "Error: Command timed out after {timeout} seconds (custom timeout). The command may be stuck or require more time.";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (default timeout, exit code 124).
pub const LOCAL_SHELL_TIMEOUT: &str = "Error: Command timed out after {timeout} seconds. For long-running commands, re-run using the timeout parameter.";

/// `deepagents.backends.local_shell.LocalShellBackend.execute` (exception, exit code 1).
pub const LOCAL_SHELL_EXEC_ERROR: &str = "Error executing command ({error_type}): {error}";

// --------------------------------------------------------------------------------------
// Size limits and large-result eviction
// --------------------------------------------------------------------------------------

/// `deepagents.backends.utils.TRUNCATION_GUIDANCE`.
///
/// `truncate_if_too_long`: a string over `TOOL_RESULT_TOKEN_LIMIT * 4` chars becomes
/// `s[..limit - len(TRUNCATION_GUIDANCE) - 1] + "\n" + TRUNCATION_GUIDANCE`; a list keeps the items
/// whose `repr(item)` + 2 fit in `limit - len(repr(TRUNCATION_GUIDANCE)) - 2` and appends it as an item.
pub const TRUNCATION_GUIDANCE: &str =
    "... [results truncated, try being more specific with your parameters]";

/// `deepagents.middleware._message_eviction._TOO_LARGE_TOOL_MSG` (ends with a newline).
///
/// `{tool_call_id}`: id cut to `VISIBLE_TOOL_CALL_ID_LIMIT` chars + `...` when longer;
/// `{file_path}`: `{artifacts_root}/large_tool_results/{sanitized id}`; `{preview_note}`: see
/// `PREVIEW_NOTE_PLAIN`; `{content_sample}`: the line-numbered preview.
pub const TOO_LARGE_TOOL_MSG: &str = r#"Tool result too large, the result of this tool call {tool_call_id} was saved in the filesystem at this path: {file_path}

You can read the result from the filesystem by using the read_file tool, but make sure to only read part of the result at a time.

You can do this by specifying an offset and limit in the read_file tool call. For example, to read the first 100 lines, you can use the read_file tool with offset=0 and limit=100.

{preview_note}

{content_sample}
"#;

/// `deepagents.middleware.filesystem._TOO_LARGE_HUMAN_MSG` (ends with a newline).
///
/// Same placeholders as `TOO_LARGE_TOOL_MSG`, with `subject` = `content` in the preview note.
pub const TOO_LARGE_HUMAN_MSG: &str = r#"Message content too large and was saved to the filesystem at: {file_path}

You can read the full content using the read_file tool with pagination (offset and limit parameters).

{preview_note}

{content_sample}
"#;

/// `deepagents.middleware._message_eviction._PREVIEW_NOTE_PLAIN`.
///
/// `_preview_note`: `PREVIEW_NOTE_HEAD_TAIL` if lines were omitted else this, `{subject}` =
/// `result` (tool) / `content` (human); then ` (` + applicable caveats
/// (`PREVIEW_CAVEAT_OMITTED_LINES`, then `PREVIEW_CAVEAT_CLIPPED_LINES`) joined by `; ` + `)`
/// if any; then `:`.
pub const PREVIEW_NOTE_PLAIN: &str = "Here is a preview of the {subject}";

/// `deepagents.middleware._message_eviction._PREVIEW_NOTE_HEAD_TAIL`.
pub const PREVIEW_NOTE_HEAD_TAIL: &str =
    "Here is a preview showing the head and tail of the {subject}";

/// `deepagents.middleware._message_eviction._CAVEAT_OMITTED_LINES`.
pub const PREVIEW_CAVEAT_OMITTED_LINES: &str = "lines of the form `... [N lines truncated] ...` indicate omitted lines in the middle of the content";

/// `deepagents.middleware._message_eviction._CAVEAT_CLIPPED_LINES`.
pub const PREVIEW_CAVEAT_CLIPPED_LINES: &str = "the output contains lines longer than 1000 characters; this preview shows only their first 1000 characters";

/// `deepagents.backends.utils.TRUNCATION_MARKER_TEMPLATE`.
///
/// `_create_content_preview`: up to `PREVIEW_HEAD_LINES + PREVIEW_TAIL_LINES` lines are shown
/// whole; otherwise head + `\n` + marker + `\n` + tail. Lines are clipped to
/// `PREVIEW_LINE_CHAR_LIMIT` chars and numbered by `format_content_with_line_numbers`
/// (`f"{marker:>{width}}  {line}"`, rows joined with `\n`).
pub const TRUNCATION_MARKER_TEMPLATE: &str = "... [{omitted_lines} lines truncated] ...";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._large_tool_results_prefix` (`{artifacts_root}/large_tool_results`).
pub const LARGE_TOOL_RESULTS_DIR: &str = "large_tool_results";

/// `deepagents.middleware.filesystem.FilesystemMiddleware._conversation_history_prefix` (`{root}/conversation_history/{uuid4}.md`).
pub const CONVERSATION_HISTORY_DIR: &str = "conversation_history";

/// `deepagents.middleware._blob_offload._MISSING_BLOB_TEXT`: an offloaded payload the
/// backend no longer has (or that no longer matches its digest), as the model sees it.
pub const MISSING_BLOB_TEXT: &str = "[Binary content from an earlier read_file call is no longer available. Re-read the file if you still need it.]";

/// `deepagents.middleware.filesystem.TOOLS_EXCLUDED_FROM_EVICTION`.
pub const TOOLS_EXCLUDED_FROM_EVICTION: &[&str] = &[
    "ls",
    "glob",
    "grep",
    "read_file",
    "edit_file",
    "write_file",
    "delete",
];

// --------------------------------------------------------------------------------------
// Numbers
// --------------------------------------------------------------------------------------

/// `deepagents.middleware.filesystem.DEFAULT_READ_OFFSET`.
pub const DEFAULT_READ_OFFSET: usize = 0;

/// `deepagents.middleware.filesystem.DEFAULT_READ_LIMIT`.
pub const DEFAULT_READ_LIMIT: usize = 100;

/// `deepagents.middleware.filesystem.NUM_CHARS_PER_TOKEN`.
pub const NUM_CHARS_PER_TOKEN: usize = 4;

/// `deepagents.backends.utils.TOOL_RESULT_TOKEN_LIMIT` (used by `truncate_if_too_long`, x4 chars).
pub const TOOL_RESULT_TOKEN_LIMIT: usize = 20000;

/// `deepagents.backends.utils.MAX_LINE_LENGTH`.
pub const MAX_LINE_LENGTH: usize = 5000;

/// `deepagents.middleware._message_eviction.PREVIEW_LINE_CHAR_LIMIT`.
pub const PREVIEW_LINE_CHAR_LIMIT: usize = 1000;

/// `deepagents.middleware._message_eviction._create_content_preview` (`head_lines` default).
pub const PREVIEW_HEAD_LINES: usize = 5;

/// `deepagents.middleware._message_eviction._create_content_preview` (`tail_lines` default).
pub const PREVIEW_TAIL_LINES: usize = 5;

/// `deepagents.middleware._message_eviction._VISIBLE_TOOL_CALL_ID_LIMIT`.
pub const VISIBLE_TOOL_CALL_ID_LIMIT: usize = 32;

/// `deepagents.middleware.filesystem.GLOB_TIMEOUT` (rendered `10.0` in messages).
pub const GLOB_TIMEOUT_SECS: f64 = 10.0;

/// `deepagents.middleware.filesystem.FilesystemMiddleware.__init__` (`tool_token_limit_before_evict`).
pub const DEFAULT_TOOL_TOKEN_LIMIT_BEFORE_EVICT: usize = 20000;

/// `deepagents.middleware.filesystem.FilesystemMiddleware.__init__` (`human_message_token_limit_before_evict`).
pub const DEFAULT_HUMAN_MESSAGE_TOKEN_LIMIT_BEFORE_EVICT: usize = 50000;

/// `deepagents.middleware.filesystem.FilesystemMiddleware.__init__` (`max_execute_timeout`).
pub const DEFAULT_MAX_EXECUTE_TIMEOUT: u64 = 3600;

/// `deepagents.middleware.filesystem.FilesystemMiddleware.__init__` (`grep_max_count`).
pub const DEFAULT_GREP_MAX_COUNT: usize = 1000;
