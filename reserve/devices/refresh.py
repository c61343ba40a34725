"""Enrolling libvirt hosts and rediscovering them, on demand and every
[devices]refresh_interval seconds (a thread of reserve-manager); their
domains as libvirt shows them."""
import dataclasses
import threading

from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.devices import hosts
from reserve.devices import lifecycle
from reserve.devices import owners
from reserve.devices import runs
from reserve.devices import spot
from reserve.devices import states
from reserve.virt import uris

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


def enroll(context, values):
    """Enroll the libvirt host at values['uri'] as values['name'] and
    discover it. Returns the host row."""
    uri, name = values['uri'], values['name']
    existing = devices_db.host_by_uri(context, uri)
    if existing is not None:
        raise exception.HostAlreadyEnrolled(name=existing.name,
                                            id=existing.id)
    try:
        hosts.connect(uri).topology_generation()
    except exception.LibvirtUriNotAllowed:
        raise
    except exception.ReserveException as exc:
        raise exception.LibvirtHostUnreachable(uri=uris.display(uri),
                                               reason=exc.message)
    host = hosts_db.host_create(context, {
        'name': name, 'kind': states.LIBVIRT, 'uri': uri,
        'reservable': values.get('reservable', True)},
        values.get('capabilities'))
    refresh(context, host.id)
    LOG.info('Libvirt host %s (%s) enrolled as %s', name, uri, host.id)
    return hosts_db.host_get(context, host.id)


def refresh(context, host_id):
    """Rediscover one libvirt host; a failure is recorded on the host
    (refresh_error) and raised."""
    host = hosts_db.host_get(context, host_id)
    if host.kind != states.LIBVIRT:
        raise exception.HostNotLibvirt(name=host.name, kind=host.kind)
    with hosts.host_lock(host.id):
        try:
            return runs.rediscover(context, host, hosts.connect(host.uri))
        except exception.ReserveException as exc:
            devices_db.host_record_refresh(context, host.id,
                                           {'refresh_error': exc.message})
            raise


def domains(context, host_id, name=None):
    """Every domain of a libvirt host with the PCI and mdev hostdevs it
    holds and its owner (a project, or None; see
    reserve.devices.owners); or the one named, with its XML as libvirt
    gives it."""
    host = hosts_db.host_get(context, host_id)
    if host.kind != states.LIBVIRT:
        raise exception.HostNotLibvirt(name=host.name, kind=host.kind)
    with hosts.host_lock(host.id):
        conn = hosts.connect(host.uri)
        found_owners = owners.read(context, host, conn)
        if name is None:
            return [dict(_domain_view(conn, d),
                         owner=found_owners.get(d.name))
                    for d in conn.domains()]
        hostdevs = conn.attached(name)  # DomainNotFound first
        found = next(d for d in conn.domains() if d.name == name)
        view = _domain_view(conn, found, hostdevs)
        view['owner'] = found_owners.get(name)
        view['xml'] = conn.domain_xml(name)
        return view


def _domain_view(conn, domain, hostdevs=None):
    view = dataclasses.asdict(domain)
    if hostdevs is None:
        hostdevs = conn.attached(domain.name)
    view['hostdevs'] = [h.to_dict() for h in hostdevs]
    return view


def refresh_all(context):
    """Rediscover every libvirt host, then settle what a lost step left
    behind. Returns {host name: report or error}."""
    results = {}
    for host in devices_db.libvirt_hosts(context):
        try:
            results[host.name] = refresh(context, host.id)
        except Exception as exc:  # noqa: BLE001 - one host must not stop all
            LOG.warning('Refresh of host %s failed: %s', host.name, exc)
            results[host.name] = {'error': str(exc)}
    settle(context)
    return results


def settle(context):
    """What a lost step or a crash left half done: reclaims interrupted
    (finished), spot attachments left detached (deleted), then
    reservations attached without a lease (released). Returns the ids
    of the latter."""
    spot.finish_reclaims(context)
    spot.drop_detached(context)
    return lifecycle.settle(context)


class RefreshLoop:
    """Runs refresh_all every [devices]refresh_interval seconds."""

    def __init__(self):
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._loop,
                                        name='reserve-device-refresh',
                                        daemon=True)
        self._thread.start()

    def _loop(self):
        # At once: a reservation a killed manager left attached without
        # its lease is released now, not one refresh interval later.
        try:
            moved = settle(reserve_context.get_admin_context())
            if moved:
                LOG.warning('Settled %d device reservation(s) a previous '
                            'run left half done', len(moved))
        except Exception as exc:  # noqa: BLE001 - the loop retries
            LOG.warning('Device reservations not settled at start: %s',
                        exc)
        if not CONF.devices.refresh_interval:
            return
        while not self._stop.wait(CONF.devices.refresh_interval):
            try:
                refresh_all(reserve_context.get_admin_context())
            except Exception:
                LOG.exception('Device refresh failed')

    def stop(self, timeout=30):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
