"""Writes are authorized as writes, over HTTP.

Every write route of a booking (/v1/reservations, its shared projects
included) and of a device reservation (/v1/device-reservations), sent
as each persona of the harness: another project's member, the owner's
reader, an auditor and a service user that read every project, and a
member of its own project that also reads every project. Each is
refused (404 when the row is not visible to it, 403 when it may read
but not write it) and the database and the host's domains are exactly
as before; the owner's member and the administrator then succeed.
"""
import re

import pytest

from reserve.common import policies
from reserve.common.policies import base
from reserve.db import api as db_api
from reserve.db import models
from reserve.db import sharing as sharing_db
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_booking
from tests.functional.hostile.http import assert_http_error

OUTSIDERS = ('member_b', 'reader_a', 'reader_all', 'service', 'member_all')
# What any write touches: bookings, device reservations, leases.
TABLES = ('bookings', 'booking_projects', 'device_reservations',
          'device_reservation_devices', 'device_reservation_projects',
          'device_attachments', 'leases', 'events', 'lease_reservations',
          'allocations')
DEVICES = '/v1/device-reservations'
BOOKINGS = '/v1/reservations'
# The shared-projects routes exist from 1.9.
V19 = {'OpenStack-API-Version': 'reserve 1.9'}
SHARED = 'c0ffee00c0ffee00c0ffee00c0ffee00'
KEPT = 'feedfacefeedfacefeedfacefeedface'


def snapshot():
    """Every row of TABLES, as it is now."""
    with db_api.get_engine().connect() as conn:
        return {t: sorted(map(repr, conn.execute(
            models.Base.metadata.tables[t].select()).all()))
            for t in TABLES}


def assert_refused(response):
    """404 or 403, the API's one error body, naming nobody's data."""
    assert response.status_code in (403, 404), (response.status_code,
                                                response.text)
    assert_http_error(response, response.status_code)


# bookings --------------------------------------------------------------------

def booking_writes(booking_id):
    item = '%s/%s' % (BOOKINGS, booking_id)
    shares = item + '/shared-projects'
    return [('PATCH', item, {'end': future(30 * 24)}),
            ('PUT', shares + '/' + SHARED, None),
            ('DELETE', shares + '/' + KEPT, None),
            ('PUT', shares, {'shared_project_ids': [SHARED]}),
            ('DELETE', item, None)]


def shared_booking():
    booking = make_booking(project='project-a', status='ACTIVE',
                           start_hours=-1, hours=48)
    sharing_db.shares_add(admin_context(), booking.id, [KEPT])
    return booking


@pytest.mark.usefixtures('casts')
@pytest.mark.parametrize('who', OUTSIDERS)
def test_nobody_else_writes_a_booking(served, who):
    http = served
    booking = shared_booking()
    before = snapshot()
    for verb, path, body in booking_writes(booking.id):
        assert_refused(http.request(who, verb, path, json=body,
                                    headers=V19))
    assert snapshot() == before
    # A reader of every project still reads it: the refusal is the write's.
    if who in ('reader_all', 'member_all'):
        listed = http.get(who, BOOKINGS + '?all_projects=1')
        assert listed.status_code == 200, listed.text
        assert [r['id'] for r in listed.json()['reservations']] == [
            booking.id]


@pytest.mark.usefixtures('casts')
@pytest.mark.parametrize('who', ('member_a', 'admin'))
def test_the_owner_and_the_admin_write_a_booking(served, who):
    http = served
    booking = shared_booking()
    moved = http.patch(who, '%s/%s' % (BOOKINGS, booking.id),
                       json={'end': future(72)})
    assert moved.status_code == 200, moved.text
    for verb, path, body in booking_writes(booking.id)[1:-1]:
        shared = http.request(who, verb, path, json=body, headers=V19)
        assert shared.status_code in (200, 204), shared.text
    assert sharing_db.shares_of(admin_context(), booking.id) == (
        [SHARED], [KEPT])
    gone = http.delete(who, '%s/%s' % (BOOKINGS, booking.id))
    assert gone.status_code == 204, gone.text
    shown = http.get('admin', '%s/%s' % (BOOKINGS, booking.id)).json()
    assert shown['reservation']['status'] == 'COMPLETE'


# device reservations ---------------------------------------------------------

def reserve_device(http, gpu_api, domain='gpu-vm-2'):
    """An active reservation of one device by project-a, in ``domain``
    (None: in none)."""
    made = http.post('member_a', DEVICES, json={
        'count': 1, 'end': future(4), 'domains': [domain] if domain else []})
    assert made.status_code == 201, made.text
    gpu_api.tick()
    rsv = made.json()['device_reservation']
    shown = http.get('member_a', '%s/%s' % (DEVICES, rsv['id'])).json()
    assert shown['device_reservation']['status'] == 'active'
    return shown['device_reservation']


