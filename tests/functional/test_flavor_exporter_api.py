"""The de.NBI flavor exporter's URLs (/gpus/flavors/, /v2/flavors/),
served live by reserve-api with [flavor_exporter] enabled.

The figures are those of /v1/flavors/availability for the same caller:
a booking shows in both at once. With [gpu] source = aggregates, a
host's GPUs come from its nova aggregates' gpu / gpu_count / gpu_type
(read by the capacity refresh from the nova double, with placement from
a real placement server) and a flavor's from its pci_passthrough:alias,
the exporter's convention.
"""
import datetime
import uuid

from oslo_config import cfg
import pytest
import webtest

from reserve.api import app as api_app
from reserve.capacity import refresh
from reserve.common import nova
from reserve.common import placement
from reserve.common import timeutils
from reserve.db import hosts as hosts_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.fixtures.placement import placement_server  # noqa: F401

CONF = cfg.CONF
ROW_FIELDS = {'flavor_openstack_id', 'flavor_name', 'available', 'total'}


@pytest.fixture
def exporter(api):
    """The API with the exporter's URLs served (a token needed)."""
    CONF.set_override('enabled', True, group='flavor_exporter')
    yield api
    CONF.clear_override('enabled', group='flavor_exporter')
    CONF.clear_override('auth_required', group='flavor_exporter')


@pytest.fixture
def gpu_cloud(exporter):
    """nova flavors asking two V100s, one V100, none; one host of four
    V100s (as the aggregates name them) and catalogue entries of each,
    one of them private to project-a."""
    cloud = exporter.nova_cloud
    for flavor_id, name, specs in (
            ('f-2v100', 'de.NBI 2 GPU V100 large',
             {'pci_passthrough:alias': 'V100:2'}),
            ('f-1v100', 'de.NBI GPU V100 medium',
             {'pci_passthrough:alias': 'V100:1'}),
            ('f-cpu', 'de.NBI large', {})):
        cloud.nova.flavors.create(name, 4096, 4, 20,
                                  flavorid=flavor_id).set_keys(specs)
    make_host('gpu1.example.org', gpus={'alias:V100': 4})
    for entry, flavor_id, extra in (
            ('v100-pair', 'f-2v100', {}), ('v100', 'f-1v100', {}),
            ('cpu', 'f-cpu', {}),
            ('v100-a', 'f-1v100', {'is_public': False,
                                   'projects': ['project-a']})):
        resp = exporter.post_json('/v1/flavors', dict(
            {'name': entry, 'nova_flavor_id': flavor_id, 'slots': 6},
            **extra), headers=ADMIN)
        assert resp.status_int == 201, resp.text
    return cloud


def _rows(api, path, headers=MEMBER_A):
    body = api.get(path, headers=headers).json
    assert set(body) == {'flavors', 'timestamp'}
    # The exporter's timestamp format.
    datetime.datetime.strptime(body['timestamp'], '%Y-%m-%d %H:%M:%S')
    for row in body['flavors']:
        assert set(row) == ROW_FIELDS
    return body['flavors']


def _v1(api, headers=MEMBER_A):
    """(nova flavor id, total, available) of /v1/flavors/availability."""
    rows = api.get('/v1/flavors/availability', headers=headers).json[
        'availability']
    return sorted((r['nova_flavor_id'], r['total'], r['available'])
                  for r in rows)


def _book_now(api, entry, count, headers=MEMBER_A):
    now = timeutils.utcnow()
    resp = api.post_json('/v1/reservations', {
        'flavor_id': entry, 'start': iso(now),
        'end': iso(now + datetime.timedelta(hours=2)),
        'instance_count': count}, headers=headers)
    assert resp.status_int == 201, resp.text


def test_off_by_default(api):
    assert_error(api.get('/gpus/flavors/', headers=MEMBER_A,
                         expect_errors=True), 404)
    assert_error(api.get('/v2/flavors/', headers=MEMBER_A,
                         expect_errors=True), 404)


