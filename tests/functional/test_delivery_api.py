"""What a reservation got: its delivery (GET /v1/reservations/{id} from
1.3) and the report of a period (/v1/reports/delivery, admins)."""
import datetime

import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import deliveries as deliveries_db
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

V13 = {'OpenStack-API-Version': 'reserve 1.3'}
REPORT = '/v1/reports/delivery'
BOOKING = states.Owner.BOOKING


def _headers(persona):
    return dict(persona, **V13)


def _open(booking, **values):
    row = {'owner_type': BOOKING, 'owner_id': booking.id,
           'project_id': booking.project_id,
           'flavor_id': booking.flavor_id,
           'amount': booking.instance_count, 'start': booking.start,
           'end': booking.end}
    deliveries_db.delivery_open(admin_context(), row)
    return row


@pytest.fixture
def delivered(api):
    """A booking that started 2 h ago: usable 40 s late, one host
    replaced, 3 repairs, 1 instance missing for 30 minutes (now whole)
    and 1 missing since 10 minutes ago."""
    now = timeutils.utcnow()
    booking = make_booking(start_hours=-2, hours=4, instance_count=2,
                           status=states.Booking.ACTIVE)
    ctx = admin_context()
    _open(booking)
    deliveries_db.delivery_usable(ctx, BOOKING, booking.id,
                                  booking.start +
                                  datetime.timedelta(seconds=40))
    deliveries_db.delivery_add(ctx, BOOKING, booking.id, repairs=3,
                               hosts_replaced=1)
    deliveries_db.delivery_missing(ctx, BOOKING, booking.id, 1,
                                   now - datetime.timedelta(minutes=90))
    deliveries_db.delivery_missing(ctx, BOOKING, booking.id, 0,
                                   now - datetime.timedelta(minutes=60))
    deliveries_db.delivery_missing(ctx, BOOKING, booking.id, 1,
                                   now - datetime.timedelta(minutes=10))
    return booking


def test_a_booking_shows_what_it_got(api, delivered):
    for persona in (MEMBER_A, READER_A, ADMIN):
        got = api.get('/v1/reservations/%s' % delivered.id,
                      headers=_headers(persona)).json['reservation']
        delivery = got['delivery']
        assert delivery['seconds_to_usable'] == 40
        assert delivery['usable_at'] == iso(
            delivered.start + datetime.timedelta(seconds=40))
        assert delivery['hosts_replaced'] == 1
        assert delivery['repairs'] == 3
        assert delivery['missing_instances'] == 1
        # 30 minutes over, 10 still running (to the tenth of a minute).
        assert 39.9 <= delivery['missing_instance_minutes'] <= 40.2
        assert delivery['stuck_servers'] == []


def test_older_microversions_show_no_delivery(api, delivered):
    got = api.get('/v1/reservations/%s' % delivered.id,
                  headers=dict(MEMBER_A, **{
                      'OpenStack-API-Version': 'reserve 1.2'})).json
    assert 'delivery' not in got['reservation']


def test_a_booking_without_a_lease_got_nothing_yet(api):
    booking = make_booking()
    delivery = api.get('/v1/reservations/%s' % booking.id,
                       headers=_headers(MEMBER_A)).json['reservation'][
                           'delivery']
    assert delivery == {'usable_at': None, 'seconds_to_usable': None,
                        'hosts_replaced': 0, 'repairs': 0,
                        'missing_instances': 0,
                        'missing_instance_minutes': 0,
                        'stuck_servers': []}


def test_another_project_sees_no_delivery(api, delivered):
    resp = api.get('/v1/reservations/%s' % delivered.id,
                   headers=_headers(MEMBER_B), expect_errors=True)
    assert_error(resp, 404)


def test_the_report_sums_per_flavor(api, delivered):
    other = make_booking(start_hours=-1, hours=2, flavor_id='gpu.t4')
    _open(other)
    deliveries_db.delivery_stuck_servers(admin_context(), BOOKING, other.id,
                                         ['srv-2', 'srv-1'])
    later = make_booking(start_hours=24 * 40)   # outside the window
    _open(later)
    report = api.get(REPORT, headers=_headers(ADMIN)).json['delivery_report']
    groups = {g['flavor_id']: g for g in report['groups']}
    assert set(groups) == {delivered.flavor_id, other.flavor_id}
    a100 = groups[delivered.flavor_id]
    assert a100['kind'] == 'reservation'
    assert a100['reservations'] == 1 and a100['usable'] == 1
    assert a100['seconds_to_usable'] == {'mean': 40.0, 'max': 40}
    assert (a100['hosts_replaced'], a100['repairs']) == (1, 3)
    t4 = groups[other.flavor_id]
    assert t4['usable'] == 0 and t4['seconds_to_usable']['mean'] is None
    assert t4['stuck_servers'] == 2
    assert report['total']['reservations'] == 2
    assert report['total']['stuck_servers'] == 2


def test_the_report_of_a_window(api, delivered):
    start = delivered.start + datetime.timedelta(minutes=1)
    report = api.get(REPORT, params={
        'start': iso(start),
        'end': iso(start + datetime.timedelta(days=1))},
        headers=_headers(ADMIN)).json['delivery_report']
    assert report['groups'] == []
    assert report['total']['reservations'] == 0


@pytest.mark.parametrize('params,detail', [
    ({'start': '2026-01-01T00:00:00Z'}, "go together"),
    ({'start': 'yesterday', 'end': '2026-01-01T00:00:00Z'}, 'start'),
    ({'start': '2026-02-01T00:00:00Z', 'end': '2026-01-01T00:00:00Z'},
     'must be after'),
    ({'flavor': 'x'}, 'flavor'),
])
def test_bad_report_windows_are_400(api, params, detail):
    resp = api.get(REPORT, params=params, headers=_headers(ADMIN),
                   expect_errors=True)
    assert_error(resp, 400)
    assert detail in resp.json['errors'][0]['detail']


def test_only_admins_read_the_report(api, delivered):
    for persona in (MEMBER_A, READER_A):
        resp = api.get(REPORT, headers=_headers(persona),
                       expect_errors=True)
        assert_error(resp, 403)


def test_the_report_is_not_served_before_1_3(api):
    for path in (REPORT, '/v1/reports/other'):
        resp = api.get(path, headers=ADMIN, expect_errors=True)
        assert resp.status_int == 404
    resp = api.get('/v1/reports/other', headers=_headers(ADMIN),
                   expect_errors=True)
    assert resp.status_int == 404
