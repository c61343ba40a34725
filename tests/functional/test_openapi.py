"""The OpenAPI description: served, valid, complete and true.

* it is served at /v1/openapi.json, without a token;
* it is a valid OpenAPI 3.1 document;
* its request bodies are the schemas the API validates with;
* every route the controllers serve is described, and every described
  operation is served (the controllers are walked and every candidate
  route is probed with every method);
* real answers of every described operation, successes and errors,
  validate against its response schemas.
"""
import datetime
import re

from openapi_spec_validator import validate as validate_spec
from pecan import rest
import pytest

from reserve.api.controllers import v1 as v1_api
from reserve.api import errors
from reserve.api import microversion
from reserve.api import openapi
from reserve.api import validation
from reserve.api.schemas import device_reservations as device_rsv_schema
from reserve.api.schemas import flavors as flavor_schema
from reserve.api.schemas import hosts as host_schema
from reserve.api.schemas import maintenance as window_schema
from reserve.api.schemas import reservations as booking_schema
from reserve.common import timeutils
from reserve.db import device_reservations as device_reservations_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import short_rpc_timeout  # noqa: F401
from tests.functional.devices import api as device_api
from tests.functional import openapi_check
from tests.functional.test_api_basics import keystone_api  # noqa: F401

DOC = openapi_check.DOC
PROBE_ID = 'probe-missing'

pytestmark = pytest.mark.usefixtures('roomy')


@pytest.fixture
def gpu_api(api, tmp_path, monkeypatch):  # noqa: F811
    yield from device_api.gpu_api_fixture(api, tmp_path, monkeypatch)


def test_the_document_is_valid_openapi():
    assert DOC['openapi'].startswith('3.1')
    validate_spec(DOC)


def test_served_without_a_token(keystone_api):  # noqa: F811
    response = keystone_api.get(openapi.PATH)
    assert response.status_int == 200
    assert response.content_type == 'application/json'
    doc = response.json
    assert doc['servers'] == [{'url': 'http://localhost'}]
    assert doc['paths'] == DOC['paths']
    validate_spec(doc)
    # Everything else still needs one.
    assert_error(keystone_api.get('/v1/allocations', expect_errors=True),
                 401)
    assert_error(keystone_api.post_json(openapi.PATH, {},
                                        expect_errors=True), 405)


def test_request_bodies_are_the_validation_schemas():
    schemas = DOC['components']['schemas']
    for name, schema in openapi.REQUEST_BODIES.items():
        assert schemas[name] == schema, name
    # Every module of reserve.api.schemas is described, whole.
    described = list(schemas.values())
    for module in (booking_schema, host_schema, flavor_schema,
                   window_schema, device_rsv_schema):
        for name, value in vars(module).items():
            if not name.startswith('_') and isinstance(value, dict):
                assert value in described, '%s.%s' % (module.__name__,
                                                      name)


def test_request_body_dates_are_described_as_dates():
    # So that clients, and the fuzzer, send dates where dates are read.
    for name, schema in openapi.REQUEST_BODIES.items():
        for field in ('start', 'end'):
            if field in schema['properties']:
                assert schema['properties'][field]['format'] == \
                    'date-time', (name, field)
    # Only described: a date the API cannot read is its own 400.
    body = {'flavor_id': 'gpu.a100', 'start': 'tomorrow', 'end': 'later'}
    assert booking_schema.create['properties']['start']['format']
    assert validation.validate(booking_schema.create, body) == body


def test_every_error_code_is_described():
    text = str(DOC['components']['responses'])
    for code in list(errors.STATUS_CODES.values()) + list(
            errors.EXCEPTION_CODES.values()):
        assert code in text, code


# routes ---------------------------------------------------------------------

def _exposed(cls, name):
    func = getattr(cls, name, None)
    return func is not None and getattr(func, 'exposed', False)


