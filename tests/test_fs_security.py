"""The built-in filesystem tools can never lead an agent outside its backend's root.

Requirement: ``FilesystemBackend(root_dir, virtual_mode=True)`` can never be led outside its
root: ``..``, absolute paths, symlinks pointing out (at any depth, including an entry at the
top of the root), ``~``, NUL bytes, Windows-style paths. Every attempt gets an error tool
result, the run goes on, nothing is written outside, and no host path leaks into a message.

Every test runs a real agent, ``create_deep_agent(model=ScriptedChatModel, backend=...)``,
once per implementation (test ids ``[deepagents-...]`` and ``[deepagents_rs-...]``). The
scripted model makes one tool call carrying the escape, then reads ``/in.txt`` (the run and
the backend still work), then answers ``FINAL``. After the run:

* the escape's tool result is an error (``status == "error"`` or content starting with
  ``Error``), and not "no such tool" (the tool is checked to be on offer);
* the run reached the final answer and used every scripted reply;
* nothing outside the root changed: the whole temporary tree except the root is snapshotted
  before and after (names, types, sizes, mtimes, content hashes, link targets). ``HOME`` and
  the working directory are moved into that tree, so a ``~`` expansion or a cwd-relative
  resolution would show up too;
* no message content holds the outside files' sentinel (nor ``/etc/passwd``'s first line);
* no message content holds the temporary directory's host path, once the tool's echo of
  the model's own argument is taken out (echoing what the model sent leaks nothing).

Where deepagents 0.7.32 itself does not meet the requirement, its parameter is marked
``xfail(strict=True)`` with the reason (the exact text or exception it produces), and the
deepagents_rs parameter stays strict. ``REF_GAPS`` lists them. In short, deepagents refuses
``..``, ``~``, drive paths and ``..`` in glob patterns at the tool layer (``validate_path``:
``Error: Path traversal not allowed: ../outside/secret.txt``), remaps absolute host paths
under the root, and never writes outside; but a symlink pointing out makes ``invoke()`` raise
a ValueError holding both host paths (glob reports that text as its error; grep says
"No matches found"), a NUL byte makes ``invoke()`` raise, and a UNC path is accepted as
``<root>/server/share/...``.

The world and the runs are ``fs_security_world.py``, the escapes and deepagents' gaps
``fs_security_escapes.py``. Other sections: ``virtual_mode=False`` (only what deepagents promises there), and
``StateBackend``. Only the deepagents side, about 40 s:
``python -m pytest tests/test_fs_security.py -k "not deepagents_rs"``.

Not in scope: ``execute`` (a shell is not confined by a path check; LocalShellBackend is
documented as unrestricted).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import ScriptedChatModel, ai_tool_calls
from fs_security_escapes import (
    ESCAPES,
    NONVIRTUAL_REFUSED,
    SYMLINK_ESCAPES,
    TOOLS,
    Escape,
    expectation,
    ref_gap,
    tool_call,
)
from fs_security_world import (
    FINAL,
    IMPLS,
    INSIDE_TEXT,
    PWNED,
    SECRET_LINE,
    USER,
    Outcome,
    World,
    assert_error,
    assert_no_leak,
    assert_ran_through,
    assert_unchanged,
    build_world,
    is_error,
    load,
    run,
    snapshot,
    text_of,
)

# --------------------------------------------------------------------------- virtual mode


def _fs(world: World, *, virtual_mode: bool = True) -> Callable[[Any], Any]:
    return lambda backends: backends.FilesystemBackend(root_dir=str(world.root_arg), virtual_mode=virtual_mode)


def _escape_cases(escapes: list[Escape]) -> list[Any]:
    return [
        pytest.param(esc, variant, id=f"{esc.id}-{variant}")
        for esc in escapes
        for variant in TOOLS
        if not (variant == "write_file-new" and esc.new is None)
    ]


def check_escape(impl: str, world: World, esc: Escape, variant: str, *, virtual_mode: bool = True) -> Outcome:
    call = tool_call(variant, esc, world)
    assert call is not None
    before = snapshot(world)
    # Without virtual mode "/in.txt" is the host's /in.txt: read the root's by its host path.
    follow_up = "/in.txt" if virtual_mode else str(world.root / "in.txt")
    out = run(impl, _fs(world, virtual_mode=virtual_mode), call, follow_up=follow_up)
    assert_ran_through(out, call[0])
    expect = expectation(esc, variant) if virtual_mode else "error"
    if expect == "error":
        assert_error(out)
    elif expect == "confined":
        first = out.tool_messages[0]
        if not is_error(first):
            target = world.root / call[1]["file_path"].lstrip("/")
            assert target.is_file() and target.read_text() == PWNED, (
                f"write reported {text_of(first)!r} but {target} is not in the root"
            )
    assert_unchanged(before, snapshot(world))
    echoes = [v for v in call[1].values() if isinstance(v, str)]
    assert_no_leak(world, out.messages, echoes, check_host_path=virtual_mode)
    return out


@pytest.mark.parametrize(("esc", "variant"), _escape_cases(ESCAPES))
@pytest.mark.parametrize("impl", IMPLS)
def test_virtual_escape(impl, esc, variant, tmp_path, monkeypatch, request):
    ref_gap(request, impl, f"virtual-{esc.id}-{variant}")
    check_escape(impl, build_world(tmp_path, monkeypatch), esc, variant)


@pytest.mark.parametrize(("esc", "variant"), _escape_cases(SYMLINK_ESCAPES))
@pytest.mark.parametrize("impl", IMPLS)
def test_symlinked_root_escape(impl, esc, variant, tmp_path, monkeypatch, request):
    """root_dir is itself a symlink (allowed); links inside it pointing out are still refused."""
    ref_gap(request, impl, f"virtual-{esc.id}-{variant}")
    check_escape(impl, build_world(tmp_path, monkeypatch, symlinked_root=True), esc, variant)


WALKS = {
    "ls-root": ("ls", {"path": "/"}),
    "ls-a": ("ls", {"path": "/a"}),
    "glob-doublestar": ("glob", {"pattern": "**/*"}),
    "glob-basename": ("glob", {"pattern": "*.txt"}),
    "glob-under-x": ("glob", {"pattern": "**/*.txt", "path": "/x"}),
    "grep-content": ("grep", {"pattern": SECRET_LINE, "output_mode": "content"}),
    "grep-files": ("grep", {"pattern": SECRET_LINE}),
    "grep-count-under-a": ("grep", {"pattern": SECRET_LINE, "path": "/a", "output_mode": "count"}),
}


@pytest.mark.parametrize("symlinked_root", [pytest.param(False, id="root-dir"), pytest.param(True, id="root-symlink")])
@pytest.mark.parametrize("name", list(WALKS))
@pytest.mark.parametrize("impl", IMPLS)
def test_virtual_walk_does_not_follow_links_out(impl, name, symlinked_root, tmp_path, monkeypatch, request):
    """Listing and searching the root shows nothing of what its links point at (no error needed)."""
    ref_gap(request, impl, f"walk-{name}")
    call = WALKS[name]
    world = build_world(tmp_path, monkeypatch, symlinked_root=symlinked_root)
    before = snapshot(world)
    out = run(impl, _fs(world), call)
    assert_ran_through(out, call[0])
    first = text_of(out.tool_messages[0])
    for leaked in ("secret.txt", "deep.txt", "notyet"):
        assert leaked not in first, f"{call[0]} shows an outside file: {first!r}"
    assert_unchanged(before, snapshot(world))
    assert_no_leak(world, out.messages, [])


PATTERN_ESCAPES = {
    "glob-dotdot": ("glob", {"pattern": "../outside/*"}),
    "glob-slash-dotdot": ("glob", {"pattern": "/../outside/*"}),
    "glob-dotdot-from-a": ("glob", {"pattern": "../*", "path": "/a"}),
    "glob-backslash-dotdot": ("glob", {"pattern": "..\\outside\\*"}),
    "grep-glob-dotdot": ("grep", {"pattern": SECRET_LINE, "glob": "../outside/*", "output_mode": "content"}),
}


@pytest.mark.parametrize("name", list(PATTERN_ESCAPES))
@pytest.mark.parametrize("impl", IMPLS)
def test_virtual_pattern_escape(impl, name, tmp_path, monkeypatch, request):
    """``..`` in a glob pattern (glob's pattern, grep's glob filter) is refused."""
    ref_gap(request, impl, f"pattern-{name}")
    call = PATTERN_ESCAPES[name]
    world = build_world(tmp_path, monkeypatch)
    before = snapshot(world)
    out = run(impl, _fs(world), call)
    assert_ran_through(out, call[0])
    assert_error(out)
    assert_unchanged(before, snapshot(world))
    assert_no_leak(world, out.messages, [v for v in call[1].values() if isinstance(v, str)])


@pytest.mark.parametrize("impl", IMPLS)
def test_symlinked_root_is_allowed(impl, tmp_path, monkeypatch):
    """root_dir may itself be a symlink: files are written to and read from the real directory,
    and neither the link's nor the real directory's host path shows."""
    world = build_world(tmp_path, monkeypatch, symlinked_root=True)
    create, backends = load(impl)
    model = ScriptedChatModel(
        [
            ai_tool_calls(("write_file", {"file_path": "/new/made.txt", "content": "made here\n"})),
            ai_tool_calls(("read_file", {"file_path": "/new/made.txt"})),
            ai_tool_calls(("ls", {"path": "/new"})),
            ai_tool_calls(("edit_file", {"file_path": "/in.txt", "old_string": "inside", "new_string": "INSIDE"})),
            FINAL,
        ]
    )
    agent = create(model=model, backend=_fs(world)(backends))
    before = snapshot(world)
    result = agent.invoke(USER)
    msgs = result["messages"]
    tms = [m for m in msgs if m.type == "tool"]
    assert [is_error(m) for m in tms] == [False] * 4, [text_of(m) for m in tms]
    assert "made here" in text_of(tms[1])
    assert "/new/made.txt" in text_of(tms[2])
    assert (world.root / "new" / "made.txt").read_text() == "made here\n"
    assert (world.root / "in.txt").read_text() == "INSIDE content line\n"
    assert msgs[-1].content == FINAL
    assert_unchanged(before, snapshot(world))  # the link `rootlink` itself is outside: unchanged
    assert_no_leak(world, msgs, [])


# --------------------------------------------------------------------------- virtual_mode=False
#
# FilesystemBackend's docstring: with virtual_mode=False "absolute paths are used as-is and
# relative paths are resolved under root_dir. This provides no security against an agent
# choosing paths outside root_dir." So there is no confinement to test. What is promised:
#   * an absolute path is the host path (tested: read and write of a file outside root_dir);
#   * the tools' own path check, `validate_path` (deepagents.backends.utils: "Raises ValueError:
#     If path contains traversal sequences (`..` or `~`), is a Windows absolute path"), runs
#     before any backend, so `..`, `~` and drive paths are refused in this mode too;
#   * (the general requirement) a bad path is an error result and the run goes on: NUL bytes.
# Host paths may appear in messages in this mode (the paths are the caller's own).
# Relative paths are not tested: the tools turn "notes.txt" into "/notes.txt", which in this
# mode is a file at the host's filesystem root.


@pytest.mark.parametrize("impl", IMPLS)
def test_nonvirtual_absolute_path_is_the_host_path(impl, tmp_path, monkeypatch):
    world = build_world(tmp_path, monkeypatch)
    secret = str(world.outside / "secret.txt")
    made = world.outside / "made.txt"
    create, backends = load(impl)
    model = ScriptedChatModel(
        [
            ai_tool_calls(("read_file", {"file_path": secret})),
            ai_tool_calls(("write_file", {"file_path": str(made), "content": "host write\n"})),
            FINAL,
        ]
    )
    agent = create(model=model, backend=_fs(world, virtual_mode=False)(backends))
    msgs = agent.invoke(USER)["messages"]
    tms = [m for m in msgs if m.type == "tool"]
    assert not is_error(tms[0]) and world.sentinel in text_of(tms[0]), text_of(tms[0])
    assert not is_error(tms[1]), text_of(tms[1])
    assert made.read_text() == "host write\n"
    assert msgs[-1].content == FINAL


@pytest.mark.parametrize(("esc", "variant"), _escape_cases(NONVIRTUAL_REFUSED))
@pytest.mark.parametrize("impl", IMPLS)
def test_nonvirtual_still_refuses(impl, esc, variant, tmp_path, monkeypatch, request):
    ref_gap(request, impl, f"nonvirtual-{esc.id}-{variant}")
    check_escape(impl, build_world(tmp_path, monkeypatch), esc, variant, virtual_mode=False)


# --------------------------------------------------------------------------- StateBackend

STATE_ESCAPES = {
    "dotdot": "../x.txt",
    "slash-dotdot": "/../x.txt",
    "nested-dotdot": "/a/../../x.txt",
    "tilde": "~/x.txt",
    "backslash-dotdot": "..\\x.txt",
    "windows-drive": "C:\\x.txt",
    "windows-drive-fwd": "c:/x.txt",
}
STATE_TOOLS = ["read_file", "write_file", "edit_file", "delete", "ls", "glob", "grep"]


def _state_call(variant: str, path: str) -> tuple[str, dict[str, Any]]:
    if variant == "read_file":
        return "read_file", {"file_path": path}
    if variant == "write_file":
        return "write_file", {"file_path": path, "content": PWNED}
    if variant == "edit_file":
        return "edit_file", {"file_path": path, "old_string": "inside", "new_string": PWNED}
    if variant == "delete":
        return "delete", {"file_path": path}
    if variant == "ls":
        return "ls", {"path": path}
    if variant == "glob":
        return "glob", {"pattern": "*", "path": path}
    return "grep", {"pattern": "inside", "path": path, "output_mode": "content"}


def _in_txt() -> dict[str, Any]:
    stamp = "2026-01-01T00:00:00+00:00"
    return {"content": INSIDE_TEXT + "\n", "encoding": "utf-8", "created_at": stamp, "modified_at": stamp}


@pytest.mark.parametrize("variant", STATE_TOOLS)
@pytest.mark.parametrize("name", list(STATE_ESCAPES))
@pytest.mark.parametrize("impl", IMPLS)
def test_state_backend_refuses(impl, name, variant, request):
    """StateBackend: the same bad paths are refused as errors; the files in state are untouched."""
    ref_gap(request, impl, f"state-{name}-{variant}")
    call = _state_call(variant, STATE_ESCAPES[name])
    out = run(impl, lambda backends: backends.StateBackend(), call, files={"/in.txt": _in_txt()})
    assert_ran_through(out, call[0])
    assert_error(out)
    files = out.result.get("files") or {}
    assert sorted(files) == ["/in.txt"], sorted(files)
    content = files["/in.txt"]["content"]
    content = "".join(content) if isinstance(content, list) else content
    assert content == INSIDE_TEXT + "\n"
