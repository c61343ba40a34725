"""/v1/leases: the lease engine's leases, read only."""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import utils
from reserve.common import states
from reserve.db import api as db_api

POLICY = 'reserve:lease:%s'
ALL_PROJECTS = POLICY % 'list:all_projects'
PATH = '/v1/leases'

LIST_PARAMS = ('all_projects', 'project_id', 'status', 'limit', 'marker')
# The resource type whose artefacts are a flavor, an aggregate and a class.
FLAVOR_INSTANCE = 'flavor:instance'


def resource_class(reservation_id):
    """The placement resource class a reservation's slots are offered as."""
    return 'CUSTOM_RESERVATION_' + reservation_id.upper().replace('-', '_')


def allocation_view(allocation):
    return {
        'host_id': allocation.host_id,
        'host': allocation.host.name if allocation.host else None,
        'count': allocation.count,
    }


def lease_reservation_view(reservation):
    """One reservation inside a lease, with the names of its artefacts.

    Only a flavor:instance reservation has a nova flavor, an aggregate
    and a resource class (named after it); a device:gpu one attaches
    units with libvirt, so those fields are null there.
    """
    fenced = reservation.resource_type == FLAVOR_INSTANCE
    return {
        'id': reservation.id,
        'resource_type': reservation.resource_type,
        'status': reservation.status,
        'amount': reservation.amount,
        'source_flavor_id': reservation.source_flavor_id,
        'vcpus': reservation.vcpus,
        'memory_mb': reservation.memory_mb,
        'disk_gb': reservation.disk_gb,
        'ephemeral_gb': reservation.ephemeral_gb,
        'extra_specs': reservation.extra_specs or {},
        'resource_properties': reservation.resource_properties,
        'affinity': reservation.affinity,
        # The nova flavor and the aggregate are named after the reservation.
        'flavor_id': reservation.id if fenced else None,
        'aggregate': reservation.id if fenced else None,
        'resource_class': resource_class(reservation.id) if fenced else None,
        'allocations': [allocation_view(a)
                        for a in sorted(reservation.allocations,
                                        key=lambda a: (a.host.name
                                                       if a.host else '',
                                                       a.host_id))],
    }


def event_view(event):
    return {
        'id': event.id,
        'event_type': event.event_type,
        'time': utils.format_date(event.time),
        'status': event.status,
        'attempts': event.attempts,
        'last_error': event.last_error,
    }


def lease_view(lease):
    """The API representation of a lease and everything in it."""
    return {
        'id': lease.id,
        'name': lease.name,
        'project_id': lease.project_id,
        'user_id': lease.user_id,
        'start': utils.format_date(lease.start_date),
        'end': utils.format_date(lease.end_date),
        'status': lease.status,
        'status_reason': lease.status_reason,
        'degraded': bool(lease.degraded),
        'created_at': utils.format_date(lease.created_at),
        'updated_at': utils.format_date(lease.updated_at),
        'reservations': [lease_reservation_view(r)
                         for r in lease.reservations],
        'events': [event_view(e) for e in lease.events],
    }


class LeasesController(rest.RestController):

    @pecan.expose('json')
    def get_all(self, **kwargs):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'list')
        params = utils.query_params(LIST_PARAMS)
        project_id = utils.list_scope(ctx, params, ALL_PROJECTS)
        status = utils.choice(params, 'status', states.Lease.ALL)
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: db_api.lease_get(ctx, m, project_id=project_id))
        leases = db_api.lease_list(ctx, project_id=project_id, status=status,
                                   limit=limit, marker=marker)
        return utils.collection('leases', [lease_view(lease)
                                           for lease in leases],
                                limit, params, PATH)

    @pecan.expose('json')
    def get_one(self, lease_id):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'get')
        lease = db_api.lease_get(
            ctx, lease_id, project_id=utils.show_scope(ctx, ALL_PROJECTS))
        utils.authorize(ctx, POLICY % 'get', lease.project_id)
        return {'lease': lease_view(lease)}
