"""Parity: ``LangSmithSandbox`` over a mocked langsmith ``Sandbox``, both implementations alike.

Each implementation wraps its own ``MagicMock`` SDK handle, configured identically per case;
the results and every call made on the handle (python scripts reduced to their kind) must
match. Reads go through the SDK's file API (decoding, pagination, byte caps, binary
previews), writes through an existence check then the SDK, ``aexecute`` through one async
twin of the handle that ``aclose`` releases.
"""

from __future__ import annotations

import asyncio
import importlib
from types import SimpleNamespace
from typing import Any
from unittest.mock import AsyncMock, MagicMock

import pytest
from langsmith.sandbox import ResourceNotFoundError, SandboxClientError

from .backend_direct import IMPLS, attempt, view

CAP = 500 * 1024
TRUNCATION_START = "\n\n[Output was truncated due to size limits."


def ran(stdout: str = "", stderr: str = "", exit_code: int = 0) -> SimpleNamespace:
    return SimpleNamespace(stdout=stdout, stderr=stderr, exit_code=exit_code)


def missing() -> ResourceNotFoundError:
    return ResourceNotFoundError("file not found", resource_type="file")


#: label -> (sdk configuration, method, args, kwargs). ``run``/``read``/``write`` each give
#: the SDK method's return value, or ``("raise", exc)``, or ``("each", [...])`` for one per call.
CASES: dict[str, tuple[dict[str, Any], str, tuple[Any, ...], dict[str, Any]]] = {
    "execute": ({"run": ran("hello world")}, "execute", ("echo hello world",), {}),
    "execute_out_and_err": ({"run": ran("out", "err", 1)}, "execute", ("failing-cmd",), {}),
    "execute_err_only": ({"run": ran("", "error msg", 1)}, "execute", ("bad-cmd",), {}),
    "execute_timeout": ({"run": ran("ok")}, "execute", ("cmd",), {"timeout": 60}),
    "execute_zero_timeout": ({"run": ran("ok")}, "execute", ("cmd",), {"timeout": 0}),
    "write": ({"run": ran()}, "write", ("/app/test.txt", "hello world"), {}),
    "write_exists": (
        {"run": ran("Error: File already exists: '/app/test.txt'", "", 1)},
        "write",
        ("/app/test.txt", "c"),
        {},
    ),
    "write_sdk_fails": (
        {"run": ran(), "write": ("raise", SandboxClientError("permission denied"))},
        "write",
        ("/readonly/test.txt", "content"),
        {},
    ),
    "write_check_silent": ({"run": ran("", "", 1)}, "write", ("/app/test.txt", "content"), {}),
    "download": ({"read": b"file content"}, "download_files", (["/app/test.txt"],), {}),
    "download_missing": ({"read": ("raise", missing())}, "download_files", (["/missing.txt"],), {}),
    "download_some": (
        {"read": ("each", [b"content1", missing(), b"content3"])},
        "download_files",
        (["/a.txt", "/b.txt", "/c.txt"],),
        {},
    ),
    "upload": ({}, "upload_files", ([("/app/test.txt", b"content")],), {}),
    "upload_fails": (
        {"write": ("raise", SandboxClientError("permission denied"))},
        "upload_files",
        ([("/ro.txt", b"c")],),
        {},
    ),
    "upload_some": (
        {"write": ("each", [None, SandboxClientError("fail"), None])},
        "upload_files",
        ([("/a.txt", b"a"), ("/b.txt", b"b"), ("/c.txt", b"c")],),
        {},
    ),
    "read": ({"read": b"line1\nline2\nline3"}, "read", ("/app/test.txt",), {}),
    "read_window": ({"read": b"line0\nline1\nline2\nline3\nline4"}, "read", ("/app/test.txt", 1, 2), {}),
    "read_last_window": ({"read": b"line0\nline1\nline2"}, "read", ("/app/test.txt", 2, 10), {}),
    "read_trailing_newline": ({"read": b"line0\nline1\nline2\n"}, "read", ("/app/test.txt", 2, 10), {}),
    "read_sdk_error": ({"read": ("raise", SandboxClientError("connection timeout"))}, "read", ("/app/test.txt",), {}),
    "read_sdk_boom": ({"read": ("raise", SandboxClientError("boom"))}, "read", ("/app/test.txt",), {}),
    "read_missing": ({"read": ("raise", missing())}, "read", ("/missing.txt",), {}),
    "read_empty": ({"read": b""}, "read", ("/app/empty.txt",), {}),
    "read_png": ({"read": b"\x89PNG\r\n\x1a\n"}, "read", ("/app/image.png",), {}),
    "read_png_too_big": ({"read": b"\x89PNG" + b"\x00" * CAP}, "read", ("/app/large.png",), {}),
    "read_png_at_cap": ({"read": b"\x00" * CAP}, "read", ("/app/exact.png",), {}),
    "read_png_over_cap": ({"read": b"\x00" * (CAP + 1)}, "read", ("/app/over.png",), {}),
    "read_txt_not_utf8": ({"read": b"\xff\xfe invalid utf8 \x80\x81"}, "read", ("/app/corrupted.txt",), {}),
    "read_past_end": ({"read": b"only one line"}, "read", ("/app/test.txt", 5), {}),
    "read_zero_limit": ({"read": b"line1\nline2\nline3"}, "read", ("/app/test.txt",), {"limit": 0}),
    "read_negative_limit": ({"read": b"line1\nline2\nline3"}, "read", ("/app/test.txt",), {"limit": -3}),
    "read_negative_offset": ({"read": b"line1\nline2\nline3"}, "read", ("/app/test.txt", -1, 2), {}),
    "read_crlf": ({"read": b"line1\r\nline2\r\nline3"}, "read", ("/app/test.txt",), {}),
    "read_bare_cr": ({"read": b"line1\rline2\rline3"}, "read", ("/app/test.txt",), {}),
    "read_lone_newline": ({"read": b"\n"}, "read", ("/app/test.txt",), {}),
    "read_over_output_cap": ({"read": b"x" * (CAP + 10_000)}, "read", ("/app/big.txt",), {}),
    "read_wide_lines": ({"read": ("\n".join(["x" * 100_000] * 8)).encode()}, "read", ("/app/big.txt", 0, 8), {}),
    "read_huge_first_line": ({"read": ("y" * 600_000 + "\nsmall1\nsmall2").encode()}, "read", ("/app/h.txt", 0, 5), {}),
}


