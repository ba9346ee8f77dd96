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

# deepagents 0.7.32, backends/sandbox.py (agrep / aglob)
SEARCH_TIMED_OUT: Final = "Error: {tool} timed out after {seconds}s. Try a more specific pattern or a narrower path."

# deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_CLIP_NOTICE)
CAPTURE_CLIP_NOTICE: Final = (
    "... [output clipped here; {captured_bytes} bytes total, full output at the path above] ..."
)
"""Appended to a byte-excerpt preview when the excerpt is shorter than the captured output."""

# deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED)
CAPTURE_CLIP_NOTICE_CAPPED: Final = (
    "... [output clipped here; capture stopped at its {captured_bytes}-byte limit, "
    "so the file at the path above is also incomplete] ..."
)
"""The clip notice once capture hit its byte cap: the count is the cap, and the saved file is cut too."""

# deepagents 0.7.32, backends/sandbox.py (_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE)
CAPTURE_EXCERPT_CLIP_NOTICE: Final = (
    "... [the excerpts above and below are byte-capped, so the lines bordering this marker may be cut mid-line] ..."
)
"""Put before the marker of a head/tail preview whose excerpts were cut by their byte caps."""

# The read script and the edit error texts are the core's (`src/files/sandbox_texts.rs`).
