"""The names the Rust core reads from this package's Python modules by string (``py.import``
then ``getattr``/``call_method``, in src/python/): each must exist, so deleting one as unused on
the Python side fails here at once, not on the rare path that reads it (a sandbox search past
its bound, a recursion limit). The list is checked against src/python too: a module or
protocol name read there and missing here fails, so the list keeps up with the core."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "python"

#: module: the names the core reads from it (and where).
READ_BY_THE_CORE: dict[str, tuple[str, ...]] = {
    # convert.rs, result_objects.rs, model_call_handler.rs, middleware.rs, token_counter.rs
    "deepagents_rs._convert": ("to_core", "from_core", "_classes", "_plain_class"),
    # errors.rs
    "deepagents_rs.errors": ("GraphRecursionError", "_provider_error"),
    # host.rs, loop_inbox.rs
    "deepagents_rs._runtime": ("background_loop", "loop_inbox"),
    # reply_shaper.rs
    "deepagents_rs._stream_protocol": ("PROTOCOL_EVENTS",),
    "deepagents_rs._native_events": ("v1_reply",),
    # stream_payloads.rs, tools.rs
    "deepagents_rs._stream": ("native_chunk", "full_config"),
    # tools.rs, plain_calls.rs
    "deepagents_rs._task_config": ("wait_for_graph", "acall_placed", "RunConfig"),
    # plain_tool_config.rs, plain_calls.rs
    "deepagents_rs._plain_tool_calls": ("_langgraph", "run_base", "PlainCall"),
    # task_notes.rs
    "deepagents_rs._task_notes": ("note_node_error",),
    # video.rs
    "deepagents_rs.middleware._video_read": ("read_frames",),
    "deepagents_rs.middleware._video": ("VideoExtractionError",),
    # video.rs, backends.rs: settings read at each call, so a user's change applies
    "deepagents_rs.middleware.filesystem": ("MAX_VIDEO_INPUT_BYTES", "GLOB_TIMEOUT"),
    # store_items.rs, store_plan.rs, composite_*.rs, sandbox_calls.rs
    "deepagents_rs.backends.protocol": (
        "LsResult",
        "ReadResult",
        "WriteResult",
        "EditResult",
        "DeleteResult",
        "GrepResult",
        "GlobResult",
        "FileUploadResponse",
        "FileDownloadResponse",
        "ExecuteResponse",
        "ExecuteOffloadResult",
        "SandboxBackendProtocol",
        "execute_accepts_timeout",
        "_method_accepts_max_count",
    ),
}

PAIRS = [(module, name) for module, names in READ_BY_THE_CORE.items() for name in names]


@pytest.mark.parametrize(("module", "name"), PAIRS, ids=[f"{m}.{n}" for m, n in PAIRS])
def test_each_name_the_core_reads_exists(module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name), f"{module}.{name} is read by the Rust core"


def _sources() -> str:
    return "\n".join(path.read_text() for path in sorted(SRC.glob("*.rs")))


def test_every_module_the_core_imports_is_listed() -> None:
    source = _sources()
    imported = set(re.findall(r'\.import\(\s*"(deepagents_rs\.[\w.]+)"', source))
    # tools.rs's `imported(py, &CELL, "<module>", "<name>")`: `deepagents_rs.<module>.<name>`.
    cells = re.findall(r'imported\(\s*py,\s*&\w+,\s*"(\w+)",\s*"(\w+)"', source)
    imported |= {f"deepagents_rs.{module}" for module, _ in cells}
    assert imported, "no imports found: has src/python moved?"
    assert imported <= set(READ_BY_THE_CORE), sorted(imported - set(READ_BY_THE_CORE))
    assert {(f"deepagents_rs.{m}", n) for m, n in cells} <= set(PAIRS)


def test_every_protocol_name_the_core_reads_is_listed() -> None:
    # The helpers that read `deepagents_rs.backends.protocol` by name (store_items.rs'
    # `protocol_attr`, composite_replies.rs' `protocol`/`make`, sandbox_calls.rs' `result`).
    readers = r"(?:protocol_attr|protocol|make|outcome|result|error_result)"
    names = set(re.findall(readers + r'\(\s*py,\s*"(\w+)"', _sources()))
    assert names, "no protocol names found: has src/python moved?"
    listed = set(READ_BY_THE_CORE["deepagents_rs.backends.protocol"])
    assert names <= listed, sorted(names - listed)
