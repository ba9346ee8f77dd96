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

# The read script, the edit error texts and agrep/aglob's timeout error are the core's
# (`src/files/sandbox_texts.rs`), and so are the execute capture's clip notices
# (`src/files/sandbox_capture.rs`, read through `_sandbox_capture`).
