"""Fixtures every functional test module sees."""
import pytest


@pytest.fixture
def api_overrides():
    """More (option, value, group) overrides of the API under test
    (api_fixtures.api); a test module overrides this fixture to change
    them."""
    # A scrape reads the database's figures itself: a test sees what it
    # just wrote (test_metrics_read_ahead.py tests the default).
    return [('read_ahead', False, 'metrics')]
