"""The cloud objects of one flavor:instance reservation (RSV), made as
they should be and taken down.

Each ``ensure_*`` compares before it writes and returns what it had to
put right, one sentence each, nothing when all was in place: on_start
ignores them, the periodic repair (reserve.manager.repair) reports
them. The teardown functions are shared by on_end and the sweep of
leftovers (reserve.manager.leftovers).
"""
from reserve.common import placement
from reserve.fence import fence

AGGREGATE_SPEC = 'aggregate_instance_extra_specs:reservation'
FLAVOR_PREFIX = 'reservation:'


def flavor_name(lease_reservation_id):
    return FLAVOR_PREFIX + lease_reservation_id


def flavor_specs(reservation):
    """The extra specs of the reservation's flavor, exactly."""
    rsv_id = reservation.id
    specs = dict(reservation.extra_specs or {})
    specs[AGGREGATE_SPEC] = rsv_id
    specs['resources:%s' % placement.reservation_resource_class(rsv_id)] = \
        '1'
    specs.update(fence.specs())  # past the fence of the hosts
    return specs


# The tenant filters of nova (AggregateMultiTenancyIsolation, and
# placement's limit_tenants_to_placement_aggregate) read every key
# beginning with filter_tenant_id; placement's takes one project per
# value. A shared project gets a key of its own.
SHARED_TENANT_KEY = 'filter_tenant_id_'


def aggregate_metadata(lease, rsv_id, shared=()):
    """The metadata of the aggregate ``rsv_id``; ``shared``: the projects
    the booking is shared with."""
    metadata = {'reservation': rsv_id, 'filter_tenant_id': lease.project_id,
                'reserve:owner': lease.user_id or ''}
    metadata.update((SHARED_TENANT_KEY + project_id, project_id)
                    for project_id in shared)
    return metadata


def service_host(host):
    # Aggregates take nova's service host, not the hypervisor name.
    return host.service_name or host.name


# making ------------------------------------------------------------------

def ensure_resource_class(placement_client, rsv_id):
    resource_class = placement.reservation_resource_class(rsv_id)
    if placement_client.ensure_resource_class(resource_class):
        return ['resource class %s re-created' % resource_class]
    return []


def ensure_flavor(nova_client, reservation):
    rsv_id = reservation.id
    created, changes = nova_client.ensure_flavor(
        rsv_id, flavor_name(rsv_id), vcpus=reservation.vcpus,
        ram=reservation.memory_mb, disk=reservation.disk_gb,
        ephemeral=reservation.ephemeral_gb, swap=reservation.swap_mb,
        extra_specs=flavor_specs(reservation))
    if created:
        return ['flavor %s re-created' % flavor_name(rsv_id)]
    return [('extra spec %s added by hand removed' % key) if wanted is None
            else 'extra spec %s restored to %s' % (key, wanted)
            for key, (_, wanted) in sorted(changes.items())]


def ensure_aggregate(nova_client, lease, rsv_id, shared=()):
    """The aggregate with its metadata; the key of a project no longer
    shared goes."""
    metadata = aggregate_metadata(lease, rsv_id, shared)
    _, created, keys = nova_client.repair_aggregate(
        rsv_id, metadata, owned_prefix=SHARED_TENANT_KEY)
    if created:
        return ['aggregate %s re-created' % rsv_id]
    return ['aggregate %s metadata %s %s' % (
        rsv_id, key, 'restored' if key in metadata else 'removed')
        for key in keys]


def ensure_access(nova_client, rsv_id, project_id):
    if nova_client.add_flavor_access(rsv_id, project_id):
        return ['flavor access of project %s restored' % project_id]
    return []


def _found(record, total):
    """What an inventory record was, as a repair says it."""
    if record is None:
        return 'absent'
    if record.get('total') != total:
        return str(record.get('total'))
    wrong = sorted(k for k, v in placement.RESERVATION_INVENTORY.items()
                   if record.get(k) != v)
    return ', '.join('%s %s' % (k, record.get(k)) for k in wrong)


def ensure_hosts(nova_client, placement_client, rsv_id, allocations):
    """Each allocated host in the aggregate, with its inventory."""
    done = []
    resource_class = placement.reservation_resource_class(rsv_id)
    for allocation in allocations:
        host = allocation.host
        if host.failure:
            continue  # nova may not take it now; synced once it is back
        if nova_client.add_aggregate_host(rsv_id, service_host(host)):
            done.append('host %s put back in aggregate %s' % (
                service_host(host), rsv_id))
        child = placement_client.ensure_child_provider(host.provider_uuid,
                                                       host.name)
        written, found = placement_client.set_inventory(
            child['uuid'], resource_class, allocation.amount)
        if written:
            done.append('inventory of %s on %s set back to %d (found %s)' %
                        (resource_class, child['name'], allocation.amount,
                         _found(found, allocation.amount)))
    return done


def drop_hosts_not_held(nova_client, placement_client, rsv_id, allocations,
                        hosts):
    """The hosts in the aggregate the reservation no longer holds (moved
    under it, or added by hand) taken out, with their inventory.
    ``hosts``: every enrolled host."""
    aggregate = nova_client.find_aggregate(rsv_id)
    if aggregate is None:
        return []
    wanted = {service_host(a.host) for a in allocations}
    by_service = {service_host(h): h for h in hosts}
    resource_class = placement.reservation_resource_class(rsv_id)
    done = []
    for service in sorted(set(aggregate.hosts) - wanted):
        if nova_client.remove_aggregate_host(rsv_id, service):
            done.append('host %s taken out of aggregate %s (not held)' % (
                service, rsv_id))
        host = by_service.get(service)
        child = host and placement_client.get_provider_by_name(
            placement.CHILD_PREFIX + host.name)
        if child and placement_client.delete_inventory(child['uuid'],
                                                       resource_class):
            done.append('inventory of %s removed from %s (host not held)' %
                        (resource_class, child['name']))
    return done


# taking down -------------------------------------------------------------

def remove_placement(placement_client, rsv_id, children):
    """The inventories of the reservation's class on ``children`` (child
    providers), then the class; returns what was there."""
    resource_class = placement.reservation_resource_class(rsv_id)
    done = ['inventory of %s removed from %s' % (resource_class,
                                                 child['name'])
            for child in children
            if placement_client.delete_inventory(child['uuid'],
                                                 resource_class)]
    if placement_client.delete_resource_class(resource_class):
        done.append('resource class %s deleted' % resource_class)
    return done
