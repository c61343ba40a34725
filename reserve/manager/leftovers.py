"""What ended reservations left in the cloud, taken down: the sweep of
the manager's repair task (reserve.manager.repair).

* The servers an end could not delete (the stuck_servers of their
  owner's delivery row, written when flavor_instance.on_end gave up
  waiting): their deletion is asked again every run, and once nova has
  deleted them the row says so.
* The cloud objects reserve names after a lease reservation <id>: the
  private flavor ``reservation:<id>`` with flavorid <id>, the aggregate
  <id> whose metadata ``reservation`` is <id> (or with no metadata and
  no host yet: made, but not given them), the resource class
  CUSTOM_RESERVATION_<ID> and its inventories on the ``reserve_<host>``
  child providers. Those no live lease reservation owns (their lease is
  TERMINATED, or gone) are taken down. Servers still booted with such
  a flavor are asked to go first, and the rest waits for a run that
  finds them gone: placement refuses the inventory while their
  allocations stand.

What a lease still at work owns is never taken: the cloud is read
first, the live lease reservations after, and a lease's row is
committed before any of its objects is made (LeaseManager._build), so
an object made for a lease created meanwhile finds its row live.
"""
import collections

from oslo_log import log as logging
from oslo_utils import uuidutils

from reserve.common import exception
from reserve.common import placement
from reserve.common import states
from reserve.db import bookings as bookings_db
from reserve.db import deliveries as deliveries_db
from reserve.db import leases as leases_db
from reserve.manager import delivery
from reserve.plugins import instance_objects as objects

LOG = logging.getLogger(__name__)

# Who a delivery row or a report is about, when only the owner is known
# (the attributes of a lease that reserve.manager.delivery reads).
Owner = collections.namedtuple('Owner',
                               'id owner_type owner_id project_id')


class Leftover:
    """The cloud objects found of one lease reservation id."""

    def __init__(self, rsv_id):
        self.rsv_id = rsv_id
        self.flavor = False
        self.aggregate = False
        self.resource_class = False
        self.children = []      # providers holding an inventory of it


def _bare(aggregate):
    """Made, but given neither metadata nor hosts: reserve's aggregate
    when a call failed or a daemon died between its creation and its
    metadata (nova makes the two apart)."""
    return not aggregate.metadata and not aggregate.hosts


def find(nova_client, placement_client):
    """{lease reservation id: Leftover} of every object named after one;
    ids that are not UUIDs are not reserve's."""
    found = {}

    def of(rsv_id):
        return found.setdefault(rsv_id.lower(), Leftover(rsv_id))

    for flavor in nova_client.list_flavors():
        if (uuidutils.is_uuid_like(flavor.id) and
                flavor.name == objects.flavor_name(flavor.id)):
            of(flavor.id).flavor = True
    for aggregate in nova_client.list_aggregates():
        if uuidutils.is_uuid_like(aggregate.name) and (
                aggregate.metadata.get('reservation') == aggregate.name or
                _bare(aggregate)):
            of(aggregate.name).aggregate = True
    for resource_class in placement_client.list_resource_classes(
            placement.RESERVATION_CLASS_PREFIX):
        rsv_id = placement.reservation_of_class(resource_class)
        if uuidutils.is_uuid_like(rsv_id):
            of(rsv_id).resource_class = True
    for provider in placement_client.list_providers(placement.CHILD_PREFIX):
        for resource_class in placement_client.get_inventories(
                provider['uuid']):
            rsv_id = placement.reservation_of_class(resource_class)
            if rsv_id and uuidutils.is_uuid_like(rsv_id):
                of(rsv_id).children.append(provider)
    return found