def device_writes(rsv_id):
    item = '%s/%s' % (DEVICES, rsv_id)
    return [
        ('PATCH', item, {'end': future(8)}),
        ('PATCH', item, {'domains': ['gpu-vm-3']}),
        ('PATCH', item, {'domains': []}),
        ('POST', item + '/attach', {'domain': 'gpu-vm-3'}),
        ('POST', item + '/detach', {'domain': 'gpu-vm-2'}),
        ('POST', item + '/affirm', None),
        ('DELETE', item, None),
    ]


def hostdevs(gpu_api, host):
    return {name: gpu_api.domain(host, name)['hostdevs']
            for name in ('gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3')}


@pytest.mark.parametrize('who', OUTSIDERS)
def test_nobody_else_writes_a_device_reservation(http, gpu_api, a100, who):
    rsv = reserve_device(http, gpu_api)
    before, domains = snapshot(), hostdevs(gpu_api, a100)
    for verb, path, body in device_writes(rsv['id']):
        response = http.request(who, verb, path, json=body)
        assert_refused(response)
        gpu_api.tick()
        assert snapshot() == before, (verb, path, body)
    assert hostdevs(gpu_api, a100) == domains
    assert domains['gpu-vm-2'], 'the device was never attached'
    if who in ('reader_all', 'member_all'):
        shown = http.get(who, '%s/%s' % (DEVICES, rsv['id']))
        assert shown.status_code == 200, shown.text


def test_member_all_is_told_it_may_read_but_not_write(http, gpu_api,
                                                      a100):
    """Visible to it, so a 403 that says what it may not do."""
    rsv = reserve_device(http, gpu_api)
    item = '%s/%s' % (DEVICES, rsv['id'])
    assert_http_error(http.delete('member_all', item), 403,
                      "another project's device reservation")
    assert_http_error(http.post('member_all', item + '/attach',
                                json={'domain': 'gpu-vm-3'}), 403,
                      "another project's device reservation")
    # Not visible to another project's member: not found, as before.
    assert_http_error(http.delete('member_b', item), 404)


@pytest.mark.parametrize('who', ('member_a', 'admin'))
def test_the_owner_and_the_admin_write_a_device_reservation(
        http, gpu_api, a100, who):
    rsv = reserve_device(http, gpu_api, domain=None)
    item = '%s/%s' % (DEVICES, rsv['id'])
    attached = http.post(who, item + '/attach', json={'domain': 'gpu-vm-3'})
    assert attached.status_code == 200, attached.text
    assert gpu_api.domain(a100, 'gpu-vm-3')['hostdevs']
    detached = http.post(who, item + '/detach', json={'domain': 'gpu-vm-3'})
    assert detached.status_code == 200, detached.text
    assert gpu_api.domain(a100, 'gpu-vm-3')['hostdevs'] == []
    domains = http.patch(who, item, json={'domains': ['gpu-vm-3']})
    assert domains.status_code == 200, domains.text
    assert domains.json()['device_reservation']['domains'] == ['gpu-vm-3']
    # Moving the end is an administrator's (reserve:device_reservation:
    # update), the owner's member included.
    moved = http.patch(who, item, json={'end': future(8)})
    if who == 'admin':
        assert moved.status_code == 200, moved.text
    else:
        assert_http_error(moved, 403)
    gone = http.delete(who, item)
    assert gone.status_code == 204, gone.text
    gpu_api.tick()
    shown = http.get(who, item).json()['device_reservation']
    assert shown['status'] == 'cancelled'


# the administrators' write routes ------------------------------------------

def _admin_only_writes():
    """(method, path) of every write operation that only admin-only
    rules document (a route shared with a member's rule is above)."""
    documented = {}
    for rule in policies.list_rules():
        for op in getattr(rule, 'operations', ()):
            if op['method'] in ('POST', 'PUT', 'PATCH', 'DELETE'):
                key = (op['method'], op['path'])
                documented.setdefault(key, set()).add(
                    rule.check_str == base.ADMIN)
    return sorted(key for key, admin in documented.items()
                  if admin == {True})


@pytest.mark.parametrize('who', OUTSIDERS)
def test_nobody_but_the_admin_writes_the_admin_routes(served, who):
    http = served
    routes = _admin_only_writes()
    assert ('DELETE', '/v1/hosts/{id}') in routes
    assert ('POST', DEVICES + '/{id}/affirm') in routes
    for verb, path in routes:
        path = re.sub(r'{[a-z_]+}', 'x', path)
        assert_http_error(http.request(who, verb, path, json={}), 403)
