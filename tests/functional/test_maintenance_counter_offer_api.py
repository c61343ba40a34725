"""A booking refused for maintenance (409 reserve.maintenance) is
offered what fits instead, as one refused for capacity is: the nearest
windows of the same shape clear of the maintenance, before and after the
asked start, none of the instances in the asked window; a later end into
maintenance is offered the latest end before it. In the message always,
as counter_offer since 1.11."""
import datetime

import pytest

from reserve.api import microversion
from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import roomy  # noqa: F401

URL = '/v1/reservations'
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
GUARD = datetime.timedelta(seconds=60)      # [booking]guard_seconds
LATEST = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve %s' % (
    microversion.DEVICE_COUNTER_OFFER,)})
EARLIER = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve %s' % (
    microversion.COUNTER_OFFER,)})

pytestmark = pytest.mark.usefixtures('roomy', 'casts')


@pytest.fixture
def now():
    return timeutils.utcnow().replace(microsecond=0)


@pytest.fixture
def flavor(api, now):
    flavor = make_flavor('gpu.a100', slots=2, max_length_hours=48,
                         start=now - DAY, end=now + 30 * DAY)
    # Maintenance from +5 h to +7 h.
    assert api.post_json('/v1/maintenance-windows', {
        'start': iso(now + 5 * HOUR), 'end': iso(now + 7 * HOUR),
        'flavors': ['gpu.a100'], 'note': 'firmware'},
        headers=ADMIN).status_int == 201
    return flavor


def _book(api, start, end, headers=LATEST):
    return api.post_json(URL, {'flavor_id': 'gpu.a100', 'start': iso(start),
                               'end': iso(end)},
                         headers=headers, expect_errors=True)


def _parse(text):
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def test_a_booking_into_maintenance_is_offered_the_windows_around_it(
        api, flavor, now):
    response = _book(api, now + 6 * HOUR, now + 8 * HOUR)
    error = assert_error(response, 409, 'reserve.maintenance')
    offer = error['counter_offer']
    assert offer['max_instance_count'] == 0
    before = [_parse(offer['before'][k]) for k in ('start', 'end')]
    after = [_parse(offer['after'][k]) for k in ('start', 'end')]
    assert before == [now + 3 * HOUR - GUARD, now + 5 * HOUR - GUARD]
    assert after == [now + 7 * HOUR + GUARD, now + 9 * HOUR + GUARD]
    for words in ('overlaps maintenance of flavor gpu.a100',
                  'from %s to %s (earlier)' % (offer['before']['start'],
                                               offer['before']['end']),
                  'GET /v1/flavors/%s/free-slots' % flavor.id):
        assert words in error['detail'], error['detail']
    for side in ('before', 'after'):
        booked = _book(api, _parse(offer[side]['start']),
                       _parse(offer[side]['end']))
        assert booked.status_int == 201, booked.text


def test_below_1_7_the_message_says_it(api, flavor, now):
    error = assert_error(_book(api, now + 6 * HOUR, now + 8 * HOUR,
                               headers=EARLIER), 409, 'reserve.maintenance')
    assert 'counter_offer' not in error
    assert 'The nearest windows of this shape that fit' in error['detail']


def test_a_later_end_into_maintenance_is_offered_the_latest_before_it(
        api, flavor, now):
    booking = _book(api, now + HOUR, now + 3 * HOUR).json['reservation']
    url = '%s/%s' % (URL, booking['id'])
    error = assert_error(api.patch_json(url, {'end': iso(now + 6 * HOUR)},
                                        headers=LATEST, expect_errors=True),
                         409, 'reserve.maintenance')
    latest = error['counter_offer']['latest_end']
    assert _parse(latest) <= now + 5 * HOUR - GUARD
    assert _parse(latest) > now + 5 * HOUR - GUARD - 2 * datetime.timedelta(
        minutes=1)
    assert 'It can be moved to %s at the latest' % latest in error['detail']
    moved = api.patch_json(url, {'end': latest}, headers=LATEST)
    assert moved.json['reservation']['end'] == latest
