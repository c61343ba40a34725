"""GET /v1/calendar (1.5): a flavor's and a host's rows of bars, who sees
what, the free capacity, and bad input."""
import datetime
import urllib.parse

import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import roomy  # noqa: F401

URL = '/v1/calendar'
HOUR = datetime.timedelta(hours=1)
GUARD = datetime.timedelta(seconds=60)
V15 = {'OpenStack-API-Version': 'reserve 1.5'}

pytestmark = pytest.mark.usefixtures('roomy')


def _get(api, headers=MEMBER_A, version=V15, **query):
    path = '%s?%s' % (URL, urllib.parse.urlencode(query))
    return api.get(path, headers=dict(headers, **version),
                   expect_errors=True)


def _window():
    start = timeutils.utcnow().replace(microsecond=0) + HOUR
    return start, start + 24 * HOUR


def test_a_flavor_s_bookings_on_its_slots_others_busy(api):
    flavor = make_flavor('gpu.a100', slots=3)
    start, end = _window()
    mine = make_booking(instance_count=2, start=start + HOUR,
                        end=start + 3 * HOUR, status=states.Booking.ALLOCATED)
    make_booking(project='project-b', user='bob', instance_count=1,
                 start=start + 2 * HOUR, end=start + 5 * HOUR)
    # Cancelled before its start: it never held its window.
    make_booking(start=start, end=start + 4 * HOUR,
                 status=states.Booking.PENDING_CREATE,
                 closed_as=states.Booking.COMPLETE)
    cal = _get(api, flavor_id='gpu.a100', start=iso(start),
               end=iso(end)).json['calendar']
    assert cal['view'] == 'flavor'
    assert cal['subject'] == {'id': flavor.id, 'name': 'gpu.a100',
                              'slots': 3}
    assert (cal['start'], cal['end']) == (iso(start), iso(end))
    assert [r['label'] for r in cal['rows']] == ['slot 1', 'slot 2',
                                                 'slot 3']
    bars = [b for r in cal['rows'] for b in r['bars']]
    own = [b for b in bars if b['own']]
    assert len(own) == 2    # two instances: one bar on each of two rows
    assert {(b['id'], b['status'], b['count']) for b in own} == {
        (mine.id, 'ALLOCATED', 2)}
    other = [b for b in bars if not b['own']]
    assert len(other) == 1
    assert other[0]['status'] == 'busy'
    assert 'id' not in other[0] and 'project_id' not in other[0]
    assert (other[0]['start'], other[0]['end']) == (
        iso(start + 2 * HOUR), iso(start + 5 * HOUR))
    # The other project's booking is on the row mine left free.
    assert [len(r['bars']) for r in cal['rows']] == [1, 1, 1]
    # Free: 3, then 1 while mine holds two, 0 when both do, ...
    assert [(f['start'], f['free']) for f in cal['free']] == [
        (iso(start), 3),
        (iso(start + HOUR), 1),
        (iso(start + 2 * HOUR), 0),
        (iso(start + 3 * HOUR + GUARD), 2),
        (iso(start + 5 * HOUR + GUARD), 3)]
    assert cal['free'][-1]['end'] == iso(end)
    assert 'busy' in cal['statuses'] and 'ACTIVE' in cal['statuses']


def test_an_administrator_sees_every_booking_as_it_is(api):
    make_flavor('gpu.a100', slots=2)
    start, end = _window()
    theirs = make_booking(project='project-b', user='bob',
                          start=start + HOUR, end=start + 2 * HOUR)
    cal = _get(api, headers=ADMIN, flavor_id='gpu.a100', start=iso(start),
               end=iso(end)).json['calendar']
    bar, = [b for r in cal['rows'] for b in r['bars']]
    assert (bar['id'], bar['project_id'], bar['status'], bar['own']) == (
        theirs.id, 'project-b', 'PENDING_CREATE', False)


