"""GPUs in the booking desk: the hosts' GPUs bound what is offered.

The API reads the nova flavor (its GPUs among the rest) when a catalogue
entry is written (here from the nova double of tests.fakes.nova), and
the capacity model counts the hosts' GPUs from the database; admission,
free-slots and availability then offer no more instances than the
enrolled GPUs hold.
"""
import datetime

from novaclient import exceptions as nova_exc
import pytest

from reserve.db import devices as devices_db
from reserve.db import hosts as hosts_db
from reserve.db import leases as leases_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import MEMBER_A

URL = '/v1/flavors'


@pytest.fixture
def nova_flavors(api):
    """The API's nova, with flavors asking for GPUs in every form."""
    cloud = api.nova_cloud
    for flavor_id, specs in (
            ('vgpu', {'resources:VGPU': '1'}),
            ('two-a100', {'pci_passthrough:alias': 'a100:2'}),
            ('cpu-only', {'hw:cpu_policy': 'dedicated'})):
        cloud.nova.flavors.create(flavor_id, 1024, 2, 10,
                                  flavorid=flavor_id).set_keys(specs)
    return cloud


def _gpu_hosts():
    """A host with two vGPUs and one with two A100s (capabilities)."""
    make_host('gpu1.example.org', gpus={'VGPU': 2})
    make_host('gpu2.example.org', gpus={})
    hosts_db.host_update(admin_context(),
                         hosts_db.host_get(admin_context(),
                                           'gpu2.example.org').id,
                         {}, {'gpu': 'True', 'gpu_count': '2',
                              'gpu_type': 'a100'})


def _create(api, name, nova_flavor_id, slots=8):
    resp = api.post_json(URL, {'name': name, 'nova_flavor_id': nova_flavor_id,
                               'slots': slots}, headers=ADMIN)
    return resp.json['flavor']


def _availability(api, name):
    rows = api.get(URL + '/availability', headers=MEMBER_A).json[
        'availability']
    row = [r for r in rows if r['name'] == name][0]
    return row['slots'], row['total'], row['available']


def _book(api, name, count, expect_errors=False):
    return api.post_json('/v1/reservations', {
        'flavor_id': name, 'start': future(24), 'end': future(26),
        'instance_count': count}, headers=MEMBER_A,
        expect_errors=expect_errors)


def test_entry_records_the_gpus_of_its_nova_flavor(api, nova_flavors):
    _gpu_hosts()
    assert _create(api, 'vgpu', 'vgpu')['gpus'] == {'VGPU': 1}
    assert _create(api, 'a100', 'two-a100')['gpus'] == {'alias:a100': 2}
    assert _create(api, 'cpu', 'cpu-only')['gpus'] == {}
    assert _availability(api, 'cpu') == (8, 8, 8)
    # Nova does not know it: refused, naming it.
    response = api.post_json(URL, {'name': 'gone',
                                   'nova_flavor_id': 'no-such-flavor',
                                   'slots': 8}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 400, detail_has='no-such-flavor')


def test_an_entry_no_host_can_hold_is_refused(api, nova_flavors):
    make_host('cpu1.example.org')
    response = api.post_json(URL, {'name': 'vgpu', 'nova_flavor_id': 'vgpu',
                                   'slots': 8}, headers=ADMIN,
                             expect_errors=True)
    assert_error(response, 409, detail_has=['vgpu', 'fits on no enrolled',
                                            'GPUs 1 x VGPU'])


def test_update_reads_the_gpus_again(api, nova_flavors):
    _gpu_hosts()
    _create(api, 'later', 'cpu-only')
    nova_flavors.flavors['cpu-only'].set_keys({'resources1:VGPU': '2'})
    resp = api.patch_json(URL + '/later', {'slots': 4}, headers=ADMIN)
    assert resp.json['flavor']['gpus'] == {'VGPU': 2}


