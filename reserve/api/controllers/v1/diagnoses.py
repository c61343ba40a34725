"""Diagnosis (microversion 1.3): ``GET /v1/reservations/{id}/diagnosis``,
``GET /v1/device-reservations/{id}/diagnosis`` and, for administrators,
``GET /v1/diagnoses`` (the doctor: every live reservation, those with a
mismatch listed).

The lease manager reads the layers live (it holds the cloud clients and
the libvirt connections: reserve.diagnosis); the API first finds the
reservation as its GET does, so that a project outside it gets the same
404. Below 1.3 these routes do not exist (404, as any unknown route).
"""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.common.policies import diagnoses as policies
from reserve.diagnosis import findings

PATH = '/v1/diagnoses'
SUBRESOURCE = 'diagnosis'


def _check_version():
    if not microversion.serves(microversion.PLAYBOOK):
        pecan.abort(404)


class _SinceDiagnosis(rest.RestController):
    """A controller whose routes exist from microversion 1.3 on."""

    @pecan.expose()
    def _route(self, args, request=None):
        _check_version()
        return super()._route(args, request)

    @pecan.expose('json')
    def _lookup(self, *remainder):
        # Pecan comes here after _route too. Another method here is 405;
        # nothing is below it (404).
        _check_version()
        if not remainder:
            utils.method_not_allowed('GET')
        pecan.abort(404)


class Diagnosis(_SinceDiagnosis):
    """GET <a reservation>/diagnosis: the resource's module says how its
    reservation is found and authorized (``check(ctx, ref)``, returning
    its id) and of which kind it is."""

    kind = None

    def __init__(self, ref):
        self.ref = ref

    def check(self, ctx, ref):
        raise NotImplementedError

    @method.expose(params=())
    def get_all(self, *, ctx):
        return diagnose(ctx, self.kind, self.check(ctx, self.ref))


def diagnose(ctx, kind, reservation_id):
    return {'diagnosis': utils.rpc_call(
        'diagnose %s %s' % (kind.replace('_', ' '), reservation_id),
        pecan.request.manager_api.diagnose, ctx, kind, reservation_id)}


class DiagnosesController(_SinceDiagnosis):
    """GET /v1/diagnoses[?kind=reservation|device_reservation]"""

    @method.expose(policy=policies.LIST, params=('kind',))
    def get_all(self, *, ctx, params):
        kind = utils.choice(params, 'kind', findings.KINDS)
        return utils.rpc_call('run the doctor',
                              pecan.request.manager_api.doctor, ctx, kind)
