"""The harness's asserts get pytest's detailed diffs."""

import pytest

pytest.register_assert_rewrite("parity.harness")
