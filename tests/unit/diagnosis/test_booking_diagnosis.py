"""The diagnosis of a booking names the first layer that disagrees.

Each test breaks one layer by hand, the way the playbook's symptoms
happen, and reads which layer, problem, symptom and repair it names.
"""
import uuid

from novaclient import exceptions as nova_exc

from reserve.common import placement
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import events as events_db
from reserve.db import leases as leases_db
from reserve.diagnosis import findings
from tests.unit.diagnosis.conftest import PROJECT


def _layer(diagnosis, name):
    return next(layer for layer in diagnosis['layers']
                if layer['layer'] == name)


def _symptoms(layer):
    return [p['symptom'] for p in layer['problems']]


def _mismatch(diagnosis):
    found = diagnosis['mismatch']
    return found['layer'], found['symptom'], found['repair']


def test_an_active_booking_whose_layers_agree_has_no_mismatch(cloud):
    booking, lease = cloud.active(count=3)
    diagnosis = cloud.diagnose(booking.id)
    assert diagnosis['mismatch'] is None, diagnosis['mismatch']
    assert diagnosis['kind'] == 'reservation'
    assert diagnosis['reservation_id'] == booking.id
    assert diagnosis['checked_at'].endswith('Z')
    assert [layer['layer'] for layer in diagnosis['layers']] == [
        'booking', 'lease', 'events', 'flavor', 'aggregate', 'providers',
        'servers', 'host']
    rsv = lease.reservations[0]
    flavor = _layer(diagnosis, 'flavor')
    assert flavor['found']['access'] == [PROJECT]
    assert flavor['found']['extra_specs'] == flavor['expected'][
        'extra_specs']
    providers = _layer(diagnosis, 'providers')
    assert sum(h['total'] for h in providers['found']['hosts'].values()) \
        == 3
    assert providers['found']['resource_class_name'] == \
        placement.reservation_resource_class(rsv.id)


def test_a_booking_the_worker_never_took_is_cast_not_consumed(cloud):
    booking = cloud.book()
    cloud.age('Booking', booking.id, 600)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('booking', 'cast_not_consumed',
                                    'reserve')
    # Nothing in the cloud is named after it yet.
    assert all(layer['ok'] for layer in diagnosis['layers'][3:])
    # Within [worker]pending_create_timeout, it is only on its way.
    fresh = cloud.book()
    assert cloud.diagnose(fresh.id)['mismatch'] is None


def test_a_refused_booking_shows_its_status_reason(cloud):
    booking = cloud.book()
    bookings_db.booking_move(
        cloud.ctx, booking.id, states.Booking.ERROR,
        (states.Booking.PENDING_CREATE,),
        status_reason='Not enough hosts available')
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('booking', 'status_reason', 'operator')
    assert 'Not enough hosts' in diagnosis['mismatch']['problem']


def test_a_start_nobody_ran_is_overdue(cloud):
    booking, lease = cloud.allocated()
    cloud.age('Event', cloud.event(lease, 'start_lease').id, 900,
              column='time')
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('events', 'events_overdue', 'operator')
    assert 'start_lease is UNDONE' in diagnosis['mismatch']['problem']
    events = _layer(diagnosis, 'events')['found']['events']
    assert [e['event_type'] for e in events] == [
        'start_lease', 'before_end_lease', 'end_lease']
    assert events[0]['attempts'] == 0


def test_an_event_in_error_is_overdue_and_retried(cloud):
    booking, lease = cloud.allocated()
    events_db.event_update(cloud.ctx, cloud.event(lease, 'start_lease').id,
                           {'status': states.Event.ERROR, 'attempts': 1,
                            'last_error': 'nova answered 503'})
    found = _layer(cloud.diagnose(booking.id), 'events')
    assert _symptoms(found) == ['events_overdue']
    assert found['problems'][0]['repair'] == 'reserve'
    assert 'nova answered 503' in found['problems'][0]['problem']


def test_a_lease_that_moved_without_its_booking_is_not_followed(cloud):
    booking, lease = cloud.allocated()
    leases_db.lease_update(cloud.ctx, lease.id,
                           {'status': states.Lease.ACTIVE})
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('booking', 'status_not_followed',
                                    'operator')
    # The layers past it are read and shown all the same.
    assert not _layer(diagnosis, 'flavor')['ok']


