"""/metrics with the database's figures read one scrape ahead, the
default ([metrics] read_ahead): a change shows at the second scrape
after it, never later, and the age of the figures is exported."""
import pytest

from tests.functional.api_fixtures import *  # noqa: F401,F403
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import make_flavor
from tests.functional.test_metrics_api import scrape


@pytest.fixture
def api_overrides():
    return []


def _offered(found, name):
    return [labels for labels in found.labels_of(
        'reserve_flavor_offered_instances') if labels['flavor_name'] == name]


def test_a_new_flavor_shows_by_the_second_scrape(api):
    first = scrape(api)
    # Read at the scrape: as old as the read took.
    assert first.value('reserve_metrics_database_age_seconds') < 5
    assert first.value('reserve_metrics_database_up') == 1
    assert not _offered(first, 'gpu.h100')
    make_flavor('gpu.h100')
    # The read the first scrape started may have begun before the
    # flavor was written: the second scrape may not show it yet.
    second = scrape(api)
    assert second.value('reserve_metrics_database_age_seconds') > 0
    third = scrape(api)
    assert _offered(third, 'gpu.h100')
    assert third.value('reserve_metrics_database_up') == 1


def test_the_api_counters_are_not_read_ahead(api):
    before = scrape(api)
    api.get('/v1', headers=ADMIN)
    found = scrape(api)
    assert found.delta(before, 'reserve_api_request_duration_seconds_count',
                       method='GET', route='/v1', status='200') == 1
