"""/v1/device-reservations: GPU devices of a libvirt host reserved for a
set of projects.

A reservation names specific devices (``device_ids``) or asks for a
``device_count`` of a ``model`` (optionally on one ``host``, on one NUMA node
with ``numa_local``), for ``allowed_projects`` (the audience, the
caller's project by default) and optional ``managing_projects``, from
``start`` (default now) to ``end`` (absent or null: open-ended until
cancelled). ``?dry_run=true`` answers whether and which devices would fit
and holds nothing. The booking desk (reserve.booking.device_admission)
holds them atomically: overlap with another reservation of the same devices is
refused (409); the 201 is pending, with no lease until the worker has
the manager build it (its start event attaches): at once, or, for one
starting more than [devices]lease_lead_seconds ahead, once its start
comes within that lead (reserve.devices.runs.lease_due). A cancel is
the desk's too; the worker then deletes the lease (its end takes the
devices back).

Only the projects of a reservation (its maker, audience, managers) see
it: for the others it does not exist (404). ``domains`` get its devices at
its start (``PATCH {domains}`` or ``POST .../attach`` while it lives;
a count naming domains but no host is taken from a host that has them),
``POST .../detach`` takes them back; ``DELETE`` cancels it (or removes
one that is over); ``POST .../affirm`` (administrators) re-affirms one in
needs-review.
"""
from oslo_config import cfg
from oslo_utils import uuidutils
import pecan
from pecan import rest

from reserve.api.controllers.v1 import device_access
from reserve.api.controllers.v1 import devices as devices_api
from reserve.api.controllers.v1 import diagnoses
from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import spot
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import device_reservations as schema
from reserve.api.views import device_counter_offer as offer_views
from reserve.api.views import device_reservations as views
from reserve.api.views import statuses
from reserve.booking import cancel
from reserve.booking import counter_offer
from reserve.booking import device_admission
from reserve.booking import device_counter_offer
from reserve.common import exception
from reserve.common.policies import device_reservations as policies
from reserve.common.policies import devices as device_policies
from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from reserve.db import hosts as hosts_db
from reserve.devices import holds
from reserve.devices import owners
from reserve.devices import plan
from reserve.devices import runs
from reserve.devices import selection
from reserve.devices import states
from reserve.diagnosis import findings

CONF = cfg.CONF

PATH = '/v1/device-reservations'

LIST_PARAMS = ('all_projects', 'project_id', 'status', 'host', 'limit',
               'marker')

Status = states.DeviceReservation


# creation ------------------------------------------------------------------

def _libvirt_host(ctx, ref):
    try:
        host = hosts_db.host_ref(ctx, ref)
    except exception.HostNotFound:
        raise exception.Invalid(reason="field 'host': host %s could not be "
                                       "found" % ref)
    if host.kind != states.LIBVIRT:
        raise exception.HostNotLibvirt(name=host.name, kind=host.kind)
    return host


def _window(body):
    now = timeutils.utcnow()
    start = utils.parse_date(body['start'], 'start') if body.get('start') \
        else now
    end = utils.parse_date(body['end'], 'end') if body.get('end') \
        else None
    device_admission.check_window(start, end, now)
    return start, end


def _request(ctx, body):
    """The selection.Request of a creation's body (under the code's
    names; its errors name the fields as the client sent them)."""
    ids, count = (schema.served_name(name)
                  for name in ('device_ids', 'device_count'))
    if ('device_ids' in body) == ('device_count' in body):
        raise exception.Invalid(
            reason="give either '%s' (specific devices) or '%s' (a "
                   "number of devices of a model), not %s" % (
                       ids, count,
                       'both' if 'device_count' in body else 'neither'))
    if 'device_ids' in body and 'model' in body:
        raise exception.Invalid(
            reason="'model' goes with '%s'; '%s' name the devices" % (
                count, ids))
    host = _libvirt_host(ctx, body['host']) if body.get('host') else None
    return selection.Request(
        device_ids=tuple(body.get('device_ids', ())),
        device_count=body.get('device_count', 0), model=body.get('model'),
        host_id=host.id if host else None,
        numa_local=body.get('numa_local', False),
        mdev_type=body.get('mdev_type'))


def _projects(ctx, body):
    allowed = body.get('allowed_projects') or [ctx.project_id]
    managing = body.get('managing_projects') or []
    if (set(allowed) | set(managing)) - {ctx.project_id}:
        utils.authorize(ctx, policies.CREATE_OTHER_PROJECTS)
    return allowed, managing