def test_a_live_booking_whose_lease_is_gone(cloud):
    booking, lease = cloud.active()
    leases_db.lease_destroy(cloud.ctx, lease.id)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('booking', 'status_not_followed',
                                    'operator')
    assert 'lease is gone' in diagnosis['mismatch']['problem']
    assert _layer(diagnosis, 'lease')['found'] == {'exists': False}
    # No lease will tear its objects down: they are left over.
    assert _symptoms(_layer(diagnosis, 'flavor')) == ['leftovers']


def test_a_reserved_host_down_in_nova_is_host_failed(cloud):
    booking, lease = cloud.active()
    service = cloud.service_host(lease)
    cloud.fake.services[service].state = 'down'
    diagnosis = cloud.diagnose(booking.id)
    # Healed by the health check (on unless its interval is 0).
    assert _mismatch(diagnosis) == ('host', 'host_failed', 'reserve')
    assert 'is down' in diagnosis['mismatch']['problem']
    cloud.fake.services[service].state = 'up'
    cloud.fake.services[service].status = 'disabled'
    assert 'disabled' in cloud.diagnose(booking.id)['mismatch']['problem']


def test_a_hypervisor_gone_from_nova_is_host_failed(cloud):
    booking, lease = cloud.active()
    cloud.fake.hypervisors.clear()
    found = _layer(cloud.diagnose(booking.id), 'host')
    assert 'host_failed' in _symptoms(found)
    assert any('nova has no hypervisor' in p['problem']
               for p in found['problems'])


def test_flavor_drift(cloud):
    booking, lease = cloud.active()
    rsv_id = lease.reservations[0].id
    cloud.fake.nova.flavor_access.remove_tenant_access(rsv_id, PROJECT)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('flavor', 'drift', 'reserve')
    assert 'no access' in diagnosis['mismatch']['problem']
    cloud.fake.nova.flavor_access.add_tenant_access(rsv_id, PROJECT)
    cloud.fake.flavors[rsv_id]._specs.pop(
        'aggregate_instance_extra_specs:reservation')
    cloud.fake.flavors[rsv_id].set_keys({'hw:cpu_policy': 'dedicated'})
    problems = _layer(cloud.diagnose(booking.id), 'flavor')['problems']
    assert [(p['symptom'], p['repair']) for p in problems] == [
        ('drift', 'reserve'), ('drift', 'reserve')]
    assert 'hw:cpu_policy' in problems[1]['problem']


def test_a_missing_flavor_is_drift_and_access_before_start_too(cloud):
    booking, lease = cloud.allocated(start_in=3600)
    rsv_id = lease.reservations[0].id
    cloud.fake.nova.flavor_access.add_tenant_access(rsv_id, 'project-z')
    found = _layer(cloud.diagnose(booking.id), 'flavor')
    assert found['problems'][0]['repair'] == 'operator'
    assert 'before the start' in found['problems'][0]['problem']
    cloud.fake.nova.flavors.delete(rsv_id)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('flavor', 'drift', 'reserve')
    assert _layer(diagnosis, 'flavor')['found'] == {'exists': False}


def test_aggregate_drift(cloud):
    booking, lease = cloud.active()
    rsv_id = lease.reservations[0].id
    service = cloud.service_host(lease)
    cloud.fake.nova.aggregates.set_metadata(
        cloud.nova.find_aggregate(rsv_id), {'filter_tenant_id': 'other'})
    cloud.fake.nova.aggregates.remove_host(
        cloud.nova.find_aggregate(rsv_id), service)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('aggregate', 'drift', 'reserve')
    problems = _layer(diagnosis, 'aggregate')['problems']
    assert 'filter_tenant_id' in problems[0]['problem']
    assert service in problems[1]['problem']


def test_inventory_drift(cloud):
    booking, lease = cloud.active(count=2)
    rsv = lease.reservations[0]
    resource_class = placement.reservation_resource_class(rsv.id)
    host = rsv.allocations[0].host
    child = cloud.placement.get_provider_by_name('reserve_' + host.name)
    cloud.placement.delete_inventory(child['uuid'], resource_class)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('providers', 'drift', 'reserve')
    assert host.name in diagnosis['mismatch']['problem']
    assert _layer(diagnosis, 'providers')['found']['hosts'][host.name][
        'total'] is None


def test_a_server_of_another_project_on_a_reserved_host(cloud):
    booking, lease = cloud.active()
    rsv_id = lease.reservations[0].id
    service = cloud.service_host(lease)
    own = cloud.fake.boot(rsv_id, PROJECT, host=service)
    assert cloud.diagnose(booking.id)['mismatch'] is None
    stranger = cloud.fake.boot('m1.small', 'project-b', host=service)
    diagnosis = cloud.diagnose(booking.id)
    assert _mismatch(diagnosis) == ('servers', 'foreign_server',
                                    'operator')
    assert stranger.id in diagnosis['mismatch']['problem']
    servers = _layer(diagnosis, 'servers')['found']
    assert [s['id'] for s in servers['servers']] == [own.id]
    assert [s['host'] for s in servers['foreign']] == [service]


