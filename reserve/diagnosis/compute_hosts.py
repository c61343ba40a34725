"""The host layer of a booking: each reserved host's nova-compute
service (os-services) and its hypervisor, read live."""
from oslo_config import cfg

from reserve.diagnosis import findings
from reserve.diagnosis import host_checks

CONF = cfg.CONF

_EXPECTED = {'service': {'status': 'enabled', 'state': 'up'},
             'hypervisor': 'present'}


def _failed(text):
    return findings.advise(
        text, findings.HOST_FAILED, CONF.manager.health_check_interval,
        'the health check fails the host when two checks in a row see '
        'it ([manager]health_check_interval) and moves what it holds to '
        'hosts with room, flagging the rest as missing capacity; bring '
        'the compute service back (or enable it) and the flags clear',
        'bring the compute service back (or enable it), or take the host '
        'out of reservations with --force to move what it holds (the '
        'health check is off: [manager]health_check_interval = 0)')


def _read(nova, host):
    service = host.service_name or host.name
    services = findings.read('the compute service of %s' % service,
                             nova.compute_services, service)
    hypervisor = findings.read('hypervisor %s' % host.name,
                               nova.find_hypervisor, host.name)
    return {'services': services,
            'hypervisor': 'present' if hypervisor is not None else None}


def _problems(host, found):
    """Each failure the health check would see in what was read."""
    return [_failed(text) for text in host_checks.compute_failures(
        host, found['services'], lambda: found['hypervisor'])]


def host_layer(booked, nova):
    hosts = {a.host.name: a.host for a in booked.allocations}
    expected = {name: _EXPECTED for name in sorted(hosts)}
    found, problems = {}, []
    for name, host in sorted(hosts.items()):
        try:
            found[name] = _read(nova, host)
        except findings.Unreadable as exc:
            found[name] = {'error': str(exc)}
            problems.append(_failed(str(exc)))
            continue
        problems.extend(_problems(host, found[name]))
    return findings.layer('host', expected, found, problems)