def test_the_exporter_shape_with_live_figures(gpu_cloud, exporter, casts):
    gpus = _rows(exporter, '/gpus/flavors/')
    # GPU flavors only, named as nova names them; project-a sees its
    # private entry too (one row per catalogue entry).
    assert {r['flavor_openstack_id']: r['flavor_name'] for r in gpus} == {
        'f-1v100': 'de.NBI GPU V100 medium',
        'f-2v100': 'de.NBI 2 GPU V100 large'}
    assert sorted((r['flavor_openstack_id'], r['total'], r['available'])
                  for r in gpus) == [('f-1v100', 4, 4), ('f-1v100', 4, 4),
                                     ('f-2v100', 2, 2)]
    everything = _rows(exporter, '/v2/flavors/')
    assert sorted((r['flavor_openstack_id'], r['total'], r['available'])
                  for r in everything) == [
        ('f-1v100', 4, 4), ('f-1v100', 4, 4), ('f-2v100', 2, 2),
        ('f-cpu', 6, 6)]
    assert all(isinstance(r[k], int) for r in everything
               for k in ('total', 'available'))

    # A booking of one V100 pair from now: the pair's available drops at
    # once, and so do the single V100s (the same GPUs), not the totals.
    _book_now(exporter, 'v100-pair', 1)
    assert sorted((r['flavor_openstack_id'], r['total'], r['available'])
                  for r in _rows(exporter, '/gpus/flavors')) == [
        ('f-1v100', 4, 2), ('f-1v100', 4, 2), ('f-2v100', 2, 1)]
    # Without the trailing slash too, and HEAD; parameters are ignored,
    # as the exporter ignored them (a dashboard's cache buster).
    assert exporter.head('/v2/flavors', headers=MEMBER_A).status_int == 200
    assert len(_rows(exporter, '/gpus/flavors/?_=1733322000')) == 3


def test_the_exporter_agrees_with_v1_availability(gpu_cloud, exporter,
                                                  casts):
    def exported(headers):
        return sorted((r['flavor_openstack_id'], r['total'],
                       r['available'])
                      for r in _rows(exporter, '/v2/flavors/', headers))

    for headers in (MEMBER_A, MEMBER_B, ADMIN):
        assert exported(headers) == _v1(exporter, headers)
    _book_now(exporter, 'v100', 3)
    _book_now(exporter, 'cpu', 2, headers=MEMBER_B)
    for headers in (MEMBER_A, MEMBER_B, ADMIN):
        assert exported(headers) == _v1(exporter, headers)
    # project-b does not see project-a's private entry.
    assert len(exported(MEMBER_B)) == 3 and len(exported(MEMBER_A)) == 4


def test_read_only(exporter):
    response = exporter.post_json('/gpus/flavors/', {}, headers=ADMIN,
                                  expect_errors=True)
    assert_error(response, 405)
    assert response.headers['Allow'] == 'GET, HEAD'


def test_the_availability_policy_applies(exporter, gpu_cloud):
    # A caller with no role on its project gets what
    # /v1/flavors/availability gives it.
    nobody = dict(MEMBER_A, **{'X-Roles': 'nothing'})
    v1 = exporter.get('/v1/flavors/availability', headers=nobody,
                      expect_errors=True)
    assert v1.status_int == 403
    assert_error(exporter.get('/gpus/flavors/', headers=nobody,
                              expect_errors=True), 403)


@pytest.fixture
def keystone_exporter(exporter):
    CONF.set_override('auth_strategy', 'keystone', group='api')
    CONF.set_override('www_authenticate_uri', 'http://keystone.test/v3',
                      group='keystone_authtoken')
    yield webtest.TestApp(api_app.setup_app())
    CONF.clear_override('www_authenticate_uri', group='keystone_authtoken')
    CONF.clear_override('auth_strategy', group='api')


def test_a_token_is_needed_unless_opened(keystone_exporter, gpu_cloud):
    assert_error(keystone_exporter.get('/gpus/flavors/',
                                       expect_errors=True),
                 401, 'reserve.unauthorized')
    CONF.set_override('auth_required', False, group='flavor_exporter')
    # Open, as the exporter was: no token, and identity headers a client
    # sets count for nothing; only the active public entries show.
    rows = _rows(keystone_exporter, '/v2/flavors/', headers=ADMIN)
    assert sorted(r['flavor_openstack_id'] for r in rows) == [
        'f-1v100', 'f-2v100', 'f-cpu']
    # Only the exporter's URLs open.
    assert_error(keystone_exporter.get('/v1/flavors/availability',
                                       expect_errors=True), 401)


# [gpu] source = aggregates -------------------------------------------------

