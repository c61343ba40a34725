"""/v1/devices: the GPU devices of the libvirt hosts, as last discovered.

Everybody reads them, except that a device held now by a device
reservation is invisible to every project outside its audience (left out
of lists and availability, 404 when shown). A device sharing hardware with
a held one (its SR-IOV physical function or virtual functions, its IOMMU
group) is shown reserved. SR-IOV virtual functions are listed under
their physical function (``sriov.virtual_functions``), as rows only with
``?include_vfs=true``. ``/v1/devices/availability`` counts the devices
free now or over a window: a dry run that holds nothing.

From microversion 1.4 a device an active reservation lent out (the spot
market, reserve.devices.spot) is shown to everyone, ``spot`` while no
spot domain holds it (``in-use`` while one does), ``?spot=true`` lists
only those, ``POST /v1/devices/{id}/attach {domain, tier: spot}``
hands one to a domain of the caller's project, and ``POST
/v1/devices/{id}/detach {domain}`` gives it back before any reclaim (the
project whose spot domain holds it, or an administrator).
"""
import pecan
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api import microversion
from reserve.api.schemas import device_reservations as device_schema
from reserve.api.schemas import spot as spot_schema
from reserve.api.views import devices as views
from reserve.api.views import statuses
from reserve.common import exception
from reserve.common.policies import devices as policies
from reserve.common import timeutils
from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.db import spot_devices as spot_devices_db
from reserve.devices import holds
from reserve.devices import selection
from reserve.devices import states

PATH = '/v1/devices'
AVAILABILITY = 'availability'

_LIST_PARAMS = ('host', 'model', 'state', 'numa_node', 'include_vfs',
                'limit', 'marker')


def list_params():
    """The query parameters of GET /v1/devices at the request's
    microversion."""
    if microversion.serves(microversion.SPOT):
        return _LIST_PARAMS + ('spot',)
    return _LIST_PARAMS


AVAILABILITY_PARAMS = ('host', 'model', 'mdev_type', 'numa_local', 'start',
                       'end')


def _viewer(ctx):
    """None when the caller sees every device, else its project."""
    return None if utils.can(ctx, policies.LIST_ALL) else \
        ctx.project_id


def host_filter(ctx, ref):
    """The host named (id or name) as a filter; an unknown one matches
    nothing."""
    if ref is None:
        return None
    try:
        return [hosts_db.host_get(ctx, ref).id]
    except exception.HostNotFound:
        return []


def _int_param(params, name):
    value = params.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if number < 0 or str(value).strip() != str(number):
        raise exception.Invalid(
            reason="query parameter '%s' must be a non-negative integer, "
                   "not %r" % (name, value))
    return number


def _state(device, holders, by_address, viewer):
    """(state, the reservation holding it now when ``viewer`` may see
    it): a device sharing hardware with a held one is reserved too."""
    holder = holds.holder(device, holders, by_address)
    if holder is not None and not holds.can_see(holder, viewer):
        holder = None
    return holds.device_state(device, holders, by_address), holder


def on_market(ctx, host_ids=None):
    """{device id: whether a spot domain holds it} of the devices on the
    spot market, from 1.4 (none before)."""
    if not microversion.serves(microversion.SPOT):
        return {}
    return spot_devices_db.on_market(ctx, states.DeviceReservation.ACTIVE,
                                     states.Attachment.DETACHED,
                                     host_ids=host_ids)


def visible_devices(ctx, viewer, host_ids=None, market=None):
    """[(device, state, holder or None)] of the devices ``viewer`` sees
    (``market``: on_market's answer, when already read)."""
    holders = holds.held_now(ctx, host_ids=host_ids)
    devices = devices_db.device_list(ctx, host_ids=host_ids)
    market = on_market(ctx, host_ids) if market is None else market
    by_address = {(d.host_id, d.pci_address): d for d in devices}
    found = []
    for device in devices:
        if device.id in market:
            state, holder = _state(device, holders, by_address, viewer)
            found.append((device, states.DeviceShown.IN_USE if
                          market[device.id] else states.DeviceShown.SPOT,
                          holder))
            continue
        if holds.hidden(device.id, holders, viewer):
            continue
        found.append((device,) + _state(device, holders, by_address,
                                        viewer))
    return found


def _page(items, limit, marker):
    if marker is not None:
        ids = [item['id'] for item in items]
        if marker not in ids:
            raise exception.Invalid(reason='marker %s not found' % marker)
        items = items[ids.index(marker) + 1:]
    return items[:limit]


def _check_window(params):
    window = utils.query_window(params)
    if window is None:
        now = timeutils.utcnow()
        return now, now + holds.INSTANT, False
    return window + (True,)


@method.handler(policy=policies.AVAILABILITY, params=AVAILABILITY_PARAMS)
def availability(*, ctx, params):
    """GET /v1/devices/availability: per host and model (and NUMA node
    with numa_local), how many devices are free now or over [start, end)
    and can be reserved together, and which. Writes nothing."""
    start, end, window = _check_window(params)
    numa_local = utils.parse_bool('numa_local',
                                  params.get('numa_local', 'false'))
    host_ids = host_filter(ctx, params.get('host'))
    request = selection.Request(model=params.get('model'),
                                mdev_type=params.get('mdev_type'))
    devices = [d for d in holds.devices_over(ctx, start, end,
                                             viewer=_viewer(ctx),
                                             host_ids=host_ids)
               if not d.blocked and selection.wanted(d, request)]
    groups = {}
    for device in devices:
        key = (device.host, device.host_id, device.model,
               device.numa_node if numa_local else None)
        groups.setdefault(key, []).append(device)
    found = []
    for (host, host_id, model, node), members in sorted(
            groups.items(), key=lambda item: (item[0][0], item[0][2],
                                              str(item[0][3]))):
        entry = {'host_id': host_id, 'host': host, 'model': model,
                 'vendor_id': members[0].vendor_id,
                 'product_id': members[0].product_id,
                 'free': len(selection.pick_together(members)),
                 device_schema.served_name('device_ids'): [
                     d.id for d in sorted(members,
                                          key=lambda d: d.pci_address)]}
        if numa_local:
            entry['numa_node'] = node
        found.append(entry)
    return {'start': utils.format_date(start) if window else None,
            'end': utils.format_date(end) if window else None,
            'availability': found}


