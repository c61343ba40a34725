"""/v1/limits: a project's booking limits and what it uses of them."""
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api.views import limits as views
from reserve.booking import quota
from reserve.common.policies import limits as policies


class LimitsController(rest.RestController):

    @method.expose(policy=policies.GET, params=('project_id',))
    def get_all(self, *, ctx, params):
        project_id = params.get('project_id') or ctx.project_id
        if project_id != ctx.project_id:
            utils.authorize(ctx, policies.GET_ALL_PROJECTS)
        return views.limits_view(project_id, quota.driver(),
                                 quota.report(ctx, project_id))
