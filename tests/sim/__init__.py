"""Simulated LLM provider servers for tests (standard library only)."""

from .anthropic import (
    CacheReport,
    Recorded,
    Reply,
    SimAnthropic,
    canonical_json,
    message,
    text,
    tool_use,
)

__all__ = [
    "CacheReport",
    "Recorded",
    "Reply",
    "SimAnthropic",
    "canonical_json",
    "message",
    "text",
    "tool_use",
]
