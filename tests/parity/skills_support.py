"""Shared pieces of the skills parity tests: SKILL.md texts, input files and the accessors of what
the model was sent."""

from __future__ import annotations

import importlib
from typing import Any


def skill_md(name: str, description: str, extra: str = "", body: str = "# Steps\nDo it well.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"


WEB = skill_md(
    "web-research",
    "Structured web research.",
    "license: MIT\ncompatibility: Python 3.10+\nallowed-tools: search, fetch\nmetadata:\n  author: me\n  version: 2\n",
)


CODE = skill_md("code-review", "Review code carefully.")


def _skills_mw(impl: str) -> type:
    return importlib.import_module(f"{impl}.middleware").SkillsMiddleware


def _last_human(messages: list[Any]) -> str:
    return next(m.content for m in reversed(messages) if m.type == "human")


# --------------------------------------------------------------------------------------------
# A user's SkillsMiddleware
# --------------------------------------------------------------------------------------------

TEMPLATE = "## Mine\n{skills_locations}{skills_load_warnings}\n{skills_list}\n{{literal}}"