@pytest.fixture
def aggregates(exporter, placement_server):  # noqa: F811
    """Two GPU hosts in the exporter's aggregates (two V100s each, one
    of them in an aggregate of two T4s as well), a CPU host in none, and
    [gpu] source = aggregates."""
    CONF.set_override('source', 'aggregates', group='gpu')
    cloud = exporter.nova_cloud
    hosts = {}
    for name in ('gpu-a', 'gpu-b', 'cpu-c'):
        name = '%s-%s' % (name, uuid.uuid4().hex[:6])
        provider = placement_server.add_compute_node(
            name, str(uuid.uuid4()), vcpus=64, memory_mb=262144,
            disk_gb=2000)
        cloud.add_hypervisor(name + '.example.org', provider,
                             service_host=name)
        hosts[name[:5]] = hosts_db.host_create(admin_context(), {
            'name': name + '.example.org', 'kind': 'nova',
            'service_name': name, 'provider_uuid': provider,
            'vcpus': 64, 'memory_mb': 262144, 'local_gb': 2000,
            'reservable': True})
    for agg_name, members, metadata in (
            ('Delta GPU V100', ('gpu-a', 'gpu-b'),
             {'gpu': 'True', 'gpu_count': '2', 'gpu_type': 'V100',
              'cores': '28'}),
            ('Delta GPU T4', ('gpu-b',),
             {'gpu': 'True', 'gpu_count': '2', 'gpu_type': 'T4'}),
            ('Not a GPU aggregate', ('cpu-c',),
             {'gpu': 'False', 'gpu_count': '8', 'gpu_type': 'V100'})):
        agg = cloud.nova.aggregates.create(agg_name, None)
        cloud.nova.aggregates.set_metadata(agg, metadata)
        for member in members:
            cloud.nova.aggregates.add_host(agg, hosts[member].service_name)
    for flavor_id, specs in (('f-1v100', 'V100:1'), ('f-2v100', 'V100:2'),
                             ('f-t4', 'T4:1')):
        cloud.nova.flavors.create(flavor_id, 4096, 4, 20,
                                  flavorid=flavor_id).set_keys(
            {'pci_passthrough:alias': specs})
    refresh.refresh_all(admin_context(), placement.PlacementClient(
        placement_server.adapter()), nova.NovaClient(client=cloud.nova))
    yield hosts
    CONF.clear_override('source', group='gpu')


def test_aggregates_give_the_hosts_gpus(aggregates, exporter,
                                        placement_server):  # noqa: F811
    hosts = {h['service_name']: h for h in exporter.get(
        '/v1/hosts', headers=ADMIN).json['hosts']}
    a, b, c = (aggregates[k].service_name
               for k in ('gpu-a', 'gpu-b', 'cpu-c'))
    assert (hosts[a]['gpus'], hosts[a]['gpu_source']) == (
        {'alias:V100': 2}, 'aggregates')
    assert hosts[b]['gpus'] == {'alias:V100': 2, 'alias:T4': 2}
    # gpu='False': no GPUs, whatever gpu_count says.
    assert (hosts[c]['gpus'], hosts[c]['gpu_source']) == ({}, None)
    # Back to placement's GPUs (it has none of these hosts): the
    # aggregates count for nothing.
    CONF.set_override('source', 'placement', group='gpu')
    refresh.refresh_all(admin_context(), placement.PlacementClient(
        placement_server.adapter()), nova.NovaClient(
            client=exporter.nova_cloud.nova))
    assert hosts_db.host_get(admin_context(), a + '.example.org').gpus == {}


def test_aggregates_and_pci_alias_agree_with_v1(aggregates, exporter,
                                                casts):
    for entry, flavor_id in (('v100', 'f-1v100'), ('v100-pair', 'f-2v100'),
                             ('t4', 'f-t4')):
        resp = exporter.post_json('/v1/flavors', {
            'name': entry, 'nova_flavor_id': flavor_id, 'slots': 10},
            headers=ADMIN)
        assert resp.status_int == 201, resp.text
    # The alias is the aggregates' gpu_type, not a [pci] alias.
    shown = {f['name']: f['gpus'] for f in exporter.get(
        '/v1/flavors', headers=ADMIN).json['flavors']}
    assert shown == {'v100': {'alias:V100': 1},
                     'v100-pair': {'alias:V100': 2}, 't4': {'alias:T4': 1}}

    def exported():
        return sorted((r['flavor_openstack_id'], r['total'],
                       r['available'])
                      for r in _rows(exporter, '/gpus/flavors/'))

    # Four V100s on two hosts, two T4s on one.
    assert exported() == [('f-1v100', 4, 4), ('f-2v100', 2, 2),
                          ('f-t4', 2, 2)]
    assert exported() == _v1(exporter)
    _book_now(exporter, 'v100-pair', 1)
    _book_now(exporter, 't4', 1)
    assert exported() == [('f-1v100', 4, 2), ('f-2v100', 2, 1),
                          ('f-t4', 2, 1)]
    assert exported() == _v1(exporter)
