"""/v1/maintenance-windows: times when flavors cannot be booked
(administrators)."""
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api.schemas import maintenance as schema
from reserve.api.views import maintenance as views
from reserve.booking import gauntlet
from reserve.booking import maintenance
from reserve.common import exception
from reserve.common.policies import maintenance as policies
from reserve.common import timeutils
from reserve.db import flavors as flavors_db
from reserve.db import maintenance as maintenance_db

PATH = '/v1/maintenance-windows'

LIST_PARAMS = ('flavor_id', 'include_past', 'limit', 'marker')


def _flavor_ids(ctx, refs):
    """Catalogue ids of the flavors named (by id or name) in the body."""
    ids = []
    for ref in refs:
        try:
            ids.append(flavors_db.flavor_get(ctx, ref).id)
        except exception.FlavorNotFound:
            raise exception.Invalid(
                reason="field 'flavors': no catalogue flavor has the id or "
                       "name %r" % ref)
    return sorted(set(ids))


def _check_dates(start, end):
    gauntlet.check_order(start, end)
    gauntlet.check_end_ahead(end, timeutils.utcnow())


def _check_closes_something(all_flavors, flavors):
    if all_flavors and flavors:
        raise exception.Invalid(
            reason="fields 'flavors' and 'all_flavors' exclude each other: "
                   "list the flavors, or close all of them")
    if not all_flavors and not flavors:
        raise exception.Invalid(
            reason="a maintenance window closes the listed 'flavors', or "
                   "every flavor with 'all_flavors': true; give one")


class MaintenanceWindowsController(rest.RestController):

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        flavor_id = None
        if 'flavor_id' in params:
            flavor_id = flavors_db.flavor_find_id(ctx, params['flavor_id'])
            if flavor_id is None:
                return utils.collection('maintenance_windows', [], 1,
                                        params, PATH)
        include_past = utils.parse_bool(
            'include_past', params.get('include_past', 'false'))
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: maintenance_db.window_get(ctx, m))
        windows = maintenance_db.window_list(
            ctx, flavor_id=flavor_id,
            ends_after=None if include_past else timeutils.utcnow(),
            limit=limit, marker=marker)
        return utils.collection('maintenance_windows',
                                [views.window_view(w) for w in windows],
                                limit, params, PATH)

    @method.expose(policy=policies.GET, view=views.show)
    def get_one(self, window_id, *, ctx):
        return maintenance_db.window_get(ctx, window_id)

    @method.expose(policy=policies.CREATE, body=schema.create, status=201,
                   view=views.show)
    def post(self, *args, ctx, body):
        start = utils.parse_date(body['start'], 'start')
        end = utils.parse_date(body['end'], 'end')
        _check_dates(start, end)
        all_flavors = body.get('all_flavors', False)
        _check_closes_something(all_flavors, body.get('flavors'))
        flavor_ids = [] if all_flavors else _flavor_ids(ctx,
                                                        body['flavors'])
        window = maintenance.create(ctx, start, end, body.get('note'),
                                    flavor_ids, all_flavors,
                                    body.get('force', False))
        utils.set_location('%s/%s' % (PATH, window.id))
        return maintenance_db.window_get(ctx, window.id)

    @method.expose(policy=policies.UPDATE, body=schema.update,
                   view=views.show)
    def patch(self, window_id=None, *, ctx, body):
        window = maintenance_db.window_get(ctx, window_id)
        values = {}
        for field in ('start', 'end'):
            if field in body:
                values[field] = utils.parse_date(body[field], field)
        if 'note' in body:
            values['note'] = body['note']
        _check_dates(values.get('start', window.start),
                     values.get('end', window.end))
        flavor_ids = None
        if 'all_flavors' in body or 'flavors' in body:
            all_flavors = body.get('all_flavors', False)
            _check_closes_something(all_flavors, body.get('flavors'))
            values['all_flavors'] = all_flavors
            flavor_ids = [] if all_flavors else _flavor_ids(
                ctx, body['flavors'])
        maintenance.update(ctx, window, values, flavor_ids,
                           body.get('force', False))
        return maintenance_db.window_get(ctx, window.id)

    @method.expose(policy=policies.DELETE, status=204)
    def delete(self, window_id=None, *, ctx):
        maintenance_db.window_destroy(ctx, window_id)
