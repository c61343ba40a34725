"""/: the versions of the API."""
import pecan

from reserve.api.controllers import v1 as v1_api


class RootController:

    v1 = v1_api.Controller()

    @pecan.expose(generic=True, template='json')
    def index(self):
        pecan.abort(405, headers={'Allow': 'GET, HEAD'})

    @index.when(method='GET', template='json')
    def index_get(self):
        return {'versions': [v1_api.version_doc()]}

    @index.when(method='HEAD', template='json')
    def index_head(self):
        return {'versions': [v1_api.version_doc()]}
