"""The disk reads and writes ``FilesystemBackend`` does in the Rust core raise what Python's
own ``open`` raises, word for word: the backend puts these texts in its error results."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from deepagents_rs import _core


def _python_error(fn) -> str:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the text is what is compared
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError("did not raise")


@pytest.mark.parametrize("data", [bytes(range(256)), b"\xe2\x82", b"a\xe2(b", b"ok\xffok"], ids=str)
def test_undecodable_text_raises_pythons_unicode_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(data)
    want = _python_error(lambda: path.read_text(encoding="utf-8"))
    assert _python_error(lambda: _core.disk_read_text(str(path))) == want


def test_text_reads_translate_newlines_and_writes_do_not(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    _core.disk_write_text(str(path), "a\r\nb\rc\n")
    assert path.read_bytes() == b"a\r\nb\rc\n"
    assert _core.disk_read_text(str(path)) == path.read_text(encoding="utf-8") == "a\nb\nc\n"
    # Read as a binary file (by the name asked for), the bytes come back untranslated.
    assert _core.disk_read(str(path), "/x.png", 10) == {"file_data": {"content": "YQ0KYg1jCg==", "encoding": "base64"}}
    assert _core.disk_read(str(path), "/x.txt", 10) == "a\nb\nc\n"
    assert oct(path.stat().st_mode & 0o777) == "0o644"


def test_symlinks_are_not_followed_and_errors_name_the_path(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("secret")
    link = tmp_path / "link"
    link.symlink_to(target)
    flags = os.O_RDONLY | os.O_NOFOLLOW
    want = _python_error(lambda: os.open(link, flags))
    assert _python_error(lambda: _core.disk_read_text(str(link))) == want
    assert _python_error(lambda: _core.disk_write_text(str(link), "x")).startswith("OSError: [Errno 40]")
    assert target.read_text() == "secret"
    missing = tmp_path / "missing.txt"
    assert _python_error(lambda: _core.disk_read_text(str(missing))) == _python_error(lambda: missing.read_text())
    assert _python_error(lambda: _core.disk_write_text(str(missing), "x", create=False)).startswith(
        "FileNotFoundError: [Errno 2] No such file or directory"
    )


def test_listing_stats_through_symlinks(tmp_path: Path) -> None:
    from datetime import datetime

    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("abc")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "to_f").symlink_to(tmp_path / "f")
    entries, problems, outside = _core.disk_ls(str(tmp_path), False, str(tmp_path))
    listed = {entry["path"]: entry for entry in entries}
    assert sorted(listed) == [f"{tmp_path}/d/", f"{tmp_path}/f", f"{tmp_path}/to_f"]
    assert listed[f"{tmp_path}/d/"]["is_dir"] and listed[f"{tmp_path}/d/"]["size"] == 0
    mtime = datetime.fromtimestamp((tmp_path / "f").stat().st_mtime).isoformat()
    assert listed[f"{tmp_path}/f"] == {"path": f"{tmp_path}/f", "is_dir": False, "size": 3, "modified_at": mtime}
    assert listed[f"{tmp_path}/to_f"]["size"] == 3
    assert problems == [] and outside == []
    # Under a virtual root entries are shown as virtual paths, a link as where it leads.
    entries, _, _ = _core.disk_ls(str(tmp_path), True, str(tmp_path))
    assert [entry["path"] for entry in entries] == ["/d/", "/f", "/f"]
