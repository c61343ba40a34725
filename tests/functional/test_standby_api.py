"""The standby list (POST /v1/reservations with standby, since 1.8): a
booking refused for capacity alone waits as STANDBY, holding nothing; the
worker's pass admits the waiters that fit, first fit in the order they
came, by the normal admission (PENDING_CREATE, then create_lease), and
closes LAPSED those whose start or deadline has come; both are mailed."""
import datetime

from oslo_config import cfg
import pytest

from reserve.booking import standby
from reserve.capacity import store
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.notification import listener
from reserve.notification.mail import mailer as mailer_mod
from reserve.notification import sync
from reserve.worker import rpcapi as worker_rpcapi
from reserve.worker import standby_loop
from tests.fixtures import config
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import make_host
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A
from tests.unit.test_email_mailer import AddressBook
from tests.unit.test_email_mailer import RecordingDriver

CONF = cfg.CONF
URL = '/v1/reservations'
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
MINUTE = datetime.timedelta(minutes=1)
B = states.Booking


def _at(persona):
    return dict(persona, **{'OpenStack-API-Version': 'reserve 1.8'})


A = _at(MEMBER_A)
OTHER = _at(MEMBER_B)

pytestmark = pytest.mark.usefixtures('casts')


@pytest.fixture
def override():
    yield from config.overrides()


@pytest.fixture
def now():
    return timeutils.utcnow().replace(microsecond=0)


@pytest.fixture
def flavor(api, now):
    """2 slots, bookable for the next 30 days."""
    return make_flavor('gpu.a100', slots=2, start=now - DAY,
                       end=now + 30 * DAY)


@pytest.fixture
def told(monkeypatch):
    """The reserve.reservation.<event> notifications sent: (event,
    payload)."""
    sent = []

    class Recorder:
        def info(self, context, event_type, payload):
            sent.append((event_type.rpartition('.')[2], payload))
    monkeypatch.setattr(sync, '_notifier', Recorder)
    return sent


def _book(api, start, end, count=1, headers=A, **more):
    body = dict(flavor_id='gpu.a100', start=iso(start), end=iso(end),
                instance_count=count, **more)
    return api.post_json(URL, body, headers=headers, expect_errors=True)


def _wait(api, start, end, count=1, headers=A, **more):
    response = _book(api, start, end, count, headers, standby=True, **more)
    assert response.status_int == 201, response.body
    return response.json['reservation']


def _status(booking_id):
    return bookings_db.booking_get(admin_context(), booking_id).status


def _pass(now=None):
    return standby.run(admin_context(), now)


def _full(api, now):
    """Both slots held from +2 h to +4 h; the booking holding them."""
    held = _book(api, now + 2 * HOUR, now + 4 * HOUR, 2)
    assert held.status_int == 201
    return held.json['reservation']


# The request ----------------------------------------------------------------

def test_a_standby_that_fits_is_booked_as_usual(api, flavor, now, casts):
    booking = _wait(api, now + HOUR, now + 2 * HOUR)
    assert booking['status'] == B.PENDING_CREATE
    assert booking['standby_since'] is None
    assert [c['method'] for c in casts] == ['create_lease']


def test_a_standby_that_does_not_fit_waits_holding_nothing(api, flavor, now,
                                                           casts):
    _full(api, now)
    casts.clear()
    response = _book(api, now + 3 * HOUR, now + 5 * HOUR, standby=True,
                     standby_until=iso(now + 2 * HOUR))
    assert response.status_int == 201
    booking = response.json['reservation']
    assert booking['status'] == B.STANDBY
    assert booking['standby_until'] == iso(now + 2 * HOUR)
    assert booking['standby_since'] is not None
    assert response.location.endswith('%s/%s' % (URL, booking['id']))
    # No lease is asked for, no host held, no slot: what is free after
    # the held window stays bookable by anybody.
    assert casts == []
    assert store.allocations_of_booking(admin_context(), booking['id']) == []
    after = _book(api, now + 4 * HOUR + HOUR, now + 6 * HOUR, 2,
                  headers=OTHER)
    assert after.status_int == 201
    shown = api.get('%s/%s' % (URL, booking['id']), headers=A).json
    assert shown['reservation']['status'] == B.STANDBY
    listed = api.get(URL + '?status=STANDBY', headers=A).json
    assert [r['id'] for r in listed['reservations']] == [booking['id']]


