"""Words `BaseSandbox` shows the model or the user, kept verbatim because they are interface data."""

from __future__ import annotations

from typing import Final

# deepagents 0.7.32, backends/sandbox.py (TRUNCATION_MSG)
TRUNCATION_MSG: Final = (
    "\n\n[Output was truncated due to size limits. "
    "This paginated read result exceeded the sandbox stdout limit. "
    "Continue reading with a larger offset or smaller limit to inspect the rest of the file.]"
)
"""Sentinel appended to `read()` content when `MAX_OUTPUT_BYTES` is hit."""

# deepagents 0.7.32, backends/sandbox.py (agrep / aglob). Read by the core
# (src/python/sandbox_calls.rs, `timed_out`) when an async search passes its bound.
SEARCH_TIMED_OUT: Final = "Error: {tool} timed out after {seconds}s. Try a more specific pattern or a narrower path."

# The read script and the edit error texts are the core's (`src/files/sandbox_texts.rs`), and so
# are the execute capture's clip notices (`src/files/sandbox_capture.rs`, read through `_sandbox_capture`).
