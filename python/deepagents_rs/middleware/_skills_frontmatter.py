"""The YAML boundary of skills: a ``SKILL.md``'s frontmatter read as deepagents reads it.

deepagents reads frontmatter with PyYAML's ``safe_load`` (YAML 1.1 scalars: ``yes`` is a
boolean, ``2024-01-01`` a date) and keeps each field as Python's ``str()`` of its value, so
``True``, ``None`` or ``1.0`` is what the model reads. Those two steps are Python's to
define, so they happen here; the Rust core (``src/middleware/skills/``) locates the
frontmatter, checks, strips, splits and cuts the fields, and builds ``SkillMetadata``.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger("deepagents_rs.middleware.skills")

#: The scalar fields deepagents reads with ``str(value)``.
_TEXT_FIELDS = ("name", "description", "license", "compatibility")


def validate_metadata(raw: object, skill_path: str, notes: list[str] | None = None) -> dict[str, str]:
    """deepagents' ``_validate_metadata``: a frontmatter's ``metadata`` as ``{str(k): str(v)}``
    (empty, with a warning, when it is not a mapping), warning of ``include_tools`` that is not
    a space-separated string (a YAML list reads as its ``str()``, whose names match no tool).
    The warnings are logged, or kept in ``notes`` when given."""
    note = logger.warning if notes is None else (lambda text, *args: notes.append(text % args))
    if not isinstance(raw, dict):
        if raw:
            note("Ignoring non-dict metadata in %s (got %s)", skill_path, type(raw).__name__)
        return {}
    include = raw.get("include_tools")
    if isinstance(include, list) or (isinstance(include, str) and "," in include):
        note(
            "metadata.include_tools in %s should be a space-separated string of tool names; got %r", skill_path, include
        )
    return {str(k): str(v) for k, v in raw.items()}


def _loads(data: dict) -> bool:
    """Whether deepagents goes on to build the skill (and so checks its metadata)."""
    return bool(str(data.get("name", "")).strip() and str(data.get("description", "")).strip())


def _view(path: str, text: str, notes: list[str]) -> dict[str, Any] | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        notes.append(f"Invalid YAML in {path}: {e}")
        return None
    if not isinstance(data, dict):
        notes.append(f"Skipping {path}: frontmatter is not a mapping")
        return None
    view: dict[str, Any] = {field: str(data[field]) for field in _TEXT_FIELDS if field in data}
    # deepagents checks `allowed-tools` and `metadata` only for a skill it goes on to build,
    # after its name and description: the core logs these warnings there.
    loads = _loads(data)
    tools = data.get("allowed-tools")
    if isinstance(tools, str):
        view["allowed-tools"] = tools
    elif isinstance(tools, list):
        view["allowed-tools"] = [t for t in tools if isinstance(t, str)]
    elif tools is not None and loads:
        kind = type(tools).__name__
        view["allowed_tools_warning"] = f"Ignoring 'allowed-tools' in {path}: expected a string or list, got {kind}"
    metadata = data.get("metadata", {})
    if loads:
        view["metadata_warnings"] = []
        view["metadata"] = validate_metadata(metadata, path, view["metadata_warnings"])
    else:
        view["metadata"] = {str(k): str(v) for k, v in metadata.items()} if isinstance(metadata, dict) else {}
    return view


def frontmatter_views(items: list[tuple[str, str]]) -> list[tuple[dict[str, Any] | None, list[str]]]:
    """Each ``(SKILL.md path, frontmatter)``'s fields (see the module doc; ``None`` for text
    that is not YAML or not a mapping) and the warnings deepagents logs while reading it."""
    out = []
    for path, text in items:
        notes: list[str] = []
        out.append((_view(path, text, notes), notes))
    return out