def _candidates():
    """Path templates the controllers may serve, found by walking them:
    every controller below /v1, its items, the sub-resources, actions and
    fixed words of its module."""
    found = {'/', '/v1'}
    for name in dir(v1_api.Controller):
        if name.startswith('_') or name in ('index', 'index_get',
                                            'index_head'):
            continue
        controller = getattr(v1_api.Controller, name)
        if callable(controller) and not hasattr(controller, '__dict__'):
            continue
        base = '/v1/%s' % name
        found.add(base)
        if not isinstance(controller, rest.RestController):
            continue
        cls = type(controller)
        module = __import__(cls.__module__, fromlist=['_'])
        found.add(base + '/{}')
        for word in ('AVAILABILITY',):
            if isinstance(getattr(module, word, None), str):
                found.add('%s/%s' % (base, getattr(module, word)))
        for word in getattr(module, 'WORDS', ()):
            found.add('%s/%s' % (base, word))
        for action in getattr(module, 'ACTIONS', ()):
            found.add('%s/{}/%s' % (base, action))
        for sub, sub_cls in getattr(module, '_SUBRESOURCES', {}).items():
            found.add('%s/{}/%s' % (base, sub))
            if any(_exposed(sub_cls, m) for m in ('get_one', 'delete',
                                                  'patch', 'put')):
                found.add('%s/{}/%s/{}' % (base, sub))
    return found


def _normal(template):
    return re.sub(r'\{[^/]*\}', '{}', template)


def _routing_miss(response, path):
    """Whether pecan found no route (or no such method) for ``path``."""
    if response.status_int == 405:
        return True
    return (response.status_int == 404 and
            response.json['errors'][0]['detail'] ==
            'The resource %s could not be found.' % path)


# Routes are probed at the newest microversion: some exist only from one.
LATEST = dict(ADMIN, **{'OpenStack-API-Version': 'reserve latest'})


def _probe(app, method, path):
    call = {'get': app.get, 'delete': app.delete}.get(method)
    if call is not None:
        return call(path, headers=LATEST, expect_errors=True)
    send = getattr(app, '%s_json' % method)
    return send(path, {}, headers=LATEST, expect_errors=True)


# No manager answers the probes: the doctor's call waits a second.
@pytest.mark.usefixtures('short_rpc_timeout')
def test_every_route_is_described_and_every_description_served(api):
    described = {_normal(t): t for t in DOC['paths']}
    candidates = _candidates()
    # Every path of the description is one the controllers have...
    assert set(described) <= candidates, set(described) - candidates
    served = set()
    for template in sorted(candidates):
        path = template.replace('{}', PROBE_ID)
        for method in openapi_check.METHODS:
            response = _probe(api, method, path)
            if not _routing_miss(response, path):
                served.add((template, method))
                _, op = openapi_check.operation(method, path)
                assert op is not None, (
                    '%s %s is served (%s) but not described' % (
                        method.upper(), template, response.status_int))
    # ... and every operation it describes is served.
    for template, method in openapi_check.operations():
        assert (_normal(template), method) in served, (method, template)


# answers --------------------------------------------------------------------

def _iso_in(days):
    return (timeutils.utcnow() + datetime.timedelta(days=days)).replace(
        microsecond=0).isoformat() + 'Z'


