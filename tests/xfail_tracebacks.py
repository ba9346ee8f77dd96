"""A pytest plugin (``tests/conftest.py`` loads it): the failure of an xfail-marked test is
reported with a one-line traceback, and with the full one wherever the test is not xfailed
after all.

pytest formats every failure's traceback before it knows an xfail applies, and shows an
xfailed test's traceback only under ``--xfail-tb``. For the deepagents parameters of
test_fs_security, whose exceptions come up through ~35 frames of LangGraph, that formatting
(parsing each frame's module to find its statement) took 1-5 s per test: ~260 s of worker
time in a loaded two-worker run, for text nobody sees. The verdicts stay pytest's own: this
changes only what an xfailed report carries.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest


def _one_line_repr(excinfo: pytest.ExceptionInfo[BaseException]) -> object:
    return excinfo.getrepr(style="line")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """After the test, when its xfail marks are known (tests add them as they run, with
    ``request.applymarker``), a one-line ``repr_failure`` stands in for the item's own."""
    try:
        return (yield)
    finally:
        config = item.config
        if not (config.option.xfail_tb or config.option.runxfail) and item.get_closest_marker("xfail") is not None:
            item.repr_failure = _one_line_repr  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Around pytest's report and its xfail verdict (tryfirst: outermost, so the outcome seen
    after the yield is final): the item gets its own ``repr_failure`` back, and a failure the
    xfail did not cover (another exception than its ``raises``, a false condition) the
    traceback pytest would have given it."""
    report = yield
    if "repr_failure" in vars(item):
        del item.repr_failure
        if report.failed and call.excinfo is not None:
            report.longrepr = item.repr_failure(call.excinfo)
    return report