def tear_down(nova_client, placement_client, leftover, asked=()):
    """Take a leftover down; returns (what went, one sentence each;
    whether some is left until its servers are gone). ``asked``: the
    servers whose deletion was asked already in this run."""
    rsv_id = leftover.rsv_id
    done = []
    if leftover.aggregate and nova_client.delete_aggregate(rsv_id):
        done.append('leftover aggregate %s deleted' % rsv_id)
    if leftover.flavor:
        servers = sorted(s.id for s in
                         nova_client.list_servers_of_flavor(rsv_id))
        if servers:
            nova_client.ask_server_deletion(
                [s for s in servers if s not in asked])
            LOG.info('Leftovers of reservation %s wait for servers %s, '
                     'whose deletion is asked', rsv_id, ', '.join(servers))
            return done, True
    done += ['leftover %s' % what for what in objects.remove_placement(
        placement_client, rsv_id, leftover.children)]
    if leftover.flavor and nova_client.delete_flavor(rsv_id):
        done.append('leftover flavor %s deleted' %
                    objects.flavor_name(rsv_id))
    return done, False


def owner_of(context, rsv_id):
    """The lease (or, once it is gone, the booking as an Owner) a lease
    reservation id was made for, or None."""
    lease_id = leases_db.lease_id_of(context, rsv_id)
    if lease_id is not None:
        try:
            lease = leases_db.lease_get(context, lease_id)
        except exception.LeaseNotFound:
            lease = None
        if lease is not None and lease.owner_id:
            return lease
    booking = bookings_db.booking_find_by_reserved_flavor(context, rsv_id)
    if booking is None:
        return None
    return Owner(booking.lease_id, states.Owner.BOOKING, booking.id,
                 booking.project_id)


def retry_stuck(context, nova_client, counts):
    """Ask again the deletion of the servers ends left; returns their
    ids."""
    asked = set()
    for row in deliveries_db.delivery_list_stuck(context):
        owner = Owner(None, row.owner_type, row.owner_id, row.project_id)
        try:
            left = [s for s in row.stuck_servers
                    if nova_client.server_exists(s)]
            nova_client.ask_server_deletion(left)
        except exception.CloudError as exc:
            LOG.warning('Servers %s left by the end of %s %s not asked to '
                        'go again: %s', ', '.join(row.stuck_servers),
                        row.owner_type, row.owner_id, exc)
            counts['failed'] += 1
            continue
        asked.update(left)
        if left != row.stuck_servers:
            LOG.info('Servers %s left by the end of %s %s are deleted',
                     ', '.join(sorted(set(row.stuck_servers) - set(left))),
                     row.owner_type, row.owner_id)
            delivery.stuck_servers(context, owner, left)
        counts['stuck_servers'] += len(left)
    return asked


def sweep(context, nova_client, placement_client):
    """One run: the stuck servers, then the leftovers. Returns counts:
    repairs reported to a known owner, objects of no known owner taken
    down, servers still stuck, leftovers waiting for their servers,
    failures (logged, tried again next run)."""
    counts = dict.fromkeys(('repaired', 'unowned', 'stuck_servers',
                            'waiting', 'failed'), 0)
    asked = retry_stuck(context, nova_client, counts)
    found = find(nova_client, placement_client)
    live = {rsv_id.lower()
            for rsv_id in leases_db.lease_reservation_ids_live(context)}
    for key, leftover in sorted(found.items()):
        if key in live:
            continue
        try:
            done, waiting = tear_down(nova_client, placement_client,
                                      leftover, asked)
        except exception.CloudError as exc:
            LOG.warning('Leftovers of reservation %s not taken down: %s',
                        leftover.rsv_id, exc)
            counts['failed'] += 1
            continue
        counts['waiting'] += waiting
        if not done:
            continue
        owner = owner_of(context, leftover.rsv_id)
        if owner is None:
            LOG.warning('Leftovers of reservation %s, whose owner is not '
                        'known, taken down: %s', leftover.rsv_id,
                        '; '.join(done))
            counts['unowned'] += len(done)
        else:
            delivery.repaired(context, owner, done)
            counts['repaired'] += len(done)
    return counts