def test_hosts_gpus_cap_the_calendar(api, casts, nova_flavors):  # noqa
    # gpu2: placement said nothing of it: its capabilities are read, in
    # the aggregate metadata form
    _gpu_hosts()
    make_host('cpu1.example.org')
    make_host('off.example.org', gpus={'VGPU': 8}, reservable=False)

    _create(api, 'vgpu', 'vgpu', slots=8)
    _create(api, 'a100', 'two-a100', slots=8)
    shown = api.get(URL + '/vgpu', headers=ADMIN).json['flavor']
    assert (shown['slots'], shown['gpus'], shown['gpu_slots']) == (
        8, {'VGPU': 1}, 2)
    assert api.get(URL + '/a100', headers=ADMIN).json['flavor'][
        'gpu_slots'] == 1
    assert _availability(api, 'vgpu') == (8, 2, 2)
    assert _availability(api, 'a100') == (8, 1, 1)

    hosts = {h['name']: h for h in api.get('/v1/hosts',
                                           headers=ADMIN).json['hosts']}
    assert (hosts['gpu1.example.org']['gpus'],
            hosts['gpu1.example.org']['gpu_source']) == (
        {'VGPU': 2}, 'placement')
    assert (hosts['gpu2.example.org']['gpus'],
            hosts['gpu2.example.org']['gpu_source']) == (
        {'alias:a100': 2}, 'capabilities')
    assert (hosts['cpu1.example.org']['gpus'],
            hosts['cpu1.example.org']['gpu_source']) == ({}, None)

    # Admission offers the capped slots only.
    error = assert_error(_book(api, 'vgpu', 3, expect_errors=True), 409)
    assert 'vgpu' in error['detail']
    assert _book(api, 'vgpu', 2).status_int == 201
    assert _book(api, 'a100', 1).status_int == 201
    assert_error(_book(api, 'a100', 1, expect_errors=True), 409)
    gaps = api.get(URL + '/vgpu/free-slots', params={
        'start': future(24), 'end': future(26)}, headers=MEMBER_A).json
    assert gaps['free_slots'] == []

    # A host enrolled with more GPUs raises the cap at once.
    make_host('gpu3.example.org', gpus={'VGPU': 4})
    assert _availability(api, 'vgpu') == (8, 6, 6)
    assert _book(api, 'vgpu', 4).status_int == 201


def test_leases_name_artefacts_of_flavor_reservations_only(api):
    host = make_host()
    lease = make_lease(host=host)
    rsv = lease.reservations[0]
    view = api.get('/v1/leases/%s' % lease.id, headers=ADMIN).json['lease']
    assert view['reservations'][0]['flavor_id'] == rsv.id
    assert view['reservations'][0]['aggregate'] == rsv.id
    leases_db.lease_reservation_update(admin_context(), rsv.id,
                                       {'resource_type': 'device:gpu'})
    view = api.get('/v1/leases/%s' % lease.id, headers=ADMIN).json['lease']
    reservation = view['reservations'][0]
    assert (reservation['flavor_id'], reservation['aggregate'],
            reservation['resource_class']) == (None, None, None)


def test_now_is_not_special(api, nova_flavors):
    """availability of a window and of now agree on the capped total."""
    make_host('gpu1.example.org', gpus={'VGPU': 1})
    _create(api, 'vgpu', 'vgpu', slots=3)
    start = datetime.datetime.utcnow() + datetime.timedelta(days=1)
    rows = api.get(URL + '/availability', params={
        'start': start.isoformat() + 'Z',
        'end': (start + datetime.timedelta(hours=2)).isoformat() + 'Z'},
        headers=MEMBER_A).json['availability']
    assert [(r['total'], r['available']) for r in rows] == [(1, 1)]


def test_devices_libvirt_found_on_the_same_machine(api, nova_flavors):
    """A nova host placement says nothing about, whose machine is also
    enrolled as a libvirt host (its URI names the host): the devices
    libvirt discovered there are its GPUs."""
    ctx = admin_context()
    nova_host = make_host('gpu4.example.org', gpus={})
    libvirt_host = hosts_db.host_create(ctx, {
        'name': 'gpu4-libvirt', 'kind': 'libvirt',
        'uri': 'qemu+ssh://gpu4/system', 'reservable': False})
    devices_db.devices_sync(ctx, libvirt_host.id, {
        '0000:3b:00.0': _device('pci_0000_3b_00_0', '0000:3b:00.0'),
        '0000:5e:00.0': _device('pci_0000_5e_00_0', '0000:5e:00.0'),
    })
    view = api.get('/v1/hosts/%s' % nova_host.id, headers=ADMIN).json[
        'host']
    assert (view['gpus'], view['gpu_source']) == (
        {'CUSTOM_PCI_10DE_20B0': 2}, 'libvirt')
    nova_flavors.flavors['cpu-only'].set_keys(
        {'resources:CUSTOM_PCI_10DE_20B0': '1'})
    flavor = _create(api, 'pci', 'cpu-only', slots=5)
    assert (flavor['gpus'], flavor['gpu_slots']) == (
        {'CUSTOM_PCI_10DE_20B0': 1}, 2)


def _device(name, address):
    return {'name': name, 'pci_address': address, 'pci_class': '0x030200',
            'vendor_id': '0x10de', 'product_id': '0x20b0',
            'state': 'PRESENT'}


def test_an_update_keeps_the_record_when_nova_cannot_answer(
        api, nova_flavors):
    _gpu_hosts()
    _create(api, 'steady', 'cpu-only')

    def down(*args, **kwargs):
        raise nova_exc.ClientException(503, 'nova is down')
    nova_flavors.nova.flavors.get = down
    resp = api.patch_json(URL + '/steady', {'slots': 2}, headers=ADMIN)
    assert resp.json['flavor']['slots'] == 2
    # Another nova flavor must be read: refused while nova is down.
    resp = api.patch_json(URL + '/steady', {'nova_flavor_id': 'vgpu'},
                          headers=ADMIN, expect_errors=True)
    assert_error(resp, 502)