def test_without_standby_a_full_window_is_still_refused(api, flavor, now):
    _full(api, now)
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR), 409,
                 'reserve.no_capacity')
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR, standby=False),
                 409, 'reserve.no_capacity')


def test_standby_is_unknown_before_1_7(api, flavor, now):
    old = dict(MEMBER_A, **{'OpenStack-API-Version': 'reserve 1.6'})
    response = _book(api, now + HOUR, now + 2 * HOUR, headers=old,
                     standby=True)
    assert_error(response, 400, detail_has=['standby'])
    # And the fields are not shown before 1.8.
    booking = _book(api, now + HOUR, now + 2 * HOUR, headers=old).json
    assert 'standby_since' not in booking['reservation']


@pytest.mark.parametrize('body,words', [
    ({'standby_until': 'P1D', 'standby': True}, 'standby_until'),
    ({'standby_until': '2020-01-01T00:00:00Z', 'standby': True},
     'in the past'),
    ({'standby_until': 'AFTER', 'standby': True}, 'after the start'),
    ({'standby_until': 'BEFORE'}, 'with "standby": true'),
    ({'standby': 'yes'}, 'standby'),
])
def test_bad_standby_requests_are_400_and_write_nothing(api, flavor, now,
                                                        body, words):
    _full(api, now)
    until = {'AFTER': iso(now + 3 * HOUR + 1 * HOUR),
             'BEFORE': iso(now + HOUR)}
    if body.get('standby_until') in until:
        body = dict(body, standby_until=until[body['standby_until']])
    response = _book(api, now + 3 * HOUR, now + 5 * HOUR, **body)
    assert_error(response, 400, detail_has=[words])
    assert len(bookings_db.booking_list(admin_context())) == 1


def test_a_standby_that_could_never_be_admitted_is_refused_at_once(
        api, flavor, now, override):
    _full(api, now)
    # More than the flavor ever offers: its refusal, with its offer.
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR, 3,
                       standby=True), 409, 'reserve.no_capacity')
    # Longer than the flavor's window: that rule's error.
    assert_error(_book(api, now + 3 * HOUR, now + 40 * DAY, standby=True),
                 400)
    # Over quota as it stands at the request.
    override('reservations', 1, 'quota')
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR, standby=True),
                 413)
    assert len(bookings_db.booking_list(admin_context())) == 1


def test_the_waiters_of_a_project_are_limited(api, flavor, now, override):
    _full(api, now)
    override('max_standby_per_project', 2, 'booking')
    for _ in range(2):
        _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR, standby=True),
                 413, detail_has=['max_standby_per_project'])
    # Another project has its own.
    assert _book(api, now + 3 * HOUR, now + 5 * HOUR, headers=OTHER,
                 standby=True).status_int == 201


def test_waiters_hold_no_quota(api, flavor, now, override):
    _full(api, now)
    override('reservations', 3, 'quota')
    for _ in range(4):
        _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    # Four waiters beside one live booking would be over the limit if
    # they counted.
    assert _book(api, now + 5 * DAY, now + 5 * DAY + HOUR).status_int == 201


def test_a_reader_cannot_wait_and_another_project_sees_nothing(api, flavor,
                                                               now):
    _full(api, now)
    assert_error(_book(api, now + 3 * HOUR, now + 5 * HOUR,
                       headers=_at(READER_A), standby=True), 403)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    path = '%s/%s' % (URL, booking['id'])
    assert_error(api.get(path, headers=OTHER, expect_errors=True), 404)
    assert_error(api.delete(path, headers=OTHER, expect_errors=True), 404)
    assert api.get(URL, headers=OTHER).json['reservations'] == []
    assert _status(booking['id']) == B.STANDBY


def test_a_waiter_is_cancelled_like_any_booking(api, flavor, now, casts):
    _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    casts.clear()
    path = '%s/%s' % (URL, booking['id'])
    assert api.delete(path, headers=A).status_int == 204
    row = bookings_db.booking_get(admin_context(), booking['id'])
    assert row.status == B.COMPLETE
    assert row.status_reason.startswith('Cancelled on standby by alice')
    # It had no lease and freed nothing.
    assert casts == []
    # Never admitted afterwards, and its row goes on a second DELETE.
    assert _pass(now).promoted == []
    assert api.delete(path, headers=A).status_int == 204
    assert_error(api.get(path, headers=A, expect_errors=True), 404)


