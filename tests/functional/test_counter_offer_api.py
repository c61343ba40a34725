"""A refused booking is offered what fits instead (POST /v1/reservations,
409 reserve.no_capacity): the nearest windows of the same shape before
and after the asked start, and the most instances that fit in the asked
window; in the message always, in the error object as counter_offer
since 1.6. Each window offered is booked at once."""
import datetime

import pytest

from reserve.common import timeutils
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import roomy  # noqa: F401
from reserve.db import bookings as bookings_db

URL = '/v1/reservations'
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
GUARD = datetime.timedelta(seconds=60)      # [booking]guard_seconds
LATEST = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.6'})

pytestmark = pytest.mark.usefixtures('roomy', 'casts')


@pytest.fixture
def now():
    return timeutils.utcnow().replace(microsecond=0)


@pytest.fixture
def flavor(api, now):
    """2 slots, bookings of at most 48 h, bookable for the next 30 days."""
    return make_flavor('gpu.a100', slots=2, max_length_hours=48,
                       start=now - DAY, end=now + 30 * DAY)


def _book(api, start, end, count=1, headers=LATEST):
    return api.post_json(URL, {'flavor_id': 'gpu.a100', 'start': iso(start),
                               'end': iso(end), 'instance_count': count},
                         headers=headers, expect_errors=True)


def _parse(text):
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def _offer(response):
    error = assert_error(response, 409, 'reserve.no_capacity')
    return error, response.json['errors'][0]['counter_offer']


def test_a_refusal_offers_the_nearest_windows_either_side(api, flavor, now):
    # Both slots held from +5 h to +7 h.
    assert _book(api, now + 5 * HOUR, now + 7 * HOUR, 2).status_int == 201
    asked = (now + 6 * HOUR, now + 8 * HOUR)
    error, offer = _offer(_book(api, *asked))
    assert offer['flavor_id'] == flavor.id
    assert offer['instance_count'] == 1
    assert offer['max_instance_count'] == 0
    assert offer['free_slots'] == (
        '/v1/flavors/%s/free-slots?instance_count=1' % flavor.id)
    before = [_parse(offer['before'][k]) for k in ('start', 'end')]
    after = [_parse(offer['after'][k]) for k in ('start', 'end')]
    # The same length, the latest before the asked start (ending a guard
    # before the held slots) and the earliest after it.
    assert before == [now + 3 * HOUR - GUARD, now + 5 * HOUR - GUARD]
    assert after == [now + 7 * HOUR + GUARD, now + 9 * HOUR + GUARD]
    # Named in the message, with the REST path to search further.
    for words in ('The nearest windows of this shape that fit',
                  'from %s to %s (earlier)' % (iso(before[0]),
                                               iso(before[1])),
                  'from %s to %s (later)' % (iso(after[0]), iso(after[1])),
                  'GET /v1/flavors/%s/free-slots' % flavor.id):
        assert words in error['detail'], error['detail']
    assert 'openstack' not in error['detail']
    # Each is booked as offered.
    assert _book(api, *after).status_int == 201
    assert _book(api, *before).status_int == 201


def test_the_most_that_fit_in_the_asked_window(api, flavor, now):
    assert _book(api, now + HOUR, now + 3 * HOUR).status_int == 201
    _error, offer = _offer(_book(api, now + 2 * HOUR, now + 4 * HOUR, 2))
    assert offer['max_instance_count'] == 1
    assert offer['instance_count'] == 2
    # Two instances for two hours: none before (the first hour from now
    # is too short), from the end of the held one after.
    assert offer['before'] is None
    assert _parse(offer['after']['start']) == now + 3 * HOUR + GUARD
    assert _book(api, _parse(offer['after']['start']),
                 _parse(offer['after']['end']), 2).status_int == 201


def test_nothing_fits_either_side(api, now):
    # A flavor bookable for six hours, held throughout but the first.
    make_flavor('gpu.a100', slots=1, max_length_hours=48, start=now - DAY,
                end=now + 6 * HOUR)
    assert _book(api, now + HOUR, now + 6 * HOUR).status_int == 201
    error, offer = _offer(_book(api, now + 2 * HOUR, now + 4 * HOUR))
    assert offer['before'] is None and offer['after'] is None
    assert 'No window of this shape fits within 30 days either side' in \
        error['detail']


def test_before_1_6_the_message_says_it_and_the_body_does_not(
        api, flavor, now):
    assert _book(api, now + 5 * HOUR, now + 7 * HOUR, 2).status_int == 201
    response = _book(api, now + 6 * HOUR, now + 8 * HOUR, headers=MEMBER_A)
    error = assert_error(response, 409, 'reserve.no_capacity',
                         ['The nearest windows of this shape that fit'])
    assert 'counter_offer' not in error


def test_a_refusal_writes_nothing(api, flavor, now):
    assert _book(api, now + 5 * HOUR, now + 7 * HOUR, 2).status_int == 201
    before = len(bookings_db.booking_list(admin_context()))
    _offer(_book(api, now + 6 * HOUR, now + 8 * HOUR))
    assert len(bookings_db.booking_list(admin_context())) == before


def _move(api, booking_id, end, headers=LATEST):
    return api.patch_json('%s/%s' % (URL, booking_id), {'end': iso(end)},
                          headers=headers, expect_errors=True)


def test_a_refused_later_end_offers_the_latest_that_fits(api, flavor, now):
    mine = _book(api, now + HOUR, now + 3 * HOUR).json['reservation']
    assert _book(api, now + 5 * HOUR, now + 7 * HOUR, 2).status_int == 201
    error, offer = _offer(_move(api, mine['id'], now + 6 * HOUR))
    # Up to a guard before the two slots are taken.
    assert offer['latest_end'] == iso(now + 5 * HOUR - GUARD)
    assert offer['before'] is None and offer['after'] is None
    assert offer['instance_count'] == 1
    assert 'It can be moved to %s at the latest' % iso(
        now + 5 * HOUR - GUARD) in error['detail']
    moved = _move(api, mine['id'], _parse(offer['latest_end']))
    assert moved.status_int == 200, moved.text
    assert moved.json['reservation']['end'] == offer['latest_end']


def test_a_later_end_that_cannot_move_at_all(api, flavor, now):
    mine = _book(api, now + HOUR, now + 3 * HOUR).json['reservation']
    assert _book(api, now + 3 * HOUR + GUARD, now + 5 * HOUR,
                 2).status_int == 201
    error, offer = _offer(_move(api, mine['id'], now + 4 * HOUR))
    assert offer['latest_end'] is None
    assert 'It cannot be moved any later now' in error['detail']
    # Nothing changed.
    shown = api.get('%s/%s' % (URL, mine['id']), headers=LATEST).json
    assert shown['reservation']['end'] == iso(now + 3 * HOUR)