def _domain_reader(ctx, projects):
    """read_domains(host): {name: owner} of the domains of a host that
    devices of a reservation of ``projects`` may go into, asked of the
    manager (which alone talks to libvirt) once per host. Another
    project's domains are left out, so that naming one is answered as
    naming a domain that does not exist (reserve.devices.owners)."""
    names = {}
    unowned = utils.can(ctx, policies.ATTACH_UNOWNED)

    def read_domains(host):
        if host.id not in names:
            names[host.id] = owners.usable(utils.rpc_call(
                'read the domains of host %s' % host.name,
                device_access.manager().host_domains, ctx, host.id),
                projects, unowned)
        return names[host.id]
    return read_domains


def _dry_run(ctx, request, start, end, body, projects):
    """Whether the request fits, and with which devices: writes nothing."""
    answer = {'start': utils.format_date(start), 'end': views.end_view(
        end or states.OPEN_END)}
    viewer = None if utils.can(ctx, device_policies.LIST_ALL) else \
        ctx.project_id
    domains = body.get('domains') or []
    read_domains = _domain_reader(ctx, projects)
    try:
        request, chosen = holds.choose(
            ctx, request, start, end or states.OPEN_END, domains,
            read_domains, viewer=viewer)
        rows = plan.for_domains('dry-run', chosen.devices, domains,
                                request.mdev_type, ctx.project_id)
    except exception.Conflict as exc:
        answer.update(fits=False, reason=exc.message)
        return {'dry_run': answer}
    by_id = {u.id: u for u in chosen.devices}
    answer.update(
        fits=True, host_id=chosen.host_id, host=chosen.host,
        device_ids=chosen.device_ids,
        devices=[{'id': u.id, 'pci_address': u.pci_address,
                  'model': u.model, 'numa_node': u.numa_node}
                 for u in chosen.devices],
        attachments=[schema.as_served({
            'domain': r['domain'], 'device_id': r['device_id'],
            'pci_address': by_id[r['device_id']].pci_address,
            'kind': r['kind']}) for r in rows])
    return {'dry_run': schema.as_served(answer)}


# refusals ------------------------------------------------------------------

def _offering(ctx, refusal, request, start, end, body, read_domains,
              viewer):
    """The refusal of a device reservation for its devices, saying what
    fits instead; since 1.11 the error object carries it as
    counter_offer. The request is narrowed to the hosts with its domains
    as it was when refused (``read_domains`` remembers them)."""
    try:
        request = holds.on_hosts_with_domains(
            ctx, request, start, end or states.OPEN_END,
            body.get('domains') or [], read_domains, viewer=viewer)
    except exception.ReserveException:
        return refusal
    offer = device_counter_offer.search(ctx, request, start, end, viewer,
                                        timeutils.utcnow())
    path = offer_views.availability_path(request, body.get('host'))
    answer = None
    if microversion.serves(microversion.DEVICE_COUNTER_OFFER):
        answer = offer_views.counter_offer_view(request, body.get('host'),
                                                path, offer)
    return refusal.offering(answer, '%s GET %s (with start and end) counts '
                                    'the devices free over a window.' % (
                                        counter_offer.describe(offer),
                                        path))


def _offering_end(ctx, refusal, reservation_id, end):
    """The refusal of a later end, saying the latest end that fits; since
    1.11 the error object carries it as counter_offer's latest_end."""
    reservation = device_reservations_db.device_reservation_get(
        ctx, reservation_id)
    latest = device_counter_offer.latest_end(ctx, reservation, end,
                                             timeutils.utcnow())
    request = selection.Request(
        device_ids=tuple(u.device_id for u in reservation.devices),
        host_id=reservation.host_id)
    answer = None
    if microversion.serves(microversion.DEVICE_COUNTER_OFFER):
        answer = offer_views.latest_end_view(
            request, reservation.host_name, offer_views.availability_path(
                request, reservation.host_name), latest)
    return refusal.offering(answer, counter_offer.describe_end(latest))


# actions -------------------------------------------------------------------

def _domain_rights(ctx, reservation):
    """Whose attachments the caller may change: None for all (its maker,
    its managers while it lives, a caller with the explicit write rule),
    its own project's for a project of its audience; 403 for any other
    caller, who may at most read it."""
    if device_access.acts_for_owner(ctx, reservation,
                                    policies.ATTACH_ALL_PROJECTS):
        return None
    if ctx.project_id in reservation.project_ids(states.Role.ALLOWED):
        return ctx.project_id
    raise exception.Forbidden(
        action="name the domains of another project's device reservation")


class _ActionController(rest.RestController):
    """POST /v1/device-reservations/{id}/<action>. An unknown query
    parameter is refused before the policy (params_first), as it was."""

    def __init__(self, reservation_id):
        self.reservation_id = reservation_id


