"""Lines around grep matches, read back from disk after the search.

Neither ripgrep's stream nor the Rust walk keeps the lines around a match, so the ones
asked for are read again afterwards, in a single pass over each matched file.
"""

from bisect import bisect_left, bisect_right
from collections.abc import Iterable

from deepagents_rs.backends.protocol import ContextLine, GrepMatch


def group_by_path(matches: list[GrepMatch]) -> dict[str, list[GrepMatch]]:
    """The matches of each file, files in order of first appearance."""
    grouped: dict[str, list[GrepMatch]] = {}
    for match in matches:
        grouped.setdefault(match["path"], []).append(match)
    return grouped


def wanted_ranges(line_numbers: Iterable[int], radius: int) -> list[tuple[int, int]]:
    """The inclusive line spans within `radius` of the given lines, ascending, touching spans merged."""
    spans: list[tuple[int, int]] = []
    for number in sorted(line_numbers):
        first, last = max(1, number - radius), number + radius
        if spans and first <= spans[-1][1] + 1:
            earlier_first, earlier_last = spans.pop()
            first, last = earlier_first, max(earlier_last, last)
        spans.append((first, last))
    return spans


def lines_in_ranges(lines: Iterable[str], spans: list[tuple[int, int]]) -> dict[int, str]:
    """The lines (numbered from 1, end of line removed) that fall in the ascending `spans`.

    Reading stops after the last span, so a long file is only read as far as needed.
    """
    kept: dict[int, str] = {}
    pending = iter(spans)
    span = next(pending, None)
    for number, line in enumerate(lines, 1):
        while span is not None and number > span[1]:
            span = next(pending, None)
        if span is None:
            break
        if number >= span[0]:
            # A lone "\r" is text here, as it is to ripgrep; only "\n" and "\r\n" end a line.
            kept[number] = line[:-2] if line.endswith("\r\n") else line.removesuffix("\n")
    return kept


def attach(file_matches: list[GrepMatch], lines: dict[int, str], radius: int, pattern: str) -> None:
    """Give each match of one file its `context_before` and `context_after`.

    A line that holds the pattern is a match in its own right (perhaps one the cap left
    out), so it never appears as context.
    """
    matched = {match["line"] for match in file_matches}
    usable: list[ContextLine] = [
        {"line": number, "text": text}
        for number, text in sorted(lines.items())
        if number not in matched and pattern not in text
    ]
    numbers = [item["line"] for item in usable]
    for match in file_matches:
        at = match["line"]
        # `at` itself is never in `numbers`, so one cut splits before from after.
        cut = bisect_left(numbers, at)
        match["context_before"] = usable[bisect_left(numbers, max(1, at - radius)) : cut]
        match["context_after"] = usable[cut : bisect_right(numbers, at + radius)]
