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

Other sections: ``virtual_mode=False`` (only what deepagents promises there), and
``StateBackend``. Only the deepagents side, about 40 s:
``python -m pytest tests/test_fs_security.py -k "not deepagents_rs"``.

Not in scope: ``execute`` (a shell is not confined by a path check; LocalShellBackend is
documented as unrestricted).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_models import ScriptedChatModel, ai_tool_calls

USER = {"messages": [{"role": "user", "content": "go"}]}
FINAL = "all done"
INSIDE_TEXT = "inside content line"
SECRET_LINE = "secret line"  # in every outside file, next to the sentinel; grep searches for it
PWNED = "PWNED"
IMPLS = [pytest.param("deepagents", id="deepagents"), pytest.param("deepagents_rs", id="deepagents_rs")]
# Host paths a naive implementation could create from these escapes (host root, not tmp).
HOST_PROBES = ("/outside.txt", "/outside", "/x", "/server", "/notyet.txt", "/new.txt")


def _etc_passwd_line() -> str | None:
    try:
        first = Path("/etc/passwd").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    return first if len(first) > 8 else None


ETC_PASSWD_LINE = _etc_passwd_line()


# --------------------------------------------------------------------------- implementations


def load(impl: str) -> tuple[Callable[..., Any], Any]:
    """``(create_deep_agent, backends module)`` of one implementation."""
    if impl == "deepagents":
        import deepagents
        from deepagents import backends

        return deepagents.create_deep_agent, backends
    import deepagents_rs
    from deepagents_rs import backends

    return deepagents_rs.create_deep_agent, backends


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    tmp: Path  # everything lives here; everything but `root` is "outside"
    root: Path  # the real root directory
    root_arg: Path  # what is passed as root_dir: `root`, or a symlink to it
    outside: Path
    sentinel: str

    def secrets(self) -> list[str]:
        out = [self.sentinel]
        if ETC_PASSWD_LINE:
            out.append(ETC_PASSWD_LINE)
        return out


def build_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, symlinked_root: bool = False) -> World:
    r"""The tree::

    tmp/
      outside/secret.txt        "top <SENTINEL> secret line"
      outside/sub/deep.txt      "deep <SENTINEL> secret line"
      home/secret.txt           (HOME points here)
      cwd/                      (the process' working directory)
      root/                     the backend's root
        in.txt
        flink   -> tmp/outside/secret.txt   (file link at the top of the root)
        dlink   -> tmp/outside              (dir link at the top of the root)
        rel     -> ../outside               (relative dir link)
        dangle  -> tmp/outside/notyet.txt   (dangling: a write through it would create it)
        a/b     -> tmp/outside              (one level down)
        x/y/z   -> tmp/outside/sub          (two levels down)
      rootlink -> root                      (root_dir when symlinked_root)
    """
    tmp = tmp_path
    sentinel = f"SENTINEL-{uuid.uuid4().hex}"
    outside = tmp / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text(f"top {sentinel} {SECRET_LINE}\n")
    (outside / "sub" / "deep.txt").write_text(f"deep {sentinel} {SECRET_LINE}\n")
    home = tmp / "home"
    home.mkdir()
    (home / "secret.txt").write_text(f"home {sentinel} {SECRET_LINE}\n")
    monkeypatch.setenv("HOME", str(home))
    (tmp / "cwd").mkdir()
    monkeypatch.chdir(tmp / "cwd")

    root = tmp / "root"
    root.mkdir()
    (root / "in.txt").write_text(INSIDE_TEXT + "\n")
    os.symlink(outside / "secret.txt", root / "flink")
    os.symlink(outside, root / "dlink")
    os.symlink(Path("..") / "outside", root / "rel")
    os.symlink(outside / "notyet.txt", root / "dangle")
    (root / "a").mkdir()
    os.symlink(outside, root / "a" / "b")
    (root / "x" / "y").mkdir(parents=True)
    os.symlink(outside / "sub", root / "x" / "y" / "z")
    root_arg = root
    if symlinked_root:
        root_arg = tmp / "rootlink"
        os.symlink(root, root_arg)
    return World(tmp=tmp, root=root, root_arg=root_arg, outside=outside, sentinel=sentinel)