class _AffirmController(_ActionController):

    @method.expose(policy=policies.AFFIRM, params=(), params_first=True,
                   item_methods=())
    def post(self, *args, ctx):
        reservation = device_access.get(ctx, self.reservation_id)
        utils.rpc_call('affirm device reservation %s' % reservation.id,
                       device_access.manager().affirm_device_reservation, ctx,
                       reservation.id, ctx.user_id)
        return device_access.show(ctx, reservation.id)


class _AttachController(_ActionController):

    @method.expose(policy=policies.ATTACH, params=(), params_first=True,
                   body=schema.served_attach, item_methods=())
    def post(self, *args, ctx, body):
        reservation = device_access.get(ctx, self.reservation_id)
        _domain_rights(ctx, reservation)
        body = schema.from_served(body)
        utils.rpc_call('attach %s to device reservation %s' % (
            body['domain'], reservation.id),
            device_access.manager().attach_device_domain, ctx, reservation.id,
            body['domain'], body.get('device_ids'), ctx.project_id)
        return device_access.show(ctx, reservation.id)


class _DetachController(_ActionController):

    @method.expose(policy=policies.ATTACH, params=(), params_first=True,
                   body=schema.detach, item_methods=())
    def post(self, *args, ctx, body):
        reservation = device_access.get(ctx, self.reservation_id)
        only = _domain_rights(ctx, reservation)
        utils.rpc_call('detach %s from device reservation %s' % (
            body['domain'], reservation.id),
            device_access.manager().detach_device_domain, ctx, reservation.id,
            body['domain'], only)
        return device_access.show(ctx, reservation.id)


ACTIONS = {'affirm': _AffirmController, 'attach': _AttachController,
           'detach': _DetachController, **spot.ACTIONS}


class _DiagnosisController(diagnoses.Diagnosis):
    """GET /v1/device-reservations/{id}/diagnosis (1.3)."""

    kind = findings.DEVICE_RESERVATION

    def check(self, ctx, ref):
        utils.authorize(ctx, policies.DIAGNOSE)
        return device_access.get(ctx, ref).id


_SUBRESOURCES = {diagnoses.SUBRESOURCE: _DiagnosisController}


