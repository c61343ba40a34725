"""The flavor and aggregate layers of a booking: the private flavor
``reservation:<RSV>`` with its extra specs and access list, and the
aggregate <RSV> with its metadata and hosts."""
from reserve.diagnosis import findings
from reserve.plugins import instance_objects


def _expected_flavor(booked):
    rsv = booked.reservation
    return {'id': rsv.id, 'name': instance_objects.flavor_name(rsv.id),
            'vcpus': rsv.vcpus, 'ram': rsv.memory_mb, 'disk': rsv.disk_gb,
            'is_public': False,
            'extra_specs': instance_objects.flavor_specs(rsv),
            'access': booked.access() if booked.started else []}


def _read_flavor(nova, flavor_id):
    flavor = findings.read('nova flavor %s' % flavor_id, nova.get_flavor,
                           flavor_id)
    if flavor is None or flavor.id != flavor_id:
        return None
    return {'id': flavor.id, 'name': flavor.name, 'vcpus': flavor.vcpus,
            'ram': flavor.ram, 'disk': flavor.disk,
            'is_public': flavor.is_public,
            'extra_specs': findings.read(
                'the extra specs of flavor %s' % flavor_id,
                nova.flavor_extra_specs, flavor),
            'access': findings.read(
                'the access list of flavor %s' % flavor_id,
                nova.flavor_access, flavor_id)}


def _spec_problems(booked, expected, found):
    problems = []
    want, have = expected['extra_specs'], found['extra_specs']
    for key in sorted(want):
        if have.get(key) != want[key]:
            problems.append(booked.drift(
                'flavor extra spec %s is %r, not %r' % (
                    key, have.get(key), want[key])))
    for key in sorted(set(have) - set(want)):
        problems.append(booked.drift(
            'flavor extra spec %s=%r was added beside the expected ones'
            % (key, have[key])))
    for field in ('vcpus', 'ram', 'disk', 'is_public'):
        if found[field] != expected[field]:
            problems.append(booked.drift(
                'flavor %s is %r, not %r' % (field, found[field],
                                             expected[field]),
                repairable=False))
    return problems


def _access_problems(booked, expected, found):
    problems = []
    for project in sorted(set(expected['access']) - set(found['access'])):
        problems.append(booked.drift(
            'project %s has no access to the flavor' % project))
    for project in sorted(set(found['access']) - set(expected['access'])):
        if project in booked.shares.removed:
            # The repair takes it back.
            problems.append(booked.drift(
                'project %s has access to the flavor but is no longer '
                'shared' % project))
            continue
        problems.append(booked.drift(
            'project %s has access to the flavor %s' % (
                project, 'before the start' if not booked.started else
                'but is not the reservation\'s'), repairable=False))
    return problems


def _nova_object_layer(booked, nova, name, expected, read, remove,
                       problems_of):
    """The layer ``name`` of the nova object of that kind named after
    the reservation, read with ``read(nova, booked.rsv_id)`` (None when
    nova has none). An ended reservation's object is a leftover, which
    the command ``remove`` removes; a live one's is drift when missing,
    else what ``problems_of(booked, expected, found)`` finds."""
    rsv_id = booked.rsv_id
    try:
        found = read(nova, rsv_id)
    except findings.Unreadable as exc:
        return findings.unreadable_layer(name, expected, exc)
    if booked.over:
        problems = [booked.leftover(
            'the %s %s of an ended reservation is still in nova' % (
                name, rsv_id), remove)] if found else []
        return findings.layer(name, expected, found or {'exists': False},
                              problems)
    if found is None:
        return findings.layer(name, expected, {'exists': False}, [
            booked.drift('the %s %s is not in nova' % (name, rsv_id))])
    return findings.layer(name, expected, found,
                          problems_of(booked, expected, found))


def _flavor_problems(booked, expected, found):
    return _spec_problems(booked, expected, found) + \
        _access_problems(booked, expected, found)


def flavor_layer(booked, nova):
    rsv_id = booked.rsv_id
    expected = {'id': rsv_id, 'exists': False} if booked.over else \
        _expected_flavor(booked)
    return _nova_object_layer(booked, nova, 'flavor', expected, _read_flavor,
                              'openstack flavor delete %s' % rsv_id,
                              _flavor_problems)


def _read_aggregate(nova, name):
    aggregate = findings.read('nova aggregate %s' % name,
                              nova.find_aggregate, name)
    if aggregate is None:
        return None
    return {'name': aggregate.name, 'hosts': sorted(aggregate.hosts),
            'metadata': dict(aggregate.metadata)}


def _aggregate_problems(booked, expected, found):
    problems = []
    for key, value in sorted(expected['metadata'].items()):
        if found['metadata'].get(key) != value:
            problems.append(booked.drift(
                'aggregate metadata %s is %r, not %r' % (
                    key, found['metadata'].get(key), value)))
    for key in sorted(set(found['metadata']) - set(expected['metadata'])):
        if key.startswith(instance_objects.SHARED_TENANT_KEY):
            # The repair removes it: the project is not shared (now).
            problems.append(booked.drift(
                'aggregate metadata %s lets in a project the reservation '
                'is not shared with' % key))
    missing = sorted(set(expected['hosts']) - set(found['hosts']))
    extra = sorted(set(found['hosts']) - set(expected['hosts']))
    if missing:
        problems.append(booked.drift(
            'host %s is not in the aggregate' % ', '.join(missing)))
    if extra:
        problems.append(booked.drift(
            'host %s is in the aggregate but holds none of the '
            'reservation\'s instances%s' % (
                ', '.join(extra),
                '' if booked.started else ' before its start'),
            repairable=booked.started))
    return problems


def aggregate_layer(booked, nova):
    rsv_id = booked.rsv_id
    if booked.over:
        expected = {'name': rsv_id, 'exists': False}
    else:
        expected = {'name': rsv_id,
                    'hosts': booked.service_hosts() if booked.started
                    else [],
                    'metadata': instance_objects.aggregate_metadata(
                        booked.lease, booked.rsv_id, booked.shares.shared)}
    return _nova_object_layer(
        booked, nova, 'aggregate', expected, _read_aggregate,
        'openstack aggregate delete %s (after removing its hosts)' % rsv_id,
        _aggregate_problems)
