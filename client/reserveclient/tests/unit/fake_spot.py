"""The spot routes of the API double (since microversion 1.4):
``POST /v1/device-reservations/{id}/release`` and ``.../reclaim``, and
``POST /v1/devices/{id}/attach`` and ``.../detach`` of a device in the
state ``spot``, and ``POST``/``DELETE /v1/flavors/{id}/opt-in``; the
spot fields of the catalogue's bodies and views. Below 1.4 the routes
are 404, as the API answers unknown routes, ``spot`` in a body is
refused as an unknown field, and views show no spot field."""
from reserveclient.tests.unit import fake_rest

ACTIONS = ('release', 'reclaim')
DEVICE_ACTIONS = ('attach', 'detach')
SPOT = (1, 4)
# The project of the caller of the double.
PROJECT = 'project-a'
FLAVOR_FIELDS = ('spot', 'opted_in', 'spot_project_ids')


def is_spot(parts, method):
    return (method == 'POST' and len(parts) == 4 and (
        (parts[1] == 'device-reservations' and parts[3] in ACTIONS) or
        (parts[1] == 'devices' and parts[3] in DEVICE_ACTIONS)))


def check_version(api, path):
    if api.version() < SPOT:
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)


def _device_action(api, parts, body):
    """A spot domain takes a device in the state ``spot`` (attach:
    {domain, tier: spot}), or gives it back (detach: {domain})."""
    item = api.devices.lookup(parts[2])
    held = api.spot_domains.get(item['id'])
    if parts[3] == 'attach':
        if body != {'domain': body.get('domain'), 'tier': 'spot'}:
            raise fake_rest.ApiError(400, 'domain and tier: spot')
        if item['state'] != 'spot' or held is not None:
            raise fake_rest.ApiError(409, 'device %s is not on the spot '
                                          'market' % item['id'])
        api.spot_domains[item['id']] = body['domain']
        item['state'] = 'in-use'
    else:
        if set(body) != {'domain'}:
            raise fake_rest.ApiError(400, 'domain only')
        if held != body['domain']:
            raise fake_rest.ApiError(409, 'device %s is not attached to '
                                          'domain %s' % (item['id'],
                                                         body['domain']))
        del api.spot_domains[item['id']]
        item['state'] = 'spot'
    return fake_rest.FakeResponse(200, {'device': api.devices.show(item)})


def answer(api, path, parts, body):
    check_version(api, path)
    if parts[1] == 'devices':
        return _device_action(api, parts, body)
    item = api.device_reservations.lookup(parts[2])
    lent = item.setdefault('released_device_ids', [])
    if parts[3] == 'release':
        unknown = [d for d in body['device_ids']
                   if d not in item['device_ids']]
        if unknown:
            raise fake_rest.ApiError(400, 'not devices of device '
                                          'reservation %s: %s' % (
                                              item['id'], ', '.join(unknown)))
        lent.extend(d for d in body['device_ids'] if d not in lent)
        return fake_rest.FakeResponse(200, {
            'device_reservation': api.device_reservations.show(item)})
    wanted = body.get('device_ids') or list(lent)
    terminated = [{'device_id': d, 'domain': 'spot-vm', 'project_id':
                   'project-b'} for d in wanted]
    if body.get('dry_run'):
        return fake_rest.FakeResponse(200, {
            'device_ids': wanted, 'dry_run': True,
            'would_terminate': terminated,
            'would_skip': [{'device_id': 'd9', 'domain': 'vm-9',
                            'reason': 'changed owner'}]})
    item['released_device_ids'] = [d for d in lent if d not in wanted]
    return fake_rest.FakeResponse(200, {
        'device_ids': wanted, 'dry_run': False, 'terminated': terminated,
        'skipped': []})


def _spot_served(api):
    return api.version() >= SPOT


def check_flavor_body(api, body):
    """A body that writes a catalogue entry names spot from 1.4 only."""
    if body and 'spot' in body and not _spot_served(api):
        raise fake_rest.ApiError(400, "Invalid input: unknown field "
                                      "'spot'")


def flavor_view(api, item):
    """A catalogue flavor as the request's microversion shows it."""
    view = {k: v for k, v in item.items() if k not in FLAVOR_FIELDS}
    if _spot_served(api):
        view['spot'] = bool(item.get('spot'))
        if view['spot']:
            opted = item.get('spot_project_ids') or []
            view['opted_in'] = PROJECT in opted
            view['spot_project_ids'] = list(opted)
    return view


def availability_row(api, flavor, row):
    if _spot_served(api):
        row['spot'] = bool(flavor.get('spot'))
        if row['spot']:
            row['spot_available'] = api.spot_available.get(flavor['id'], 0)
    return row


def opt_in(api, method, flavor, params):
    """POST (opt in) or DELETE (opt out) /v1/flavors/{id}/opt-in."""
    check_version(api, '/v1/flavors/%s/opt-in' % flavor['id'])
    if method not in ('POST', 'DELETE'):
        raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                                 'reserve.method_not_allowed')
    if not flavor.get('spot'):
        raise fake_rest.ApiError(409, 'Flavor %s is not a spot flavor' %
                                 flavor['name'], 'reserve.not_spot_flavor')
    opted = flavor.setdefault('spot_project_ids', [])
    project = params.get('project_id', PROJECT)
    if method == 'POST' and project not in opted:
        opted.append(project)
    if method == 'DELETE' and project in opted:
        opted.remove(project)
    return fake_rest.FakeResponse(204)