def make(impl: str, config: dict[str, Any]) -> tuple[Any, MagicMock]:
    langsmith = importlib.import_module(f"{impl}.backends.langsmith")
    sdk = MagicMock()
    sdk.name = "test-sandbox"
    for method, value in config.items():
        target = getattr(sdk, method)
        if isinstance(value, tuple) and value[0] == "raise":
            target.side_effect = value[1]
        elif isinstance(value, tuple) and value[0] == "each":
            target.side_effect = list(value[1])
        else:
            target.return_value = value
    return langsmith.LangSmithSandbox(sandbox=sdk), sdk


def sdk_calls(sdk: MagicMock) -> list[Any]:
    """The calls made on the SDK handle; a python script argument is reduced to its kind."""
    out = []
    for name, args, kwargs in sdk.mock_calls:
        args = tuple("<python3 script>" if isinstance(x, str) and x.startswith("python3 -c") else x for x in args)
        out.append((name, args, kwargs))
    return out


def run_case(label: str) -> dict[str, Any]:
    config, method, args, kwargs = CASES[label]
    out = {}
    for impl in IMPLS:
        box, sdk = make(impl, config)
        result = attempt(lambda box=box: getattr(box, method)(*args, **kwargs))
        out[impl] = (view(result), sdk_calls(sdk), box.id)
    return out


@pytest.mark.parametrize("label", list(CASES))
def test_langsmith_operation(label: str) -> None:
    out = run_case(label)
    assert out["deepagents_rs"] == out["deepagents"]
    assert out["deepagents"][2] == "test-sandbox"


def _content(r: dict[str, Any]) -> str:
    return r["file_data"]["content"]


