"""flavor:instance — reserve N instances of a nova flavor on chosen hosts.

The fence is made of standard nova/placement objects, each named after
the lease reservation's id (RSV):

* a private flavor ``reservation:RSV`` with flavorid RSV, the source
  flavor's sizes and extra specs plus
  ``aggregate_instance_extra_specs:reservation=RSV`` and
  ``resources:CUSTOM_RESERVATION_<RSV>=1``;
* an aggregate RSV with metadata ``reservation=RSV`` and
  ``filter_tenant_id=<project>`` (and ``filter_tenant_id_<project>`` for
  each project the booking is shared with, which get flavor access too:
  reserve.plugins.shared_access);
* the resource class CUSTOM_RESERVATION_<RSV>, with inventory (total =
  the instances reserved on that host, max_unit 1) on a child provider
  ``reserve_<host>`` under each reserved compute node while the lease is
  active.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.booking import sizing
from reserve.capacity import host_filters
from reserve.capacity import model
from reserve.capacity import store
from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.db import hosts as hosts_db
from reserve.plugins import base
from reserve.plugins import instance_objects as objects
from reserve.plugins import shared_access
from reserve.spot import lending

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

RESOURCE_TYPE = states.FLAVOR_INSTANCE
# Extra specs of the source flavor that steer reserve, not nova.
OWN_SPEC_PREFIX = sizing.OWN_SPEC_PREFIX
HOST_FILTER_SPEC = model.HOST_FILTER_SPEC


class FlavorInstancePlugin(base.ResourcePlugin):
    resource_type = RESOURCE_TYPE
    capacity_allocations = True

    def __init__(self, nova_client=None, placement_client=None):
        self.nova = nova_client or nova.NovaClient()
        self.placement = placement_client or placement.PlacementClient()

    # capacity --------------------------------------------------------------

    def prepare(self, context, values):
        """Before any lock: the request with the nova flavor's record,
        read now unless the caller (the worker, from the catalogue entry)
        brings it."""
        if values.get('nova_flavor'):
            return values
        record = sizing.read(values['nova_flavor_id'], self.nova)
        return dict(values, nova_flavor=record)

    def reserve(self, context, lease_values, values):
        """The lease reservation's row. A booking's hosts were chosen when
        it was admitted (reserve.booking.admission): the lease adopts its
        allocations as they are."""
        instance_count = int(values.get('instance_count') or 0)
        if instance_count < 1:
            raise exception.Invalid(
                reason='instance_count must be at least 1')
        record = values.get('nova_flavor') or sizing.read(
            values['nova_flavor_id'], self.nova)
        extra_specs = record.get('extra_specs') or {}
        host_filter = host_filters.parse(
            values.get('resource_properties') or
            extra_specs.get(HOST_FILTER_SPEC))
        row = {
            'resource_type': RESOURCE_TYPE,
            'amount': instance_count,
            'source_flavor_id': record['id'],
            'vcpus': record['vcpus'],
            'memory_mb': record['memory_mb'],
            'disk_gb': record['disk_gb'],
            'ephemeral_gb': record.get('ephemeral_gb') or 0,
            'swap_mb': record.get('swap_mb') or 0,
            'extra_specs': {k: v for k, v in extra_specs.items()
                            if not k.startswith(OWN_SPEC_PREFIX)},
            'resource_properties': host_filter,
            'affinity': values.get('affinity'),
            'allocations': [],
        }
        booking_id = values.get('booking_id')
        if not (booking_id and
                store.allocations_of_booking(context, booking_id)):
            raise exception.Invalid(
                reason='a flavor:instance lease adopts the allocations of '
                       'an admitted booking; booking %s holds none' %
                booking_id)
        row['adopt_booking'] = booking_id
        return row

    def check_new_window(self, context, lease, reservation, start, end):
        """Each host of the reservation must hold its instances until the
        new end (they cannot move); the allocations then end there."""
        if end > lease.end and reservation.allocations:
            short = model.short_on_own_hosts(
                context, store.lock(context), reservation.allocations,
                lease.end, end, exclude_lease_reservation=reservation.id)
            if short:
                raise exception.NotEnoughHostsAvailable(
                    wanted=reservation.amount,
                    what='reservation %s' % reservation.id,
                    found=reservation.amount - short, start=start,
                    end=end)
        store.allocations_set_end(context, end,
                                  lease_reservation_id=reservation.id)

    # artefacts ---------------------------------------------------------------

    def build(self, context, lease, reservation):
        self._build(lease, reservation,
                    shared_access.shares(context, lease).shared)

    def _build(self, lease, reservation, shared):
        rsv_id = reservation.id
        return (objects.ensure_resource_class(self.placement, rsv_id) +
                objects.ensure_flavor(self.nova, reservation) +
                objects.ensure_aggregate(self.nova, lease, rsv_id, shared))

    def on_start(self, context, lease, reservation):
        self._start(context, lease, reservation)

    def _start(self, context, lease, reservation):
        rsv_id = reservation.id
        shares = shared_access.shares(context, lease)
        return (self._build(lease, reservation, shares.shared) +
                objects.ensure_access(self.nova, rsv_id, lease.project_id) +
                shared_access.ensure(context, self.nova, lease, rsv_id,
                                     shares) +
                objects.ensure_hosts(self.nova, self.placement, rsv_id,
                                     reservation.allocations))

    def sync(self, context, lease, reservation):
        """A started lease's cloud objects as its allocations say (hosts
        moved under it, or objects changed by hand): everything on_start
        makes is made again where missing or changed, extra specs added
        by hand go, and the hosts it no longer holds leave its aggregate
        and lose its inventory. Returns what it put right."""
        done = self._start(context, lease, reservation)
        done += objects.drop_hosts_not_held(
            self.nova, self.placement, reservation.id,
            reservation.allocations, hosts_db.host_list(context))
        return done

    def on_end(self, context, lease, reservation):
        """The teardown; returns the servers nova has not deleted within
        [nova]server_delete_timeout (their deletion asked, [] when all
        went). The teardown goes on without them: what their
        allocations hold in placement (the inventory, hence the resource
        class) and the flavor they still name are left to the sweep of
        leftovers, which retries their deletion."""
        rsv_id = reservation.id
        # No new boots from here on, then the servers go, and the spot
        # servers its idle seats held.
        self.nova.remove_flavor_access(rsv_id, lease.project_id)
        shared_access.take_back(self.nova, rsv_id,
                                shared_access.shares(context, lease))
        lending.take_back(context, self.nova, self.placement, reservation)
        try:
            self.nova.delete_servers_of_flavor(
                rsv_id, CONF.nova.server_delete_timeout,
                CONF.nova.server_delete_poll_interval)
        except exception.ServerDeletionTimeout as exc:
            stuck = exc.kwargs['server_ids']
            LOG.warning('Lease %s: servers %s of reservation %s not deleted '
                        'after %d s; the rest of the teardown goes on, '
                        'their deletion is retried by the repair task',
                        lease.id, ', '.join(stuck), rsv_id,
                        CONF.nova.server_delete_timeout)
            self.nova.delete_aggregate(rsv_id)
            return stuck
        children = [self.placement.get_provider_by_name(
            placement.CHILD_PREFIX + a.host.name)
            for a in reservation.allocations]
        objects.remove_placement(self.placement, rsv_id,
                                 [c for c in children if c is not None])
        self.nova.delete_aggregate(rsv_id)
        self.nova.delete_flavor(rsv_id)
        return []
