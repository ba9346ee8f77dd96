"""The world of the escape tests: a root with an inside file, outside files with a sentinel, links
pointing out, HOME and the working directory moved into the tree; snapshots of everything outside
the root, a real agent run per implementation, and the checks on its outcome (error, no leak,
nothing changed)."""

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
