"""The road of a device reservation: the booking desk holds it at POST
(quota of device-hours, overlap refused), the worker has the manager build
its lease, a lost cast is the reconciler's, and a cancel before the
lease frees the devices at once."""
import threading

import pytest

from reserve.common import context as reserve_context
from reserve.db import device_reservations as device_reservations_db
from reserve.worker import reconciler
from tests.fixtures import config
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.devices import gpu_cloud

URL = '/v1/device-reservations'


@pytest.fixture
def a100(gpu_api):
    return gpu_api.enroll('a100-host.xml', name='gpu-box-1')


@pytest.fixture
def override():
    """``override(name, value, group=None)``; undone after the test."""
    yield from config.overrides()


def _create(gpu_api, body, headers=MEMBER_A, **kwargs):
    return gpu_api.app.post_json(URL, body, headers=headers, **kwargs)


def _show(gpu_api, rsv_id, headers=MEMBER_A):
    return gpu_api.app.get('%s/%s' % (URL, rsv_id),
                           headers=headers).json['device_reservation']


def _reconcile(gpu_api):
    gpu_cloud.age_reservations()
    job = reconciler.Reconciler(gpu_cloud.LocalWorkerAPI(gpu_api.worker))
    return job.run(reserve_context.get_admin_context())


def test_the_view_shows_the_lease_once_the_worker_ran(gpu_api, a100):
    rsv = _create(gpu_api, {'count': 1, 'start': future(1),
                            'end': future(2)}).json['device_reservation']
    assert (rsv['status'], rsv['lease_id']) == ('pending', None)
    assert gpu_api.work() == [('create_device_lease', rsv['id'])]
    shown = _show(gpu_api, rsv['id'])
    lease = gpu_api.app.get('/v1/leases/%s' % shown['lease_id'],
                            headers=MEMBER_A).json['lease']
    assert lease['name'] == 'device-reservation-%s' % rsv['id']
    assert [r['id'] for r in lease['reservations']] == [rsv['id']]
    assert [e['event_type'] for e in lease['events']] == [
        'start_lease', 'before_end_lease', 'end_lease']
    # The plugin adopted the hold: the same devices, no second hold.
    assert shown['unit_ids'] == rsv['unit_ids']
    assert len(device_reservations_db.device_reservation_list(
        reserve_context.get_admin_context())) == 1
    # Again (a cast repeated): the same lease.
    gpu_api.worker.create_device_lease(reserve_context.get_admin_context(),
                                       rsv['id'])
    assert _show(gpu_api, rsv['id'])['lease_id'] == shown['lease_id']


def test_device_hours_over_quota_is_413(gpu_api, a100, override):
    override('device_hours', 27, 'quota')
    # 1 device x 24 started hours.
    first = _create(gpu_api, {'count': 1, 'start': future(1),
                              'end': future(25)})
    assert first.status_int == 201
    error = assert_error(
        _create(gpu_api, {'count': 1, 'start': future(30),
                          'end': future(34)}, expect_errors=True),
        413, 'reserve.over_quota')
    assert 'device_hours (24 in use + 4 asked > limit 27)' in error['detail']
    # An open-ended one counts [quota]open_ended_hours.
    override('open_ended_hours', 7, 'quota')
    error = assert_error(_create(gpu_api, {'count': 2}, expect_errors=True),
                         413, 'reserve.over_quota')
    assert '24 in use + 14 asked' in error['detail']
    # Another project has its own; a cancelled one uses nothing.
    assert _create(gpu_api, {'count': 1, 'start': future(30),
                             'end': future(34)},
                   headers=MEMBER_B).status_int == 201
    rsv_id = first.json['device_reservation']['id']
    gpu_api.app.delete('%s/%s' % (URL, rsv_id), headers=MEMBER_A)
    assert _create(gpu_api, {'count': 1}).status_int == 201


def test_the_hold_at_post_refuses_an_overlapping_post(gpu_api, a100):
    device = gpu_api.device(a100, '0000:17:00.0')
    first = _create(gpu_api, {'unit_ids': [device], 'start': future(1),
                              'end': future(5)}).json['device_reservation']
    # No lease yet, and still the devices are held.
    assert first['lease_id'] is None
    assert_error(_create(gpu_api, {'unit_ids': [device], 'start': future(2),
                                   'end': future(6)}, headers=MEMBER_B,
                         expect_errors=True), 409,
                 'reserve.units_unavailable')


