"""/v1/hosts: hosts enrolled for reservations (administrators).

Two kinds: a nova hypervisor (enrolled by name), or a libvirt host run
without nova (enrolled with its ``uri``; kind 'libvirt'), whose GPUs the
manager discovers as /v1/devices. Below a libvirt host: ``POST
/refresh`` (rediscover now), ``GET /domains`` and ``GET
/domains/{name}`` (its domains, their hostdevs, owners and XML, as
libvirt shows them to the manager that owns the connection) and
``/domain-owners`` (the owners recorded for them, domain_owners.py).
Below a nova host: ``POST /refresh`` (read its capacity from placement now) and
``/maintenance-windows`` (times it holds nothing; see booking.drain).
"""
import json

from oslo_log import log as logging
import pecan
from pecan import rest

from reserve.api.controllers.v1 import domain_owners
from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api.schemas import hosts as schema
from reserve.api.views import hosts as views
from reserve.booking import drain
from reserve.common import exception
from reserve.common.policies import devices as device_policies
from reserve.common.policies import hosts as policies
from reserve.common import timeutils
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.virt import uris

LOG = logging.getLogger(__name__)
PATH = '/v1/hosts'

LIST_PARAMS = ('reservable', 'limit', 'marker')


def capability_value(value):
    """Capabilities are stored as text: true/false and JSON numbers."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _capabilities(body):
    return {key: capability_value(value)
            for key, value in (body.get('capabilities') or {}).items()}


class _RefreshController(rest.RestController):
    """POST /v1/hosts/{id}/refresh: rediscover a libvirt host, or read a
    nova host's capacity from placement, now."""

    def __init__(self, host_ref):
        self.host_ref = host_ref

    @method.expose(policy=policies.REFRESH, params=(), item_methods=())
    def post(self, *args, ctx):
        host = hosts_db.host_get(ctx, self.host_ref)
        report = utils.rpc_call(
            'refresh host %s' % host.name,
            pecan.request.manager_api.refresh_host, ctx, host.id)
        return {'host': views.host_view(ctx, hosts_db.host_get(ctx, host.id)),
                'refresh': report}


class _DomainsController(rest.RestController):
    """GET /v1/hosts/{id}/domains[/{name}]: a libvirt host's domains."""

    def __init__(self, host_ref):
        self.host_ref = host_ref

    @method.expose(policy=policies.DOMAIN_LIST, params=())
    def get_all(self, *, ctx):
        host = _libvirt_host(ctx, self.host_ref)
        found = utils.rpc_call(
            'list the domains of host %s' % host.name,
            pecan.request.manager_api.host_domains, ctx, host.id)
        mine = _own_project(ctx)
        return {'domains': [d for d in found
                            if mine is None or d.get('owner') == mine]}

    @method.expose(policy=policies.DOMAIN_GET, params=())
    def get_one(self, name, *, ctx):
        host = _libvirt_host(ctx, self.host_ref)
        mine = _own_project(ctx)
        try:
            found = utils.rpc_call(
                'show domain %s of host %s' % (name, host.name),
                pecan.request.manager_api.host_domains, ctx, host.id, name)
        except (exception.NotFound, exception.DomainNotFound):
            if mine is None:
                raise
            found = {}
        if mine is not None and found.get('owner') != mine:
            # Another project's domain is one that does not exist.
            raise exception.DomainNotFound(name=name, host=host.name)
        return {'domain': found}


def _own_project(ctx):
    """None for a caller who sees every project's domains; else its
    project, the only one whose domains it is shown (should a policy let
    members list a host's domains)."""
    return None if utils.can(ctx, device_policies.LIST_ALL) else \
        ctx.project_id


def _libvirt_host(ctx, ref):
    host = hosts_db.host_get(ctx, ref)
    if host.kind != 'libvirt':
        raise exception.HostNotLibvirt(name=host.name, kind=host.kind)
    return host


class _MaintenanceController(rest.RestController):
    """/v1/hosts/{id}/maintenance-windows: times a host holds nothing."""

    def __init__(self, host_ref):
        self.host_ref = host_ref

    def _host(self, ctx):
        host = hosts_db.host_get(ctx, self.host_ref)
        if host.kind != 'nova':
            raise exception.Invalid(
                reason='host %s is a libvirt host; maintenance windows are'
                       ' for nova hosts' % host.name)
        return host

    # An unknown query parameter is refused before the policy, as it was.
    @method.expose(policy=policies.MAINTENANCE_LIST, params=(),
                   params_first=True)
    def get_all(self, *, ctx):
        host = self._host(ctx)
        return {'maintenance_windows': [
            views.window_view(w) for w in hosts_db.host_windows(ctx, host.id)]}

    @method.expose(policy=policies.MAINTENANCE_CREATE,
                   body=schema.maintenance_create, status=201,
                   item_methods='DELETE')
    def post(self, *args, ctx, body):
        host = self._host(ctx)
        start = utils.parse_date(body['start'], 'start')
        end = utils.parse_date(body['end'], 'end')
        if end <= start or end <= timeutils.utcnow():
            raise exception.Invalid(
                reason='end %s must be after start %s and in the future' %
                (timeutils.isoformat(end), timeutils.isoformat(start)))
        window, outcome = drain.create_window(
            ctx, host, start, end, body.get('note'),
            body.get('force', False))
        _follow_up(ctx, outcome)
        utils.set_location('%s/%s/maintenance-windows/%s' % (
            PATH, host.id, window.id))
        return {'maintenance_window': views.window_view(window),
                'reservations': drain.outcome_view(outcome)}

    @method.expose(policy=policies.MAINTENANCE_DELETE, status=204,
                   collection_methods='GET, POST')
    def delete(self, window_id=None, *, ctx):
        host = self._host(ctx)
        hosts_db.host_window_destroy(ctx, host.id, window_id)