class DeviceReservationsController(rest.RestController):

    @pecan.expose('json')
    def _lookup(self, reservation_id, *remainder):
        if not remainder:
            utils.method_not_allowed(utils.ITEM_METHODS)
        if remainder[0] in ACTIONS and len(remainder) == 1:
            if remainder[0] in spot.ACTIONS:
                spot.check_version()
            if pecan.request.method != 'POST':
                utils.method_not_allowed('POST')
            return ACTIONS[remainder[0]](reservation_id), ()
        return utils.subresource(_SUBRESOURCES, reservation_id, remainder)

    @method.expose(policy=policies.LIST, params=LIST_PARAMS)
    def get_all(self, *, ctx, params):
        project_id = utils.list_scope(ctx, params, policies.LIST_ALL_PROJECTS)
        status = statuses.DEVICE_RESERVATION.code(utils.choice(
            params, 'status', statuses.DEVICE_RESERVATION.shown))
        host_id = None
        if 'host' in params:
            host_id = devices_api.host_filter(ctx, params['host'])
            host_id = host_id[0] if host_id else params['host']
        limit = utils.parse_limit(params)
        marker = utils.check_marker(
            params, lambda m: device_reservations_db.device_reservation_get(
                ctx, m, project_id=project_id))
        found = device_reservations_db.device_reservation_list(
            ctx, project_id=project_id, status=status, host_id=host_id,
            limit=limit, marker=marker)
        return utils.collection(
            'device_reservations',
            views.reservations_view(ctx, found), limit, params,
            PATH)

    @method.expose(policy=policies.GET, params=())
    def get_one(self, reservation_id, *, ctx):
        return {'device_reservation': views.reservation_view(
            ctx, device_access.get_listed(ctx, reservation_id))}

    @method.expose(policy=policies.CREATE, params=('dry_run',),
                   body=schema.served_create)
    def post(self, *args, ctx, params, body):
        dry_run = utils.parse_bool('dry_run', params.get('dry_run', 'false'))
        body = schema.from_served(body)
        request = _request(ctx, body)
        allowed, managing = _projects(ctx, body)
        start, end = _window(body)
        projects = {ctx.project_id} | set(allowed) | set(managing)
        if dry_run:
            return _dry_run(ctx, request, start, end, body, projects)
        viewer = None if utils.can(ctx, device_policies.LIST_ALL) else \
            ctx.project_id
        values = {
            'id': uuidutils.generate_uuid(),
            'project_id': ctx.project_id, 'user_id': ctx.user_id,
            'viewer': viewer,
            'device_ids': list(request.device_ids),
            'device_count': request.device_count,
            'model': request.model, 'host_id': request.host_id,
            'numa_local': request.numa_local,
            'mdev_type': request.mdev_type,
            'allowed_projects': allowed, 'managing_projects': managing,
            'domains': body.get('domains') or [],
            'contract_ref': body.get('contract_ref'),
            'reason': body.get('reason'),
        }
        # Held here (pending, no lease yet); the worker has the
        # manager build its lease, whose start event attaches (the
        # reconciler does, for one that starts beyond the lead).
        read_domains = _domain_reader(ctx, projects)
        try:
            reservation_id = device_admission.reserve(
                ctx, values, start, end, read_domains)
        except exception.DeviceRefusal as refusal:
            raise _offering(ctx, refusal, request, start, end, body,
                            read_domains, viewer) from None
        if runs.lease_due(start, timeutils.utcnow()):
            utils.cast('device reservation', 'create_device_lease', ctx,
                       reservation_id)
        utils.set_created('%s/%s' % (PATH, reservation_id))
        return device_access.show(ctx, reservation_id)

    @method.expose(body=schema.update)
    def patch(self, reservation_id=None, *, ctx, body):
        reservation = device_access.get(ctx, reservation_id)
        if 'domains' in body:
            self._set_domains(ctx, reservation, body)
        else:
            self._update(ctx, reservation, body)
        return device_access.show(ctx, reservation.id)

    @staticmethod
    def _set_domains(ctx, reservation, body):
        if len(body) > 1:
            raise exception.Invalid(
                reason="change 'domains' on their own: the other fields "
                       "are an administrator's")
        utils.authorize(ctx, policies.ATTACH)
        if _domain_rights(ctx, reservation) is not None:
            others = sorted({a.domain for a in reservation.attachments
                             if a.project_id != ctx.project_id and
                             a.state != states.Attachment.DETACHED} -
                            set(body['domains']))
            if others:
                raise exception.Forbidden(
                    action='detach domains %s that another project named'
                           % ', '.join(others))
        utils.rpc_call('set the domains of device reservation %s' %
                       reservation.id,
                       device_access.manager().set_device_domains, ctx,
                       reservation.id, body['domains'], ctx.project_id)

    @staticmethod
    def _update(ctx, reservation, body):
        utils.authorize(ctx, policies.UPDATE)
        if 'end' in body:
            if reservation.status not in Status.LIVE:
                raise exception.InvalidState(
                    what='Device reservation %s' % reservation.id,
                    status=states.in_words(reservation.status),
                    reason='only a live reservation can be moved')
            end = utils.parse_date(body['end'], 'end') if body['end'] \
                else None
            try:
                utils.rpc_call('move the end of device reservation %s' %
                               reservation.id,
                               device_access.manager()
                               .move_device_reservation_end,
                               ctx, reservation.id, end)
            except exception.DeviceRefusal as refusal:
                raise _offering_end(ctx, refusal, reservation.id,
                                    end) from None
        for role, field in ((states.Role.ALLOWED, 'allowed_projects'),
                            (states.Role.MANAGING, 'managing_projects')):
            if field in body:
                device_reservations_db.device_reservation_set_projects(
                    ctx, reservation.id, role, body[field])
        values = {k: body[k] for k in ('contract_ref', 'reason')
                  if k in body}
        if values:
            device_reservations_db.device_reservation_update(
                ctx, reservation.id, values)

    @method.expose(policy=policies.DELETE, status=204)
    def delete(self, reservation_id=None, *, ctx):
        reservation = device_access.get_listed(ctx, reservation_id)
        if not device_access.acts_for_owner(ctx, reservation,
                                            policies.DELETE_ALL_PROJECTS):
            raise exception.Forbidden(
                action="cancel or remove another project's device "
                       'reservation')
        if reservation.status in Status.LIVE:
            reason = 'cancelled by %s at %s' % (
                ctx.user_id, utils.format_date(timeutils.utcnow()))
            if not cancel.device_reservation(ctx, reservation.id, reason):
                raise exception.InvalidState(
                    what='Device reservation %s' % reservation.id,
                    status='changing', reason='it changed while being '
                                              'cancelled; try again')
            utils.cast('device reservation', 'delete_device_lease', ctx,
                       reservation.id)
        elif reservation.released_at is None:
            raise exception.InvalidState(
                what='Device reservation %s' % reservation.id,
                status=states.in_words(reservation.status),
                reason='its devices are still being released; try again')
        else:
            device_reservations_db.device_reservation_destroy(ctx,
                                                              reservation.id)