def test_an_ended_booking_with_its_objects_left_shows_leftovers(cloud):
    booking, lease = cloud.active()
    rsv_id = lease.reservations[0].id
    cloud.fake.boot(rsv_id, PROJECT, host=cloud.service_host(lease))
    # Its end recorded as done while its teardown never ran.
    for event in lease.events:
        events_db.event_update(cloud.ctx, event.id,
                               {'status': states.Event.DONE})
    leases_db.lease_update(cloud.ctx, lease.id,
                           {'status': states.Lease.TERMINATED})
    bookings_db.booking_move(cloud.ctx, booking.id, states.Booking.COMPLETE,
                             (states.Booking.ACTIVE,))
    diagnosis = cloud.diagnose(booking.id)
    # Swept by the repair task (on unless its interval is 0).
    assert _mismatch(diagnosis) == ('flavor', 'leftovers', 'reserve')
    for name in ('flavor', 'aggregate', 'providers', 'servers'):
        assert 'leftovers' in _symptoms(_layer(diagnosis, name)), name
    assert 'openstack flavor delete %s' % rsv_id in \
        diagnosis['mismatch']['action']


def test_a_cloud_that_fails_is_a_layer_in_error(cloud, monkeypatch):
    booking, lease = cloud.active()

    def broken():
        raise nova_exc.ClientException(503, 'nova-api is away')
    monkeypatch.setattr(cloud.fake.nova.aggregates, 'list', broken)
    diagnosis = cloud.diagnose(booking.id)
    aggregate = _layer(diagnosis, 'aggregate')
    assert 'error' in aggregate['found']
    assert not aggregate['ok']
    assert diagnosis['mismatch']['layer'] == 'aggregate'
    # The layers after it are read all the same.
    assert _layer(diagnosis, 'providers')['ok']


def test_the_doctor_lists_mismatches_and_unknown_leases(cloud):
    healthy, _ = cloud.active()
    broken, lease = cloud.active()
    cloud.fake.services[cloud.service_host(lease)].state = 'down'
    orphan, orphan_lease = cloud.allocated(start_in=3600)
    bookings_db.booking_destroy(cloud.ctx, orphan.id)
    report = cloud.manager.doctor(cloud.ctx)
    # What other tests left in the shared placement is listed too.
    theirs = [d for d in report['reservations']
              if d['mismatch']['symptom'] == 'leftovers']
    assert report['checked'] - len(theirs) == 3
    found = {(d['reservation_id'], d['mismatch']['symptom'])
             for d in report['reservations']}
    assert (orphan.id, 'unknown_lease') in found
    assert (broken.id, 'host_failed') in found
    assert all(d['mismatch'] for d in report['reservations'])
    assert (healthy.id, 'leftovers') not in found
    assert cloud.manager.doctor(cloud.ctx, 'device_reservation') == {
        'checked': 0, 'reservations': []}


def test_symptom_codes_are_the_playbooks_and_drift():
    assert findings.SYMPTOMS == (
        'cast_not_consumed', 'status_reason', 'events_overdue',
        'status_not_followed', 'host_failed', 'unknown_lease',
        'leftovers', 'drift', 'foreign_server')


def test_the_doctor_lists_cloud_objects_no_lease_holds(cloud):
    """A reservation's flavor and resource class with no lease behind
    them (its rows gone): listed as leftovers the repair task sweeps."""
    ghost = str(uuid.uuid4())
    cloud.fake.nova.flavors.create('reservation:%s' % ghost, 128, 1, 1,
                                   flavorid=ghost, is_public=False)
    cloud.placement.ensure_resource_class(
        placement.reservation_resource_class(ghost))
    live, _ = cloud.active()
    report = cloud.manager.doctor(cloud.ctx)
    mine = [d for d in report['reservations']
            if d['reservation_id'] == ghost]
    assert len(mine) == 1, report
    mismatch = mine[0]['mismatch']
    assert (mismatch['symptom'], mismatch['repair']) == ('leftovers',
                                                         'reserve')
    assert 'flavor' in mismatch['problem']
    assert 'resource_class' in mismatch['problem']
    assert live.id not in [d['reservation_id']
                           for d in report['reservations']]
