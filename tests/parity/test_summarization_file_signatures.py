"""Parity: the MIME type a raw-base64 Gemini ``image_url`` part is given, guessed from its bytes.

LangChain's Google GenAI reader asks the ``filetype`` package what the decoded bytes are; the
answer is the block's ``mime_type``, from which deepagents' media offload picks the stored
file's extension and the reference's kind (an image, audio or video block, else a ``<file>``
text). Files of every kind ``filetype`` knows (made by the standard library and Pillow where
they can make them, else by their documented headers) are read by the core and by LangChain
side by side, whole and cut short at every length up to their signature; whole runs compare
what deepagents and deepagents_rs store.
"""

from __future__ import annotations

import base64
import bz2
import gzip
import io
import lzma
import sqlite3
import struct
import tarfile
import wave
import zipfile
from pathlib import Path
from typing import Any

import filetype
import pytest
from deepagents_rs import _convert, _core
from langchain_core.messages import AIMessage
from PIL import Image

from . import test_summarization_media as media
from .test_summarization_provider_blocks import _history, _media, _run, genai

pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.beta_decorator.LangChainBetaWarning")


def _pillow(fmt: str, **kwargs: Any) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(out, format=fmt, **kwargs)
    return out.getvalue()


def _zip(entries: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return out.getvalue()


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("a.txt")
        info.size = 2
        t.addfile(info, io.BytesIO(b"hi"))
    return out.getvalue()


def _wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\0\0" * 16)
    return out.getvalue()


def _sqlite(tmp: Path) -> bytes:
    path = tmp / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("create table if not exists t (x)")
    return path.read_bytes()


def _box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def _ftyp(major: bytes, *brands: bytes) -> bytes:
    return _box(b"ftyp", major + b"\0\0\0\0" + b"".join(brands)) + _box(b"mdat", b"\0" * 8)


def _ole(at_512: bytes, size: int = 2200, extra: tuple[int, bytes] | None = None) -> bytes:
    buf = bytearray(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(size - 8))
    buf[512 : 512 + len(at_512)] = at_512
    if extra:
        buf[extra[0] : extra[0] + len(extra[1])] = extra[1]
    return bytes(buf)


def _ebml(doctype: bytes) -> bytes:
    return b"\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\x82" + bytes([0x80 | len(doctype)]) + doctype + b"\0" * 8


def samples(tmp: Path) -> dict[str, bytes]:
    """One file (or file head) per kind ``filetype`` recognises, and some it does not."""
    png = _pillow("PNG")
    apng = io.BytesIO()
    frames = [Image.new("RGB", (4, 4), c) for c in ((255, 0, 0), (0, 0, 255))]
    frames[0].save(apng, format="PNG", save_all=True, append_images=frames[1:])
    return {
        "dwg": b"AC1032\0\0\0\0\0\0",
        "xcf": b"gimp xcf v011\0\0\0\0\x04",
        "jpeg": _pillow("JPEG"),
        "jpx": _pillow("JPEG2000"),
        "apng": apng.getvalue(),
        "png": png,
        "gif": _pillow("GIF"),
        "webp": _pillow("WEBP"),
        "tiff": _pillow("TIFF"),
        "tiff-big-endian": b"MM\0*\0\0\0\x08\0\0\0\0",
        "cr2": b"II*\0\x10\0\0\0CR\x02\0\0\0\0\0",
        "bmp": _pillow("BMP"),
        "jxr": b"II\xbc\x01\x08\0\0\0",
        "psd": b"8BPS\0\x01\0\0\0\0\0\0",
        "ico": _pillow("ICO"),
        "heic": _ftyp(b"heic", b"mif1", b"heic"),
        "heif-listing-heic": _ftyp(b"mif1", b"mif1", b"heic"),
        "dicom": bytes(128) + b"DICM\x02\0\0\0",
        "avif": _pillow("AVIF"),
        "aac": b"\xff\xf1\x50\x80\x02\x1f\xfc",
        "aac-mpeg2": b"\xff\xf9\x50\x80",
        "midi": b"MThd\0\0\0\x06\0\x01\0\x01\0\x60",
        "mp3-id3": b"ID3\x04\0\0\0\0\0\0",
        "mp3-frame": b"\xff\xfb\x90\x64\0\0",
        "mp3-frame-v2": b"\xff\xf3\x90\x64",
        "mp3-frame-v25": b"\xff\xf2\x90\x64",
        "m4a": _ftyp(b"M4A ", b"M4A ", b"isom"),
        "m4a-bare": b"M4A \0\0\0\0\0\0\0\0",
        "ogg": b"OggS\0\x02" + bytes(20),
        "flac": b"fLaC\0\0\0\x22" + bytes(34),
        "wav": _wav(),
        "amr": b"#!AMR\n\x3c\x48\xf5\x1f\x96\x66",
        "aiff": b"FORM\0\0\0\x2eAIFFCOMM",
        "3gp": b"ftyp3gp4\0\0\0\0",
        "mp4": _ftyp(b"mp42", b"mp42", b"isom"),
        "mp4-major-only": _ftyp(b"isom"),
        "m4v": b"\0\0\0\x1cftypM4V \0\0\0\0M4V M4A M4VH",
        "mkv": _ebml(b"matroska"),
        "mov": _ftyp(b"qt  ", b"qt  "),
        "avi": b"RIFF\x24\0\0\0AVI LIST",
        "wmv": b"\x30\x26\xb2\x75\x8e\x66\xcf\x11\xa6\xd9\x00\xaa\x00\x62\xce\x6c",
        "mpeg": b"\0\0\x01\xba\x44\0\x04",
        "mpeg-sequence": b"\0\0\x01\xb3\x16\0\xf0",
        "webm": _ebml(b"webm"),
        "flv": b"FLV\x01\x05\0\0\0\x09",
        "woff": b"wOFF\0\x01\0\0" + bytes(36),
        "woff-otto": b"wOFFOTTO" + bytes(36),
        "woff2": b"wOF2true" + bytes(40),
        "ttf": b"\0\x01\0\0\0\x0c\0\x80",
        "otf": b"OTTO\0\x0c\0\x80",
        "doc": _ole(b"\xec\xa5\xc1\0"),
        "doc-by-name": _ole(b"\0\0\0\0", extra=(2080, b"\0\x0a\0\0\0MSWordDoc\0\x10\0\0\0Word.Document.8\0\xf49\xb2q")),
        "docx": _zip([("[Content_Types].xml", b"<x/>"), ("_rels/.rels", b"<r/>"), ("word/document.xml", b"<d/>")]),
        "docx-first": _zip([("word/document.xml", b"<d/>")]),
        "odt": _zip([("mimetype", b"application/vnd.oasis.opendocument.text"), ("content.xml", b"<c/>")]),
        "xls": _ole(b"\x09\x08\x10\0\0\x06\x05\0"),
        "xls-fd": _ole(b"\xfd\xff\xff\xff\0\0\x02"),
        "xls-calc": _ole(b"\0\0\0\0", extra=(1600, b"\xe2\0\0\0\x5c\0\x70\0\x04\0\0Calc")),
        "xlsx": _zip([("[Content_Types].xml", b"<x/>"), ("xl/workbook.xml", b"<w/>")]),
        "ods": _zip([("mimetype", b"application/vnd.oasis.opendocument.spreadsheet")]),
        "ppt": _ole(b"\xa0\x46\x1d\xf0"),
        "ppt-fd": _ole(b"\xfd\xff\xff\xff\x01\0\0\0\0\0\0\0"),
        "ppt-by-name": _ole(b"\0\0\0\0", extra=(2072, b"\0\xb9\x29\xe8\x11\0\0\0MS PowerPoint 97")),
        "pptx": _zip([("docProps/app.xml", b"<a/>"), ("a", b""), ("b", b""), ("ppt/presentation.xml", b"<p/>")]),
        "pptx-too-deep": _zip([("docProps/app.xml", b"<a/>"), *[(str(i), b"") for i in range(4)], ("ppt/p.xml", b"")]),
        "odp": _zip([("mimetype", b"application/vnd.oasis.opendocument.presentation")]),
        "brotli": b"\xce\xb2\xcf\x81\x0b\x01",
        "rpm": b"\xed\xab\xee\xdb\x03\0\0\0",
        "epub": _zip([("mimetype", b"application/epub+zip"), ("META-INF/container.xml", b"<c/>")]),
        "zip": _zip([("a.txt", b"hello")]),
        "zip-empty": b"PK\x05\x06" + bytes(18),
        "tar": _tar(),
        "rar": b"Rar!\x1a\x07\x01\0\x33\x92",
        "gz": gzip.compress(b"hello"),
        "bz2": bz2.compress(b"hello"),
        "7z": b"7z\xbc\xaf\x27\x1c\0\x04",
        "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        "pdf-bom": b"\xef\xbb\xbf%PDF-1.4\n",
        "exe": b"MZ\x90\0\x03\0\0\0",
        "swf": b"FWS\x0a\x20\0\0\0",
        "swf-compressed": b"CWS\x0a\x20\0\0\0",
        "rtf": b"{\\rtf1\\ansi hello}",
        "nes": b"NES\x1a\x02\x01",
        "crx": b"Cr24\x03\0\0\0",
        "cab": b"MSCF\0\0\0\0",
        "cab-installshield": b"ISc(\x01\0\0\0",
        "eot": bytes(8) + b"\x02\0\x01" + bytes(23) + b"LP" + bytes(4),
        "ps": b"%!PS-Adobe-3.0\n",
        "xz": lzma.compress(b"hello"),
        "sqlite": _sqlite(tmp),
        "deb": b"!<arch>\ndebian-binary   1342943816  0     0     100644  4         `\n2.0\n",
        "ar": b"!<arch>\nfoo.o/          0           0     0     644     8         `\n",
        "Z": b"\x1f\x9d\x90\x68\x65",
        "Z-alt": b"\x1f\xa0\x90\x68",
        "lzo": b"\x89LZO\0\r\n\x1a\n\x10\x30",
        "lz": b"LZIP\x01\x0c\0",
        "elf": b"\x7fELF\x02\x01\x01" + bytes(60),
        "lz4": b"\x04\x22\x4d\x18\x64\x40\xa7",
        "zstd": b"\x28\xb5\x2f\xfd\x24\x05\x29\0\0hello",
        "zstd-skippable": b"\x5a\x2a\x4d\x18\x03\0\0\0abc\x28\xb5\x2f\xfd\x24",
        "zstd-skippable-short": b"\x5a\x2a\x4d\x18\x30\0\0\0abc",
        "wasm": b"\0asm\x01\0\0\0\x01\x04",
        "text": b"just some words",
        "one-byte": b"\x89",
        "ftyp-longer-than-buffer": b"\0\0\x10\0ftypisom\0\0\0\0isom",
        "ftyp-invalid-utf8-brand": _ftyp(b"he\xffic"),
        "png-then-idat": b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" + bytes(17) + b"\0\0\0\0IDAT\0\0\0\0\0\0\0\x08acTL",
    }


def _raw_part(raw: bytes) -> AIMessage:
    return genai([{"type": "image_url", "image_url": {"url": base64.b64encode(raw).decode()}}])


def _mime(blocks: list[dict[str, Any]]) -> str | None:
    (block,) = blocks
    return block.get("mime_type")


def test_every_sample_is_the_kind_filetype_says(tmp_path: Path) -> None:
    # Every matcher of `filetype` is hit by some sample, so the comparisons cover every row
    # (its archive DICOM matcher compares three bytes with four and never matches).
    matched = {type(filetype.match(raw)) for raw in samples(tmp_path).values()}
    never = {type(m) for m in filetype.types if type(m).__module__.endswith("archive") and type(m).__name__ == "Dcm"}
    assert {type(m) for m in filetype.types} - never <= matched
    for raw in samples(tmp_path).values():
        message = _raw_part(raw)
        expected = getattr(filetype.guess(raw), "mime", None)
        assert _mime(_core.content_blocks(_convert.to_core(message))) == expected == _mime(message.content_blocks)


def test_every_prefix_of_every_sample_is_read_as_langchain_reads_it(tmp_path: Path) -> None:
    differ = []
    for name, raw in samples(tmp_path).items():
        # Every cut up to the signatures' reach (the OLE and ZIP checks read further), then
        # the whole file.
        for cut in [*range(1, len(raw[:600]) + 1), 2100, 2143, len(raw)]:
            message = _raw_part(raw[:cut])
            ours, theirs = _core.content_blocks(_convert.to_core(message)), message.content_blocks
            if ours != theirs:
                differ.append((name, cut, ours, theirs))
    assert differ == []


def test_the_signature_is_read_from_the_first_8192_bytes_only() -> None:
    late = bytes(8200) + b"\x42\x82\x88matroska"
    for raw in (b"\x1a\x45\xdf\xa3" + late, b"\x1a\x45\xdf\xa3" + bytes(8000) + b"\x42\x82\x88matroska"):
        message = _raw_part(raw)
        assert _core.content_blocks(_convert.to_core(message)) == message.content_blocks


STORED = ["mp3-id3", "pdf", "tiff", "zip", "woff", "mp4", "wav", "docx", "gz", "ogg", "flac", "text"]


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_raw_parts_are_stored_under_their_guessed_extension_as_deepagents_stores_them(
    mode: str, tmp_path: Path
) -> None:
    raws = {name: samples(tmp_path)[name] for name in STORED}
    reply = genai([*({"type": "image_url", "image_url": {"url": media.b64(r)}} for r in raws.values()), "all"])
    ref, rs = _run([reply], mode)
    assert _media(rs) == _media(ref)
    # (`_run` compared the runs whole: requests, files, state.) Audio and video are read
    # back as such, other kinds as a file reference.
    history = _history(rs)
    assert f'<audio url="{media.PREFIX}{media.key(raws["mp3-id3"])}.mp3" />' in history
    assert f'<video url="{media.PREFIX}{media.key(raws["mp4"])}.mp4" />' in history
    assert f'&lt;file url="{media.PREFIX}{media.key(raws["pdf"])}.pdf" /&gt;' in history
    stored = {Path(p).name for p in _media(rs)}
    # The kinds the offload names by extension, and those it keeps as bytes.
    for name, ext in [("mp3-id3", "mp3"), ("pdf", "pdf"), ("tiff", "tiff"), ("zip", "zip"), ("mp4", "mp4")]:
        assert f"{media.key(raws[name])}.{ext}" in stored
    for name in ("woff", "text", "flac"):
        assert f"{media.key(raws[name])}.bin" in stored
