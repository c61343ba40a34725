"""/v1/hosts: hypervisors enrolled for reservations (administrators)."""
import json

import pecan
from pecan import rest

from reserve.api.controllers.v1 import utils
from reserve.api.schemas import hosts as schema
from reserve.api import validation
from reserve.db import api as db_api

POLICY = 'reserve:host:%s'
PATH = '/v1/hosts'

LIST_PARAMS = ('reservable', 'limit', 'marker')


def host_view(host):
    """The API representation of an enrolled host."""
    return {
        'id': host.id,
        'name': host.name,
        'service_name': host.service_name,
        'kind': host.kind,
        'provider_uuid': host.provider_uuid,
        'vcpus': host.vcpus,
        'memory_mb': host.memory_mb,
        'local_gb': host.local_gb,
        'reservable': bool(host.reservable),
        'capabilities': {c.key: c.value for c in host.capabilities},
        'created_at': utils.format_date(host.created_at),
        'updated_at': utils.format_date(host.updated_at),
    }


def capability_value(value):
    """Capabilities are stored as text: true/false and JSON numbers."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _capabilities(body):
    return {key: capability_value(value)
            for key, value in (body.get('capabilities') or {}).items()}


class HostsController(rest.RestController):

    @pecan.expose('json')
    def get_all(self, **kwargs):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'list')
        params = utils.query_params(LIST_PARAMS)
        reservable = None
        if 'reservable' in params:
            reservable = utils.parse_bool('reservable', params['reservable'])
        limit = utils.parse_limit(params)
        marker = utils.check_marker(params,
                                    lambda m: db_api.host_get(ctx, m))
        hosts = db_api.host_list(ctx, reservable=reservable, limit=limit,
                                 marker=marker)
        return utils.collection('hosts', [host_view(h) for h in hosts],
                                limit, params, PATH)

    @pecan.expose('json')
    def get_one(self, host_ref):
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'get')
        return {'host': host_view(db_api.host_get(ctx, host_ref))}

    @pecan.expose('json')
    def post(self, *args, **kwargs):
        if args:
            utils.method_not_allowed(utils.ITEM_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'create')
        body = validation.load_and_validate(pecan.request, schema.create)
        values = {'name': body['name'],
                  'capabilities': _capabilities(body),
                  'reservable': body.get('reservable', True)}
        # The manager looks the hypervisor up in nova and placement.
        created = utils.rpc_call(
            'enroll host %s' % body['name'],
            pecan.request.manager_api.create_host, ctx, values)
        ref = body['name']
        if isinstance(created, dict) and created.get('id'):
            ref = created['id']
        host = db_api.host_get(ctx, ref)
        utils.set_created('%s/%s' % (PATH, host.id))
        return {'host': host_view(host)}

    @pecan.expose('json')
    def patch(self, host_ref=None):
        if host_ref is None:
            utils.method_not_allowed(utils.COLLECTION_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'update')
        host = db_api.host_get(ctx, host_ref)
        body = validation.load_and_validate(pecan.request, schema.update)
        values = {}
        if 'reservable' in body:
            values['reservable'] = body['reservable']
        db_api.host_update(ctx, host.id, values, _capabilities(body))
        return {'host': host_view(db_api.host_get(ctx, host.id))}

    @pecan.expose()
    def delete(self, host_ref=None):
        if host_ref is None:
            utils.method_not_allowed(utils.COLLECTION_METHODS)
        ctx = utils.context()
        utils.authorize(ctx, POLICY % 'delete')
        host = db_api.host_get(ctx, host_ref)
        db_api.host_destroy(ctx, host.id)
        return utils.no_content()