def _follow_up(ctx, outcome):
    """What the cloud does after hosts changed under reservations; a lost
    message is repaired by the manager's periodic lease sync and the
    worker's reconciler."""
    try:
        drain.follow_up(ctx, outcome, pecan.request.worker_api,
                        pecan.request.manager_api)
    except Exception as exc:  # noqa: BLE001 - any transport failure
        LOG.warning('Follow-up of moved reservations not sent (%s); the '
                    'periodic tasks take it up', exc)


_SUBRESOURCES = {'refresh': _RefreshController,
                 'domains': _DomainsController,
                 'domain-owners': domain_owners.DomainOwnersController,
                 'maintenance-windows': _MaintenanceController}


class HostsController(rest.RestController):

    @pecan.expose('json')
    def _lookup(self, host_ref, *remainder):
        return utils.subresource(_SUBRESOURCES, host_ref, remainder)

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        reservable = None
        if 'reservable' in params:
            reservable = utils.parse_bool('reservable', params['reservable'])
        limit = utils.parse_limit(params)
        marker = utils.check_marker(params,
                                    lambda m: hosts_db.host_get(ctx, m))
        hosts = hosts_db.host_list(ctx, reservable=reservable, limit=limit,
                                   marker=marker)
        libvirt_hosts = devices_db.libvirt_hosts(ctx)
        return utils.collection(
            'hosts', [views.host_view(ctx, h, libvirt_hosts) for h in hosts],
            limit, params, PATH)

    @method.expose(policy=policies.GET)
    def get_one(self, host_ref, *, ctx):
        return {'host': views.host_view(ctx, hosts_db.host_get(ctx, host_ref))}

    @method.expose(policy=policies.CREATE, body=schema.create, status=201)
    def post(self, *args, ctx, body):
        values = {'name': body['name'],
                  'capabilities': _capabilities(body),
                  'reservable': body.get('reservable', True)}
        if body.get('uri'):
            # Refused here unless allowed (the manager checks it again
            # before it connects); the manager connects to it and
            # discovers its GPUs.
            uris.check(body['uri'])
            values['uri'] = body['uri']
        # Otherwise it looks the hypervisor up in nova and placement.
        created = utils.rpc_call(
            'enroll host %s' % body['name'],
            pecan.request.manager_api.create_host, ctx, values)
        ref = body['name']
        if isinstance(created, dict) and created.get('id'):
            ref = created['id']
        host = hosts_db.host_get(ctx, ref)
        utils.set_location('%s/%s' % (PATH, host.id))
        return {'host': views.host_view(ctx, host)}

    @method.expose(policy=policies.UPDATE, body=schema.update)
    def patch(self, host_ref=None, *, ctx, body):
        host = hosts_db.host_get(ctx, host_ref)
        answer = {}
        if (body.get('reservable') is False and host.reservable and
                host.kind == 'nova'):
            # Withdrawn: what it holds moves elsewhere, or 409.
            outcome = drain.withdraw(ctx, host, body.get('force', False))
            _follow_up(ctx, outcome)
            answer['reservations'] = drain.outcome_view(outcome)
        values = {}
        if 'reservable' in body:
            values['reservable'] = body['reservable']
        hosts_db.host_update(ctx, host.id, values, _capabilities(body))
        if 'reservable' in body and host.kind == 'nova':
            _sync_fence(ctx)
        answer['host'] = views.host_view(ctx, hosts_db.host_get(ctx, host.id))
        return answer

    @method.expose(policy=policies.DELETE, status=204)
    def delete(self, host_ref=None, *, ctx):
        host = hosts_db.host_get(ctx, host_ref)
        hosts_db.host_destroy(ctx, host.id)
        if host.kind == 'nova':
            _sync_fence(ctx)


def _sync_fence(ctx):
    """Fence or unfence after a host's reservability changed; the
    manager's periodic fence repair does it if this fails."""
    try:
        pecan.request.manager_api.sync_fence(ctx)
    except Exception as exc:  # noqa: BLE001 - any transport failure
        LOG.warning('Fence not synced now (%s); the manager repairs it '
                    'within [manager]capacity_refresh_interval', exc)
