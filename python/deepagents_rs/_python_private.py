"""The private part of Python itself deepagents_rs reads, in one place, checked at first use.

``os.environ._data``: the dict ``os.environ`` keeps the environment in, keyed by
``os.environ.encodekey(name)``. A plain tool call asks whether LangChain's tracing variables
are set at every call, as LangChain's ``CallbackManager.configure`` would (`_direct_tools`'
``quiet_context``): through ``os.environ``'s mapping methods that is some 40 bytecodes a
name, in its dict one look-up. CPython has kept it so since 3.2, but it is not part of the
language: a Python whose ``os.environ`` keeps its variables otherwise (another
implementation, a future CPython) fails here, at the first tool call, with one
``ImportError`` naming the Python, rather than reading a dict that is not the environment.
"""

from __future__ import annotations

import os
import platform
from typing import Any


def environ_data() -> dict[Any, Any]:
    """``os.environ``'s own dict, checked to be what ``os.environ`` reads: a dict holding the
    encoded name of each of its variables, and no other."""
    data = getattr(os.environ, "_data", None)
    encode = getattr(os.environ, "encodekey", None)
    if type(data) is not dict or encode is None or len(data) != len(os.environ):
        raise ImportError(_unsupported())
    if any(encode(name) not in data for name in os.environ):
        raise ImportError(_unsupported())
    return data


def _unsupported() -> str:
    return (
        f"deepagents_rs reads os.environ's own dict (os.environ._data, keyed by os.environ.encodekey), "
        f"which {platform.python_implementation()} {platform.python_version()} does not keep as CPython does"
    )