class DevicesController(rest.RestController):

    @pecan.expose('json')
    def _lookup(self, device_id, *remainder):
        if len(remainder) != 1 or remainder[0] not in ACTIONS or \
                not microversion.serves(microversion.SPOT):
            pecan.abort(404)
        if pecan.request.method != 'POST':
            utils.method_not_allowed('POST')
        return ACTIONS[remainder[0]](device_id), ()

    @method.expose(policy=policies.LIST, params=list_params)
    def get_all(self, *, ctx, params):
        state = statuses.DEVICE.code(utils.choice(params, 'state',
                                                  statuses.DEVICE.shown))
        numa_node = _int_param(params, 'numa_node')
        include_vfs = utils.parse_bool('include_vfs',
                                       params.get('include_vfs', 'false'))
        spot = utils.parse_bool('spot', params.get('spot', 'false'))
        limit = utils.parse_limit(params)
        viewer = _viewer(ctx)
        request = selection.Request(model=params.get('model'))
        host_ids = host_filter(ctx, params.get('host'))
        market = on_market(ctx, host_ids)
        items = []
        for device, device_state, holder in visible_devices(
                ctx, viewer, host_ids, market):
            if device.physical_function and not include_vfs:
                continue
            if spot and device.id not in market:
                continue
            if state is not None and device_state != state:
                continue
            if numa_node is not None and device.numa_node != numa_node:
                continue
            if request.model and not selection.model_matches(
                    _as_device(device), request.model):
                continue
            items.append(views.device_view(device, device_state, holder,
                                           viewer is None))
        page = _page(items, limit, params.get('marker'))
        return utils.collection('devices', page, limit, params, PATH)

    @pecan.expose('json')
    def get_one(self, device_id):
        # A word of the URL, with its own policy and parameters.
        if device_id == AVAILABILITY:
            return availability()
        return self._show(device_id)

    @method.handler(policy=policies.GET, params=())
    def _show(self, device_id, *, ctx):
        device, state, holder = find_visible(ctx, device_id)
        return {'device': views.device_view(device, state, holder,
                                            _viewer(ctx) is None)}


def find_visible(ctx, device_id):
    """(device, state, holder or None) of a device the caller sees; 404
    for one it does not (held by a reservation it is not in), as for one
    that does not exist."""
    device = devices_db.device_get(ctx, device_id)
    found = [(state, holder) for shown, state, holder in
             visible_devices(ctx, _viewer(ctx), [device.host_id])
             if shown.id == device.id]
    if not found:
        raise exception.DeviceNotFound(id=device_id)
    state, holder = found[0]
    return device, state, holder


class _SpotAttachController(rest.RestController):
    """POST /v1/devices/{id}/attach {domain, tier: spot} (1.4): a device
    on the spot market to a domain of the caller's project."""

    def __init__(self, device_id):
        self.device_id = device_id

    @method.expose(policy=policies.SPOT_ATTACH, params=(),
                   params_first=True, body=spot_schema.spot_attach,
                   item_methods=())
    def post(self, *args, ctx, body):
        utils.rpc_call('attach device %s to %s' % (self.device_id,
                                                   body['domain']),
                       pecan.request.manager_api.attach_spot_device, ctx,
                       self.device_id, body['domain'], ctx.project_id)
        return DevicesController()._show(self.device_id)


class _SpotDetachController(rest.RestController):
    """POST /v1/devices/{id}/detach {domain} (1.4): the spot domain of
    the caller's project gives the device back, before any reclaim; it
    is on the spot market again. A device the caller does not see is
    404, as for GET; one another project's spot domain holds, 403
    (unless an explicit rule lets the caller detach any project's); a
    domain that does not hold it, or holds it as one of the lending
    reservation's own (not a spot attachment), 409."""

    def __init__(self, device_id):
        self.device_id = device_id

    @method.expose(policy=policies.SPOT_DETACH, params=(),
                   params_first=True, body=spot_schema.spot_detach,
                   item_methods=())
    def post(self, *args, ctx, body):
        find_visible(ctx, self.device_id)
        project_id = None if utils.can(
            ctx, policies.SPOT_DETACH_ALL_PROJECTS) else ctx.project_id
        utils.rpc_call('detach device %s from %s' % (self.device_id,
                                                     body['domain']),
                       pecan.request.manager_api.detach_spot_device, ctx,
                       self.device_id, body['domain'], project_id)
        return DevicesController()._show(self.device_id)


# Since 1.4: the actions below a device.
ACTIONS = {'attach': _SpotAttachController,
           'detach': _SpotDetachController}


def _as_device(device):
    """Enough of a selection.Device to match a model against."""
    return selection.Device(
        id=device.id, host_id=device.host_id, host=None,
        pci_address=device.pci_address, model=views.model_of(device),
        vendor_id=device.vendor_id, product_id=device.product_id,
        numa_node=device.numa_node, is_vf=bool(device.physical_function),
        related=frozenset(), mdev_types={})