def test_a_waiter_cannot_be_moved(api, flavor, now):
    _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    response = api.patch_json('%s/%s' % (URL, booking['id']),
                              {'end': iso(now + 6 * HOUR)}, headers=A,
                              expect_errors=True)
    assert_error(response, 409)


# Promotion ------------------------------------------------------------------

def test_a_cancel_admits_the_waiter(api, flavor, now, casts, told):
    held = _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    assert _pass(now).promoted == []
    casts.clear()
    assert api.delete('%s/%s' % (URL, held['id']),
                      headers=A).status_int == 204
    # The API asks the worker for a pass at once.
    assert [c['method'] for c in casts] == ['delete_lease',
                                            'promote_standby']
    promoted = _pass(now).promoted
    assert [b.id for b in promoted] == [booking['id']]
    row = bookings_db.booking_get(admin_context(), booking['id'])
    assert row.status == B.PENDING_CREATE
    # Placed, as any booking admitted: its allocations are written.
    placed = store.allocations_of_booking(admin_context(), row.id)
    assert sum(a.amount for a in placed) == 1
    assert ('promoted', booking['id']) in [
        (event, payload['reservation_id']) for event, payload in told]
    # Nothing more to admit.
    assert _pass(now).promoted == []


def test_an_earlier_end_admits_the_waiter(api, flavor, now, casts):
    held = _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    casts.clear()
    # It ends before the waiter's start, its guard included.
    response = api.patch_json('%s/%s' % (URL, held['id']),
                              {'end': iso(now + 3 * HOUR - 2 * MINUTE)},
                              headers=A)
    assert response.status_int == 200
    assert [c['method'] for c in casts] == ['update_lease',
                                            'promote_standby']
    assert [b.id for b in _pass(now).promoted] == [booking['id']]


def test_a_later_end_does_not_ask_for_a_pass(api, flavor, now, casts):
    held = _book(api, now + 2 * HOUR, now + 4 * HOUR).json['reservation']
    casts.clear()
    api.patch_json('%s/%s' % (URL, held['id']),
                   {'end': iso(now + 5 * HOUR)}, headers=A)
    assert [c['method'] for c in casts] == ['update_lease']


def test_a_new_host_admits_the_waiter(api, now):
    # A flavor of 10 slots on a host that holds two of its instances.
    make_host('small.example.org', vcpus=2, memory_mb=2048, local_gb=20)
    make_flavor('gpu.a100', slots=10, start=now - DAY, end=now + 30 * DAY)
    assert _book(api, now + 2 * HOUR, now + 4 * HOUR, 2).status_int == 201
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 2)
    assert booking['status'] == B.STANDBY
    assert _pass(now).promoted == []
    make_host('second.example.org', vcpus=2, memory_mb=2048, local_gb=20)
    assert [b.id for b in _pass(now).promoted] == [booking['id']]
    placed = store.allocations_of_booking(admin_context(), booking['id'])
    assert {a.host.name: a.amount for a in placed} == {
        'second.example.org': 2}


def test_a_waiter_over_quota_now_waits_on(api, flavor, now, override):
    held = _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    # Its project books elsewhere meanwhile, up to its limit.
    override('reservations', 2, 'quota')
    assert _book(api, now + 5 * DAY, now + 5 * DAY + HOUR).status_int == 201
    api.delete('%s/%s' % (URL, held['id']), headers=A)
    # One booking left live (the later one): admitting would make 2,
    # within the limit; lower it and the waiter waits on.
    override('reservations', 1, 'quota')
    assert _pass(now).promoted == []
    assert _status(booking['id']) == B.STANDBY
    override('reservations', 2, 'quota')
    assert [b.id for b in _pass(now).promoted] == [booking['id']]


