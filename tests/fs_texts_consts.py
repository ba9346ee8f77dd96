"""The consts of ``src/middleware/filesystem/texts.rs``, parsed (raw strings, normal strings, string
lists, numbers), the captured tool fixture, and filling a template or finding it in deepagents' source."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEXTS_RS = ROOT / "src" / "middleware" / "filesystem" / "texts.rs"
FIXTURE = ROOT / "tests" / "fixtures" / "fs_tools_0.7.32.json"
CAPTURE = ROOT / "tests" / "fixtures" / "capture_fs_tools.py"

# --------------------------------------------------------------------------------------------
# Parsing texts.rs
# --------------------------------------------------------------------------------------------

_CONST_RE = re.compile(
    r"(?P<docs>(?:^[ \t]*///[^\n]*\n)*)"
    r"^pub const (?P<name>[A-Z][A-Z0-9_]*): (?P<ty>[^=]+?)\s*=\s*"
    r"(?:"
    r"r(?P<hashes>#*)\"(?P<raw>.*?)\"(?P=hashes)"
    r"|\"(?P<str>(?:[^\"\\]|\\.)*)\""
    r"|&\[(?P<list>[^\]]*)\]"
    r"|(?P<num>-?[0-9][0-9_]*(?:\.[0-9]+)?)"
    r");",
    re.MULTILINE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


def _unescape(body: str) -> str:
    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc.startswith("u{"):
            return chr(int(esc[2:-1], 16))
        if esc.startswith("\n"):
            raise AssertionError("string continuation escapes are not supported here")
        return _ESCAPES[esc]

    return re.sub(r"\\(u\{[0-9a-fA-F]+\}|.|\n)", repl, body, flags=re.DOTALL)


def _parse(text: str) -> dict[str, dict[str, Any]]:
    consts: dict[str, dict[str, Any]] = {}
    for m in _CONST_RE.finditer(text):
        if m.group("raw") is not None:
            value: Any = m.group("raw")
        elif m.group("str") is not None:
            value = _unescape(m.group("str"))
        elif m.group("list") is not None:
            value = [_unescape(s) for s in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group("list"))]
        else:
            num = m.group("num").replace("_", "")
            value = float(num) if "." in num else int(num)
        docs = [line.strip()[3:].strip() for line in m.group("docs").splitlines()]
        assert m.group("name") not in consts, f"duplicate const {m.group('name')}"
        consts[m.group("name")] = {"value": value, "ty": m.group("ty").strip(), "docs": docs}
    return consts


RS_TEXT = TEXTS_RS.read_text(encoding="utf-8")
RS = _parse(RS_TEXT)
T: dict[str, Any] = {name: c["value"] for name, c in RS.items()}
FIX = json.loads(FIXTURE.read_text(encoding="utf-8"))


def fill(template: str, **values: Any) -> str:
    """Fill `{name}` placeholders the way the Rust core will (`str::replace`), all of them."""
    for key, value in values.items():
        assert "{" + key + "}" in template, f"placeholder {{{key}}} not in {template!r}"
        template = template.replace("{" + key + "}", str(value))
    left = re.findall(r"\{[a-z_]+\}", template)
    assert not left, f"unfilled placeholders {left}"
    return template


def in_source(module: Any, template: str, **exprs: str) -> bool:
    """Whether `module`'s source holds `template` as a (f-)string literal, placeholders -> `{expr}`."""
    body = template
    for key, expr in exprs.items():
        assert "{" + key + "}" in body
        body = body.replace("{" + key + "}", "\0" + expr + "\1")
    body = body.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    body = body.replace("\0", "{").replace("\1", "}")
    literal = ('f"' if exprs else '"') + body + '"'
    return literal in inspect.getsource(module)
