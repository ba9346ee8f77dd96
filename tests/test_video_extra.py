"""The `[video]` extra stays optional: `import deepagents_rs` loads neither PyAV nor Pillow,
and without them `read_file` keeps deepagents' text-only schema and description (checked in
a fresh interpreter where `av` cannot be found)."""

from __future__ import annotations

import subprocess
import sys

_NO_AV = """
import sys
sys.modules["av"] = None  # find_spec("av") is then None: the extra counts as not installed
import deepagents_rs
assert "av" not in [m for m in sys.modules if sys.modules[m] is not None], "av imported"
assert not [m for m in sys.modules if m == "PIL" or m.startswith("PIL.")], "PIL imported"
from deepagents_rs.middleware.filesystem import FilesystemMiddleware, READ_FILE_TOOL_DESCRIPTION
from deepagents_rs._backend_adapter import fs_config
mw = FilesystemMiddleware()
assert mw._video_enabled is False
assert fs_config(None, None, mw)["video"] is False
print("ok")
"""


def test_import_and_middleware_without_the_extra() -> None:
    out = subprocess.run([sys.executable, "-c", _NO_AV], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_media_messages_move_behind_their_batch_as_in_deepagents() -> None:
    import itertools

    from deepagents.middleware import filesystem as ref_fs
    from deepagents_rs.middleware import filesystem as rs_fs
    from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage

    calls = [{"id": "c", "name": "read_file", "args": {}}]
    pool = {
        "calls": AIMessage("", tool_calls=calls),
        "chunk": AIMessageChunk(content="", tool_calls=calls),
        "ai": AIMessage("hi"),
        "tool": ToolMessage("r", tool_call_id="c"),
        "media": HumanMessage("m", additional_kwargs={"read_file_media_result": True}),
        "human": HumanMessage("h"),
    }
    for kinds in itertools.product(pool, repeat=5):
        messages = [pool[k].model_copy(update={"id": str(i)}) for i, k in enumerate(kinds)]
        ours = rs_fs._move_media_results_after_tool_results(messages)
        assert [m.id for m in ours] == [m.id for m in ref_fs._move_media_results_after_tool_results(messages)], kinds