def test_maintenance_covers_every_row_and_frees_nothing(api):
    flavor = make_flavor('gpu.a100', slots=2)
    start, end = _window()
    r = api.post_json('/v1/maintenance-windows', {
        'start': iso(start + 4 * HOUR), 'end': iso(start + 6 * HOUR),
        'flavors': [flavor.id], 'note': 'firmware'}, headers=ADMIN)
    assert r.status_int == 201, r.json
    cal = _get(api, flavor_id=flavor.id, start=iso(start),
               end=iso(end)).json['calendar']
    for row in cal['rows']:
        assert row['bars'] == [{'kind': 'maintenance',
                                'start': iso(start + 4 * HOUR),
                                'end': iso(start + 6 * HOUR),
                                'note': 'firmware'}]
    assert [(f['start'], f['free']) for f in cal['free']] == [
        (iso(start), 2), (iso(start + 4 * HOUR), 0),
        (iso(start + 6 * HOUR + GUARD), 2)]


def test_ended_bookings_keep_their_status_and_the_range_defaults(api):
    make_flavor('gpu.a100', slots=1)
    now = timeutils.utcnow()
    make_booking(start=now - 3 * HOUR, end=now - HOUR,
                 status=states.Booking.COMPLETE)
    cal = _get(api, flavor_id='gpu.a100', start=iso(now - 4 * HOUR),
               end=iso(now)).json['calendar']
    bar, = cal['rows'][0]['bars']
    assert bar['status'] == 'COMPLETE'
    cal = _get(api, flavor_id='gpu.a100').json['calendar']
    start = datetime.datetime.fromisoformat(cal['start'].rstrip('Z'))
    end = datetime.datetime.fromisoformat(cal['end'].rstrip('Z'))
    assert end - start == datetime.timedelta(days=7)
    assert cal['now'] == cal['start']


def test_a_nova_host_s_gpus_hold_the_bookings_allocated_there(api):
    make_flavor('gpu.a100', slots=4)
    host = hosts_db.host_list(admin_context())[0]
    start, end = _window()
    r = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(start + HOUR),
        'end': iso(start + 2 * HOUR), 'instance_count': 2},
        headers=MEMBER_A)
    assert r.status_int == 201, r.json
    booking = r.json['reservation']
    r = api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(start + HOUR),
        'end': iso(start + 3 * HOUR), 'instance_count': 1},
        headers=MEMBER_B)
    assert r.status_int == 201, r.json
    cal = _get(api, headers=MEMBER_A, host_id=host.name, start=iso(start),
               end=iso(end)).json['calendar']
    assert cal['view'] == 'host'
    assert cal['subject'] == {'id': host.id, 'name': host.name,
                              'kind': 'nova'}
    # The roomy host records no GPUs: a row per instance held at once.
    assert [r['label'] for r in cal['rows']] == [
        'instance 1', 'instance 2', 'instance 3']
    bars = [b for r in cal['rows'] for b in r['bars']]
    assert sorted((b['own'], b['status']) for b in bars) == [
        (False, 'busy'), (True, 'PENDING_CREATE'), (True, 'PENDING_CREATE')]
    assert {b['id'] for b in bars if b['own']} == {booking['id']}


def test_bad_input_is_a_clear_400_and_unknown_is_404(api):
    make_flavor('gpu.a100')
    start, end = _window()
    assert_error(_get(api), 400, detail_has=['flavor_id', 'host_id'])
    assert_error(_get(api, flavor_id='gpu.a100', host_id='x'), 400)
    assert_error(_get(api, flavor_id='gpu.a100', start=iso(end),
                      end=iso(start)), 400)
    assert_error(_get(api, flavor_id='gpu.a100', start=iso(start),
                      end=iso(start + 94 * 24 * HOUR)), 400,
                 detail_has=['93 days'])
    assert_error(_get(api, flavor_id='gpu.a100', start='tuesday'), 400)
    assert_error(_get(api, flavor_id='gpu.a100', colour='red'), 400)
    assert_error(_get(api, flavor_id='no-such-flavor'), 404)
    assert_error(_get(api, host_id='no-such-host'), 404)


def test_a_private_flavor_is_not_found_by_others(api):
    make_flavor('gpu.private', is_public=False, projects=['project-b'])
    assert_error(_get(api, headers=MEMBER_A, flavor_id='gpu.private'), 404)
    assert _get(api, headers=MEMBER_B,
                flavor_id='gpu.private').status_int == 200


def test_below_1_5_there_is_no_calendar(api):
    make_flavor('gpu.a100')
    response = _get(api, flavor_id='gpu.a100',
                    version={'OpenStack-API-Version': 'reserve 1.4'})
    assert response.status_int == 404
    assert _get(api, flavor_id='gpu.a100').status_int == 200

