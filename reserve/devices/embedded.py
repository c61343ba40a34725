"""The all-in-one's GPU hosts: libvirt test:/// hosts from etc/.

At start-up reserve-all-in-one enrolls each host of
[devices]embedded_gpu_hosts (name: definition file of
etc/reserve/gpu-hosts), or refreshes it when its row exists from an
earlier run. A test:/// host starts afresh with each process, so the
refresh also gives the active reservations back their hostdevs and
mdevs (see reserve.devices.runs.rediscover).

Their domains belong to the noauth API's project (``OWNER``): each
domain without a recorded owner is recorded as its, so that the quick
start's reservations may name them while any other project is answered
as if they did not exist (reserve.devices.owners).
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.db import devices as devices_db
from reserve.db import domain_owners as owners_db
from reserve.db import hosts as hosts_db
from reserve.devices import hosts as device_hosts
from reserve.devices import refresh
from reserve.virt import host_definitions

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

# The project of the noauth API's callers (reserve.api.auth).
OWNER = 'noauth-project'


def _existing(context, name, uri):
    host = devices_db.host_by_uri(context, uri)
    if host is not None:
        return host
    try:
        host = hosts_db.host_get(context, name)
    except exception.HostNotFound:
        return None
    if host.kind == 'libvirt' and host.uri != uri:
        # The same host, its definition found elsewhere this time.
        hosts_db.host_update(context, host.id, {'uri': uri})
    return host


def enroll_hosts(context):
    """Enroll or refresh every embedded host; returns their names."""
    done = []
    for name, definition in sorted(CONF.devices.embedded_gpu_hosts.items()):
        try:
            uri = host_definitions.host_uri(
                host_definitions.host_definition(definition))
            host = _existing(context, name, uri)
            if host is None:
                refresh.enroll(context, {'name': name, 'uri': uri})
                LOG.info('Enrolled embedded GPU host %s (%s)', name, uri)
            else:
                refresh.refresh(context, host.id)
                LOG.info('Refreshed embedded GPU host %s (%s)', name, uri)
            give_owners(context, hosts_db.host_get(context, name))
            done.append(name)
        except (OSError, exception.ReserveException) as exc:
            LOG.error('Embedded GPU host %s (%s) not enrolled: %s', name,
                      definition, exc)
    return done


def give_owners(context, host):
    """Record ``OWNER`` as the owner of each domain of the host that has
    none recorded (an administrator's record is kept)."""
    recorded = owners_db.owners_of_host(context, host.id)
    with device_hosts.host_lock(host.id):
        names = [d.name for d in device_hosts.connect(host.uri).domains()]
    for name in names:
        if name not in recorded:
            owners_db.owner_set(context, host.id, name, OWNER)
