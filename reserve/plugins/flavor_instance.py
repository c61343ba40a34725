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
  slots on that host, max_unit 1) on a child provider ``reserve_<host>``
  under each reserved compute node while the lease is active.
"""
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import nova
from reserve.common import placement
from reserve.db import api as db_api
from reserve.db import devices as devices_db
from reserve.plugins import base
from reserve.plugins import capacity
from reserve.plugins import filters
from reserve.plugins import gpus
from reserve.plugins import host_gpus

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

RESOURCE_TYPE = 'flavor:instance'
AGGREGATE_SPEC = 'aggregate_instance_extra_specs:reservation'
# Extra specs of the source flavor that steer reserve, not nova.
OWN_SPEC_PREFIX = 'reserve:'
HOST_FILTER_SPEC = 'reserve:resource_properties'


def flavor_name(reservation_id):
    return 'reservation:%s' % reservation_id


class FlavorInstancePlugin(base.ResourcePlugin):
    resource_type = RESOURCE_TYPE

    def __init__(self, nova_client=None, placement_client=None):
        self.nova = nova_client or nova.NovaClient()
        self.placement = placement_client or placement.PlacementClient()

    # capacity --------------------------------------------------------------

    def _host_capacity(self, context, host, libvirt_hosts=None):
        """Usable vcpus/memory/disk: placement first, the host row else;
        with ``libvirt_hosts`` (the flavor asks for GPUs), the host's GPUs
        too (see host_gpus)."""
        fallback = {'vcpus': host.vcpus, 'memory_mb': host.memory_mb,
                    'disk_gb': host.local_gb}
        if libvirt_hosts is not None:
            fallback['gpus'] = host_gpus.of_host(
                context, host,
                host_gpus.refresh(context, host, self.placement),
                libvirt_hosts)[0]
        if not host.provider_uuid:
            return fallback
        try:
            inventories = self.placement.get_inventories(host.provider_uuid)
        except exception.CloudError as exc:
            LOG.warning('Using recorded capacity of host %s: %s',
                        host.name, exc)
            return fallback
        result = dict(fallback)
        for key, rc in (('vcpus', 'VCPU'), ('memory_mb', 'MEMORY_MB'),
                        ('disk_gb', 'DISK_GB')):
            inv = inventories.get(rc)
            if inv:
                result[key] = int((inv['total'] - inv.get('reserved', 0)) *
                                  inv.get('allocation_ratio', 1.0))
        return result

    def _slots(self, context, hosts, need, start, end, exclude=None):
        usages = db_api.host_usage_in_window(context, start, end,
                                             exclude_reservation=exclude)
        by_host = {}
        for usage in usages:
            by_host.setdefault(usage['host_id'], []).append(usage)
            usage['gpus'] = gpus.configured_demand(usage['extra_specs'],
                                                   CONF)
        libvirt_hosts = None
        if need.get('gpus'):
            libvirt_hosts = devices_db.libvirt_hosts(context)
        slots = {}
        for host in hosts:
            fit = capacity.host_slots(
                self._host_capacity(context, host, libvirt_hosts),
                by_host.get(host.id, []), need, start, end)
            slots[host.id] = fit if fit is not None else 10 ** 6
        return slots

    @staticmethod
    def _need(values):
        return {'vcpus': values['vcpus'], 'memory_mb': values['memory_mb'],
                'disk_gb': values['disk_gb'] + values['ephemeral_gb'],
                'gpus': gpus.configured_demand(values['extra_specs'], CONF)}

    def reserve(self, context, lease_values, values):
        amount = int(values.get('amount') or 0)
        if amount < 1:
            raise exception.Invalid(reason='amount must be at least 1')
        source = self.nova.get_flavor(values['flavor_id'])
        if source is None:
            raise exception.NovaFlavorNotFound(id=values['flavor_id'])
        extra_specs = self.nova.flavor_extra_specs(source)
        host_filter = filters.parse(values.get('resource_properties') or
                                    extra_specs.get(HOST_FILTER_SPEC))
        row = {
            'resource_type': RESOURCE_TYPE,
            'amount': amount,
            'source_flavor_id': source.id,
            'vcpus': source.vcpus,
            'memory_mb': source.ram,
            'disk_gb': source.disk,
            'ephemeral_gb': getattr(source, 'OS-FLV-EXT-DATA:ephemeral', 0)
            or 0,
            'swap_mb': source.swap or 0,
            'extra_specs': {k: v for k, v in extra_specs.items()
                            if not k.startswith(OWN_SPEC_PREFIX)},
            'resource_properties': host_filter,
            'affinity': values.get('affinity'),
        }
        hosts = [h for h in db_api.host_list(context, reservable=True)
                 if h.kind == 'nova' and filters.matches(
                     host_filter, {c.key: c.value for c in h.capabilities})]
        start, end = lease_values['start_date'], lease_values['end_date']
        need = self._need(row)
        slots = self._slots(context, hosts, need, start, end)
        placed = capacity.place(slots, amount, row['affinity'])
        if placed is None:
            what = 'flavor %s' % source.name
            if need['gpus']:
                what += ' (GPUs per instance: %s)' % gpus.describe(
                    need['gpus'])
            raise exception.NotEnoughHostsAvailable(
                wanted=amount, what=what,
                found=_best_effort(slots, row['affinity'], amount),
                start=start, end=end)
        row['allocations'] = [{'host_id': h, 'count': n}
                              for h, n in sorted(placed.items())]
        return row

    def check_new_window(self, context, lease, reservation, start, end):
        need = self._need({'vcpus': reservation.vcpus,
                           'memory_mb': reservation.memory_mb,
                           'disk_gb': reservation.disk_gb,
                           'ephemeral_gb': reservation.ephemeral_gb,
                           'extra_specs': reservation.extra_specs or {}})
        hosts = [a.host for a in reservation.allocations]
        slots = self._slots(context, hosts, need, start, end,
                            exclude=reservation.id)
        for allocation in reservation.allocations:
            if slots[allocation.host_id] < allocation.count:
                raise exception.NotEnoughHostsAvailable(
                    wanted=reservation.amount,
                    what='reservation %s' % reservation.id,
                    found=reservation.amount - allocation.count +
                    slots[allocation.host_id], start=start, end=end)

    # artefacts ---------------------------------------------------------------

    def build(self, context, lease, reservation):
        rsv_id = reservation.id
        resource_class = placement.reservation_resource_class(rsv_id)
        self.placement.ensure_resource_class(resource_class)
        extra_specs = dict(reservation.extra_specs or {})
        extra_specs[AGGREGATE_SPEC] = rsv_id
        extra_specs['resources:%s' % resource_class] = '1'
        self.nova.ensure_flavor(
            rsv_id, flavor_name(rsv_id), vcpus=reservation.vcpus,
            ram=reservation.memory_mb, disk=reservation.disk_gb,
            ephemeral=reservation.ephemeral_gb, swap=reservation.swap_mb,
            extra_specs=extra_specs)
        self.nova.ensure_aggregate(rsv_id, {
            'reservation': rsv_id,
            'filter_tenant_id': lease.project_id,
            'reserve:owner': lease.user_id or ''})

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
                                         allocation.count)

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


def _best_effort(slots, affinity, amount):
    """How many instances would have fit, for the error message."""
    if affinity is True:
        return min(max(slots.values(), default=0), amount)
    if affinity is False:
        return min(sum(1 for s in slots.values() if s), amount)
    return min(sum(slots.values()), amount)
