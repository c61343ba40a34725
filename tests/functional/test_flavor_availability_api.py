"""/v1/flavors: a flavor's free slots and the catalogue's availability."""
import datetime
import urllib.parse

import pytest

from reserve.common import states
from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import catalogue  # noqa: F401
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A

URL = '/v1/flavors'
HOUR = datetime.timedelta(hours=1)
GUARD = datetime.timedelta(seconds=60)

pytestmark = pytest.mark.usefixtures('roomy')


# Free slots ------------------------------------------------------------------

def _free(api, flavor, start, end, count=None, headers=MEMBER_A):
    query = {'start': iso(start), 'end': iso(end)}
    if count:
        query['instance_count'] = count
    path = '%s/%s/free-slots?%s' % (URL, flavor,
                                    urllib.parse.urlencode(query))
    return api.get(path, headers=headers, expect_errors=True)


def test_free_slots(api, casts):
    flavor = make_flavor('gpu.a100', slots=3)
    now = timeutils.utcnow()
    make_booking(flavor_id='gpu.a100', instance_count=2,
                 start=now + 2 * HOUR, end=now + 4 * HOUR)
    make_booking(flavor_id='gpu.a100', instance_count=1,
                 start=now + 3 * HOUR, end=now + 5 * HOUR,
                 status=states.Booking.ACTIVE)
    # Finished bookings hold nothing.
    make_booking(flavor_id='gpu.a100', instance_count=3,
                 start=now + HOUR, end=now + 6 * HOUR,
                 status=states.Booking.ERROR)
    start, end = now + HOUR, now + 6 * HOUR
    one = _free(api, 'gpu.a100', start, end).json
    assert one['flavor_id'] == flavor.id
    assert one['instance_count'] == 1
    assert one['free_slots'] == [
        {'start': iso(start), 'end': iso(now + 3 * HOUR - GUARD)},
        {'start': iso(now + 4 * HOUR + GUARD), 'end': iso(end)}]
    # Two fit while at most one instance is held.
    two = _free(api, flavor.id, start, end, count=2).json['free_slots']
    assert two == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 4 * HOUR + GUARD), 'end': iso(end)}]
    three = _free(api, flavor.id, start, end, count=3).json['free_slots']
    assert three == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 5 * HOUR + GUARD), 'end': iso(end)}]
    assert _free(api, 'gpu.a100', start, end,
                 count=4).json['free_slots'] == []


def test_free_slots_start_no_earlier_than_now_and_the_flavor(api):
    now = timeutils.utcnow()
    make_flavor('gpu.a100', start=now + 2 * HOUR,
                end=now + 3 * HOUR)
    gaps = _free(api, 'gpu.a100', now - 5 * HOUR,
                 now + 9 * HOUR).json['free_slots']
    assert gaps == [{'start': iso(now + 2 * HOUR),
                     'end': iso(now + 3 * HOUR)}]
    make_flavor('gpu.open')
    gaps = _free(api, 'gpu.open', now - 5 * HOUR,
                 now + HOUR).json['free_slots']
    assert gaps[0]['start'] >= iso(now)


def test_free_slots_defaults(api):
    make_flavor('gpu.a100')
    answer = api.get(URL + '/gpu.a100/free-slots', headers=MEMBER_A).json
    start = datetime.datetime.fromisoformat(answer['start'][:-1])
    end = datetime.datetime.fromisoformat(answer['end'][:-1])
    assert end - start == datetime.timedelta(days=30)
    assert answer['instance_count'] == 1
    assert answer['free_slots'] == [{'start': answer['start'],
                                     'end': answer['end']}]


