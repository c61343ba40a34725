"""The diagnosis of a shared booking expects its shared projects' access
and aggregate keys, and their servers on its flavor; what a project no
longer shared keeps is drift the repair takes back."""
from reserve.common import states
from reserve.db import sharing as sharing_db
from tests.unit.diagnosis.conftest import PROJECT

SHARED = 'c0ffee00c0ffee00c0ffee00c0ffee00'
OTHER = 'feedfacefeedfacefeedfacefeedface'


def _active(cloud, shared):
    booking = cloud.book()
    sharing_db.shares_add(cloud.ctx, booking.id, shared)
    cloud.worker.create_lease(cloud.ctx, booking.id)
    cloud.loop.tick()
    booking, lease = cloud.lease_of(booking.id)
    assert lease.status == states.Lease.ACTIVE, lease.status_reason
    return booking, lease, lease.reservations[0].id


def _layer(diagnosis, name):
    return next(layer for layer in diagnosis['layers']
                if layer['layer'] == name)


def test_shared_access_and_servers_are_expected(cloud):
    booking, lease, rsv_id = _active(cloud, [SHARED])
    cloud.fake.boot(rsv_id, SHARED, host=cloud.service_host(lease))
    diagnosis = cloud.diagnose(booking.id)
    assert diagnosis['mismatch'] is None, diagnosis['mismatch']
    flavor = _layer(diagnosis, 'flavor')
    assert flavor['expected']['access'] == [PROJECT, SHARED]
    assert sorted(flavor['found']['access']) == sorted([PROJECT, SHARED])
    assert _layer(diagnosis, 'aggregate')['expected']['metadata'][
        'filter_tenant_id_' + SHARED] == SHARED


def test_what_a_project_no_longer_shared_keeps_is_drift(cloud):
    booking, lease, rsv_id = _active(cloud, [SHARED, OTHER])
    # Taken back, with the cast lost: reserve repairs both.
    sharing_db.shares_change(cloud.ctx, booking.id, lambda current: [OTHER])
    problems = [(p['problem'], p['symptom'], p['repair']) for layer in
                cloud.diagnose(booking.id)['layers']
                for p in layer['problems']]
    assert problems == [
        ('project %s has access to the flavor but is no longer shared'
         % SHARED, 'drift', 'reserve'),
        ('aggregate metadata filter_tenant_id_%s lets in a project the '
         'reservation is not shared with' % SHARED, 'drift', 'reserve')]
    # A project shared whose access went is drift too.
    cloud.fake.nova.flavor_access.remove_tenant_access(rsv_id, OTHER)
    assert 'project %s has no access to the flavor' % OTHER in [
        p['problem'] for p in _layer(cloud.diagnose(booking.id),
                                     'flavor')['problems']]