def test_real_answers_match_the_description(gpu_api, casts):  # noqa: F811
    app = openapi_check.CheckedApp(gpu_api.app)
    gpu_api.app = app

    # versions and the description itself
    app.get('/')
    app.get('/v1')
    app.get(openapi.PATH)

    # the catalogue
    flavor = app.post_json('/v1/flavors', {
        'name': 'gpu.a100', 'nova_flavor_id': 'g1.a100', 'slots': 4,
        'category': 'gpu'}, headers=ADMIN).json['flavor']
    private = app.post_json('/v1/flavors', {
        'name': 'gpu.private', 'nova_flavor_id': 'g1.a100', 'slots': 1,
        'is_public': False, 'projects': ['project-a']},
        headers=ADMIN).json['flavor']
    app.get('/v1/flavors', headers=MEMBER_A)
    app.get('/v1/flavors', headers=ADMIN)
    app.get('/v1/flavors/%s' % flavor['name'], headers=MEMBER_A)
    app.patch_json('/v1/flavors/%s' % flavor['id'],
                   {'description': 'A100 80GB'}, headers=ADMIN)
    app.get('/v1/flavors/availability', headers=MEMBER_A)
    app.get('/v1/flavors/availability', {'start': _iso_in(1),
                                         'end': _iso_in(2)},
            headers=MEMBER_A)
    app.get('/v1/flavors/gpu.a100/free-slots', {'instance_count': 2},
            headers=MEMBER_A)
    app.post_json('/v1/flavors/%s/projects' % private['id'],
                  {'project_id': 'project-b'}, headers=ADMIN)
    app.get('/v1/flavors/%s/projects' % private['id'], headers=ADMIN)
    app.delete('/v1/flavors/%s/projects/project-b' % private['id'],
               headers=ADMIN)

    # bookings
    booking = app.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(48),
        'instance_count': 2}, headers=MEMBER_A).json['reservation']
    app.get('/v1/reservations', headers=MEMBER_A)
    app.get('/v1/reservations/%s' % booking['id'], headers=MEMBER_A)
    app.get('/v1/reservations/%s/diagnosis' % booking['id'],
            headers=dict(MEMBER_A, **{'OpenStack-API-Version':
                                      'reserve 1.3'}))
    app.patch_json('/v1/reservations/%s' % booking['id'],
                   {'end': future(50)}, headers=MEMBER_A)
    app.get('/v1/reservations/%s' % booking['id'],
            headers=dict(MEMBER_A, **{'OpenStack-API-Version':
                                      'reserve 1.3'}))
    app.get('/v1/limits', headers=MEMBER_A)
    # an offer, booked as is (1.10)
    latest = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.10'})
    offer = app.get('/v1/offers', {
        'flavor': 'gpu.a100', 'duration': 'PT2H', 'earliest_start':
        _iso_in(70), 'latest_start': 'P1D'}, headers=latest).json[
            'offers'][0]
    app.delete('/v1/reservations/%s' % app.post_json(
        '/v1/reservations', {'offer_id': offer['id']},
        headers=latest).json['reservation']['id'], headers=MEMBER_A)
    app.get('/v1/reports/delivery',
            headers=dict(ADMIN, **{'OpenStack-API-Version': 'reserve 1.3'}))
    # shared with other projects (1.9)
    v19 = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.9'})
    shares = '/v1/reservations/%s/shared-projects' % booking['id']
    app.put_json(shares, {'shared_project_ids': ['%032x' % 1]},
                 headers=v19)
    app.put(shares + '/' + '%032x' % 2, headers=v19)
    app.delete(shares + '/' + '%032x' % 2, headers=v19)
    app.get('/v1/reservations/%s' % booking['id'], headers=v19)
    app.delete('/v1/reservations/%s' % booking['id'], headers=MEMBER_A)

    # series (1.7), admitted as far as they fit, and refused
    series_version = dict(MEMBER_A, **{
        'OpenStack-API-Version': 'reserve %s' % (microversion.SERIES,)})
    series = app.post_json('/v1/series', {
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(26),
        'instance_count': 3, 'recurrence': 'FREQ=DAILY;COUNT=3',
        'series_policy': 'as_many_as_fit'},
        headers=series_version).json['series']
    assert series['occurrences']
    app.post_json('/v1/series', {
        'flavor_id': 'gpu.a100', 'start': future(24), 'end': future(26),
        'instance_count': 3, 'recurrence': 'FREQ=DAILY;COUNT=3'},
        headers=series_version, status=409)
    app.get('/v1/series', headers=series_version)
    app.get('/v1/series/%s' % series['id'], headers=series_version)
    app.get('/v1/reservations/%s' % series['occurrences'][0]['id'],
            headers=series_version)
    app.delete('/v1/series/%s' % series['id'], headers=series_version)

    # maintenance
    window = app.post_json('/v1/maintenance-windows', {
        'start': _iso_in(30), 'end': _iso_in(31), 'flavors': ['gpu.a100'],
        'note': 'firmware'}, headers=ADMIN).json['maintenance_window']
    app.get('/v1/maintenance-windows', headers=ADMIN)
    app.get('/v1/maintenance-windows/%s' % window['id'], headers=ADMIN)
    app.patch_json('/v1/maintenance-windows/%s' % window['id'],
                   {'note': 'firmware, again'}, headers=ADMIN)
    app.delete('/v1/maintenance-windows/%s' % window['id'], headers=ADMIN)
    app.delete('/v1/flavors/%s' % private['id'], headers=ADMIN)

    # hosts, leases and allocations
    a100 = gpu_api.enroll('a100-host.xml', name='gpu-box-1')
    nova_host = make_host('gpu9.example.org')
    lease = make_lease(host=nova_host)
    app.get('/v1/hosts', headers=ADMIN)
    app.get('/v1/hosts/%s' % a100['name'], headers=ADMIN)
    app.patch_json('/v1/hosts/%s' % a100['id'],
                   {'capabilities': {'rack': 'r1'}}, headers=ADMIN)
    app.post('/v1/hosts/%s/refresh' % a100['id'], headers=ADMIN)
    app.get('/v1/hosts/%s/domains' % a100['id'], headers=ADMIN)
    app.get('/v1/hosts/%s/domains/gpu-vm-2' % a100['id'], headers=ADMIN)
    owners_url = '/v1/hosts/%s/domain-owners' % a100['id']
    app.get(owners_url, headers=ADMIN)
    app.get(owners_url + '/gpu-vm-1', headers=ADMIN)
    app.patch_json(owners_url + '/gpu-vm-1', {'project_id': 'project-b'},
                   headers=ADMIN)
    app.delete(owners_url + '/gpu-vm-1', headers=ADMIN)
    app.get('/v1/leases', headers=MEMBER_A)
    app.get('/v1/leases/%s' % lease.id, headers=MEMBER_A)
    allocations = app.get('/v1/allocations', headers=ADMIN).json[
        'allocations']
    app.get('/v1/allocations/%s' % allocations[0]['id'], headers=MEMBER_A)

    # GPU devices
    devices = app.get('/v1/devices', {'host': a100['id']},
                      headers=MEMBER_A).json['devices']
    app.get('/v1/devices/%s' % devices[0]['id'], headers=ADMIN)
    app.get('/v1/devices/availability', headers=MEMBER_A)
    app.get('/v1/devices/availability', {
        'numa_local': 'true', 'start': _iso_in(1), 'end': _iso_in(2)},
        headers=MEMBER_A)
    url = '/v1/device-reservations'
    app.post_json(url + '?dry_run=true', {
        'count': 2, 'model': 'A100 SXM4 80GB', 'numa_local': True},
        headers=MEMBER_A)
    app.post_json(url + '?dry_run=true', {'count': 64, 'model': 'nope'},
                  headers=MEMBER_A)
    rsv = app.post_json(url, {
        'count': 1, 'model': 'A100 SXM4 80GB', 'domains': ['gpu-vm-2'],
        'contract_ref': 'C-1'}, headers=MEMBER_A).json['device_reservation']
    gpu_api.tick()
    item = '%s/%s' % (url, rsv['id'])
    app.get(url, headers=MEMBER_A)
    app.get(item, headers=MEMBER_A)
    app.patch_json(item, {'reason': 'training'}, headers=ADMIN)
    app.post_json(item + '/detach', {'domain': 'gpu-vm-2'},
                  headers=MEMBER_A)
    app.post_json(item + '/attach', {'domain': 'gpu-vm-3'},
                  headers=MEMBER_A)
    app.patch_json(item, {'domains': ['gpu-vm-2']}, headers=MEMBER_A)
    # Spot devices (1.4): lent, attached to a spot domain, reclaimed.
    spot = {'OpenStack-API-Version': 'reserve 1.4'}
    app.post_json(item + '/detach', {'domain': 'gpu-vm-2'},
                  headers=MEMBER_A)
    app.post_json(item + '/release', {'device_ids': rsv['unit_ids']},
                  headers=dict(MEMBER_A, **spot))
    gpu_api.own(a100, 'transient-vm', 'project-b')
    app.get('/v1/devices', {'spot': 'true'}, headers=dict(MEMBER_B, **spot))
    app.post_json('/v1/devices/%s/attach' % rsv['unit_ids'][0],
                  {'domain': 'transient-vm', 'tier': 'spot'},
                  headers=dict(MEMBER_B, **spot))
    app.post_json('/v1/devices/%s/detach' % rsv['unit_ids'][0],
                  {'domain': 'transient-vm'}, headers=dict(MEMBER_B, **spot))
    app.post_json('/v1/devices/%s/attach' % rsv['unit_ids'][0],
                  {'domain': 'transient-vm', 'tier': 'spot'},
                  headers=dict(MEMBER_B, **spot))
    app.post_json(item + '/reclaim', {'dry_run': True},
                  headers=dict(MEMBER_A, **spot))
    app.post_json(item + '/reclaim', {}, headers=dict(MEMBER_A, **spot))
    app.get(item, headers=dict(MEMBER_A, **spot))
    app.get(url, headers=dict(MEMBER_A, **spot))
    app.patch_json(item, {'domains': ['gpu-vm-2']}, headers=MEMBER_A)
    since_diagnosis = {'OpenStack-API-Version': 'reserve 1.3'}
    app.get(item + '/diagnosis', headers=dict(MEMBER_A, **since_diagnosis))
    app.get('/v1/diagnoses', headers=dict(ADMIN, **since_diagnosis))
    # Only a reservation in needs-review can be affirmed; then it can.
    app.post(item + '/affirm', headers=ADMIN, expect_errors=True)
    device_reservations_db.device_reservation_move(
        admin_context(), rsv['id'], 'NEEDS_REVIEW', ('PENDING', 'ACTIVE'))
    app.post(item + '/affirm', headers=ADMIN)
    app.delete(item, headers=MEMBER_A)
    windows = '/v1/hosts/%s/maintenance-windows' % nova_host.id
    window = app.post_json(windows, {
        'start': _iso_in(300), 'end': _iso_in(301), 'note': 'firmware'},
        headers=ADMIN).json['maintenance_window']
    app.get(windows, headers=ADMIN)
    app.delete('%s/%s' % (windows, window['id']), headers=ADMIN)
    app.patch_json('/v1/hosts/%s' % nova_host.id,
                   {'reservable': False, 'force': True}, headers=ADMIN)
    app.delete('/v1/hosts/%s' % nova_host.id, headers=ADMIN,
               expect_errors=True)
    lease_free = make_host('gpu10.example.org')
    app.delete('/v1/hosts/%s' % lease_free.id, headers=ADMIN)
    app.delete('/v1/flavors/%s' % flavor['id'], headers=ADMIN,
               expect_errors=True)

    # spot flavors (1.4): a private nova flavor asking a vGPU, on a host
    # that lends one
    spot_version = {'OpenStack-API-Version': 'reserve 1.4'}
    app.nova_cloud.nova.flavors.create(
        'spot-vgpu', 1024, 1, 10, flavorid='spot-vgpu',
        is_public=False).set_keys({'resources:VGPU': '1'})
    lender = make_host('gpu-spot.example.org', gpus={'VGPU': 2},
                       spot_lent=2, spot_used=1)
    spot_flavor = app.post_json('/v1/flavors', {
        'name': 'spot.vgpu', 'nova_flavor_id': 'spot-vgpu', 'spot': True},
        headers=dict(ADMIN, **spot_version)).json['flavor']
    opt_in = '/v1/flavors/spot.vgpu/opt-in'
    app.post(opt_in, headers=dict(MEMBER_A, **spot_version))
    app.post(opt_in + '?project_id=project-b',
             headers=dict(ADMIN, **spot_version))
    app.get('/v1/flavors/spot.vgpu', headers=dict(MEMBER_A, **spot_version))
    app.get('/v1/flavors', headers=dict(ADMIN, **spot_version))
    app.get('/v1/flavors/availability',
            headers=dict(MEMBER_A, **spot_version))
    app.patch_json('/v1/flavors/spot.vgpu', {'description': 'spare vGPUs'},
                   headers=dict(ADMIN, **spot_version))
    for response in (
            app.post_json('/v1/reservations', {
                'flavor_id': 'spot.vgpu', 'start': future(24),
                'end': future(26)}, headers=MEMBER_A, expect_errors=True),
            app.get('/v1/flavors/spot.vgpu/free-slots', headers=MEMBER_A,
                    expect_errors=True)):
        assert_error(response, 409, 'reserve.spot_flavor')
    # the calendar (1.5) of a flavor, and of a host
    calendar_version = {'OpenStack-API-Version': 'reserve 1.5'}
    app.get('/v1/calendar', {'flavor_id': 'gpu.a100'},
            headers=dict(MEMBER_A, **calendar_version))
    app.get('/v1/calendar', {'host_id': lender.name},
            headers=dict(ADMIN, **calendar_version))
    app.delete(opt_in, headers=dict(MEMBER_A, **spot_version))
    app.delete('/v1/flavors/%s' % spot_flavor['id'], headers=ADMIN)
    app.delete('/v1/hosts/%s' % lender.id, headers=ADMIN)

    # errors, each in the one shape
    for response in (
            app.get('/v1/nothing-here', expect_errors=True),
            app.put_json('/v1/reservations', {}, expect_errors=True),
            app.post_json('/v1/reservations', {'flavor_id': 'x'},
                          headers=MEMBER_A, expect_errors=True),
            app.get('/v1/hosts', headers=MEMBER_A, expect_errors=True),
            app.get('/v1/leases/nope', headers=MEMBER_A,
                    expect_errors=True),
            app.post_json('/v1/flavors', {
                'name': 'gpu.a100', 'nova_flavor_id': 'x', 'slots': 1},
                headers=ADMIN, expect_errors=True),
            app.get('/v1', headers={'OpenStack-API-Version':
                                    'reserve 9.0'}, expect_errors=True)):
        assert_error(response, response.status_int)

    # Every operation of the description answered successfully once.
    missing = openapi_check.operations() - app.covered
    assert not missing, sorted(missing)
