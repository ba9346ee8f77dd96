"""The tests' plugin ``xfail_tracebacks`` changes only what an xfailed test's report carries:
a one-line traceback instead of the full one nobody sees (pytest shows it only under
``--xfail-tb``). Every outcome, and every other report's traceback, is pytest's own."""

from __future__ import annotations

from typing import Any

import pytest

SUITE = """
import pytest

def deep(n):
    if n == 0:
        raise ValueError("the expected failure")
    return deep(n - 1)

@pytest.mark.xfail(reason="known", strict=True)
def test_marked():
    deep(3)

def test_marked_as_it_runs(request):
    request.applymarker(pytest.mark.xfail(reason="known", strict=True))
    deep(3)

@pytest.mark.xfail(raises=KeyError, reason="another exception is raised")
def test_other_exception():
    deep(3)

@pytest.mark.xfail(False, reason="the condition is false")
def test_condition_false():
    deep(3)

@pytest.mark.xfail(reason="passes", strict=True)
def test_passes():
    pass

def test_plain():
    deep(3)
"""

XFAILED = {"test_marked", "test_marked_as_it_runs"}


def _reports(pytester: pytest.Pytester, *args: str) -> dict[str, tuple[str, str]]:
    """Each test's call-phase outcome and traceback text."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_suite=SUITE)
    recorder = pytester.inline_run("-p", "no:cacheprovider", *args)
    out: dict[str, tuple[str, str]] = {}
    for report in recorder.getreports("pytest_runtest_logreport"):
        if report.when == "call":
            name = report.nodeid.split("::")[-1]
            out[name] = (report.outcome, str(report.longrepr) if report.longrepr else "")
    return out


def _source_shown(text: str) -> bool:
    return 'raise ValueError("the expected failure")' in text and "def deep(n):" in text


def test_xfailed_reports_carry_one_line(pytester: pytest.Pytester) -> None:
    reports = _reports(pytester, "-p", "xfail_tracebacks")
    for name in XFAILED:
        outcome, text = reports[name]
        assert outcome == "skipped", (name, outcome)
        assert not _source_shown(text), f"{name}: the full traceback was made:\n{text}"
        assert "ValueError: the expected failure" in text, text


def test_every_outcome_and_failure_is_pytests_own(pytester: pytest.Pytester) -> None:
    ours = _reports(pytester, "-p", "xfail_tracebacks")
    stock = _reports(pytester)
    assert {n: o for n, (o, _) in ours.items()} == {n: o for n, (o, _) in stock.items()}
    failed = {n for n, (o, _) in stock.items() if o == "failed"}
    assert failed == {"test_other_exception", "test_condition_false", "test_plain", "test_passes"}
    for name in failed:
        assert ours[name][1] == stock[name][1], name
        if name != "test_passes":
            assert _source_shown(ours[name][1]), name


def test_xfail_tb_keeps_full_tracebacks(pytester: pytest.Pytester) -> None:
    reports: dict[str, Any] = _reports(pytester, "-p", "xfail_tracebacks", "--xfail-tb")
    for name in XFAILED:
        assert _source_shown(reports[name][1]), name
