"""Microversion 1.2: one name per concept, the earlier names gone.

From 1.2 an allocation shows amount and lease_reservation_id (not count
and reservation_id) and is filtered by lease_reservation_id; a
reservation and a lease's reservation show reserved_flavor_id alone (not
compute_flavor, flavor_id). 1.0 and 1.1 keep what they showed and took
(test_glossary_names.py, test_allocations_api.py)."""
import pytest

from reserve.common import states
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import READER_A
from tests.functional import openapi_check

HEADER = 'OpenStack-API-Version'


def _get(api, url, version, headers=READER_A,  # noqa: F811
         expect_errors=False):
    headers = dict(headers, **{HEADER: 'reserve %s' % version})
    response = api.get(url, headers=headers, expect_errors=expect_errors)
    assert response.headers[HEADER] == 'reserve %s' % version
    return response if expect_errors else response.json


@pytest.fixture
def allocated(api):  # noqa: F811
    lease = make_lease(host=make_host(), amount=2)
    rsv = lease.reservations[0]
    booking = make_booking(status=states.Booking.ALLOCATED,
                           lease_id=lease.id, reserved_flavor_id=rsv.id)
    return booking, lease, rsv


def test_a_reservation_shows_only_reserved_flavor_id(
        api, allocated):  # noqa: F811
    booking, _, rsv = allocated
    url = '/v1/reservations/%s' % booking.id
    old = _get(api, url, '1.1')['reservation']
    new = _get(api, url, '1.2')['reservation']
    assert new['reserved_flavor_id'] == rsv.id
    assert 'compute_flavor' not in new
    assert new == {k: v for k, v in old.items() if k != 'compute_flavor'}
    [listed] = _get(api, '/v1/reservations', '1.2')['reservations']
    assert listed == new


def test_a_lease_reservation_shows_its_new_names(api,  # noqa: F811
                                                 allocated):
    _, lease, rsv = allocated
    url = '/v1/leases/%s' % lease.id
    [old] = _get(api, url, '1.1')['lease']['reservations']
    [new] = _get(api, url, '1.2')['lease']['reservations']
    assert new['reserved_flavor_id'] == rsv.id and 'flavor_id' not in new
    assert new['allocations'] == [
        {'host_id': a['host_id'], 'host': a['host'], 'amount': a['count']}
        for a in old['allocations']]
    assert new['allocations'][0]['amount'] == 2
    del old['flavor_id'], old['allocations'], new['allocations']
    assert new == old


def test_an_allocation_shows_amount_and_lease_reservation_id(
        api, allocated):  # noqa: F811
    _, _, rsv = allocated
    [old] = _get(api, '/v1/allocations', '1.1')['allocations']
    [new] = _get(api, '/v1/allocations', '1.2')['allocations']
    assert new['lease_reservation_id'] == rsv.id and new['amount'] == 2
    assert 'reservation_id' not in new and 'count' not in new
    assert new == dict({k: v for k, v in old.items()
                        if k not in ('reservation_id', 'count')},
                       amount=2)
    shown = _get(api, '/v1/allocations/%s' % new['id'], '1.2')
    assert shown['allocation'] == new


def test_allocations_are_filtered_by_the_name_of_the_version(
        api, allocated):  # noqa: F811
    _, lease, rsv = allocated
    other = make_lease(host=make_host('other.example.org'))
    url = '/v1/allocations?%s=' + rsv.id
    for version, name in (('1.2', 'lease_reservation_id'),
                          ('1.1', 'reservation_id'),
                          ('1.0', 'reservation_id')):
        found = _get(api, url % name, version, headers=ADMIN)['allocations']
        assert [a['lease_id'] for a in found] == [lease.id], version
    everything = _get(api, '/v1/allocations', '1.2', headers=ADMIN)
    assert {a['lease_id'] for a in everything['allocations']} == {
        lease.id, other.id}


@pytest.mark.parametrize('version,refused', [
    ('1.2', 'reservation_id'), ('1.1', 'lease_reservation_id'),
    ('1.0', 'lease_reservation_id')])
def test_the_other_name_of_the_filter_is_refused(api, allocated,  # noqa
                                                 version, refused):
    _, _, rsv = allocated
    response = _get(api, '/v1/allocations?%s=%s' % (refused, rsv.id),
                    version, expect_errors=True)
    assert_error(response, 400, 'reserve.invalid',
                 ["unknown query parameter '%s'" % refused])


def test_the_openapi_document_describes_both_names(api):  # noqa: F811
    doc = api.get('/v1/openapi.json', headers=ADMIN).json
    schemas = doc['components']['schemas']
    for schema, new, old in (('Reservation', 'reserved_flavor_id',
                              'compute_flavor'),
                             ('LeaseReservation', 'reserved_flavor_id',
                              'flavor_id'),
                             ('LeaseAllocation', 'amount', 'count'),
                             ('Allocation', 'amount', 'count'),
                             ('Allocation', 'lease_reservation_id',
                              'reservation_id')):
        for field in (new, old):
            assert field in schemas[schema]['properties'], (schema, field)
            assert field not in schemas[schema]['required'], (schema, field)
        assert 'Before 1.2' in schemas[schema]['properties'][old][
            'description'], (schema, old)
    listing = doc['paths']['/v1/allocations']['get']['parameters']
    names = {p.get('name') for p in listing}
    assert {'lease_reservation_id', 'reservation_id'} <= names


def test_answers_at_1_2_match_the_description(api, allocated):  # noqa
    booking, lease, _ = allocated
    checked = openapi_check.CheckedApp(api)
    for url in ('/v1/reservations', '/v1/reservations/%s' % booking.id,
                '/v1/leases/%s' % lease.id, '/v1/allocations'):
        checked.get(url, headers=dict(READER_A, **{HEADER: 'reserve 1.2'}))
    assert len(checked.covered) == 4
