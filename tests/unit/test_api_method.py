"""reserve.api.controllers.v1.method: pecan routes a declared handler by
its own positional arguments, and a declaration matches the arguments
the handler asks for."""
from pecan import util
import pytest

from reserve.api.controllers.v1 import method


class _Things:

    @method.expose(policy='rule', params=('limit',))
    def get_all(self, *, ctx, params):
        pass

    @method.expose(body={'type': 'object'})
    def patch(self, thing_id=None, *, ctx, body):
        pass

    @method.expose(status=201, body={'type': 'object'})
    def post(self, *args, ctx, body):
        pass


def test_pecan_sees_the_handlers_own_arguments():
    assert util.getargspec(_Things().get_all).args == ['self']
    patch = util.getargspec(_Things().patch)
    assert (patch.args, patch.defaults, patch.keywords) == (
        ['self', 'thing_id'], (None,), None)
    assert util.getargspec(_Things().post).varargs == 'args'
    assert _Things.get_all.exposed


@pytest.mark.parametrize('declared, func', [
    ({'body': {}}, lambda *, ctx: None),
    ({}, lambda *, ctx, body: None),
    ({}, lambda *, ctx, params: None),
    ({}, lambda *, context: None),
])
def test_a_declaration_matches_what_the_handler_asks_for(declared, func):
    with pytest.raises(TypeError):
        method.handler(**declared)(func)
