"""The host and domains layers of a device reservation, read through the
manager's libvirt connection to its host: the host reachable with the
GPU topology the reservation was affirmed on, and each attachment's
hostdev or mdev in its domain's XML, where it should be and nowhere
else."""
from oslo_config import cfg

from reserve.devices import states
from reserve.diagnosis import findings
from reserve.virt import exception as virt_exception
from reserve.virt import uris

CONF = cfg.CONF
Attachment = states.Attachment


def _host_failed(text, repair=findings.BY_OPERATOR, action=None):
    return findings.problem(
        text, findings.HOST_FAILED, repair, action or
        'check libvirtd on the host and the manager\'s way to it (the '
        'URI, its TLS certificates or SSH key), then refresh the host '
        '(openstack reserve host refresh)')


def host_layer(reservation, host, conn, error, live):
    """``conn``: the host's connection, or None with ``error`` why."""
    expected = {'enrolled': True, 'reachable': True,
                'topology_generation': reservation.topology_generation}
    if host is None:
        problems = [_host_failed(
            'the host %s of the reservation is no longer enrolled' %
            reservation.host_id)] if live else []
        return findings.layer('host', expected, {'enrolled': False},
                              problems)
    found = {'name': host.name, 'uri': uris.display(host.uri),
             'enrolled': True, 'reachable': conn is not None,
             'refresh_error': host.refresh_error}
    if conn is None:
        found['error'] = error
        return findings.layer('host', expected, found, [_host_failed(
            'host %s cannot be reached: %s' % (host.name, error))])
    try:
        found['topology_generation'] = findings.read(
            'the GPU topology of %s' % host.name, conn.topology_generation)
    except findings.Unreadable as exc:
        found['error'] = str(exc)
        return findings.layer('host', expected, found,
                              [_host_failed(str(exc))])
    problems = []
    if live and found['topology_generation'] != \
            reservation.topology_generation and \
            reservation.status != states.DeviceReservation.NEEDS_REVIEW:
        problems.append(_host_failed(
            'the GPU topology of host %s changed since the reservation '
            'was made' % host.name, findings.BY_RESERVE,
            'the next rediscovery of the host ([devices]refresh_interval) '
            'puts the reservation in needs-review for an administrator'))
    return findings.layer('host', expected, found, problems)


def _target(attachment):
    if attachment.kind == Attachment.MDEV:
        return attachment.mdev_uuid
    return attachment.device.pci_address


def _holders(conn):
    """{(kind, id): [domain names]} of every domain of the host."""
    held = {}
    for domain in conn.domains():
        try:
            hostdevs = conn.attached(domain.name)
        except virt_exception.DomainNotFound:
            continue  # undefined meanwhile
        for hostdev in hostdevs:
            if hostdev.live or hostdev.config:
                held.setdefault((hostdev.kind, hostdev.id), []).append(
                    domain.name)
    return held


def _wanted(reservation, started):
    """{(kind, id, domain)} the host should show of the reservation."""
    if not started:
        return set()
    return {(a.kind, _target(a), a.domain) for a in reservation.attachments
            if a.state in Attachment.MAY_BE_ATTACHED}


def _missing(key, lease_started, repairable):
    kind, target, domain = key
    text = '%s %s is missing from the XML of domain %s' % (kind, target,
                                                           domain)
    return findings.advise(
        text, findings.DRIFT, repairable and lease_started,
        'the next rediscovery of the host ([devices]refresh_interval, '
        'or openstack reserve host refresh) attaches it again',
        'the domain must be defined for the device to go back: define it '
        'again, or detach it from the reservation')


def _extra(key, teardown_pending):
    kind, target, domain = key
    text = '%s %s is still in the XML of domain %s' % (kind, target, domain)
    return findings.advise(
        text, findings.LEFTOVERS, teardown_pending,
        'the lease\'s end_lease is retried and takes it back',
        'detach it by hand (virsh detach-device %s with its hostdev XML)'
        % domain)


def domains_layer(reservation, conn, started, teardown_pending):
    named = {(a.kind, _target(a), a.domain) for a in reservation.attachments
             if _target(a)}
    targets = {(kind, target) for kind, target, _ in named}
    if not reservation.mdev_type:
        targets |= {(Attachment.PCI, d.device.pci_address)
                    for d in reservation.devices}
    wanted = _wanted(reservation, started)
    expected = {'hostdevs': [dict(zip(('kind', 'id', 'domain'), key))
                             for key in sorted(wanted)]}
    if conn is None:
        return findings.layer('domains', expected,
                              {'error': 'the host cannot be reached'})
    try:
        held = findings.read('the domains of the host', _holders, conn)
        mdevs = {m.uuid for m in findings.read('the host\'s mdevs',
                                               conn.mdevs)}
        domains = {d.name for d in conn.domains()}
    except findings.Unreadable as exc:
        return findings.unreadable_layer('domains', expected, exc)
    present = {(kind, target, domain) for kind, target in targets
               for domain in held.get((kind, target), ())}
    if not started:
        # Its devices may be another reservation's now: only what it
        # attached itself is its own to take back.
        present &= named
    found = {'hostdevs': [dict(zip(('kind', 'id', 'domain'), key))
                          for key in sorted(present)],
             'mdevs': sorted(t for k, t in targets
                             if k == Attachment.MDEV and t in mdevs)}
    problems = []
    for key in sorted(wanted - present):
        problems.append(_missing(key, started, key[2] in domains))
    own_domains = {a.domain for a in reservation.attachments}
    for key in sorted(present - wanted):
        if started and key[2] not in own_domains:
            problems.append(findings.problem(
                'domain %s holds %s %s of the reservation' % (
                    key[2], key[0], key[1]),
                findings.FOREIGN_SERVER, findings.BY_OPERATOR,
                'reserve never attached it there: detach it from that '
                'domain (virsh detach-device)'))
        elif not started:
            problems.append(_extra(key, teardown_pending))
    return findings.layer('domains', expected, found, problems)