def test_concurrent_posts_of_one_device_get_one_201(gpu_api, a100):
    device = gpu_api.device(a100, '0000:b1:00.0')
    barrier = threading.Barrier(4)
    answers = []

    def post():
        barrier.wait()
        answers.append(_create(gpu_api, {
            'unit_ids': [device], 'start': future(1), 'end': future(3)},
            expect_errors=True).status_int)

    threads = [threading.Thread(target=post) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(answers) == [201, 409, 409, 409]


def test_a_lost_cast_is_healed_by_the_reconciler(gpu_api, a100):
    rsv = _create(gpu_api, {'count': 1, 'domains': ['gpu-vm-2']}).json[
        'device_reservation']
    gpu_api.casts.clear()           # the create_device_lease cast is lost
    assert gpu_api.tick() == 0
    assert _show(gpu_api, rsv['id'])['lease_id'] is None
    assert _reconcile(gpu_api)['device_leases'] == 1
    gpu_api.tick()
    shown = _show(gpu_api, rsv['id'])
    assert shown['lease_id'] and shown['status'] == 'active'
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs']
    # A lost delete_device_lease, the same way.
    gpu_api.app.delete('%s/%s' % (URL, rsv['id']), headers=MEMBER_A)
    gpu_api.casts.clear()
    assert _reconcile(gpu_api)['device_cancels'] == 1
    gpu_api.tick()
    shown = _show(gpu_api, rsv['id'])
    assert shown['released_at'] and shown['lease_id'] is None
    assert gpu_api.domain(a100, 'gpu-vm-2')['hostdevs'] == []
    counts = _reconcile(gpu_api)
    assert (counts['device_leases'], counts['device_cancels']) == (0, 0)


def test_a_cancel_before_the_lease_releases_the_devices(gpu_api, a100):
    device = gpu_api.device(a100, '0000:17:00.0')
    body = {'unit_ids': [device], 'domains': ['gpu-vm-2']}
    rsv = _create(gpu_api, body).json['device_reservation']
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    shown = _show(gpu_api, rsv['id'])
    assert shown['status'] == 'cancelled' and shown['released_at']
    assert [a['state'] for a in shown['attachments']] == ['detached']
    # Free at once, for anyone (into a domain of its own).
    gpu_api.own(a100, 'gpu-vm-3', 'project-b')
    again = _create(gpu_api, dict(body, domains=['gpu-vm-3']),
                    headers=MEMBER_B).json['device_reservation']
    # The casts, late: no lease for the cancelled one.
    assert [m for m, _ in gpu_api.work()] == [
        'create_device_lease', 'delete_device_lease', 'create_device_lease']
    assert _show(gpu_api, rsv['id'])['lease_id'] is None
    gpu_api.tick()
    assert _show(gpu_api, again['id'], headers=MEMBER_B)['status'] == \
        'active'


def test_one_made_far_ahead_gets_its_lease_when_its_start_nears(
        gpu_api, a100, override):
    # [devices]lease_lead_seconds is a day: this one is held at once,
    # its lease (start and end events) left for later.
    device = gpu_api.device(a100, '0000:17:00.0')
    rsv = _create(gpu_api, {'unit_ids': [device], 'start': future(72),
                            'end': future(74)}).json['device_reservation']
    assert (rsv['status'], rsv['lease_id']) == ('pending', None)
    assert gpu_api.work() == []
    assert_error(_create(gpu_api, {'unit_ids': [device], 'start': future(73),
                                   'end': future(75)}, headers=MEMBER_B,
                         expect_errors=True), 409,
                 'reserve.units_unavailable')
    # Not due: the reconciler leaves it, and the diagnosis finds nothing
    # amiss.
    assert _reconcile(gpu_api)['device_leases'] == 0
    diagnosis = gpu_api.app.get(
        '%s/%s/diagnosis' % (URL, rsv['id']), headers=dict(
            MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.3'})).json[
        'diagnosis']
    assert diagnosis['mismatch'] is None, diagnosis['mismatch']
    assert diagnosis['layers'][0]['expected']['lease'].startswith('from ')
    # Its start within the lead: the reconciler has its lease made.
    override('lease_lead_seconds', 4 * 86400, 'devices')
    assert _reconcile(gpu_api)['device_leases'] == 1
    shown = _show(gpu_api, rsv['id'])
    assert shown['lease_id'] and shown['unit_ids'] == rsv['unit_ids']
    assert _reconcile(gpu_api)['device_leases'] == 0


def test_a_cancel_before_its_lease_is_due_releases_the_devices(
        gpu_api, a100):
    device = gpu_api.device(a100, '0000:17:00.0')
    body = {'unit_ids': [device], 'start': future(72), 'end': future(74)}
    rsv = _create(gpu_api, body).json['device_reservation']
    assert gpu_api.app.delete('%s/%s' % (URL, rsv['id']),
                              headers=MEMBER_A).status_int == 204
    assert gpu_api.work() == [('delete_device_lease', rsv['id'])]
    shown = _show(gpu_api, rsv['id'])
    assert shown['status'] == 'cancelled' and shown['released_at']
    assert shown['lease_id'] is None
    assert _create(gpu_api, body, headers=MEMBER_B).status_int == 201