def snapshot(world: World) -> dict[str, Any]:
    """Everything outside the root: per entry its type, size, mtime, content hash, link target."""
    snap: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(world.tmp):  # does not follow links
        if Path(dirpath) == world.tmp:
            dirnames[:] = [d for d in dirnames if d != world.root.name]
        for name in [*dirnames, *filenames]:
            p = Path(dirpath) / name
            st = os.lstat(p)
            kind = stat.S_IFMT(st.st_mode)
            digest = hashlib.sha256(p.read_bytes()).hexdigest() if stat.S_ISREG(st.st_mode) else None
            link = os.readlink(p) if stat.S_ISLNK(st.st_mode) else None
            snap[str(p.relative_to(world.tmp))] = (kind, st.st_size, st.st_mtime_ns, digest, link)
    for probe in HOST_PROBES:
        snap[probe] = os.path.lexists(probe)
    return snap


def assert_unchanged(before: dict[str, Any], after: dict[str, Any]) -> None:
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    assert not (added or removed or changed), f"outside the root: added {added}, removed {removed}, changed {changed}"


def text_of(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else json.dumps(content)


def assert_no_leak(world: World, messages: list[Any], echoes: list[str], *, check_host_path: bool = True) -> None:
    """No secret in any message; no host path of the tree once the model's own arguments are cut out."""
    hosts = {str(world.tmp), os.path.realpath(world.tmp)}
    cut = sorted({e for e in echoes if e}, key=len, reverse=True)
    for i, m in enumerate(messages):
        text = text_of(m)
        for secret in world.secrets():
            assert secret not in text, f"message {i} ({m.type}) shows outside content: {text!r}"
        if not check_host_path:
            continue
        for e in cut:
            text = text.replace(e, "<arg>")
        for host in hosts:
            assert host not in text, f"message {i} ({m.type}) leaks the host path {host!r}: {text!r}"


def is_error(tool_message: Any) -> bool:
    return getattr(tool_message, "status", None) == "error" or text_of(tool_message).lstrip().startswith("Error")


# --------------------------------------------------------------------------- running


@dataclass
class Outcome:
    messages: list[Any]
    model: ScriptedChatModel
    result: dict[str, Any]

    @property
    def tool_messages(self) -> list[Any]:
        return [m for m in self.messages if m.type == "tool"]


def run(
    impl: str,
    make_backend: Callable[[Any], Any],
    call: tuple[str, dict[str, Any]],
    *,
    files: dict[str, Any] | None = None,
    follow_up: str = "/in.txt",
) -> Outcome:
    """One agent run: the escape call, a read of /in.txt (``follow_up``), the final answer."""
    create, backends = load(impl)
    model = ScriptedChatModel([ai_tool_calls(call), ai_tool_calls(("read_file", {"file_path": follow_up})), FINAL])
    agent = create(model=model, backend=make_backend(backends))
    payload: dict[str, Any] = dict(USER)
    if files is not None:
        payload["files"] = files
    try:
        result = agent.invoke(payload)
    except Exception as e:  # noqa: BLE001  # the run must go on: any exception out of invoke is a failure
        pytest.fail(f"the run did not go on: invoke raised {type(e).__name__}: {e}")
    return Outcome(messages=list(result["messages"]), model=model, result=result)


def assert_ran_through(out: Outcome, tool: str) -> None:
    offered = out.model.calls[0].tool_names if out.model.calls else []
    assert tool in offered, f"{tool!r} is not offered to the model (offered: {offered})"
    assert out.messages[-1].content == FINAL, f"the run did not reach the final answer: {out.messages[-1]!r}"
    assert out.model.remaining == 0, f"{out.model.remaining} scripted replies unused"
    tms = out.tool_messages
    assert len(tms) == 2, f"expected 2 tool results, got {[text_of(m) for m in tms]}"
    assert "not a valid tool" not in text_of(tms[0]), text_of(tms[0])
    follow = text_of(tms[1])
    assert INSIDE_TEXT in follow, f"the follow-up read of /in.txt failed: {follow!r}"


def assert_error(out: Outcome) -> None:
    first = out.tool_messages[0]
    assert is_error(first), f"expected an error tool result, got status={first.status!r}: {text_of(first)!r}"


# --------------------------------------------------------------------------- escapes

PathOf = Callable[[World], str]


@dataclass(frozen=True)
class Escape:
    id: str
    file: PathOf  # an existing outside file, reached through the escape (or a non-file form)
    dir: PathOf  # an outside directory, reached through the escape
    new: PathOf | None = None  # a path that does not exist yet, for write_file
    # "refuse": every tool must answer with an error.
    # "remap": an absolute host path; in virtual mode it means <root>/<path>, so reads find
    #   nothing (error), writes land inside the root, glob/grep find nothing.
    kind: str = "refuse"


def _c(s: str) -> PathOf:
    return lambda w: s


ESCAPES = [
    Escape("dotdot", _c("../outside/secret.txt"), _c("../outside"), _c("../outside.txt")),
    Escape("slash-dotdot", _c("/../outside/secret.txt"), _c("/../outside"), _c("/../outside.txt")),
    Escape("nested-dotdot", _c("/a/../../outside/secret.txt"), _c("/a/../../outside"), _c("/a/../../outside.txt")),
    Escape("tilde", _c("~/secret.txt"), _c("~"), _c("~/x")),
    Escape("backslash-dotdot", _c("..\\outside\\secret.txt"), _c("..\\outside"), _c("..\\outside.txt")),
    Escape("windows-drive", _c("C:\\x"), _c("C:\\")),
    Escape("windows-drive-fwd", _c("c:/outside/secret.txt"), _c("c:/outside")),
    Escape("unc", _c("\\\\server\\share\\x"), _c("\\\\server\\share")),
    Escape("nul", _c("/a\x00b"), _c("/a\x00b")),
    Escape("nul-suffix", _c("/in.txt\x00.md"), _c("/a\x00")),
    Escape("file-symlink", _c("/flink"), _c("/flink")),
    Escape("dir-symlink", _c("/dlink/secret.txt"), _c("/dlink"), _c("/dlink/new.txt")),
    Escape("relative-symlink", _c("/rel/secret.txt"), _c("/rel"), _c("/rel/new.txt")),
    Escape("deep-symlink", _c("/a/b/secret.txt"), _c("/a/b"), _c("/a/b/new.txt")),
    Escape("deeper-symlink", _c("/x/y/z/deep.txt"), _c("/x/y/z"), _c("/x/y/z/new.txt")),
    Escape("dangling-symlink", _c("/dangle"), _c("/dangle")),
    Escape(
        "host-absolute",
        lambda w: str(w.outside / "secret.txt"),
        lambda w: str(w.outside),
        lambda w: str(w.outside / "new.txt"),
        kind="remap",
    ),
    Escape("etc-passwd", _c("/etc/passwd"), _c("/etc"), kind="remap"),
]
SYMLINK_ESCAPES = [e for e in ESCAPES if e.id.endswith("symlink")]
# Escapes that stay refused with virtual_mode=False (see the non-virtual section).
NONVIRTUAL_REFUSED = [e for e in ESCAPES if e.kind == "refuse" and e.id != "unc" and not e.id.endswith("symlink")]

TOOLS = ["read_file", "write_file", "write_file-new", "edit_file", "delete", "ls", "glob", "grep"]


def tool_call(variant: str, esc: Escape, w: World) -> tuple[str, dict[str, Any]] | None:
    """The call of one tool variant carrying the escape; None when the variant does not apply."""
    if variant == "read_file":
        return "read_file", {"file_path": esc.file(w)}
    if variant == "write_file":
        return "write_file", {"file_path": esc.file(w), "content": PWNED}
    if variant == "write_file-new":
        return None if esc.new is None else ("write_file", {"file_path": esc.new(w), "content": PWNED})
    if variant == "edit_file":
        return "edit_file", {"file_path": esc.file(w), "old_string": SECRET_LINE, "new_string": PWNED}
    if variant == "delete":
        return "delete", {"file_path": esc.file(w)}
    if variant == "ls":
        return "ls", {"path": esc.dir(w)}
    if variant == "glob":
        return "glob", {"pattern": "*", "path": esc.dir(w)}
    if variant == "grep":
        return "grep", {"pattern": SECRET_LINE, "path": esc.dir(w), "output_mode": "content"}
    raise AssertionError(variant)


def expectation(esc: Escape, variant: str) -> str:
    """One of "error", "confined" (a write that must land inside the root, error or not), "no-leak"."""
    if esc.kind == "refuse":
        return "error"
    if variant.startswith("write_file"):
        return "confined"
    if variant in ("glob", "grep"):
        return "no-leak"
    return "error"


# --------------------------------------------------------------------------- deepagents' gaps

# Measured against deepagents 0.7.32 (<tmp> stands for the test's temporary directory).
_RAISES_OUTSIDE = (
    "deepagents: FilesystemBackend._resolve_path raises ValueError('Path:<tmp>/outside/... outside root "
    "directory: <tmp>/root'); read/write/edit/delete/ls catch only OSError/RuntimeError, so invoke() raises "
    "(the run stops, nothing is written; the exception text holds both host paths)"
)
_GLOB_LEAKS = (
    "deepagents refuses but leaks both host paths: "
    "'Error: glob failed: Path:<tmp>/outside outside root directory: <tmp>/root'"
)
_GREP_SILENT = (
    "deepagents' grep swallows the ValueError from _resolve_path and answers 'No matches found' "
    "(status success): refused, but not an error result"
)
_NUL_RAISES = "deepagents: invoke() raises ValueError('embedded null byte') (the run stops)"
_NUL_GLOB_SILENT = "deepagents (virtual_mode=False) answers 'No files found' (status success), not an error"
_UNC_WRITE = (
    "deepagents accepts '\\\\server\\share\\x' as the virtual path //server/share/x and writes "
    "<root>/server/share/x: confined, but no error ('Updated file //server/share/x')"
)
_UNC_WALK = (
    "deepagents treats the UNC path as the missing virtual dir //server/share: '{}' (status success), not an error"
)


def _ref_gaps() -> dict[str, str]:
    gaps: dict[str, str] = {}
    for esc in SYMLINK_ESCAPES:
        for variant in TOOLS:
            gaps[f"virtual-{esc.id}-{variant}"] = {"glob": _GLOB_LEAKS, "grep": _GREP_SILENT}.get(
                variant, _RAISES_OUTSIDE
            )
    for esc_id in ("nul", "nul-suffix"):
        for variant in ("read_file", "write_file", "edit_file", "delete", "ls"):
            gaps[f"virtual-{esc_id}-{variant}"] = _NUL_RAISES
        # ("Error: glob failed: embedded null byte" in virtual mode is an error result: fine.)
        gaps[f"virtual-{esc_id}-grep"] = _GREP_SILENT
        gaps[f"nonvirtual-{esc_id}-write_file"] = _NUL_RAISES
        gaps[f"nonvirtual-{esc_id}-glob"] = _NUL_GLOB_SILENT
        gaps[f"nonvirtual-{esc_id}-grep"] = _GREP_SILENT
    gaps["virtual-unc-write_file"] = _UNC_WRITE
    gaps["virtual-unc-glob"] = _UNC_WALK.format("No files found")
    gaps["virtual-unc-grep"] = _UNC_WALK.format("No matches found")
    return gaps


REF_GAPS: dict[str, str] = _ref_gaps()


def ref_gap(request: pytest.FixtureRequest, impl: str, key: str) -> None:
    """Mark a parameter xfail (strict) where the implementation misses the requirement."""
    if impl == "deepagents" and key in REF_GAPS:
        request.applymarker(pytest.mark.xfail(reason=REF_GAPS[key], strict=True))


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
