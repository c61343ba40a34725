"""Spot flavors in the catalogue (microversion 1.4): writing one, its
view, opting in and out, its refusal by the booking desk, and how many
instances the GPUs lent now still hold (GET /v1/flavors/availability).

The API's nova (tests.fakes.nova) has a private nova flavor asking one
vGPU and one asking two, a public one asking a vGPU and a private one
asking none; a host with vGPUs holds them.
"""
import datetime

from keystoneauth1 import exceptions as ks_exc
import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import flavors as flavors_db
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/flavors'
SPOT = {'OpenStack-API-Version': 'reserve 1.4'}
BEFORE = {'OpenStack-API-Version': 'reserve 1.3'}


def at(headers, version=SPOT):
    return dict(headers, **version)


@pytest.fixture
def cloud(api):
    """The API's nova with the nova flavors of spot flavors, and a host
    whose vGPUs hold them."""
    nova = api.nova_cloud.nova
    for flavor_id, public, specs in (
            ('spot-vgpu', False, {'resources:VGPU': '1'}),
            ('spot-two-vgpu', False, {'resources:VGPU': '2'}),
            ('public-vgpu', True, {'resources:VGPU': '1'}),
            ('private-cpu', False, {'hw:cpu_policy': 'dedicated'})):
        nova.flavors.create(flavor_id, 1024, 2, 10, flavorid=flavor_id,
                            is_public=public).set_keys(specs)
    make_host('gpu1.example.org', gpus={'VGPU': 4})
    return nova


def _create(api, version=SPOT, **body):
    body = dict({'name': 'spot.vgpu', 'nova_flavor_id': 'spot-vgpu',
                 'spot': True}, **body)
    return api.post_json(URL, body, headers=at(ADMIN, version),
                         expect_errors=True)


def _show(api, ref, headers):
    return api.get('%s/%s' % (URL, ref), headers=headers).json['flavor']


def _opt(api, ref, headers, method='post', query=''):
    path = '%s/%s/opt-in%s' % (URL, ref, query)
    return getattr(api, method)(path, headers=at(headers),
                                expect_errors=True)


def _opted_in(ref):
    return flavors_db.flavor_get(admin_context(), ref).spot_project_ids


# Writing a spot flavor -------------------------------------------------------

def test_create_and_show_at_1_4(api, cloud):
    response = _create(api)
    assert response.status_int == 201
    created = response.json['flavor']
    # Its slots mean nothing: none given, none offered.
    assert (created['spot'], created['slots'], created['gpus']) == (
        True, 0, {'VGPU': 1})
    assert created['opted_in'] is False
    assert created['spot_project_ids'] == []
    assert _show(api, 'spot.vgpu', at(ADMIN)) == created
    # A member sees whether its project opted in, not who did.
    shown = _show(api, 'spot.vgpu', at(MEMBER_A))
    assert (shown['spot'], shown['opted_in']) == (True, False)
    assert 'spot_project_ids' not in shown and 'projects' not in shown
    # The record says the nova flavor is private.
    assert flavors_db.flavor_get(admin_context(), created['id']).nova_flavor[
        'is_public'] is False


def test_an_entry_that_is_not_spot_at_1_4(api, cloud):
    response = api.post_json(URL, {'name': 'gpu.vgpu',
                                   'nova_flavor_id': 'public-vgpu',
                                   'slots': 2}, headers=at(ADMIN))
    flavor = response.json['flavor']
    assert flavor['spot'] is False
    assert 'opted_in' not in flavor and 'spot_project_ids' not in flavor
    assert flavors_db.flavor_get(admin_context(), flavor['id']).nova_flavor[
        'is_public'] is True
    listed = api.get(URL, headers=at(MEMBER_A)).json['flavors']
    assert [(f['name'], f['spot']) for f in listed] == [('gpu.vgpu', False)]
    # Without spot, slots stay required.
    assert_error(_create(api, name='x', spot=False), 400, 'reserve.invalid',
                 "missing required field 'slots'")