def test_first_fit_in_arrival_order(api, flavor, now):
    held = _full(api, now)
    # Two instances asked first, then one, then one more.
    older = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 2)
    younger = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 1, headers=OTHER)
    youngest = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 1)
    api.delete('%s/%s' % (URL, held['id']), headers=A)
    # Both slots free: the oldest waiter takes them, the others wait on.
    assert [b.id for b in _pass(now).promoted] == [older['id']]
    assert _status(younger['id']) == B.STANDBY
    assert _status(youngest['id']) == B.STANDBY


def test_a_younger_waiter_that_fits_is_not_blocked_by_an_older(api, flavor,
                                                               now):
    # One slot held till +4 h, the other from +3 h on.
    assert _book(api, now + 2 * HOUR, now + 4 * HOUR).status_int == 201
    other = _book(api, now + 3 * HOUR, now + 4 * HOUR).json['reservation']
    older = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 2)
    younger = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 1, headers=OTHER)
    youngest = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 1)
    api.delete('%s/%s' % (URL, other['id']), headers=A)
    # One slot free: the older (2) does not fit; the younger (1) does,
    # and takes it; the youngest (1) then does not fit.
    assert [b.id for b in _pass(now).promoted] == [younger['id']]
    assert _status(older['id']) == B.STANDBY
    assert _status(youngest['id']) == B.STANDBY


def test_the_worker_casts_create_lease_for_each_promoted(api, flavor, now,
                                                         casts):
    held = _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    api.delete('%s/%s' % (URL, held['id']), headers=A)
    casts.clear()
    loop = standby_loop.StandbyLoop(worker_rpcapi.WorkerAPI())
    done = loop.run_once(admin_context())
    assert [b.id for b in done.promoted] == [booking['id']]
    assert [(c['method'], c['booking_id']) for c in casts] == [
        ('create_lease', booking['id'])]


# Lapse ----------------------------------------------------------------------

def test_a_waiter_lapses_at_its_start(api, flavor, now, told):
    _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    assert _pass(now + 3 * HOUR - datetime.timedelta(seconds=1)).lapsed == []
    done = _pass(now + 3 * HOUR)
    assert [b.id for b in done.lapsed] == [booking['id']]
    row = bookings_db.booking_get(admin_context(), booking['id'])
    assert row.status == B.LAPSED
    assert row.status_reason == (
        'No room came before its start (%s): it was never admitted'
        % iso(now + 3 * HOUR))
    assert ('lapsed', booking['id']) in [
        (event, payload['reservation_id']) for event, payload in told]
    # Final: never admitted afterwards, nor cancelled.
    assert _pass(now + 3 * HOUR).promoted == []
    assert _status(booking['id']) == B.LAPSED


def test_a_waiter_lapses_at_its_deadline(api, flavor, now):
    held = _full(api, now)
    booking = _wait(api, now + 3 * HOUR, now + 5 * HOUR,
                    standby_until=iso(now + HOUR))
    assert [b.id for b in _pass(now + HOUR).lapsed] == [booking['id']]
    row = bookings_db.booking_get(admin_context(), booking['id'])
    assert row.status_reason.startswith('No room came before its deadline')
    # Room after the deadline comes too late.
    api.delete('%s/%s' % (URL, held['id']), headers=A)
    assert _pass(now + HOUR).promoted == []


def test_a_promotion_and_a_lapse_are_mailed(api, flavor, now, told):
    held = _full(api, now)
    first = _wait(api, now + 3 * HOUR, now + 5 * HOUR)
    second = _wait(api, now + 3 * HOUR, now + 5 * HOUR, 2,
                   standby_until=iso(now + HOUR))
    api.delete('%s/%s' % (URL, held['id']), headers=A)
    _pass(now)
    _pass(now + HOUR)
    driver = RecordingDriver()
    endpoint = listener.BookingMailEndpoint(mailer_mod.Mailer(
        driver=driver, address_book=AddressBook()))
    for event, payload in told:
        endpoint.info(admin_context(), 'reserve.standby',
                      'reserve.reservation.%s' % event, payload, {})
    assert driver.events() == [('promoted', first['id']),
                               ('lapsed', second['id'])]
    promoted, lapsed = driver.sent
    assert promoted['Subject'].startswith(
        '[reserve] Reservation admitted from standby: 1 x gpu.a100')
    assert 'No room came before its deadline' in lapsed.get_content()
    assert 'openstack reserve flavor free-slots gpu.a100 --instance-count 2' \
        in lapsed.get_content()