EXPECTED = {
    "execute": lambda r, c: r["output"] == "hello world" and c == [("run", ("echo hello world",), {"timeout": 1800})],
    "execute_out_and_err": lambda r, c: r["output"] == "out\nerr" and r["exit_code"] == 1,
    "execute_zero_timeout": lambda r, c: c == [("run", ("cmd",), {"timeout": 0})],
    "write": lambda r, c: r["path"] == "/app/test.txt" and c[1] == ("write", ("/app/test.txt", b"hello world"), {}),
    "write_exists": lambda r, c: "already exists" in r["error"].lower() and [x[0] for x in c] == ["run"],
    "write_sdk_fails": lambda r, c: "Failed to write file" in r["error"] and "/readonly/test.txt" in r["error"],
    "write_check_silent": lambda r, c: r["error"] == "Failed to write file '/app/test.txt'",
    "download_some": lambda r, c: [x["error"] for x in r] == [None, "file_not_found", None],
    "upload_some": lambda r, c: [x["error"] for x in r] == [None, "permission_denied", None],
    "read_window": lambda r, c: (
        _content(r) == "line1\nline2" and (r["start_line"], r["end_line"], r["next_offset"]) == (2, 3, 3)
    ),
    "read_last_window": lambda r, c: r["next_offset"] is None and r["total_lines"] == 3,
    "read_trailing_newline": lambda r, c: _content(r) == "line2",
    "read_sdk_boom": lambda r, c: r["error"].startswith("File '/app/test.txt':") and "SandboxClientError" in r["error"],
    "read_missing": lambda r, c: r["error"].startswith("File '/missing.txt':") and "file_not_found" in r["error"],
    "read_empty": lambda r, c: "empty contents" in _content(r),
    "read_png_too_big": lambda r, c: "maximum preview size" in r["error"],
    "read_png_at_cap": lambda r, c: r["file_data"]["encoding"] == "base64",
    "read_png_over_cap": lambda r, c: "/app/over.png" in r["error"],
    "read_txt_not_utf8": lambda r, c: r["file_data"]["encoding"] == "base64",
    "read_past_end": lambda r, c: "offset" in r["error"].lower(),
    "read_negative_limit": lambda r, c: _content(r) == "" and r["start_line"] is None,
    "read_negative_offset": lambda r, c: _content(r) == "line1\nline2" and r["start_line"] == 1,
    "read_crlf": lambda r, c: _content(r) == "line1\nline2\nline3",
    "read_bare_cr": lambda r, c: _content(r) == "line1\nline2\nline3",
    "read_lone_newline": lambda r, c: _content(r) == "",
    "read_over_output_cap": lambda r, c: TRUNCATION_START in _content(r) and len(_content(r).encode()) <= CAP,
    "read_wide_lines": lambda r, c: r["end_line"] == r["next_offset"] and 0 < r["next_offset"] < 8,
    "read_huge_first_line": lambda r, c: (r["total_lines"], r["end_line"], r["next_offset"]) == (3, 1, 1),
}


@pytest.mark.parametrize("label", list(EXPECTED))
def test_langsmith_reference_answers(label: str) -> None:
    result, calls, _ = run_case(label)["deepagents"]
    assert EXPECTED[label](result, calls), (str(result)[:500], calls[:3])


# --------------------------------------------------------------------------------------------
# aexecute through one async twin of the handle
# --------------------------------------------------------------------------------------------


def make_async(impl: str) -> tuple[Any, MagicMock, MagicMock, MagicMock]:
    box, sdk = make(impl, {})
    twin = MagicMock()
    twin.run = AsyncMock(side_effect=[ran("out"), ran("out", "err", 1), ran("again"), ran("x"), ran("y")])
    pool = MagicMock()
    pool.aclose = AsyncMock()
    sdk._client.to_async.return_value = pool
    sdk.to_async.return_value = twin
    return box, sdk, twin, pool


async def _async_story(box: Any, sdk: MagicMock, twin: MagicMock, pool: MagicMock) -> dict[str, Any]:
    out: dict[str, Any] = {"close before use": await box.aclose(), "pool closed early": pool.aclose.await_count}
    out["first"] = await box.aexecute("echo hi", timeout=30)
    out["second"] = await box.aexecute("failing-cmd")
    out["third"] = await box.aexecute("true")
    out["twins made"] = sdk.to_async.call_count
    await box.aclose()
    out["pool closed"] = pool.aclose.await_count
    out["after close"] = await box.aexecute("true")
    out["twins made again"] = sdk.to_async.call_count
    out["twin calls"] = [(args, kwargs) for _, args, kwargs in twin.run.mock_calls]
    out["sync run used"] = sdk.run.call_count
    return out


def test_langsmith_async_execute() -> None:
    views = {impl: view(attempt(lambda impl=impl: asyncio.run(_async_story(*make_async(impl))))) for impl in IMPLS}
    assert views["deepagents_rs"] == views["deepagents"]
    ref = views["deepagents"]
    assert ref["pool closed early"] == 0 and ref["pool closed"] == 1
    assert (ref["twins made"], ref["twins made again"], ref["sync run used"]) == (1, 2, 0)
    assert ref["second"]["output"] == "out\nerr"
    assert ref["twin calls"][:2] == [[["echo hi"], {"timeout": 30}], [["failing-cmd"], {"timeout": 1800}]]
