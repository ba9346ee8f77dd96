"""Capture at source for `BaseSandbox.execute_with_offload`.

The command is wrapped in a POSIX sh script that saves its combined output to a file in the
sandbox. The script prints one meta line, `<sentinel> <exit_code> <offloaded> <capped>
<surplus_lines>`, then either the whole output (small) or a preview of it (large, the file
stays for `read_file`). A preview is the head and tail around a truncation marker when the
output has more lines than the two excerpts hold, else a leading byte excerpt closed by a
clip notice; byte caps that cut either shape are owned up to in-band.
"""

from __future__ import annotations

import base64
import logging
import os
import shlex
from typing import Final

from deepagents_rs.backends._sandbox_texts import (
    CAPTURE_CLIP_NOTICE,
    CAPTURE_CLIP_NOTICE_CAPPED,
    CAPTURE_EXCERPT_CLIP_NOTICE,
)
from deepagents_rs.backends.protocol import ExecuteOffloadResult, ExecuteResponse, execute_accepts_timeout
from deepagents_rs.backends.utils import TRUNCATION_MARKER_TEMPLATE

logger = logging.getLogger("deepagents_rs.backends.sandbox")

_EXECUTE_CAPTURE_SENTINEL: Final = "__DEEPAGENTS_EXEC_META__"
"""First word of the wrapper's meta line."""

_EXECUTE_CAPTURE_META_FIELDS: Final = 5
"""Words on the meta line, the sentinel included."""

_EXECUTE_CAPTURE_CLIP_NOTICE: Final = CAPTURE_CLIP_NOTICE
_EXECUTE_CAPTURE_CLIP_NOTICE_CAPPED: Final = CAPTURE_CLIP_NOTICE_CAPPED
_EXECUTE_CAPTURE_EXCERPT_CLIP_NOTICE: Final = CAPTURE_EXCERPT_CLIP_NOTICE

_EXECUTE_CAPTURE_HEAD_LINES: Final = 5
_EXECUTE_CAPTURE_TAIL_LINES: Final = 5
_EXECUTE_CAPTURE_HEAD_BYTES: Final = 2000
_EXECUTE_CAPTURE_TAIL_BYTES: Final = 2000

_EXECUTE_CAPTURE_MAX_BYTES: Final = 10 * 1024 * 1024
"""Default cap on the output saved in the sandbox; the rest is drained unsaved and flagged.

Well above any inline budget, so large output is still kept whole; it only bounds runaway output.
"""


def _execute_kwargs(sandbox_type: type, timeout: int | None) -> dict[str, int]:
    """Keyword arguments passing `timeout` on to `execute`, if given and if `execute` takes one.

    Sandboxes written before `timeout` existed must not be handed one.
    """
    if timeout is None or not execute_accepts_timeout(sandbox_type):
        return {}
    return {"timeout": timeout}


def _heredoc_delimiter(command: str) -> str:
    """A heredoc terminator that cannot occur in `command` (80 random bits, redrawn if it does)."""
    while True:
        delimiter = f"__DEEPAGENTS_CMD_{base64.b32encode(os.urandom(10)).decode('ascii').rstrip('=')}__"
        if delimiter not in command:
            return delimiter


def _printf_format(notice: str) -> str:
    """`notice` as a printf format whose one `%s` takes the number the notice reports."""
    return notice.format(captured_bytes="%s")


