import pytest

from engines import knobs


@pytest.fixture(autouse=True)
def _nothing_left_in_force():
    """A test's settings in force never reach the next test (an engine made without the registry)."""
    yield
    knobs._IN_FORCE.clear()
    knobs._FROM.clear()