@pytest.mark.parametrize('query,words', [
    ('instance_count=0', ['instance_count', 'positive integer']),
    ('instance_count=two', ['instance_count']),
    ('start=2099-01-02T00:00:00Z&end=2099-01-01T00:00:00Z',
     ["'end'", "after 'start'"]),
    ('start=2099-01-01T00:00:00Z&end=2109-01-01T00:00:00Z',
     ['longer than 731 days']),
    ('start=soon', ['start', 'not an ISO 8601']),
    ('flavor=x', ["unknown query parameter 'flavor'"]),
])
def test_free_slots_invalid_is_400(api, query, words):
    make_flavor('gpu.a100')
    response = api.get(URL + '/gpu.a100/free-slots?' + query,
                       headers=MEMBER_A, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', words)


def test_free_slots_of_an_inactive_flavor_are_none(api):
    make_flavor('gpu.a100', active=False)
    now = timeutils.utcnow()
    assert _free(api, 'gpu.a100', now, now + HOUR,
                 headers=ADMIN).json['free_slots'] == []


def test_free_slots_show_maintenance_unless_the_caller_bypasses_it(api):
    make_flavor('gpu.a100')
    now = timeutils.utcnow()
    api.post_json('/v1/maintenance-windows', {
        'start': iso(now + 2 * HOUR), 'end': iso(now + 3 * HOUR),
        'flavors': ['gpu.a100']}, headers=ADMIN)
    start, end = now + HOUR, now + 4 * HOUR
    assert _free(api, 'gpu.a100', start, end).json['free_slots'] == [
        {'start': iso(start), 'end': iso(now + 2 * HOUR - GUARD)},
        {'start': iso(now + 3 * HOUR + GUARD), 'end': iso(end)}]
    assert _free(api, 'gpu.a100', start, end,
                 headers=ADMIN).json['free_slots'] == [
        {'start': iso(start), 'end': iso(end)}]


# Availability ----------------------------------------------------------------

def _availability(api, headers=MEMBER_A, **query):
    path = URL + '/availability'
    if query:
        path += '?' + urllib.parse.urlencode(
            {k: iso(v) if isinstance(v, datetime.datetime) else v
             for k, v in query.items()})
    return api.get(path, headers=headers, expect_errors=True)


def test_availability_now_and_over_a_window(api, catalogue):
    now = timeutils.utcnow()
    a100 = make_flavor('gpu.a100', slots=4, category='gpu')
    make_booking(flavor_id='gpu.a100', instance_count=3,
                 start=now - HOUR, end=now + HOUR,
                 status=states.Booking.ACTIVE)
    make_booking(flavor_id='gpu.a100', instance_count=2,
                 start=now + 2 * HOUR, end=now + 3 * HOUR)
    make_booking(flavor_id='gpu.a100', instance_count=4,
                 start=now - HOUR, end=now + 3 * HOUR,
                 status=states.Booking.COMPLETE)

    answer = _availability(api).json
    assert (answer['start'], answer['end']) == (None, None)
    by_name = {a['name']: a for a in answer['availability']}
    # Exactly the flavors project-a may book.
    assert sorted(by_name) == ['a-public', 'c-private-a', 'gpu.a100']
    assert by_name['gpu.a100'] == {
        'flavor_id': a100.id, 'name': 'gpu.a100',
        'nova_flavor_id': 'gpu.a100', 'category': 'gpu',
        'availability_zone': None, 'active': True, 'slots': 4,
        'gpus': None, 'total': 4, 'available': 1}
    assert by_name['a-public']['available'] == 10

    def available(start, end):
        listed = _availability(api, start=start, end=end,
                               category='gpu').json['availability']
        assert [a['name'] for a in listed] == ['gpu.a100']
        return listed[0]['available']

    assert available(now + HOUR + HOUR / 2, now + 2 * HOUR) == 4
    assert available(now, now + 3 * HOUR) == 1        # the worst instant
    assert available(now + 2 * HOUR, now + 4 * HOUR) == 2
    # Within the guard after the end, the slots are still held.
    assert available(now + HOUR, now + HOUR + GUARD) == 1
    assert available(now + HOUR + GUARD, now + 2 * HOUR) == 4


def test_availability_counts_maintenance_as_full(api):
    now = timeutils.utcnow()
    make_flavor('gpu.a100', slots=4)
    api.post_json('/v1/maintenance-windows', {
        'start': iso(now + HOUR), 'end': iso(now + 2 * HOUR),
        'all_flavors': True}, headers=ADMIN)
    listed = _availability(api, start=now + HOUR / 2,
                           end=now + HOUR).json['availability']
    assert listed[0]['available'] == 4
    listed = _availability(api, start=now + HOUR / 2,
                           end=now + 3 * HOUR).json['availability']
    assert listed[0]['available'] == 0


def test_availability_is_live(api):
    """No cache: a booking shows at once, its cancellation too."""
    now = timeutils.utcnow()
    make_flavor('gpu.a100', slots=2)

    def available():
        return _availability(api, start=now + HOUR,
                             end=now + 2 * HOUR).json['availability'][0][
            'available']

    assert available() == 2
    booking = make_booking(flavor_id='gpu.a100', instance_count=2,
                           start=now + HOUR, end=now + 2 * HOUR)
    assert available() == 0
    api.delete('/v1/reservations/%s' % booking.id, headers=MEMBER_A)
    assert available() == 2


def test_availability_of_administrators_lists_every_flavor(api, catalogue):
    names = [a['name'] for a in _availability(
        api, headers=ADMIN).json['availability']]
    assert names == ['a-public', 'b-inactive', 'c-private-a', 'd-private-b',
                     'e-private-none']


@pytest.mark.parametrize('query,words', [
    ({'start': '2099-01-01T00:00:00Z'}, ['go together']),
    ({'start': '2099-01-02T00:00:00Z', 'end': '2099-01-01T00:00:00Z'},
     ['after']),
    ({'when': 'now'}, ["unknown query parameter 'when'"]),
])
def test_availability_invalid_is_400(api, query, words):
    assert_error(_availability(api, **query), 400, 'reserve.invalid', words)
