"""A refused device reservation is offered what fits instead (POST
/v1/device-reservations, 409 reserve.devices_do_not_fit or
reserve.units_unavailable): the nearest windows of the same request
before and after the asked start, and the most devices that fit in the
asked window; in the message always, in the error object as
counter_offer since 1.11. Each window offered is reserved at once; a
refusal writes nothing; the offer shows no more of another project's
devices than the availability does. A refused later end is offered the
latest end that fits."""
import datetime

import pytest

from reserve.api import microversion
from reserve.common import timeutils
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.devices.reservations import A100
from tests.functional.devices.reservations import counts
from tests.functional.devices.reservations import create
from tests.functional.devices.reservations import URL

HOUR = datetime.timedelta(hours=1)
VERSION = {'OpenStack-API-Version': 'reserve %s' %
           str(microversion.DEVICE_COUNTER_OFFER)}
LATEST = dict(MEMBER_A, **VERSION)
LATEST_B = dict(MEMBER_B, **VERSION)
EARLIER = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve %s' %
                            str(microversion.COUNTER_OFFER)})


@pytest.fixture
def now():
    return timeutils.utcnow().replace(microsecond=0)


def _reserve(gpu_api, body, start, end, headers=LATEST):
    body = dict(body, start=iso(start), end=end and iso(end))
    return create(gpu_api, body, headers=headers, expect_errors=True)


def _refused(response, code='reserve.devices_do_not_fit'):
    error = assert_error(response, 409, code)
    return error, error.get('counter_offer')


def _dates(window):
    return [window['start'] and _parse(window['start']),
            window['end'] and _parse(window['end'])]


def _parse(text):
    return datetime.datetime.fromisoformat(text.rstrip('Z'))


def _book_as_offered(gpu_api, body, window):
    response = create(gpu_api, dict(body, **window), headers=LATEST,
                      expect_errors=True)
    assert response.status_int == 201, response.text
    return response.json['device_reservation']


def test_a_refusal_offers_the_nearest_windows_either_side(gpu_api, a100,
                                                          now):
    # Two of the three free A100s (a domain outside reserve uses the
    # fourth) held from +5 h to +7 h.
    held = _reserve(gpu_api, {'device_count': 2, 'model': A100},
                    now + 5 * HOUR, now + 7 * HOUR)
    assert held.status_int == 201
    before = counts()
    asked = {'device_count': 2, 'model': A100, 'host': 'gpu-box-1'}
    error, offer = _refused(_reserve(gpu_api, asked, now + 6 * HOUR,
                                     now + 8 * HOUR))
    assert counts() == before
    assert offer['device_count'] == 2 and offer['device_ids'] is None
    assert (offer['model'], offer['host'], offer['numa_local'],
            offer['mdev_type']) == (A100, 'gpu-box-1', False, None)
    assert offer['max_device_count'] == 1
    # The same length, the latest ending where the held ones start and
    # the earliest starting where they end.
    assert _dates(offer['before']) == [now + 3 * HOUR, now + 5 * HOUR]
    assert _dates(offer['after']) == [now + 7 * HOUR, now + 9 * HOUR]
    path = ('/v1/devices/availability?model=A100+SXM4+80GB&host=gpu-box-1')
    assert offer['availability'] == path
    for words in ('The nearest windows of this shape that fit',
                  'from %s to %s (earlier)' % (offer['before']['start'],
                                               offer['before']['end']),
                  'from %s to %s (later)' % (offer['after']['start'],
                                             offer['after']['end']),
                  'GET %s' % path):
        assert words in error['detail'], error['detail']
    # Each is reserved as offered.
    for side in ('before', 'after'):
        rsv = _book_as_offered(gpu_api, asked, offer[side])
        assert (rsv['start'], rsv['end']) == (offer[side]['start'],
                                              offer[side]['end'])
        assert len(rsv['devices']) == 2


def test_numa_locality_is_kept(gpu_api, a100, now):
    # One A100 of NUMA node 0 and the free one of node 1 held: two on
    # one node fit nowhere then, though one is free on node 0.
    for address in ('0000:17:00.0', '0000:b1:00.0'):
        assert _reserve(gpu_api, {'device_ids': [gpu_api.device(
            a100, address)]}, now + 3 * HOUR, now + 5 * HOUR).status_int \
            == 201
    asked = {'device_count': 2, 'model': A100, 'numa_local': True}
    error, offer = _refused(_reserve(gpu_api, asked, now + 4 * HOUR,
                                     now + 6 * HOUR))
    assert offer['numa_local'] is True and offer['max_device_count'] == 1
    assert offer['availability'].endswith('numa_local=true')
    assert _dates(offer['before']) == [now + HOUR, now + 3 * HOUR]
    assert _dates(offer['after']) == [now + 5 * HOUR, now + 7 * HOUR]
    for side in ('before', 'after'):
        rsv = _book_as_offered(gpu_api, asked, offer[side])
        assert [d['numa_node'] for d in rsv['devices']] == [0, 0]


def test_named_devices_are_offered_when_they_are_free(gpu_api, a100, now):
    device = gpu_api.device(a100, '0000:b1:00.0')
    assert _reserve(gpu_api, {'device_ids': [device]}, now + 5 * HOUR,
                    now + 6 * HOUR).status_int == 201
    asked = {'device_ids': [device, gpu_api.device(a100, '0000:17:00.0')]}
    error, offer = _refused(_reserve(gpu_api, asked, now + 4 * HOUR,
                                     now + 7 * HOUR),
                            'reserve.units_unavailable')
    assert offer['device_ids'] == asked['device_ids']
    assert offer['device_count'] == 2 and offer['max_device_count'] == 1
    assert _dates(offer['before']) == [now + 2 * HOUR, now + 5 * HOUR]
    assert _dates(offer['after']) == [now + 6 * HOUR, now + 9 * HOUR]
    for side in ('before', 'after'):
        rsv = _book_as_offered(gpu_api, asked, offer[side])
        assert sorted(rsv['device_ids']) == sorted(asked['device_ids'])