def _build_capture_execute_cmd(
    command: str, capture_path: str, *, inline_budget: int, max_capture_bytes: int | None = None
) -> str:
    """The wrapper script around `command`; see the module docstring for what it prints.

    Output up to `inline_budget` bytes comes back whole; past `max_capture_bytes` (default
    `_EXECUTE_CAPTURE_MAX_BYTES`) it is no longer saved and the result says so.
    """
    cap = _EXECUTE_CAPTURE_MAX_BYTES if max_capture_bytes is None else max_capture_bytes
    head_n, tail_n = _EXECUTE_CAPTURE_HEAD_LINES, _EXECUTE_CAPTURE_TAIL_LINES
    head_c, tail_c = _EXECUTE_CAPTURE_HEAD_BYTES, _EXECUTE_CAPTURE_TAIL_BYTES
    delimiter = _heredoc_delimiter(command)
    marker = TRUNCATION_MARKER_TEMPLATE.format(omitted_lines="%s")
    meta = f"printf '%s %s %s %s %s\\n' '{_EXECUTE_CAPTURE_SENTINEL}' \"$_dars_rc\""
    # The command runs in a subshell (its `exit` cannot end the wrapper) through eval (so the
    # backend's shell and environment apply), read from a quoted heredoc (no quoting to get
    # wrong). Its output is piped through head -c, then drained by cat: the file never outgrows
    # the cap, yet the command is not killed by SIGPIPE, and its own status goes to a side file
    # since $? after a pipeline belongs to the pipeline.
    prologue = f"""# deepagents-rs capture wrapper: run the command below, keep its output in a sandbox file,
# print it whole when small or a preview of it when large.
# Opt out with BaseSandbox.enable_capture_offload = False.
_dars_out={shlex.quote(capture_path)}
_dars_rc_file="$_dars_out.ec"
mkdir -p "$(dirname "$_dars_out")" 2>/dev/null
_dars_cmd=$(cat <<'{delimiter}'
"""
    epilogue = f"""
{delimiter}
)
{{ ( eval "$_dars_cmd" ); echo "$?" > "$_dars_rc_file"; }} 2>&1 | {{ head -c {cap} > "$_dars_out"; cat > /dev/null; }}
_dars_rc=$(cat "$_dars_rc_file" 2>/dev/null)
rm -f "$_dars_rc_file"
: "${{_dars_rc:=1}}"
_dars_size=$(wc -c < "$_dars_out" 2>/dev/null | tr -d ' ')
: "${{_dars_size:=0}}"
if [ "$_dars_size" -le {inline_budget} ]; then
  {meta} 0 0 0
  cat "$_dars_out"
  rm -f "$_dars_out"
else
  _dars_full=0
  [ "$_dars_size" -ge {cap} ] && _dars_full=1
  _dars_lines=$(wc -l < "$_dars_out" 2>/dev/null | tr -d ' ')
  _dars_surplus=$((${{_dars_lines:-0}} - {head_n + tail_n}))
  {meta} 1 "$_dars_full" "$_dars_surplus"
  if [ "$_dars_surplus" -le 0 ]; then
    # Too few lines to drop a middle: a leading byte excerpt, with a notice when it leaves
    # something out. Once capped, the size is the cap and the saved file is cut as well.
    head -c {head_c + tail_c} "$_dars_out"
    if [ "$_dars_size" -gt {head_c + tail_c} ]; then
      if [ "$_dars_full" -eq 1 ]; then
        printf '\\n{_printf_format(CAPTURE_CLIP_NOTICE_CAPPED)}\\n' "$_dars_size"
      else
        printf '\\n{_printf_format(CAPTURE_CLIP_NOTICE)}\\n' "$_dars_size"
      fi
    fi
  else
    # The byte caps apply before the line caps, so long lines can cut the outer excerpt
    # lines mid-line while the marker only counts whole dropped lines: say so. The notice's
    # leading newline also keeps the marker off a head excerpt with no final newline.
    _dars_head=$(head -n {head_n} "$_dars_out" 2>/dev/null | wc -c | tr -d ' ')
    _dars_tail=$(tail -n {tail_n} "$_dars_out" 2>/dev/null | wc -c | tr -d ' ')
    head -c {head_c} "$_dars_out" | head -n {head_n}
    if [ "${{_dars_head:-0}}" -gt {head_c} ] || [ "${{_dars_tail:-0}}" -gt {tail_c} ]; then
      printf '\\n{CAPTURE_EXCERPT_CLIP_NOTICE}\\n'
    fi
    printf '{marker}\\n' "$_dars_surplus"
    tail -c {tail_c} "$_dars_out" | tail -n {tail_n}
  fi
fi
"""
    # Joined, not formatted: nothing in the command can be taken for part of the wrapper.
    return prologue + command + epilogue


def _parse_capture_execute_output(response: ExecuteResponse) -> ExecuteOffloadResult:
    r"""Split the wrapper's meta line from its body into an `ExecuteOffloadResult`.

    E.g. `__DEEPAGENTS_EXEC_META__ 0 1 0 14\n<head>... [14 lines truncated] ...<tail>`. The
    surplus is the line count (`wc -l`, so an unterminated last line is not counted) minus
    the head and tail lines; above zero, the preview has a truncation marker.

    Output without a well-formed meta line (the wrapper was off, or the transport cut it) is
    returned as is with `offloaded=False`, and logged, since a preview may then pass for the
    whole output; the command must not be run again. `truncated` is set when capture hit its
    cap or the transport truncated.
    """
    first, _, body = response.output.partition("\n")
    as_is = ExecuteOffloadResult(offloaded=False, response=response)
    # Checked before splitting: without the wrapper the first line can be a huge one-liner.
    if not first.startswith(_EXECUTE_CAPTURE_SENTINEL):
        logger.warning("Capture wrapper meta line absent or malformed (no sentinel); returning output unoffloaded")
        return as_is
    words = first.split(" ")
    if len(words) != _EXECUTE_CAPTURE_META_FIELDS or words[0] != _EXECUTE_CAPTURE_SENTINEL:
        logger.warning(
            "Capture wrapper meta line absent or malformed (%d fields, expected %d); returning output unoffloaded",
            len(words),
            _EXECUTE_CAPTURE_META_FIELDS,
        )
        return as_is
    _, exit_word, offloaded_word, capped_word, surplus_word = words
    try:
        exit_code = int(exit_word)
    except ValueError:
        logger.warning(
            "Capture wrapper emitted a non-integer exit code %r; returning output unoffloaded", exit_word[:50]
        )
        return as_is
    # A bad surplus only costs the marker flag; the exit code and cap flag are still good.
    try:
        surplus = int(surplus_word)
    except ValueError:
        logger.warning(
            "Capture wrapper emitted a non-integer preview line surplus %r; assuming no truncation marker",
            surplus_word[:50],
        )
        surplus = 0
    offloaded = offloaded_word == "1"
    return ExecuteOffloadResult(
        offloaded=offloaded,
        response=ExecuteResponse(output=body, exit_code=exit_code, truncated=capped_word == "1" or response.truncated),
        # Both flags come from separate words; a marker only exists on an offloaded preview.
        preview_has_truncation_marker=offloaded and surplus > 0,
    )
