"""/v1/allocations: which hosts back which lease reservations, read only.

An allocation holds instances (or GPU devices) of one lease reservation
on one host.

Administrators see every project's allocations (``project_id`` narrows
them to one); the readers of a project see those of their own leases,
as ``/v1/leases/{id}`` shows them.
"""
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.views import allocations as views
from reserve.common import exception
from reserve.common.policies import allocations as policies
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db

PATH = '/v1/allocations'


def _lease_reservation_param():
    """The query parameter naming a lease reservation: reservation_id
    before 1.2."""
    if microversion.serves(microversion.ONE_NAME):
        return 'lease_reservation_id'
    return 'reservation_id'


def list_params():
    """The query parameters of the request's microversion."""
    return ('project_id', 'host_id', _lease_reservation_param(), 'lease_id',
            'limit', 'marker')


def _scope(ctx, params):
    """The project the caller sees (None: every project)."""
    project_id = params.get('project_id')
    if utils.can(ctx, policies.LIST_ALL_PROJECTS):
        ctx.all_projects = True
        return project_id
    if project_id and project_id != ctx.project_id:
        utils.authorize(ctx, policies.LIST_ALL_PROJECTS)
    return ctx.project_id


class AllocationsController(rest.RestController):

    @method.expose(policy=policies.LIST, params=list_params)
    def get_all(self, *, ctx, params):
        project_id = _scope(ctx, params)
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: leases_db.allocation_get(
                ctx, m, project_id=project_id))
        host_id = params.get('host_id')
        if host_id is not None:
            # A host's name is accepted too; an unknown one matches nothing.
            try:
                host_id = hosts_db.host_get(ctx, host_id).id
            except exception.HostNotFound:
                pass
        found = leases_db.allocation_list(
            ctx, project_id=project_id, host_id=host_id,
            lease_reservation_id=params.get(_lease_reservation_param()),
            lease_id=params.get('lease_id'), limit=limit, marker=marker)
        return utils.collection('allocations',
                                [views.allocation_view(*row)
                                 for row in found],
                                limit, params, PATH)

    @method.expose(policy=policies.GET, params=(), view=views.show)
    def get_one(self, allocation_id, *, ctx):
        project_id = utils.show_scope(ctx, policies.LIST_ALL_PROJECTS)
        row = leases_db.allocation_get(ctx, allocation_id,
                                       project_id=project_id)
        utils.authorize(ctx, policies.GET, row[2].project_id)
        return row
