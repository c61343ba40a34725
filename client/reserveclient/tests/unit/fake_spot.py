"""The spot routes of the API double (since microversion 1.4):
``POST /v1/device-reservations/{id}/release`` and ``.../reclaim``, and
``POST /v1/devices/{id}/attach`` and ``.../detach`` of a device in the
state ``spot``. Below 1.4 they are 404, as the API answers unknown
routes."""
import copy

from reserveclient.tests.unit import fake_diagnoses
from reserveclient.tests.unit import fake_rest

ACTIONS = ('release', 'reclaim')
DEVICE_ACTIONS = ('attach', 'detach')


def is_spot(parts, method):
    return (method == 'POST' and len(parts) == 4 and (
        (parts[1] == 'device-reservations' and parts[3] in ACTIONS) or
        (parts[1] == 'devices' and parts[3] in DEVICE_ACTIONS)))


def check_version(api, path):
    if fake_diagnoses._version(api.requests[-1].headers) < (1, 4):
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
    return fake_rest.FakeResponse(200, {'device': copy.deepcopy(item)})


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
        return fake_rest.FakeResponse(200, {'device_reservation':
                                            copy.deepcopy(item)})
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
