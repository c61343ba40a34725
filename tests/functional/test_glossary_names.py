"""Microversion 1.1: the glossary's names beside the earlier ones.

A client of 1.0 sees exactly what it saw; one asking for 1.1 also gets
reserved_flavor_id, lease_reservation_id and device_reservation_id,
each the same value as the field it names better, which stays."""
import pytest

from reserve.common import states
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import make_lease
from tests.functional.api_fixtures import READER_A

HEADER = 'OpenStack-API-Version'
AT_1_1 = {HEADER: 'reserve 1.1'}


def _get(api, url, version=None, headers=READER_A):  # noqa: F811
    if version:
        headers = dict(headers, **{HEADER: 'reserve %s' % version})
    response = api.get(url, headers=headers)
    assert response.headers[HEADER] == 'reserve %s' % (version or '1.0')
    return response.json


@pytest.fixture
def allocated(api):  # noqa: F811
    lease = make_lease(host=make_host())
    rsv = lease.reservations[0]
    booking = make_booking(status=states.Booking.ALLOCATED,
                           lease_id=lease.id, reserved_flavor_id=rsv.id)
    return booking, lease, rsv


def test_a_reservation_names_its_reserved_flavor_from_1_1(api,  # noqa: F811
                                                          allocated):
    booking, _, rsv = allocated
    url = '/v1/reservations/%s' % booking.id
    old = _get(api, url)['reservation']
    assert old['compute_flavor'] == rsv.id
    assert 'reserved_flavor_id' not in old
    new = _get(api, url, '1.1')['reservation']
    assert new == dict(old, reserved_flavor_id=rsv.id)
    listed = _get(api, '/v1/reservations', '1.1')['reservations']
    assert [r['reserved_flavor_id'] for r in listed] == [rsv.id]


def test_a_lease_reservation_names_its_reserved_flavor_from_1_1(
        api, allocated):  # noqa: F811
    _, lease, rsv = allocated
    url = '/v1/leases/%s' % lease.id
    [old] = _get(api, url)['lease']['reservations']
    assert old['flavor_id'] == rsv.id and 'reserved_flavor_id' not in old
    [new] = _get(api, url, '1.1')['lease']['reservations']
    assert new == dict(old, reserved_flavor_id=rsv.id)


def test_an_allocation_names_its_lease_reservation_from_1_1(
        api, allocated):  # noqa: F811
    _, _, rsv = allocated
    [old] = _get(api, '/v1/allocations')['allocations']
    assert old['reservation_id'] == rsv.id
    assert 'lease_reservation_id' not in old
    [new] = _get(api, '/v1/allocations', '1.1')['allocations']
    assert new == dict(old, lease_reservation_id=rsv.id)
    shown = _get(api, '/v1/allocations/%s' % old['id'], '1.1')
    assert shown['allocation'] == new


def test_the_openapi_document_names_them_as_optional(api):  # noqa: F811
    doc = api.get('/v1/openapi.json', headers=ADMIN).json
    schemas = doc['components']['schemas']
    for schema, field in (('Reservation', 'reserved_flavor_id'),
                          ('LeaseReservation', 'reserved_flavor_id'),
                          ('Allocation', 'lease_reservation_id'),
                          ('Device', 'device_reservation_id')):
        assert field in schemas[schema]['properties'], (schema, field)
        assert field not in schemas[schema]['required'], (schema, field)
        assert schemas[schema]['properties'][field][
            'description'].startswith('Since 1.1')