def test_an_open_ended_request_is_offered_an_open_ended_window(
        gpu_api, a100, now):
    assert _reserve(gpu_api, {'device_count': 3, 'model': A100},
                    now + 5 * HOUR, now + 7 * HOUR).status_int == 201
    asked = {'device_count': 1, 'model': A100}
    error, offer = _refused(_reserve(gpu_api, asked, now + HOUR, None))
    assert offer['before'] is None
    assert _dates(offer['after']) == [now + 7 * HOUR, None]
    assert 'from %s, open-ended (later)' % offer['after']['start'] in \
        error['detail']
    rsv = _book_as_offered(gpu_api, asked, offer['after'])
    assert rsv['end'] is None and len(rsv['devices']) == 1


def test_nothing_fits_either_side(gpu_api, a100, now):
    error, offer = _refused(_reserve(
        gpu_api, {'device_count': 4, 'model': A100}, now + HOUR,
        now + 2 * HOUR))
    assert (offer['before'], offer['after']) == (None, None)
    assert offer['max_device_count'] == 3
    assert 'No window of this shape fits within 30 days either side' in \
        error['detail']


def test_below_the_version_the_message_says_it(gpu_api, a100, now):
    assert _reserve(gpu_api, {'device_count': 3, 'model': A100},
                    now + 5 * HOUR, now + 7 * HOUR).status_int == 201
    response = _reserve(gpu_api, {'device_count': 1, 'model': A100},
                        now + 6 * HOUR, now + 8 * HOUR, headers=EARLIER)
    error, offer = _refused(response)
    assert offer is None
    assert 'from %s to %s (later)' % (iso(now + 7 * HOUR),
                                      iso(now + 9 * HOUR)) in error['detail']


def test_another_projects_devices_are_not_revealed(gpu_api, a100, now):
    # project-b holds an A100 from now on until +3 h: project-a does not
    # see it at all (nor in the availability), so no window that needs
    # it is offered, even after its end.
    theirs = _reserve(gpu_api, {'device_ids': [gpu_api.device(
        a100, '0000:17:00.0')]}, now, now + 3 * HOUR, headers=LATEST_B)
    assert theirs.status_int == 201
    theirs = theirs.json['device_reservation']
    # ...and a second one later, which project-a sees only as a device
    # reserved over a window.
    later = _reserve(gpu_api, {'device_ids': [gpu_api.device(
        a100, '0000:b1:00.0')]}, now + 10 * HOUR, now + 12 * HOUR,
        headers=LATEST_B).json['device_reservation']
    asked = {'device_count': 3, 'model': A100}
    error, offer = _refused(_reserve(gpu_api, asked, now + 4 * HOUR,
                                     now + 5 * HOUR))
    assert (offer['before'], offer['after'], offer['max_device_count']) \
        == (None, None, 2)
    free = gpu_api.app.get('/v1/devices/availability', {
        'start': iso(now + 4 * HOUR), 'end': iso(now + 5 * HOUR)},
        headers=MEMBER_A).json['availability']
    assert [f['free'] for f in free] == [2]
    asked = {'device_count': 2, 'model': A100}
    error, offer = _refused(_reserve(gpu_api, asked, now + 11 * HOUR,
                                     now + 13 * HOUR))
    assert _dates(offer['after']) == [now + 12 * HOUR, now + 14 * HOUR]
    assert _dates(offer['before']) == [now + 8 * HOUR, now + 10 * HOUR]
    for rsv in (theirs, later):
        assert rsv['id'] not in error['detail']
        assert rsv['id'] not in str(offer)


def test_a_later_end_is_offered_the_latest_that_fits(gpu_api, a100, now):
    device = gpu_api.device(a100, '0000:17:00.0')
    mine = _reserve(gpu_api, {'device_ids': [device]}, now + HOUR,
                    now + 3 * HOUR).json['device_reservation']
    assert _reserve(gpu_api, {'device_ids': [device]}, now + 5 * HOUR,
                    now + 7 * HOUR).status_int == 201
    gpu_api.tick()
    url = '%s/%s' % (URL, mine['id'])
    admin = dict(ADMIN, **VERSION)
    response = gpu_api.app.patch_json(url, {'end': iso(now + 6 * HOUR)},
                                      headers=admin, expect_errors=True)
    error, offer = _refused(response, 'reserve.units_unavailable')
    assert offer['latest_end'] == iso(now + 5 * HOUR)
    assert offer['device_ids'] == [device]
    assert 'It can be moved to %s at the latest' % iso(now + 5 * HOUR) in \
        error['detail']
    moved = gpu_api.app.patch_json(url, {'end': offer['latest_end']},
                                   headers=admin).json['device_reservation']
    assert moved['end'] == offer['latest_end']
    # Now not a second more fits; open-ended neither.
    for end in (iso(now + 6 * HOUR), None):
        error, offer = _refused(gpu_api.app.patch_json(
            url, {'end': end}, headers=admin, expect_errors=True),
            'reserve.units_unavailable')
        assert offer['latest_end'] is None
        assert 'It cannot be moved any later now.' in error['detail']
