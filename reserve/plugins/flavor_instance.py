"""flavor:instance — reserve N instances of a nova flavor on chosen hosts.

The fence is made of standard nova/placement objects, each named after
the lease reservation's id (RSV):

* a private flavor ``reservation:RSV`` with flavorid RSV, the source
  flavor's sizes and extra specs plus
  ``aggregate_instance_extra_specs:reservation=RSV`` and
  ``resources:CUSTOM_RESERVATION_<RSV>=1``;
* an aggregate RSV with metadata ``reservation=RSV`` and
  ``filter_tenant_id=<project>``;
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
from reserve.fence import fence
from reserve.plugins import base

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

RESOURCE_TYPE = states.FLAVOR_INSTANCE
AGGREGATE_SPEC = 'aggregate_instance_extra_specs:reservation'
# Extra specs of the source flavor that steer reserve, not nova.
OWN_SPEC_PREFIX = sizing.OWN_SPEC_PREFIX
HOST_FILTER_SPEC = model.HOST_FILTER_SPEC


def flavor_name(lease_reservation_id):
    return 'reservation:%s' % lease_reservation_id


def flavor_extra_specs(reservation):
    """The extra specs of a lease reservation's private flavor."""
    extra_specs = dict(reservation.extra_specs or {})
    extra_specs[AGGREGATE_SPEC] = reservation.id
    extra_specs['resources:%s' % placement.reservation_resource_class(
        reservation.id)] = '1'
    extra_specs.update(fence.specs())  # past the fence of the hosts
    return extra_specs


def aggregate_metadata(lease, reservation):
    """The metadata of a lease reservation's aggregate."""
    return {'reservation': reservation.id,
            'filter_tenant_id': lease.project_id,
            'reserve:owner': lease.user_id or ''}


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
        rsv_id = reservation.id
        resource_class = placement.reservation_resource_class(rsv_id)
        self.placement.ensure_resource_class(resource_class)
        self.nova.ensure_flavor(
            rsv_id, flavor_name(rsv_id), vcpus=reservation.vcpus,
            ram=reservation.memory_mb, disk=reservation.disk_gb,
            ephemeral=reservation.ephemeral_gb, swap=reservation.swap_mb,
            extra_specs=flavor_extra_specs(reservation))
        self.nova.ensure_aggregate(rsv_id,
                                   aggregate_metadata(lease, reservation))

    def on_start(self, context, lease, reservation):
        rsv_id = reservation.id
        resource_class = placement.reservation_resource_class(rsv_id)
        self.build(context, lease, reservation)
        self.nova.add_flavor_access(rsv_id, lease.project_id)
        for allocation in reservation.allocations:
            host = allocation.host
            self.nova.add_aggregate_host(rsv_id, host.service_name or
                                         host.name)
            child = self.placement.ensure_child_provider(host.provider_uuid,
                                                         host.name)
            self.placement.set_inventory(child['uuid'], resource_class,
                                         allocation.amount)

    def sync(self, context, lease, reservation):
        """A started lease's cloud objects as its allocations say (hosts
        moved under it, or objects changed by hand): everything on_start
        makes is made again where missing, and the hosts it no longer
        holds leave its aggregate and lose its inventory."""
        self.on_start(context, lease, reservation)
        rsv_id = reservation.id
        aggregate = self.nova.find_aggregate(rsv_id)
        wanted = {a.host.service_name or a.host.name
                  for a in reservation.allocations}
        by_service = {h.service_name or h.name: h
                      for h in hosts_db.host_list(context)}
        resource_class = placement.reservation_resource_class(rsv_id)
        for service in sorted(set(aggregate.hosts) - wanted):
            self.nova.remove_aggregate_host(rsv_id, service)
            host = by_service.get(service)
            child = host and self.placement.get_provider_by_name(
                placement.CHILD_PREFIX + host.name)
            if child:
                self.placement.delete_inventory(child['uuid'],
                                                resource_class)
            LOG.info('Reservation %s left host %s', rsv_id, service)

    def on_end(self, context, lease, reservation):
        rsv_id = reservation.id
        resource_class = placement.reservation_resource_class(rsv_id)
        # No new boots from here on, then the servers go.
        self.nova.remove_flavor_access(rsv_id, lease.project_id)
        self.nova.delete_servers_of_flavor(
            rsv_id, CONF.nova.server_delete_timeout,
            CONF.nova.server_delete_poll_interval)
        for allocation in reservation.allocations:
            host = allocation.host
            child = self.placement.get_provider_by_name(
                placement.CHILD_PREFIX + host.name)
            if child is not None:
                self.placement.delete_inventory(child['uuid'],
                                                resource_class)
        self.placement.delete_resource_class(resource_class)
        self.nova.delete_aggregate(rsv_id)
        self.nova.delete_flavor(rsv_id)
