"""/v1/leases: the lease engine's leases, read only."""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import utils
from reserve.api.views import leases as views
from reserve.common import states
from reserve.db import api as db_api

POLICY = 'reserve:lease:%s'
ALL_PROJECTS = POLICY % 'list:all_projects'
PATH = '/v1/leases'

LIST_PARAMS = ('all_projects', 'project_id', 'status', 'limit', 'marker')


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
        return utils.collection('leases', [views.lease_view(lease)
                                           for lease in leases],
                                limit, params, PATH)

    @pecan.expose('json')
    def get_one(self, lease_id):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'get')
        lease = db_api.lease_get(
            ctx, lease_id, project_id=utils.show_scope(ctx, ALL_PROJECTS))
        utils.authorize(ctx, POLICY % 'get', lease.project_id)
        return {'lease': views.lease_view(lease)}
