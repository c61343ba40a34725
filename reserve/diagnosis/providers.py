"""The providers layer of a booking: its resource class, and the
inventory and usage of it on the child provider ``reserve_<host>`` of
each reserved host."""
from reserve.common import placement as placement_api
from reserve.diagnosis import findings


def _read_host(placement, host, resource_class):
    name = placement_api.CHILD_PREFIX + host.name
    child = findings.read('provider %s' % name,
                          placement.get_provider_by_name, name)
    if child is None:
        return {'provider': None, 'total': None, 'used': None}
    inventories = findings.read('the inventories of %s' % name,
                                placement.get_inventories, child['uuid'])
    usages = findings.read('the usages of %s' % name,
                           placement.get_usages, child['uuid']) or {}
    record = inventories.get(resource_class)
    return {'provider': child['uuid'],
            'total': record['total'] if record else None,
            'used': usages.get(resource_class, 0) if record else None}


def _live_problems(booked, amounts, found):
    problems = []
    for name, amount in sorted(amounts.items()):
        have = found['hosts'][name]
        if booked.started and have['total'] != amount:
            problems.append(booked.drift(
                '%s holds %s of the reservation\'s class on host %s, '
                'not %d' % (placement_api.CHILD_PREFIX + name,
                            have['total'] if have['total'] is not None
                            else 'no inventory', name, amount)))
        elif not booked.started and have['total'] is not None:
            problems.append(booked.drift(
                'host %s has the reservation\'s inventory before its start'
                % name, repairable=False))
        if have['used'] and have['total'] is not None and \
                have['used'] > have['total']:
            problems.append(booked.drift(
                'host %s uses %d of an inventory of %d' % (
                    name, have['used'], have['total']), repairable=False))
    if not found['resource_class']:
        problems.insert(0, booked.drift(
            'the resource class %s is not in placement' %
            found['resource_class_name']))
    return problems


def _leftover_problems(booked, resource_class, found):
    problems = []
    for name, have in sorted(found['hosts'].items()):
        if have['total'] is not None:
            problems.append(booked.leftover(
                '%s still has inventory of the ended reservation\'s class'
                % (placement_api.CHILD_PREFIX + name),
                'openstack resource provider inventory delete %s '
                '--resource-class %s' % (have['provider'], resource_class)))
    if found['resource_class']:
        problems.append(booked.leftover(
            'the resource class %s of an ended reservation is still in '
            'placement' % resource_class,
            'openstack resource class delete %s' % resource_class))
    return problems


def providers_layer(booked, placement, nova_hosts):
    """``nova_hosts``: the enrolled nova hosts, where an ended
    reservation's inventory may be left (its allocations are gone)."""
    resource_class = placement_api.reservation_resource_class(booked.rsv_id)
    if booked.over:
        hosts = {h.name: h for h in nova_hosts}
        amounts = {}
        expected = {'resource_class': resource_class, 'exists': False,
                    'hosts': {}}
    else:
        hosts = {a.host.name: a.host for a in booked.allocations}
        amounts = {a.host.name: a.amount for a in booked.allocations}
        expected = {'resource_class': resource_class, 'exists': True,
                    'hosts': {name: {
                        'provider': placement_api.CHILD_PREFIX + name,
                        'total': amount if booked.started else None}
                        for name, amount in sorted(amounts.items())}}
    try:
        found = {'resource_class_name': resource_class,
                 'resource_class': findings.read(
                     'resource class %s' % resource_class,
                     placement.resource_class_exists, resource_class),
                 'hosts': {name: _read_host(placement, host, resource_class)
                           for name, host in sorted(hosts.items())}}
    except findings.Unreadable as exc:
        return findings.unreadable_layer('providers', expected, exc)
    if booked.over:
        problems = _leftover_problems(booked, resource_class, found)
        found['hosts'] = {name: have for name, have in found['hosts'].items()
                          if have['total'] is not None}
    else:
        problems = _live_problems(booked, amounts, found)
    return findings.layer('providers', expected, found, problems)
