"""Who owns the domains of a libvirt host, and who may hand them devices.

A GPU device goes only into a domain owned by one of its reservation's
projects (the project that made it, its allowed and its managing
projects). A domain's owner is read in one of two places:

* A libvirt host is **run by nova** when a nova host is enrolled for
  the same machine: the nova host's ``service_name`` (nova's service
  host) or ``name`` (its hypervisor hostname) is the host part of the
  libvirt host's URI (``qemu+ssh://<host>/system``, the pairing
  reserve.capacity.host_gpus counts a nova host's GPUs by), or its
  ``service_name`` is the libvirt host's name. There only nova defines
  domains, and it writes each instance's project into the domain's
  metadata (``<nova:owner><nova:project uuid=...>``): that is the owner,
  and a domain without it has none.
* On every other libvirt host the owner is what an administrator
  recorded (/v1/hosts/{id}/domain-owners, reserve.db.domain_owners).

A domain with no owner takes devices only from the administrators
(``unowned_ok``: the policy reserve:device_reservation:attach:unowned).
A domain another project owns is answered exactly as a domain that does
not exist (DomainNotFound), so that its name and existence stay hidden.

An end (or a review) takes devices back from a domain, and powers it off
with [devices]end_action 'destroy', only while its owner is still the
one recorded on the attachment when the domain was named
(``still_theirs``): a domain that changed hands is left alone.
"""
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import policy
from reserve.common.policies import device_reservations as policies
from reserve.db import device_reservations as device_reservations_db
from reserve.db import domain_owners as owners_db
from reserve.virt import uris

LOG = logging.getLogger(__name__)


def run_by_nova(context, host):
    """Whether the libvirt ``host`` is run by nova (see the module)."""
    return owners_db.nova_host_named(context, [uris.host_name(host.uri),
                                               host.name])


def read(context, host, conn):
    """{domain name: owner project or None} of every domain of the host
    (``conn``: its HostConnection)."""
    if run_by_nova(context, host):
        return conn.nova_owners()
    recorded = owners_db.owners_of_host(context, host.id)
    return {d.name: recorded.get(d.name) for d in conn.domains()}


def unowned_ok(context):
    """Whether the caller may hand devices to a domain with no owner
    (reserve's own jobs may: they act for an administrator's request)."""
    if context.is_admin:
        return True
    try:
        return bool(policy.authorize(context, policies.ATTACH_UNOWNED,
                                     do_raise=False))
    except exception.Forbidden:
        return False


def projects_of(reservation):
    """The projects of a reservation row: its maker, allowed and
    managing projects."""
    return {reservation.project_id} | {p.project_id
                                       for p in reservation.projects}


def acceptable(owner, projects, unowned):
    return owner in projects if owner is not None else bool(unowned)


def usable(found, projects, unowned):
    """{name: owner} of the domains of ``found`` (read's answer, or the
    domain views of LeaseManager.host_domains, each with 'owner') that
    devices of a reservation of ``projects`` may go into."""
    if isinstance(found, (list, tuple)):
        found = {d['name']: d.get('owner') for d in found}
    return {name: owner for name, owner in found.items()
            if acceptable(owner, projects, unowned)}


def check(context, host, conn, names, projects, unowned):
    """{name: owner} of ``names``, each a domain of the host that devices
    of a reservation of ``projects`` may go into; DomainNotFound for the
    first that is not (unknown or another project's alike)."""
    allowed = usable(read(context, host, conn), projects, unowned)
    for name in names or ():
        if name not in allowed:
            raise exception.DomainNotFound(name=name, host=host.name)
    return {name: allowed[name] for name in names or ()}


def still_theirs(context, host, conn, rows, what):
    """The attachments of ``rows`` whose domain still has the owner it
    had when it was named; each other one is logged in one line and
    left alone (``what``: the action not done to it)."""
    if not rows:
        return []
    try:
        now = read(context, host, conn)
    except exception.ReserveException as exc:
        # Without the owners nothing is touched; the caller retries.
        raise exception.CloudError(
            service='libvirt',
            reason='the owners of the domains of host %s could not be '
                   'read: %s' % (host.name, exc.message))
    kept = []
    for row in rows:
        if row.domain in now and now[row.domain] != row.domain_owner:
            LOG.warning('Domain %s of host %s changed owner (%s, was %s): '
                        'not %s for device reservation %s', row.domain,
                        host.name, now[row.domain], row.domain_owner, what,
                        row.device_reservation_id)
            continue
        kept.append(row)
    return kept


def record_owners(rows, owners):
    """Attachment rows (plan's) with the owner each domain had."""
    return [dict(r, domain_owner=owners.get(r['domain'])) for r in rows]


def leave_alone(context, rows, final_state):
    """Attachments whose domain changed hands: the reservation lets go
    of them in its records (``final_state``) without touching the
    domain; the next discovery shows what the domain still holds as in
    use outside reserve."""
    for row in rows:
        device_reservations_db.attachment_update(context, row.id, {
            'state': final_state, 'live': None, 'config': None})
