"""/v1/leases: the lease engine's leases, read only."""
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api.views import leases as views
from reserve.common.policies import leases as policies
from reserve.common import states
from reserve.db import leases as leases_db

PATH = '/v1/leases'

LIST_PARAMS = ('all_projects', 'project_id', 'status', 'limit', 'marker')


class LeasesController(rest.RestController):

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        project_id = utils.list_scope(ctx, params, policies.LIST_ALL_PROJECTS)
        status = utils.choice(params, 'status', states.Lease.ALL)
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: leases_db.lease_get(ctx, m,
                                                  project_id=project_id))
        leases = leases_db.lease_list(ctx, project_id=project_id,
                                      status=status, limit=limit,
                                      marker=marker)
        return utils.collection('leases', [views.lease_view(lease)
                                           for lease in leases],
                                limit, params, PATH)

    @method.expose(policy=policies.GET, view=views.show)
    def get_one(self, lease_id, *, ctx):
        lease = leases_db.lease_get(
            ctx, lease_id,
            project_id=utils.show_scope(ctx, policies.LIST_ALL_PROJECTS))
        utils.authorize(ctx, policies.GET, lease.project_id)
        return lease
