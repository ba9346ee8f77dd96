"""StateBackend over `deepagents_rs._files_context` (the stand-in for LangGraph's CONFIG_KEY_READ/SEND).

Backend-level counterparts of deepagents' `TestStateBackendConfigKeys` (tests/unit_tests/test_end_to_end.py),
which fake a graph context; here the run's files come from `use_files(FilesContext(...))`.
"""

from __future__ import annotations

import pytest
from deepagents_rs._files_context import CURRENT_FILES, FilesContext, use_files
from deepagents_rs.backends import StateBackend


def test_outside_a_run_raises_deepagents_error() -> None:
    assert CURRENT_FILES.get() is None
    with pytest.raises(RuntimeError, match="inside a LangGraph graph execution"):
        StateBackend().ls("/")


def test_write_then_read_edit_ls_delete() -> None:
    be = StateBackend()
    ctx = FilesContext({"/keep.txt": {"content": "k", "encoding": "utf-8"}})
    with use_files(ctx):
        assert be.write("/a/b.txt", "hello world").path == "/a/b.txt"
        # read-your-writes within the same step
        assert be.read("/a/b.txt").file_data["content"] == "hello world"
        assert be.edit("/a/b.txt", "world", "there").occurrences == 1
        assert be.read("/a/b.txt").file_data["content"] == "hello there"
        assert [e["path"] for e in be.ls("/").entries] == ["/a/", "/keep.txt"]
        assert be.delete("/keep.txt").path == "/keep.txt"
        assert be.read("/keep.txt").error == "File '/keep.txt' not found"
    assert CURRENT_FILES.get() is None
    update = ctx.updates()
    assert update["/keep.txt"] is None
    assert update["/a/b.txt"]["content"] == "hello there"
    assert set(ctx.commit()) == {"/a/b.txt"}
    assert ctx.updates() == {}


def test_upload_and_download_in_context() -> None:
    be = StateBackend()
    ctx = FilesContext()
    with use_files(ctx):
        assert be.upload_files([("/t.txt", b"hi"), ("/b.bin", b"\xff\x00")])[0].error is None
        got = be.download_files(["/t.txt", "/b.bin", "/missing"])
    assert [(r.content, r.error) for r in got] == [(b"hi", None), (b"\xff\x00", None), (None, "file_not_found")]
    assert ctx.updates()["/b.bin"]["encoding"] == "base64"


async def test_async_methods_see_the_context() -> None:
    be = StateBackend()
    with use_files(FilesContext()) as ctx:
        await be.awrite("/x.py", "print(1)\n")
        assert (await be.aread("/x.py")).file_data["content"] == "print(1)\n"
        assert [m["path"] for m in (await be.aglob("*.py")).matches] == ["/x.py"]
        assert (await be.agrep("print")).matches[0]["line"] == 1
    assert "/x.py" in ctx.updates()
