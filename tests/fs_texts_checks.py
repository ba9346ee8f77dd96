"""For each const of ``texts.rs``, a check that renders it and makes deepagents 0.7.32 produce the
same text (or finds the f-string in its source); a few checks cover how several consts combine."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from deepagents.backends import CompositeBackend, FilesystemBackend, LocalShellBackend, StateBackend
from deepagents.backends import composite as composite_mod
from deepagents.backends import local_shell as local_shell_mod
from deepagents.backends import protocol as protocol_mod
from deepagents.backends import state as state_mod
from deepagents.backends import utils as bu
from deepagents.backends.protocol import (
    ExecuteOffloadResult,
    ExecuteResponse,
    GrepResult,
    ReadResult,
)
from deepagents.middleware import _blob_offload as blob_offload
from deepagents.middleware import _message_eviction as ev
from deepagents.middleware import filesystem as fs
from fs_texts_consts import FIX, T, fill, in_source
from fs_texts_fakes import (
    DENY_SECRET_READ,
    DENY_SECRET_WRITE,
    MATCH,
    FakeBackend,
    FakeSandbox,
    NoTimeoutSandbox,
    _glob_pathless_denied,
    _header_of,
    _symlinked_fs_backend,
    error_of,
    run_tool,
)
from langchain_core.messages import AIMessage

# --------------------------------------------------------------------------------------------
# Expected values: const name -> (value from texts.rs, value from deepagents)
# --------------------------------------------------------------------------------------------


def _checks(tmp_path: Path) -> dict[str, Callable[[], tuple[Any, Any]]]:
    """Each check returns `(rendered from texts.rs, produced by deepagents)`; or `(True, in_source)`."""
    desc = {
        "LS_DESCRIPTION": fs.LIST_FILES_TOOL_DESCRIPTION,
        "READ_FILE_DESCRIPTION": fs.READ_FILE_TOOL_DESCRIPTION,
        "READ_FILE_VIDEO_DESCRIPTION": fs.READ_FILE_VIDEO_TOOL_DESCRIPTION,
        # StructuredTool.from_function strips descriptions; the consts hold what the model sees.
        "WRITE_FILE_DESCRIPTION": fs.WRITE_FILE_TOOL_DESCRIPTION.strip(),
        "EDIT_FILE_DESCRIPTION": fs.EDIT_FILE_TOOL_DESCRIPTION,
        "DELETE_DESCRIPTION": fs.DELETE_TOOL_DESCRIPTION.strip(),
        "GLOB_DESCRIPTION": fs.GLOB_TOOL_DESCRIPTION,
        "GREP_DESCRIPTION": fs.GREP_TOOL_DESCRIPTION,
        "GREP_DESCRIPTION_WITHOUT_EXECUTE": fs._GREP_TOOL_DESCRIPTION_WITHOUT_EXECUTE,
        "GREP_REGEX_EXECUTE_FALLBACK": fs._GREP_REGEX_EXECUTE_FALLBACK,
        "EXECUTE_DESCRIPTION": fs.EXECUTE_TOOL_DESCRIPTION,
        "EXECUTE_DESCRIPTION_WITH_GREP_ONLY": fs._EXECUTE_TOOL_DESCRIPTION_WITH_GREP_ONLY,
        "EXECUTE_DESCRIPTION_WITH_GLOB_ONLY": fs._EXECUTE_TOOL_DESCRIPTION_WITH_GLOB_ONLY,
        "EXECUTE_DESCRIPTION_WITHOUT_SEARCH": fs._EXECUTE_TOOL_DESCRIPTION_WITHOUT_SEARCH,
        "GREP_GLOB_FIELD_DESCRIPTION": fs.GREP_GLOB_DESCRIPTION,
        "GREP_OUTPUT_MODE_FIELD_DESCRIPTION": fs.GREP_OUTPUT_MODE_DESCRIPTION,
        "GLOB_PATHLESS_DENIED_HINT": fs.GLOB_PATHLESS_DENIED_HINT,
        "GLOB_TRUNCATION_NOTE": fs.GLOB_TRUNCATION_NOTE,
        "GLOB_UNREADABLE_NOTE": fs.GLOB_UNREADABLE_NOTE,
        "GREP_TRUNCATION_NOTE": fs.GREP_TRUNCATION_NOTE,
        "EMPTY_CONTENT_WARNING": bu.EMPTY_CONTENT_WARNING,
        "NO_LINES_REQUESTED_WARNING": fs.NO_LINES_REQUESTED_WARNING,
        "READ_FILE_TRUNCATION_MSG": fs.READ_FILE_TRUNCATION_MSG,
        "EMPTY_OLD_STRING_ERROR": bu.EMPTY_OLD_STRING_ERROR,
        "DELETE_UNSUPPORTED": composite_mod._DELETE_UNSUPPORTED_ERROR,
        "TRUNCATION_GUIDANCE": bu.TRUNCATION_GUIDANCE,
        "TOO_LARGE_TOOL_MSG": ev._TOO_LARGE_TOOL_MSG,
        "TOO_LARGE_HUMAN_MSG": fs._TOO_LARGE_HUMAN_MSG,
        "MISSING_BLOB_TEXT": blob_offload._MISSING_BLOB_TEXT,
        "PREVIEW_NOTE_PLAIN": ev._PREVIEW_NOTE_PLAIN,
        "PREVIEW_NOTE_HEAD_TAIL": ev._PREVIEW_NOTE_HEAD_TAIL,
        "PREVIEW_CAVEAT_OMITTED_LINES": ev._CAVEAT_OMITTED_LINES,
        "PREVIEW_CAVEAT_CLIPPED_LINES": ev._CAVEAT_CLIPPED_LINES,
        "TRUNCATION_MARKER_TEMPLATE": bu.TRUNCATION_MARKER_TEMPLATE,
        "TOOLS_EXCLUDED_FROM_EVICTION": list(fs.TOOLS_EXCLUDED_FROM_EVICTION),
        "DEFAULT_READ_OFFSET": fs.DEFAULT_READ_OFFSET,
        "DEFAULT_READ_LIMIT": fs.DEFAULT_READ_LIMIT,
        "NUM_CHARS_PER_TOKEN": fs.NUM_CHARS_PER_TOKEN,
        "TOOL_RESULT_TOKEN_LIMIT": bu.TOOL_RESULT_TOKEN_LIMIT,
        "MAX_LINE_LENGTH": bu.MAX_LINE_LENGTH,
        "PREVIEW_LINE_CHAR_LIMIT": ev.PREVIEW_LINE_CHAR_LIMIT,
        "VISIBLE_TOOL_CALL_ID_LIMIT": ev._VISIBLE_TOOL_CALL_ID_LIMIT,
        "GLOB_TIMEOUT_SECS": fs.GLOB_TIMEOUT,
    }
    checks: dict[str, Callable[[], tuple[Any, Any]]] = {
        name: (lambda n=name, v=value: (T[n], v)) for name, value in desc.items()
    }

    init = inspect.signature(fs.FilesystemMiddleware.__init__).parameters
    preview = inspect.signature(ev._create_content_preview).parameters
    for name, value in {
        "DEFAULT_TOOL_TOKEN_LIMIT_BEFORE_EVICT": init["tool_token_limit_before_evict"].default,
        "DEFAULT_HUMAN_MESSAGE_TOKEN_LIMIT_BEFORE_EVICT": init["human_message_token_limit_before_evict"].default,
        "DEFAULT_MAX_EXECUTE_TIMEOUT": init["max_execute_timeout"].default,
        "DEFAULT_GREP_MAX_COUNT": init["grep_max_count"].default,
        "PREVIEW_HEAD_LINES": preview["head_lines"].default,
        "PREVIEW_TAIL_LINES": preview["tail_lines"].default,
    }.items():
        checks[name] = lambda n=name, v=value: (T[n], v)

    def schema(name: str, key: str) -> None:
        checks[name] = lambda: (json.dumps(json.loads(T[name])), json.dumps(FIX["schemas"][key]))

    for name, key in {
        "LS_PARAMETERS": "LsSchema",
        "READ_FILE_PARAMETERS": "ReadFileSchema",
        "READ_FILE_VIDEO_PARAMETERS": "ReadVideoFileSchema",
        "WRITE_FILE_PARAMETERS": "WriteFileSchema",
        "EDIT_FILE_PARAMETERS": "EditFileSchema",
        "DELETE_PARAMETERS": "DeleteSchema",
        "GLOB_PARAMETERS": "GlobSchema",
        "GREP_PARAMETERS": "GrepSchema",
        "EXECUTE_PARAMETERS": "ExecuteSchema",
    }.items():
        schema(name, key)

    fs_backend = _symlinked_fs_backend(tmp_path)
    route_backend = CompositeBackend(
        default=LocalShellBackend(root_dir=tmp_path, virtual_mode=True),
        routes={
            "/mem": FilesystemBackend(root_dir=tmp_path, virtual_mode=True),
            "/legacy/": FilesystemBackend(root_dir=tmp_path, virtual_mode=False),
            "/store/": StateBackend(),
        },
    )
    offload = ExecuteOffloadResult(offloaded=True, response=ExecuteResponse(output="o", exit_code=2, truncated=True))
    context_matches = [
        {"path": "/a", "line": 2, "text": "m", "context_before": [{"line": 1, "text": "b"}], "context_after": []},
        {"path": "/a", "line": 10, "text": "n", "context_before": [], "context_after": []},
    ]
    long_id = "x" * 40
    many_lines = "\n".join(f"line {i}" for i in range(30))

    def route_prompt() -> str:
        lines = [T["ROUTE_HOST_PATH_PROMPT_INTRO"], "", T["ROUTE_HOST_PATH_MAPPINGS_HEADING"]]
        lines.append(fill(T["ROUTE_HOST_PATH_MAPPING_LINE"], virtual="/legacy/", host="/"))
        lines.append(fill(T["ROUTE_HOST_PATH_MAPPING_LINE"], virtual="/mem/", host=f"{tmp_path.resolve()}/"))
        lines += ["", T["ROUTE_NO_HOST_MAPPING_HEADING"], fill(T["ROUTE_NO_HOST_MAPPING_LINE"], prefix="/store/")]
        return "\n".join(lines)

    checks.update(
        {
            "FS_TOOL_ORDER": lambda: (
                T["FS_TOOL_ORDER"],
                [t.name for t in fs.FilesystemMiddleware(backend=FakeSandbox()).tools],
            ),
            # System prompt: the whole route prompt assembled from the five consts.
            "ROUTE_HOST_PATH_PROMPT_INTRO": lambda: (route_prompt(), fs._route_host_path_prompt(route_backend)),
            "ROUTE_HOST_PATH_MAPPINGS_HEADING": lambda: (route_prompt(), fs._route_host_path_prompt(route_backend)),
            "ROUTE_HOST_PATH_MAPPING_LINE": lambda: (route_prompt(), fs._route_host_path_prompt(route_backend)),
            "ROUTE_NO_HOST_MAPPING_HEADING": lambda: (route_prompt(), fs._route_host_path_prompt(route_backend)),
            "ROUTE_NO_HOST_MAPPING_LINE": lambda: (route_prompt(), fs._route_host_path_prompt(route_backend)),
            # Paths and permissions.
            "ERROR_WITH_MESSAGE": lambda: (
                fill(T["ERROR_WITH_MESSAGE"], error=fill(T["PATH_TRAVERSAL"], path="../x")),
                run_tool(FakeBackend(), "ls", path="../x"),
            ),
            "PATH_TRAVERSAL": lambda: (
                fill(T["PATH_TRAVERSAL"], path="~/x"),
                error_of(lambda: bu.validate_path("~/x")),
            ),
            "WINDOWS_ABSOLUTE_PATH": lambda: (
                fill(T["WINDOWS_ABSOLUTE_PATH"], path="C:\\x"),
                error_of(lambda: bu.validate_path("C:\\x")),
            ),
            "PATH_TRAVERSAL_AFTER_NORMALIZATION": lambda: (
                True,
                in_source(bu, T["PATH_TRAVERSAL_AFTER_NORMALIZATION"], path="path", normalized="normalized"),
            ),
            "PATH_PREFIX_NOT_ALLOWED": lambda: (
                fill(T["PATH_PREFIX_NOT_ALLOWED"], prefixes=repr(["/data/"]), path="/etc/x"),
                error_of(lambda: bu.validate_path("/etc/x", allowed_prefixes=["/data/"])),
            ),
            "PERMISSION_DENIED": lambda: (
                fill(T["PERMISSION_DENIED"], operation="read", path="/secret/a"),
                fs._permission_error(DENY_SECRET_READ, "read", StateBackend(), "/secret/a"),
            ),
            "PERMISSION_DENIED_RESOLVED": lambda: (
                fill(T["PERMISSION_DENIED_RESOLVED"], operation="read", path="/link/a.txt", real="/secret/a.txt"),
                fs._permission_error(DENY_SECRET_READ, "read", fs_backend, "/link/a.txt"),
            ),
            "CANNOT_RESOLVE": lambda: (
                fill(T["CANNOT_RESOLVE"], path="/escape/a.txt"),
                fs._permission_error(DENY_SECRET_READ, "read", fs_backend, "/escape/a.txt"),
            ),
            "DELETE_PERMISSION_DENIED_RULES": lambda: (
                fill(T["DELETE_PERMISSION_DENIED_RULES"], path="/secret", patterns="/secret/**"),
                fs._delete_permission_error(DENY_SECRET_WRITE, StateBackend(), "/secret", has_descendants=True),
            ),
            "PARALLEL_FILE_MUTATION_ERROR": lambda: (
                T["PARALLEL_FILE_MUTATION_ERROR"],
                fs._parallel_file_mutation_error(
                    SimpleNamespace(
                        tool_call={"name": "edit_file", "args": {"file_path": "/a"}, "id": "2"},
                        state={
                            "messages": [
                                AIMessage(
                                    content="",
                                    tool_calls=[
                                        {"name": "write_file", "args": {"file_path": "/a"}, "id": "1"},
                                        {"name": "edit_file", "args": {"file_path": "//a"}, "id": "2"},
                                    ],
                                )
                            ]
                        },
                    )
                ).content,
            ),
            "UNSUPPORTED_CONTENT_REPLACEMENT": lambda: (True, in_source(fs, T["UNSUPPORTED_CONTENT_REPLACEMENT"])),
            # ls / glob.
            "NO_FILES_FOUND": lambda: (T["NO_FILES_FOUND"], run_tool(FakeBackend(), "ls", path="/")),
            "GLOB_RESULT_WITH_NOTE": lambda: (
                fill(T["GLOB_RESULT_WITH_NOTE"], content="['/a']", note=T["GLOB_UNREADABLE_NOTE"]),
                fs._format_glob_tool_result(["/a"], truncated=True, truncation_reason="unreadable"),
            ),
            "GLOB_TIMEOUT_MESSAGE": lambda: (
                fill(T["GLOB_TIMEOUT_MESSAGE"], timeout=repr(T["GLOB_TIMEOUT_SECS"])),
                fs._glob_timeout_message(),
            ),
            "GLOB_TOO_MANY_CALLS": lambda: (True, in_source(fs, T["GLOB_TOO_MANY_CALLS"])),
            "GLOB_FAILED": lambda: (
                fill(T["GLOB_FAILED"], error="boom"),
                run_tool(FakeBackend(glob=RuntimeError("boom")), "glob", pattern="*"),
            ),
            "GLOB_PATTERN_TRAVERSAL": lambda: (
                fill(T["GLOB_PATTERN_TRAVERSAL"], pattern=repr("../*.py")),
                error_of(lambda: bu.compile_grep_include_glob("../*.py")),
            ),
            "GLOB_PATTERN_INVALID": lambda: (
                True,
                in_source(bu, T["GLOB_PATTERN_INVALID"], pattern="pattern!r", error="exc"),
            ),
            # grep.
            "REGEX_LITERAL_HINT": lambda: (T["REGEX_LITERAL_HINT"], bu.regex_literal_hint("a|b")),
            "GREP_RESULT_WITH_NOTES": lambda: (
                fill(T["GREP_RESULT_WITH_NOTES"], formatted=T["NO_MATCHES_FOUND"], notes=T["REGEX_LITERAL_HINT"]),
                run_tool(FakeBackend(), "grep", pattern="a|b"),
            ),
            "GREP_PARTIAL_MATCHES": lambda: (
                fill(T["GREP_PARTIAL_MATCHES"], error="E", formatted="/a"),
                run_tool(FakeBackend(grep=GrepResult(error="E", matches=[MATCH])), "grep", pattern="x"),
            ),
            "NO_MATCHES_FOUND": lambda: (T["NO_MATCHES_FOUND"], bu.format_grep_matches([], "content")),
            "GREP_COUNT_LINE": lambda: (
                fill(T["GREP_COUNT_LINE"], path="/a", count=2),
                bu.format_grep_matches([MATCH, MATCH], "count"),
            ),
            "GREP_CONTENT_FILE_HEADER": lambda: (
                fill(T["GREP_CONTENT_FILE_HEADER"], path="/a") + "\n" + fill(T["GREP_CONTENT_LINE"], line=1, text="x"),
                bu.format_grep_matches([MATCH], "content"),
            ),
            "GREP_CONTENT_LINE": lambda: (
                fill(T["GREP_CONTENT_FILE_HEADER"], path="/a") + "\n" + fill(T["GREP_CONTENT_LINE"], line=1, text="x"),
                run_tool(FakeBackend(grep=GrepResult(matches=[MATCH])), "grep", pattern="x", output_mode="content"),
            ),
            "GREP_CONTEXT_LINE": lambda: (
                "\n".join(
                    [
                        fill(T["GREP_CONTENT_FILE_HEADER"], path="/a"),
                        fill(T["GREP_CONTEXT_LINE"], line=1, separator="-", text="b"),
                        fill(T["GREP_CONTEXT_LINE"], line=2, separator=":", text="m"),
                        T["GREP_CONTEXT_GROUP_SEPARATOR"],
                        fill(T["GREP_CONTEXT_LINE"], line=10, separator=":", text="n"),
                    ]
                ),
                bu.format_grep_matches(context_matches, "content"),
            ),
            "GREP_CONTEXT_GROUP_SEPARATOR": lambda: (
                True,
                T["GREP_CONTEXT_GROUP_SEPARATOR"] in bu.format_grep_matches(context_matches, "content").split("\n"),
            ),
            "GREP_TIMEOUT_MESSAGE": lambda: (
                True,
                in_source(protocol_mod, T["GREP_TIMEOUT_MESSAGE"], timeout="ASYNC_GREP_TIMEOUT"),
            ),
            # read_file.
            "CLAMPED_OFFSET_NOTICE": lambda: (
                fill(T["CLAMPED_OFFSET_NOTICE"], offset=-2),
                fs._clamped_offset_notice(-2),
            ),
            "READ_FILE_NO_DATA": lambda: (
                fill(T["READ_FILE_NO_DATA"], path="/a.txt"),
                run_tool(FakeBackend(), "read_file", file_path="a.txt"),
            ),
            "READ_HEADER": lambda: (
                fill(T["READ_HEADER"], fields="x" + T["READ_HEADER_FIELD_SEPARATOR"] + "y"),
                fs._read_header(["x", "y"]),
            ),
            "READ_HEADER_FIELD_SEPARATOR": lambda: (
                fill(T["READ_HEADER"], fields="x" + T["READ_HEADER_FIELD_SEPARATOR"] + "y"),
                fs._read_header(["x", "y"]),
            ),
            "READ_FIELD_LINES": lambda: (
                [
                    fill(T["READ_FIELD_LINES"], start_line=1, end_line=2)
                    + fill(T["READ_FIELD_OF_TOTAL"], total_lines=5),
                    fill(T["READ_FIELD_NEXT_OFFSET"], next_offset=2),
                ],
                fs._window_fields(ReadResult(start_line=1, end_line=2, total_lines=5, next_offset=2)),
            ),
            "READ_FIELD_OF_TOTAL": lambda: (
                [fill(T["READ_FIELD_LINES"], start_line=3, end_line=4) + fill(T["READ_FIELD_OF_TOTAL"], total_lines=4)],
                fs._window_fields(ReadResult(start_line=3, end_line=4, total_lines=4)),
            ),
            "READ_FIELD_NEXT_OFFSET": lambda: (
                [
                    fill(T["READ_FIELD_LINES"], start_line=1, end_line=2),
                    fill(T["READ_FIELD_NEXT_OFFSET"], next_offset=2),
                ],
                fs._window_fields(ReadResult(start_line=1, end_line=2, next_offset=2)),
            ),
            "READ_FIELD_TRUNCATED_SIZE": lambda: (
                fill(
                    T["READ_HEADER"],
                    fields=T["READ_HEADER_FIELD_SEPARATOR"].join(
                        [
                            fill(T["READ_FIELD_LINES"], start_line=1, end_line=2)
                            + fill(T["READ_FIELD_OF_TOTAL"], total_lines=20),
                            fill(T["READ_FIELD_NEXT_OFFSET"], next_offset=2),
                            T["READ_FIELD_TRUNCATED_SIZE"],
                        ]
                    ),
                ),
                _header_of(
                    fs._truncate_paginated_read(
                        "\n".join(["a" * 100] * 10),
                        "/f",
                        ReadResult(start_line=1, end_line=10, total_lines=20, next_offset=10),
                        150,
                    )
                ),
            ),
            "READ_FIELD_TRUNCATED_MID_LINE": lambda: (
                fill(
                    T["READ_HEADER"],
                    fields=T["READ_HEADER_FIELD_SEPARATOR"].join(
                        [
                            fill(T["READ_FIELD_LINES"], start_line=1, end_line=1)
                            + fill(T["READ_FIELD_OF_TOTAL"], total_lines=1),
                            T["READ_FIELD_TRUNCATED_MID_LINE"],
                            fill(T["READ_FIELD_SHOWN_CHARS"], shown=101, total=2000),
                        ]
                    ),
                ),
                _header_of(
                    fs._truncate_paginated_read(
                        "b" * 2000, "/f", ReadResult(start_line=1, end_line=1, total_lines=1), 120
                    )
                ),
            ),
            "READ_FIELD_SHOWN_CHARS": lambda: (
                True,
                in_source(fs, T["READ_FIELD_SHOWN_CHARS"], shown="shown", total="oversized"),
            ),
            "LINE_OFFSET_EXCEEDS": lambda: (
                fill(T["LINE_OFFSET_EXCEEDS"], offset=5, total_lines=2),
                bu.slice_read_response({"content": "a\nb", "encoding": "utf-8"}, 5, 10).error,
            ),
            "READ_VIDEO_LIMIT_ERROR": lambda: (
                fill(T["READ_VIDEO_LIMIT_ERROR"], path="/v.mp4", limit=0),
                fs._handle_video_read("", "/v.mp4", "c", 0, 0).content,
            ),
            "READ_VIDEO_ERROR": lambda: (
                True,
                in_source(fs, T["READ_VIDEO_ERROR"], path="validated_path", message="msg", header="header"),
            ),
            "READ_VIDEO_HEADER_FIRST": lambda: (
                fill(T["READ_VIDEO_HEADER_FIRST"], seconds=10, path="/v", rate=repr(0.5)),
                fs._video_window_header("/v", 0.0, 10.0, 0.5),
            ),
            "READ_VIDEO_HEADER_WINDOW": lambda: (
                fill(T["READ_VIDEO_HEADER_WINDOW"], start="1.500", end="3.500", path="/v", rate=repr(0.5)),
                fs._video_window_header("/v", 1.5, 2.0, 0.5),
            ),
            "READ_VIDEO_RESULT": lambda: (
                True,
                in_source(
                    fs, T["READ_VIDEO_RESULT"], path="validated_path", count="frame_count", frame_label="frame_label"
                ),
            ),
            # write_file / edit_file / delete.
            "WRITE_FILE_SUCCESS": lambda: (
                fill(T["WRITE_FILE_SUCCESS"], path="/a.txt"),
                run_tool(FakeBackend(), "write_file", file_path="/a.txt", content="x"),
            ),
            "EDIT_FILE_SUCCESS": lambda: (
                fill(T["EDIT_FILE_SUCCESS"], occurrences=3, path="/a.txt"),
                run_tool(FakeBackend(), "edit_file", file_path="/a.txt", old_string="a", new_string="b"),
            ),
            "DELETE_SUCCESS": lambda: (
                fill(T["DELETE_SUCCESS"], path="/a.txt"),
                run_tool(FakeBackend(), "delete", file_path="/a.txt"),
            ),
            "FILE_NOT_FOUND": lambda: (True, in_source(state_mod, T["FILE_NOT_FOUND"], path="file_path")),
            "FILE_NOT_FOUND_READ": lambda: (True, in_source(state_mod, T["FILE_NOT_FOUND_READ"], path="file_path")),
            "CANNOT_EDIT_BINARY": lambda: (True, in_source(state_mod, T["CANNOT_EDIT_BINARY"])),
            "STRING_NOT_FOUND": lambda: (
                fill(T["STRING_NOT_FOUND"], old_string="zz"),
                bu.perform_string_replacement("abc", "zz", "y"),
            ),
            "STRING_MULTIPLE_OCCURRENCES": lambda: (
                fill(T["STRING_MULTIPLE_OCCURRENCES"], old_string="a", occurrences=2),
                bu.perform_string_replacement("a a", "a", "b"),
            ),
            "OLD_STRING_TRAILING_NEWLINE": lambda: (
                T["OLD_STRING_TRAILING_NEWLINE"],
                bu.perform_string_replacement("x\nabc", "abc\n", "z"),
            ),
            "OLD_STRING_TRAILING_NEWLINE_AMBIGUOUS": lambda: (
                fill(T["OLD_STRING_TRAILING_NEWLINE_AMBIGUOUS"], count=2),
                bu.perform_string_replacement("abc abc", "abc\n", "z"),
            ),
            # execute.
            "EXECUTE_TIMEOUT_NEGATIVE": lambda: (
                fill(T["EXECUTE_TIMEOUT_NEGATIVE"], timeout=-1),
                run_tool(FakeSandbox(), "execute", command="ls", timeout=-1),
            ),
            "EXECUTE_TIMEOUT_EXCEEDS": lambda: (
                fill(T["EXECUTE_TIMEOUT_EXCEEDS"], timeout=4000, max_timeout=T["DEFAULT_MAX_EXECUTE_TIMEOUT"]),
                run_tool(FakeSandbox(), "execute", command="ls", timeout=4000),
            ),
            "EXECUTE_NOT_AVAILABLE": lambda: (
                T["EXECUTE_NOT_AVAILABLE"],
                run_tool(FakeBackend(), "execute", command="ls"),
            ),
            "EXECUTE_TIMEOUT_UNSUPPORTED": lambda: (
                T["EXECUTE_TIMEOUT_UNSUPPORTED"],
                run_tool(NoTimeoutSandbox(), "execute", command="ls", timeout=5),
            ),
            "EXECUTE_NOT_AVAILABLE_WITH_ERROR": lambda: (
                fill(T["EXECUTE_NOT_AVAILABLE_WITH_ERROR"], error="nope"),
                run_tool(FakeSandbox(execute=NotImplementedError("nope")), "execute", command="ls"),
            ),
            "EXECUTE_INVALID_PARAMETER": lambda: (
                fill(T["EXECUTE_INVALID_PARAMETER"], error="bad"),
                run_tool(FakeSandbox(execute=ValueError("bad")), "execute", command="ls"),
            ),
            "EXECUTE_EXIT_CODE_SUFFIX": lambda: (
                ["out" + fill(T["EXECUTE_EXIT_CODE_SUFFIX"], status="succeeded", exit_code=0), "out"],
                [
                    fs.FilesystemMiddleware._format_execute_output("out", 0, truncated=False),
                    fs.FilesystemMiddleware._format_execute_output("out", None, truncated=False),
                ],
            ),
            "EXECUTE_TRUNCATED_SUFFIX": lambda: (
                "out"
                + fill(T["EXECUTE_EXIT_CODE_SUFFIX"], status="failed", exit_code=1)
                + T["EXECUTE_TRUNCATED_SUFFIX"],
                run_tool(
                    FakeSandbox(execute=ExecuteResponse(output="out", exit_code=1, truncated=True)),
                    "execute",
                    command="ls",
                ),
            ),
            "EXECUTE_CAPTURE_STATUS_LINE": lambda: (
                fill(
                    T["TOO_LARGE_TOOL_MSG"],
                    tool_call_id="c",
                    file_path="/large_tool_results/c",
                    preview_note=fill(T["PREVIEW_NOTE_PLAIN"], subject="result") + ":",
                    content_sample=fill(T["EXECUTE_CAPTURE_STATUS_LINE"], status="failed", exit_code=2)
                    + T["EXECUTE_CAPTURE_TRUNCATED"]
                    + "\no",
                ),
                fs.FilesystemMiddleware(backend=FakeSandbox())._interpret_capture_output(
                    offload, "/large_tool_results/c", "c"
                ),
            ),
            "EXECUTE_CAPTURE_TRUNCATED": lambda: (True, in_source(fs, T["EXECUTE_CAPTURE_TRUNCATED"])),
            "LOCAL_SHELL_EMPTY_COMMAND": lambda: (
                T["LOCAL_SHELL_EMPTY_COMMAND"],
                LocalShellBackend(root_dir=tmp_path).execute("").output,
            ),
            "LOCAL_SHELL_NO_OUTPUT": lambda: (
                T["LOCAL_SHELL_NO_OUTPUT"],
                LocalShellBackend(root_dir=tmp_path).execute("true").output,
            ),
            "LOCAL_SHELL_STDERR_LINE": lambda: (
                "hi\n\n"
                + fill(T["LOCAL_SHELL_STDERR_LINE"], line="e1")
                + "\n"
                + fill(T["LOCAL_SHELL_STDERR_LINE"], line="e2"),
                LocalShellBackend(root_dir=tmp_path).execute("echo hi; printf 'e1\\ne2\\n' >&2").output,
            ),
            "LOCAL_SHELL_EXIT_CODE": lambda: (
                fill(T["LOCAL_SHELL_EXIT_CODE"], output="hi", exit_code=3),
                LocalShellBackend(root_dir=tmp_path).execute("echo hi; exit 3").output,
            ),
            "LOCAL_SHELL_OUTPUT_TRUNCATED": lambda: (
                "0123" + fill(T["LOCAL_SHELL_OUTPUT_TRUNCATED"], max_bytes=4),
                LocalShellBackend(root_dir=tmp_path, max_output_bytes=4).execute("echo 0123456789").output,
            ),
            "LOCAL_SHELL_TIMEOUT_CUSTOM": lambda: (
                True,
                in_source(local_shell_mod, T["LOCAL_SHELL_TIMEOUT_CUSTOM"], timeout="effective_timeout"),
            ),
            "LOCAL_SHELL_TIMEOUT": lambda: (
                True,
                in_source(local_shell_mod, T["LOCAL_SHELL_TIMEOUT"], timeout="effective_timeout"),
            ),
            "LOCAL_SHELL_EXEC_ERROR": lambda: (
                True,
                in_source(local_shell_mod, T["LOCAL_SHELL_EXEC_ERROR"], error_type="type(e).__name__", error="e"),
            ),
            # Eviction.
            "LARGE_TOOL_RESULTS_DIR": lambda: (
                "/" + T["LARGE_TOOL_RESULTS_DIR"],
                fs.FilesystemMiddleware(backend=FakeBackend())._large_tool_results_prefix,
            ),
            "CONVERSATION_HISTORY_DIR": lambda: (
                "/" + T["CONVERSATION_HISTORY_DIR"],
                fs.FilesystemMiddleware(backend=FakeBackend())._conversation_history_prefix,
            ),
        }
    )

    # The whole large-tool-result stub, assembled from the consts (preview text from deepagents).
    def too_large() -> tuple[str, str]:
        preview = ev._create_content_preview(many_lines)
        marker = fill(
            T["TRUNCATION_MARKER_TEMPLATE"], omitted_lines=30 - T["PREVIEW_HEAD_LINES"] - T["PREVIEW_TAIL_LINES"]
        )
        assert marker in preview.text.split("\n")
        note = (
            fill(T["PREVIEW_NOTE_HEAD_TAIL"], subject="result") + " (" + T["PREVIEW_CAVEAT_OMITTED_LINES"] + ")" + ":"
        )
        mine = fill(
            T["TOO_LARGE_TOOL_MSG"],
            tool_call_id=long_id[: T["VISIBLE_TOOL_CALL_ID_LIMIT"]] + "...",
            file_path="/large_tool_results/x",
            preview_note=note,
            content_sample=preview.text,
        )
        return mine, ev._render_too_large_tool_msg(
            tool_call_id=long_id, file_path="/large_tool_results/x", content_str=many_lines
        )

    checks["TOO_LARGE_TOOL_MSG_ASSEMBLY"] = too_large
    checks["PREVIEW_NOTE_COMPOSITION"] = lambda: (
        [
            fill(T["PREVIEW_NOTE_PLAIN"], subject="content") + ":",
            fill(T["PREVIEW_NOTE_HEAD_TAIL"], subject="result")
            + " ("
            + T["PREVIEW_CAVEAT_OMITTED_LINES"]
            + "; "
            + T["PREVIEW_CAVEAT_CLIPPED_LINES"]
            + "):",
            fill(T["PREVIEW_NOTE_PLAIN"], subject="result") + " (" + T["PREVIEW_CAVEAT_CLIPPED_LINES"] + "):",
        ],
        [
            ev._preview_note(lines_omitted=False, subject="content"),
            ev._preview_note(lines_omitted=True, lines_clipped=True),
            ev._preview_note(lines_omitted=False, lines_clipped=True),
        ],
    )
    checks["TRUNCATION_GUIDANCE_STRING"] = lambda: (
        True,
        bu.truncate_if_too_long("x" * 100_000).endswith("\n" + T["TRUNCATION_GUIDANCE"])
        and len(bu.truncate_if_too_long("x" * 100_000)) == T["TOOL_RESULT_TOKEN_LIMIT"] * 4,
    )
    checks["GLOB_PATHLESS_DENIED"] = lambda: (
        fill(T["PERMISSION_DENIED"], operation="read", path="/") + T["GLOB_PATHLESS_DENIED_HINT"],
        _glob_pathless_denied(),
    )
    checks["NO_LINES_REQUESTED_WARNING_RENDERED"] = lambda: (
        fill(T["NO_LINES_REQUESTED_WARNING"], limit=0),
        run_tool(
            FakeBackend(read=ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)),
            "read_file",
            file_path="/a",
            limit=0,
        ),
    )
    return checks


# Checks that are not named after a single const (they cover how several consts combine).
_COMBINED = {
    "TOO_LARGE_TOOL_MSG_ASSEMBLY",
    "PREVIEW_NOTE_COMPOSITION",
    "TRUNCATION_GUIDANCE_STRING",
    "GLOB_PATHLESS_DENIED",
    "NO_LINES_REQUESTED_WARNING_RENDERED",
}