def test_below_1_4_spot_is_an_unknown_field_and_not_shown(api, cloud):
    for version in (BEFORE, {}):
        assert_error(_create(api, version=version, slots=0), 400,
                     'reserve.invalid', "unknown field 'spot'")
    assert api.get(URL, headers=ADMIN).json['flavors'] == []
    assert _create(api).status_int == 201
    shown = _show(api, 'spot.vgpu', at(ADMIN, BEFORE))
    for field in ('spot', 'opted_in', 'spot_project_ids'):
        assert field not in shown
    response = api.patch_json(URL + '/spot.vgpu', {'spot': False},
                              headers=at(ADMIN, BEFORE), expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', "unknown field 'spot'")


def test_a_public_nova_flavor_is_refused(api, cloud):
    response = _create(api, nova_flavor_id='public-vgpu')
    assert_error(response, 400, 'reserve.invalid', [
        'spot.vgpu cannot be a spot flavor', 'public-vgpu is public',
        'make the nova flavor private'])
    assert api.get(URL, headers=ADMIN).json['flavors'] == []


def test_a_nova_flavor_asking_no_gpu_is_refused(api, cloud):
    response = _create(api, nova_flavor_id='private-cpu')
    assert_error(response, 400, 'reserve.invalid', [
        'private-cpu asks no GPU',
        'a spot flavor borrows reserved GPUs: its nova flavor must ask at '
        'least one'])


def test_update_to_spot_checks_the_nova_flavor(api, cloud):
    for name, nova_flavor in (('gpu.public', 'public-vgpu'),
                              ('gpu.private', 'spot-vgpu')):
        api.post_json(URL, {'name': name, 'nova_flavor_id': nova_flavor,
                            'slots': 2}, headers=at(ADMIN))
    response = api.patch_json(URL + '/gpu.public', {'spot': True},
                              headers=at(ADMIN), expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', 'is public')
    assert flavors_db.flavor_get(admin_context(), 'gpu.public').spot is False
    changed = api.patch_json(URL + '/gpu.private', {'spot': True},
                             headers=at(ADMIN)).json['flavor']
    assert changed['spot'] is True
    # A spot flavor keeps to a private nova flavor asking GPUs.
    response = api.patch_json(URL + '/gpu.private',
                              {'nova_flavor_id': 'private-cpu'},
                              headers=at(ADMIN), expect_errors=True)
    assert_error(response, 400, 'reserve.invalid', 'asks no GPU')
    back = api.patch_json(URL + '/gpu.private', {'spot': False},
                          headers=at(ADMIN)).json['flavor']
    assert back['spot'] is False


def test_a_flavor_with_live_bookings_cannot_become_spot(api, cloud, casts):
    api.post_json(URL, {'name': 'gpu.vgpu', 'nova_flavor_id': 'spot-vgpu',
                        'slots': 2}, headers=at(ADMIN))
    booking = make_booking(flavor_id='gpu.vgpu')
    response = api.patch_json(URL + '/gpu.vgpu', {'spot': True},
                              headers=at(ADMIN), expect_errors=True)
    assert_error(response, 409, 'reserve.flavor_in_use',
                 ['1 live reservation', 'cannot become a spot flavor'])
    assert flavors_db.flavor_get(admin_context(), 'gpu.vgpu').spot is False
    # Once it is over, it can.
    with db_api.get_engine().begin() as connection:
        connection.execute(models.Booking.__table__.update().where(
            models.Booking.id == booking.id).values(
                status=states.Booking.COMPLETE))
    assert api.patch_json(URL + '/gpu.vgpu', {'spot': True},
                          headers=at(ADMIN)).json['flavor']['spot'] is True


def test_while_nova_is_away_a_private_record_stands(api, cloud,
                                                    monkeypatch):
    _create(api)
    # An entry recorded before records said whether the nova flavor was
    # public.
    make_flavor('spot.old', nova_flavor_id='spot-vgpu', spot=True,
                gpus={'VGPU': 1})

    def away(flavor_id):
        raise ks_exc.ConnectFailure('Unable to establish connection to '
                                    'http://nova.example.org:8774')

    monkeypatch.setattr(cloud.flavors, 'get', away)
    changed = api.patch_json(URL + '/spot.vgpu', {'description': 'spare'},
                             headers=at(ADMIN)).json['flavor']
    assert changed['description'] == 'spare'
    response = api.patch_json(URL + '/spot.old', {'description': 'spare'},
                              headers=at(ADMIN), expect_errors=True)
    assert_error(response, 502, 'reserve.cloud_error')
    assert flavors_db.flavor_get(admin_context(),
                                 'spot.old').description is None


# Never booked ----------------------------------------------------------------

def _book(api, flavor, headers=MEMBER_A):
    return api.post_json('/v1/reservations', {
        'flavor_id': flavor, 'start': future(24), 'end': future(26)},
        headers=headers, expect_errors=True)


def test_booking_a_spot_flavor_is_refused(api, cloud, casts):
    _create(api)
    for headers in (MEMBER_A, ADMIN):
        assert_error(_book(api, 'spot.vgpu', headers), 409,
                     'reserve.spot_flavor', [
                         'spot.vgpu is a spot flavor',
                         'spot flavors are not booked',
                         'Opt in to it',
                         'openstack reserve flavor opt-in spot.vgpu',
                         'boot its nova flavor spot-vgpu'])
    assert api.get('/v1/reservations', headers=MEMBER_A).json[
        'reservations'] == []
    assert casts == []


def test_a_spot_flavor_has_no_free_slots(api, cloud):
    _create(api)
    response = api.get(URL + '/spot.vgpu/free-slots', headers=MEMBER_A,
                       expect_errors=True)
    assert_error(response, 409, 'reserve.spot_flavor',
                 'spot flavors are not booked')


def test_a_booking_of_an_entry_made_spot_cannot_grow(api, cloud, casts):
    api.post_json(URL, {'name': 'gpu.vgpu', 'nova_flavor_id': 'spot-vgpu',
                        'slots': 2}, headers=at(ADMIN))
    booked = _book(api, 'gpu.vgpu').json['reservation']
    # Made a spot flavor behind the API's back (the PATCH refuses it
    # while the booking lives).
    flavors_db.flavor_update(admin_context(), booked['flavor_id'],
                             {'spot': True})
    response = api.patch_json('/v1/reservations/%s' % booked['id'],
                              {'end': future(30)}, headers=MEMBER_A,
                              expect_errors=True)
    assert_error(response, 409, 'reserve.spot_flavor')
    # Shortening needs no check.
    assert api.patch_json('/v1/reservations/%s' % booked['id'],
                          {'end': future(25)},
                          headers=MEMBER_A).status_int == 200


# Opting in and out -----------------------------------------------------------

def test_a_member_opts_in_and_out(api, cloud):
    _create(api)
    for _ in range(2):
        response = _opt(api, 'spot.vgpu', MEMBER_A)
        assert response.status_int == 204
        assert response.body == b''
    assert _opted_in('spot.vgpu') == ['project-a']
    assert _show(api, 'spot.vgpu', at(MEMBER_A))['opted_in'] is True
    assert _show(api, 'spot.vgpu', at(MEMBER_B))['opted_in'] is False
    assert _show(api, 'spot.vgpu', at(ADMIN))['spot_project_ids'] == [
        'project-a']
    assert _opt(api, 'spot.vgpu', MEMBER_B).status_int == 204
    assert _opted_in('spot.vgpu') == ['project-a', 'project-b']
    for _ in range(2):
        assert _opt(api, 'spot.vgpu', MEMBER_A,
                    'delete').status_int == 204
    assert _opted_in('spot.vgpu') == ['project-b']
    assert _show(api, 'spot.vgpu', at(MEMBER_A))['opted_in'] is False
    # By id as well.
    flavor_id = _show(api, 'spot.vgpu', at(ADMIN))['id']
    assert _opt(api, flavor_id, MEMBER_A).status_int == 204
    assert _opted_in(flavor_id) == ['project-a', 'project-b']


def test_a_reader_may_not_opt_in(api, cloud):
    _create(api)
    for method in ('post', 'delete'):
        assert_error(_opt(api, 'spot.vgpu', READER_A, method), 403,
                     'reserve.forbidden', 'reserve:flavor:spot_opt_in')
    assert _opted_in('spot.vgpu') == []


def test_a_private_spot_flavor_is_404_to_other_projects(api, cloud):
    _create(api, is_public=False, projects=['project-a'])
    for method in ('post', 'delete'):
        assert_error(_opt(api, 'spot.vgpu', MEMBER_B, method), 404,
                     'reserve.not_found', 'spot.vgpu')
    assert _opted_in('spot.vgpu') == []
    # The same 404 as its GET.
    assert_error(api.get(URL + '/spot.vgpu', headers=at(MEMBER_B),
                         expect_errors=True), 404, 'reserve.not_found')
    assert _opt(api, 'spot.vgpu', MEMBER_A).status_int == 204
    assert_error(_opt(api, 'no-such', MEMBER_A), 404, 'reserve.not_found')


def test_an_administrator_names_the_project(api, cloud):
    _create(api, is_public=False, projects=['project-a'])
    query = '?project_id=project-a'
    assert _opt(api, 'spot.vgpu', ADMIN, query=query).status_int == 204
    assert _opted_in('spot.vgpu') == ['project-a']
    assert _show(api, 'spot.vgpu', at(MEMBER_A))['opted_in'] is True
    # Not a project that cannot see the entry.
    assert_error(_opt(api, 'spot.vgpu', ADMIN, query='?project_id=project-b'),
                 403, 'reserve.flavor_not_granted',
                 'private and not granted to project project-b')
    assert _opt(api, 'spot.vgpu', ADMIN, 'delete',
                query=query).status_int == 204
    assert _opted_in('spot.vgpu') == []
    # Nobody else names another project.
    for method in ('post', 'delete'):
        assert_error(_opt(api, 'spot.vgpu', MEMBER_A, method,
                          query='?project_id=project-b'), 403,
                     'reserve.forbidden', 'reserve:flavor:spot_opt_in')
    # Its own project it may name.
    assert _opt(api, 'spot.vgpu', MEMBER_A, query=query).status_int == 204
    assert_error(_opt(api, 'spot.vgpu', ADMIN, query='?project=x'), 400,
                 'reserve.invalid', "unknown query parameter 'project'")


def test_only_an_active_spot_flavor_is_opted_in_to(api, cloud):
    make_flavor('gpu.a100')
    for method in ('post', 'delete'):
        assert_error(_opt(api, 'gpu.a100', MEMBER_A, method), 409,
                     'reserve.not_spot_flavor',
                     ['gpu.a100 is not a spot flavor', 'Book it instead'])
    _create(api, active=False)
    # Inactive: members do not see it; administrators are told.
    assert_error(_opt(api, 'spot.vgpu', MEMBER_A), 404, 'reserve.not_found')
    assert_error(_opt(api, 'spot.vgpu', ADMIN,
                      query='?project_id=project-a'), 409,
                 'reserve.flavor_inactive', 'spot.vgpu is not active')
    assert _opted_in('spot.vgpu') == []


def test_opt_in_does_not_exist_below_1_4(api, cloud):
    _create(api)
    for method in ('post', 'delete'):
        response = getattr(api, method)(
            URL + '/spot.vgpu/opt-in', headers=at(MEMBER_A, BEFORE),
            expect_errors=True)
        assert_error(response, 404, 'reserve.not_found')
    assert_error(api.get(URL + '/spot.vgpu/opt-in', headers=at(MEMBER_A),
                         expect_errors=True), 405)
    assert_error(api.post(URL + '/spot.vgpu/opt-in/x', headers=at(MEMBER_A),
                          expect_errors=True), 404, 'reserve.not_found')
    assert _opted_in('spot.vgpu') == []


# How many the GPUs lent now hold ---------------------------------------------

def _set_spot(host, lent, used):
    """The spot inventory as the manager records it on the host's row."""
    with db_api.get_engine().begin() as connection:
        connection.execute(models.Host.__table__.update().where(
            models.Host.id == host.id).values(spot_lent=lent,
                                              spot_used=used))


def _rows(api, headers=MEMBER_A, query=''):
    rows = api.get(URL + '/availability' + query,
                   headers=at(headers)).json['availability']
    return {r['name']: r for r in rows}


def test_availability_of_spot_flavors(api, cloud):
    _create(api)
    _create(api, name='spot.two', nova_flavor_id='spot-two-vgpu')
    make_flavor('gpu.a100', slots=3)
    lending = make_host('gpu2.example.org', gpus={'VGPU': 8})
    _set_spot(lending, 5, 2)
    _set_spot(make_host('gpu3.example.org', gpus={'VGPU': 8}), 3, 0)
    # Hosts that lend nothing now, whatever their rows say: a failed
    # host, one made unreservable, and one whose spot servers took more
    # than it lends.
    _set_spot(make_host('failed.example.org', failure='no heartbeat',
                        failed_at=timeutils.utcnow()), 8, 0)
    _set_spot(make_host('off.example.org', reservable=False), 8, 0)
    _set_spot(make_host('over.example.org'), 1, 3)
    rows = _rows(api)
    # One vGPU each: 3 left on gpu2, 3 on gpu3.
    assert rows['spot.vgpu']['spot_available'] == 6
    # Two each: one on gpu2 (3 left), one on gpu3 (3 left).
    assert rows['spot.two']['spot_available'] == 2
    for name in ('spot.vgpu', 'spot.two'):
        row = rows[name]
        assert (row['spot'], row['total'], row['available']) == (
            True, 0, 0)
    assert rows['gpu.a100']['spot'] is False
    assert 'spot_available' not in rows['gpu.a100']
    assert (rows['gpu.a100']['total'], rows['gpu.a100']['available']) == (
        3, 3)
    # Over a window too: what is lent now.
    start = timeutils.utcnow() + datetime.timedelta(hours=1)
    window = '?start=%s&end=%s' % (
        start.strftime('%Y-%m-%dT%H:%M:%SZ'),
        (start + datetime.timedelta(hours=2)).strftime(
            '%Y-%m-%dT%H:%M:%SZ'))
    assert _rows(api, query=window)['spot.vgpu']['spot_available'] == 6
    # When spot servers use more, less is left.
    _set_spot(lending, 5, 5)
    assert _rows(api, ADMIN)['spot.vgpu']['spot_available'] == 3


def test_availability_below_1_4_shows_no_spot_fields(api, cloud):
    _create(api)
    _set_spot(make_host('gpu2.example.org', gpus={'VGPU': 8}), 4, 0)
    rows = api.get(URL + '/availability', headers=at(MEMBER_A, BEFORE)).json[
        'availability']
    assert [(r['name'], r['total'], r['available']) for r in rows] == [
        ('spot.vgpu', 0, 0)]
    assert 'spot' not in rows[0] and 'spot_available' not in rows[0]
