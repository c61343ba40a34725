"""The servers layer of a booking: the servers booted with its flavor
and where they run, and, while it is active, every server on its hosts.

A reserved host may hold other reservations' instances too: a server is
foreign on it unless its flavor is that of a lease reservation with an
allocation on the host.
"""
from reserve.db import leases as leases_db
from reserve.diagnosis import findings
from reserve.plugins import instance_objects


def _reserved_flavors(context, host):
    """The names of the reserved flavors allowed on ``host``."""
    return {instance_objects.flavor_name(rsv.id) for _, rsv, _ in
            leases_db.allocation_list(context, host_id=host.id)}


def _own_problems(booked, own, hosts):
    problems = []
    per_host = {}
    for server in own:
        per_host[server['host']] = per_host.get(server['host'], 0) + 1
        if server['project_id'] not in booked.access():
            problems.append(findings.problem(
                'server %s of project %s runs on the reservation\'s flavor'
                % (server['id'], server['project_id']),
                findings.FOREIGN_SERVER, findings.BY_OPERATOR,
                'ask why the flavor reached that project; delete the '
                'server or move it off the flavor'))
        if server['host'] and server['host'] not in hosts:
            problems.append(booked.drift(
                'server %s of the reservation runs on host %s, which it '
                'does not hold' % (server['id'], server['host']),
                repairable=False))
    for service, count in sorted(per_host.items()):
        wanted = hosts.get(service)
        if wanted is not None and count > wanted:
            problems.append(booked.drift(
                'host %s runs %d of the reservation\'s servers; it holds %d'
                % (service, count, wanted), repairable=False))
    return problems


def _foreign_problems(context, booked, nova, hosts_by_service):
    found, problems = [], []
    for service, host in sorted(hosts_by_service.items()):
        allowed = _reserved_flavors(context, host)
        for server in findings.read('the servers of host %s' % service,
                                    nova.servers, host=service):
            if server['flavor'] in allowed:
                continue
            found.append(server)
            problems.append(findings.problem(
                'server %s of project %s (flavor %s) runs on reserved host '
                '%s' % (server['id'], server['project_id'],
                        server['flavor'], service),
                findings.FOREIGN_SERVER, findings.BY_OPERATOR,
                'reserve does not touch servers it did not book: migrate '
                'it off the host or delete it, and check the fence '
                '(openstack reserve host show)'))
    return found, problems


def servers_layer(context, booked, nova):
    rsv_id = booked.rsv_id
    flavor = instance_objects.flavor_name(rsv_id)
    if booked.over:
        expected = {'flavor': flavor, 'servers': []}
    else:
        expected = {
            'flavor': flavor, 'project_id': booked.lease.project_id,
            'at_most': {(a.host.service_name or a.host.name): a.amount
                        for a in booked.allocations},
            'foreign': [] if booked.started else None}
    try:
        own = findings.read('the servers of flavor %s' % rsv_id,
                            nova.servers, flavor=rsv_id)
        found = {'servers': own}
        if booked.over:
            problems = [booked.leftover(
                'server %s is still on the flavor of an ended reservation'
                % s['id'], 'openstack server delete %s' % s['id'])
                for s in own]
            return findings.layer('servers', expected, found, problems)
        problems = _own_problems(booked, own, expected['at_most'])
        if booked.started:
            hosts = {a.host.service_name or a.host.name: a.host
                     for a in booked.allocations}
            found['foreign'], foreign = _foreign_problems(
                context, booked, nova, hosts)
            problems.extend(foreign)
    except findings.Unreadable as exc:
        return findings.unreadable_layer('servers', expected, exc)
    return findings.layer('servers', expected, found, problems)
