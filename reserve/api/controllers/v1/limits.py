"""/v1/limits: a project's booking limits and what it uses of them."""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import utils
from reserve.api.views import limits as views
from reserve.booking import quota

POLICY = 'reserve:limits:%s'


class LimitsController(rest.RestController):

    @pecan.expose('json')
    def get_all(self, **kwargs):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'get')
        params = utils.query_params(('project_id',))
        project_id = params.get('project_id') or ctx.project_id
        if project_id != ctx.project_id:
            utils.authorize(ctx, POLICY % 'get:all_projects')
        return views.limits_view(project_id, quota.driver(),
                                 quota.report(ctx, project_id))
