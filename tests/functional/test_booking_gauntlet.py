"""POST /v1/reservations runs the gauntlet in order; PATCH rechecks the
added time; DELETE frees the calendar at once."""
import datetime

from oslo_config import cfg
import pytest

from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.fixtures import config

CONF = cfg.CONF
URL = '/v1/reservations'
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
GUARD = datetime.timedelta(seconds=60)      # [booking]guard_seconds

pytestmark = pytest.mark.usefixtures('roomy')


@pytest.fixture
def now():
    return timeutils.utcnow()


@pytest.fixture
def flavor(api, now):
    """2 slots, bookings of at most 48 h, bookable for the next 30 days."""
    return make_flavor('gpu.a100', slots=2, max_length_hours=48,
                       start=now - DAY, end=now + 30 * DAY)


@pytest.fixture
def override():
    """``override(name, value, group=None)``; undone after the test."""
    yield from config.overrides()


def _rows():
    with db_api.get_engine().connect() as connection:
        return connection.execute(models.Booking.__table__.select()).all()


def _book(api, start, end, flavor='gpu.a100', count=1, headers=MEMBER_A):
    return api.post_json(URL, {'flavor_id': flavor, 'start': iso(start),
                               'end': iso(end), 'instance_count': count},
                         headers=headers, expect_errors=True)


def _refused(response, status, code, words=()):
    return assert_error(response, status, code, words)


def _maintenance(api, start, end, flavors=('gpu.a100',)):
    response = api.post_json('/v1/maintenance-windows', {
        'start': iso(start), 'end': iso(end), 'flavors': list(flavors),
        'note': 'firmware'}, headers=ADMIN)
    return response.json['maintenance_window']


# Each rule -------------------------------------------------------------------

def test_accepted_by_name_or_id(api, casts, flavor, now):
    by_name = _book(api, now + HOUR, now + 2 * HOUR)
    by_id = _book(api, now + 3 * HOUR, now + 4 * HOUR, flavor=flavor.id)
    assert by_name.status_int == by_id.status_int == 201
    assert by_name.json['reservation']['flavor_id'] == flavor.id
    assert by_id.json['reservation']['flavor_id'] == flavor.id
    assert [c['method'] for c in casts] == ['create_lease'] * 2


def test_unknown_flavor(api, casts, flavor, now):
    _refused(_book(api, now + HOUR, now + 2 * HOUR, flavor='gpu.z99'),
             400, 'reserve.flavor_not_available',
             ['gpu.z99', 'not available to project project-a'])


def test_1_inactive_flavor(api, casts, flavor, now):
    flavors_db.flavor_update(admin_context(), flavor.id, {'active': False})
    _refused(_book(api, now + HOUR, now + 2 * HOUR), 409,
             'reserve.flavor_inactive', ['gpu.a100', 'not active'])


def test_2_private_flavor_needs_a_grant(api, casts, now):
    make_flavor('gpu.secret', is_public=False, projects=['project-b'])
    # project-a must not learn that the flavor exists.
    _refused(_book(api, now + HOUR, now + 2 * HOUR, flavor='gpu.secret'),
             400, 'reserve.flavor_not_available',
             ['private and not granted'])
    # An administrator sees it, so the missing grant is named.
    _refused(_book(api, now + HOUR, now + 2 * HOUR, flavor='gpu.secret',
                   headers=ADMIN), 403, 'reserve.flavor_not_granted',
             ['gpu.secret', 'private and not granted to project '
              'admin-project'])
    granted = _book(api, now + HOUR, now + 2 * HOUR, flavor='gpu.secret',
                    headers=MEMBER_B)
    assert granted.status_int == 201


def test_3_longer_than_the_flavor_allows(api, casts, flavor, now):
    _refused(_book(api, now + HOUR, now + HOUR + 49 * HOUR), 400,
             'reserve.booking_too_long',
             ['49 hours', 'longer than the 48 hours', 'gpu.a100'])
    exactly = _book(api, now + HOUR, now + HOUR + 48 * HOUR)
    assert exactly.status_int == 201


def test_4_outside_the_flavor_window(api, casts, flavor, now):
    response = _book(api, now + 30 * DAY - HOUR, now + 30 * DAY + HOUR)
    _refused(response, 400, 'reserve.outside_flavor_window',
             ['gpu.a100 can only be booked from',
              iso(flavor.end)])
    # A flavor bookable only later.
    make_flavor('gpu.later', start=now + 10 * DAY)
    _refused(_book(api, now + HOUR, now + 2 * HOUR, flavor='gpu.later'),
             400, 'reserve.outside_flavor_window', ['from', 'on'])


@pytest.mark.parametrize('start,end,words', [
    (2 * HOUR, HOUR, ['end', 'must be after start']),
    (2 * HOUR, 2 * HOUR, ['end', 'must be after start']),
    (-HOUR, HOUR, ['start', 'in the past']),
])
def test_5_dates(api, casts, flavor, now, start, end, words):
    _refused(_book(api, now + start, now + end), 400, 'reserve.invalid',
             words)


def test_5_start_within_the_past_tolerance(api, casts, flavor, now):
    response = _book(api, now - GUARD, now + HOUR)
    assert response.status_int == 201


def test_6_maintenance(api, casts, flavor, now):
    window = _maintenance(api, now + 5 * HOUR, now + 6 * HOUR)
    response = _book(api, now + 4 * HOUR, now + 5 * HOUR + GUARD)
    _refused(response, 409, 'reserve.maintenance',
             ['maintenance of flavor gpu.a100', window['id'], 'firmware'])
    # The guard keeps a booking off the minute before maintenance too.
    _refused(_book(api, now + 4 * HOUR, now + 5 * HOUR), 409,
             'reserve.maintenance')
    fits = _book(api, now + 4 * HOUR,
                 now + 5 * HOUR - GUARD)
    assert fits.status_int == 201
    # Administrators may bypass it.
    bypass = _book(api, now + 5 * HOUR, now + 6 * HOUR, headers=ADMIN)
    assert bypass.status_int == 201


def test_6_maintenance_of_all_flavors(api, casts, flavor, now):
    api.post_json('/v1/maintenance-windows', {
        'start': iso(now + 5 * HOUR), 'end': iso(now + 6 * HOUR),
        'all_flavors': True}, headers=ADMIN)
    _refused(_book(api, now + 5 * HOUR, now + 6 * HOUR), 409,
             'reserve.maintenance')


def test_7_quota_reservations(api, casts, flavor, now, override):
    override('reservations', 2, 'quota')
    for i in range(2):
        assert _book(api, now + (i + 1) * DAY,
                     now + (i + 1) * DAY + HOUR).status_int == 201
    _refused(_book(api, now + 5 * DAY, now + 5 * DAY + HOUR), 413,
             'reserve.over_quota',
             ['project project-a', 'reservations (2 in use + 1 asked > '
              'limit 2)'])
    # Another project has its own quota.
    assert _book(api, now + 5 * DAY, now + 5 * DAY + HOUR,
                 headers=MEMBER_B).status_int == 201


def test_7_quota_instance_hours(api, casts, flavor, now, override):
    override('instance_hours', 10, 'quota')
    # 2 instances x 4 started hours (3 h 30 min) = 8.
    assert _book(api, now + HOUR, now + HOUR + 210 * GUARD,
                 count=2).status_int == 201
    _refused(_book(api, now + DAY, now + DAY + 2 * HOUR, count=2), 413,
             'reserve.over_quota', ['instance_hours (8 in use + 4 asked '
                                    '> limit 10)'])
    assert _book(api, now + DAY, now + DAY + 2 * HOUR).status_int == 201


@pytest.mark.parametrize('status', [states.Booking.COMPLETE,
                                    states.Booking.ERROR])
def test_7_finished_bookings_use_no_quota(api, casts, flavor, now,
                                          override, status):
    override('reservations', 1, 'quota')
    make_booking(status=status)
    assert _book(api, now + HOUR, now + 2 * HOUR).status_int == 201


def test_8_capacity(api, casts, flavor, now):
    assert _book(api, now + HOUR, now + 3 * HOUR, count=2).status_int == 201
    response = _book(api, now + 2 * HOUR, now + 4 * HOUR)
    _refused(response, 409, 'reserve.no_capacity',
             ['No capacity', '1 instance(s) of flavor gpu.a100',
              'of its 2 slots', 'at most 0 do', 'free-slots'])
    # Free slots of the same window say the same.
    slots = api.get('/v1/flavors/gpu.a100/free-slots?start=%s&end=%s' % (
        iso(now + 2 * HOUR), iso(now + 4 * HOUR)), headers=MEMBER_A).json
    assert slots['free_slots'] == [{
        'start': iso(now + 3 * HOUR + GUARD),
        'end': iso(now + 4 * HOUR)}]
    assert _book(api, now + 3 * HOUR + GUARD,
                 now + 4 * HOUR).status_int == 201


def test_8_capacity_counts_every_instant(api, casts, flavor, now):
    # Two back-to-back bookings of one instance each (guard apart) leave
    # one instance free across both.
    assert _book(api, now + HOUR, now + 2 * HOUR).status_int == 201
    assert _book(api, now + 2 * HOUR + GUARD,
                 now + 3 * HOUR).status_int == 201
    assert _book(api, now + HOUR, now + 3 * HOUR).status_int == 201
    _refused(_book(api, now + HOUR, now + 3 * HOUR), 409,
             'reserve.no_capacity')


# The order of the rules ------------------------------------------------------

@pytest.mark.parametrize('case', [
    'inactive+spot', 'spot+too_long', 'too_long+outside_window',
    'outside_window+past', 'past+maintenance', 'maintenance+quota',
    'quota+capacity'])
def test_the_first_broken_rule_is_the_one_reported(api, casts, flavor,
                                                   now, override, case):
    expected = {
        'inactive': (409, 'reserve.flavor_inactive'),
        'spot': (409, 'reserve.spot_flavor'),
        'too_long': (400, 'reserve.booking_too_long'),
        'outside_window': (400, 'reserve.outside_flavor_window'),
        'past': (400, 'reserve.invalid'),
        'maintenance': (409, 'reserve.maintenance'),
        'quota': (413, 'reserve.over_quota'),
    }[case.split('+')[0]]
    start, end, count = now + DAY, now + DAY + HOUR, 1
    if 'inactive' in case:
        flavors_db.flavor_update(admin_context(), flavor.id, {'active': False})
    if 'spot' in case:
        flavors_db.flavor_update(admin_context(), flavor.id, {'spot': True})
    if 'too_long' in case:
        end = start + 60 * HOUR
    if 'outside_window' in case:
        flavors_db.flavor_update(admin_context(), flavor.id,
                                 {'start': now + 2 * DAY})
    if 'past' in case:
        start, end = now - DAY, now + HOUR
    if 'maintenance' in case:
        _maintenance(api, start - HOUR, end + HOUR)
    if 'quota' in case:
        override('reservations', 0, 'quota')
    if 'capacity' in case:
        count = 3
    before = len(_rows())
    _refused(_book(api, start, end, count=count), *expected)
    assert len(_rows()) == before
    assert casts == []


# Extension -------------------------------------------------------------------

def _extend(api, booking_id, end, headers=MEMBER_A):
    return api.patch_json('%s/%s' % (URL, booking_id), {'end': iso(end)},
                          headers=headers, expect_errors=True)


def test_extension_counts_only_the_added_hours(api, casts, flavor, now,
                                               override):
    override('instance_hours', 6, 'quota')
    rsv = _book(api, now + HOUR, now + 5 * HOUR).json['reservation']
    assert _extend(api, rsv['id'], now + 7 * HOUR).status_int == 200
    _refused(_extend(api, rsv['id'], now + 8 * HOUR), 413,
             'reserve.over_quota', ['instance_hours (6 in use + 1 asked'])
    row = bookings_db.booking_get(admin_context(), rsv['id'])
    assert row.end == now + 7 * HOUR
    assert [c['method'] for c in casts] == ['create_lease', 'update_lease']


def test_extension_checks_capacity_of_the_added_time_only(api, casts,
                                                          flavor, now):
    rsv = _book(api, now + HOUR, now + 2 * HOUR,
                count=2).json['reservation']
    # Someone books both slots right after (a guard later).
    other = _book(api, now + 2 * HOUR + GUARD,
                  now + 3 * HOUR, count=2, headers=MEMBER_B)
    assert other.status_int == 201
    _refused(_extend(api, rsv['id'], now + 2 * HOUR + HOUR / 2), 409,
             'reserve.no_capacity')
    # Its own slots never stand in its way: shortened, it can grow back
    # up to a guard before the next booking ...
    assert _extend(api, rsv['id'], now + HOUR + HOUR / 2).status_int == 200
    assert _extend(api, rsv['id'], now + 2 * HOUR).status_int == 200
    # ... and once the other booking is cancelled, the extension fits.
    api.delete('%s/%s' % (URL, other.json['reservation']['id']),
               headers=MEMBER_B)
    assert _extend(api, rsv['id'], now + 3 * HOUR).status_int == 200


def test_extension_respects_length_window_and_maintenance(api, casts,
                                                          flavor, now):
    rsv = _book(api, now + HOUR, now + 2 * HOUR).json['reservation']
    _refused(_extend(api, rsv['id'], now + HOUR + 49 * HOUR), 400,
             'reserve.booking_too_long')
    _maintenance(api, now + 3 * HOUR, now + 4 * HOUR)
    _refused(_extend(api, rsv['id'], now + 3 * HOUR + HOUR / 2), 409,
             'reserve.maintenance')
    assert _extend(api, rsv['id'],
                   now + 3 * HOUR - GUARD).status_int == 200
    # An administrator may extend over maintenance.
    assert _extend(api, rsv['id'], now + 5 * HOUR,
                   headers=ADMIN).status_int == 200


def test_extension_beyond_the_flavor_window(api, casts, flavor, now):
    rsv = _book(api, now + 30 * DAY - 2 * HOUR,
                now + 30 * DAY - HOUR).json['reservation']
    _refused(_extend(api, rsv['id'], now + 30 * DAY + HOUR), 400,
             'reserve.outside_flavor_window')


def test_shortening_needs_no_check_and_frees_the_calendar(api, casts,
                                                          flavor, now):
    rsv = _book(api, now + HOUR, now + 5 * HOUR,
                count=2).json['reservation']
    _refused(_book(api, now + 3 * HOUR, now + 4 * HOUR), 409,
             'reserve.no_capacity')
    flavors_db.flavor_update(admin_context(), flavor.id, {'active': False})
    assert _extend(api, rsv['id'], now + 2 * HOUR).status_int == 200
    flavors_db.flavor_update(admin_context(), flavor.id, {'active': True})
    assert _book(api, now + 3 * HOUR, now + 4 * HOUR).status_int == 201


def test_deleting_frees_the_calendar_at_once(api, casts, flavor, now):
    rsv = _book(api, now + HOUR, now + 5 * HOUR,
                count=2).json['reservation']
    _refused(_book(api, now + 2 * HOUR, now + 3 * HOUR), 409,
             'reserve.no_capacity')
    assert api.delete('%s/%s' % (URL, rsv['id']),
                      headers=MEMBER_A).status_int == 204
    assert _book(api, now + 2 * HOUR, now + 3 * HOUR,
                 count=2).status_int == 201
    assert [c['method'] for c in casts][-3:] == [
        'delete_lease', 'promote_standby', 'create_lease']


def test_quota_recheck_withdraws_a_booking_that_raced_over(
        api, casts, flavor, now, override, monkeypatch):
    """With [quota]recheck_quota on, a booking of the project written
    between the check and the recheck (admission serialises its own
    under the capacity lock, so only a writer outside it could) takes
    the project over together with this one: this one is withdrawn."""
    from reserve.booking import quota
    override('reservations', 1, 'quota')
    override('recheck_quota', True, 'quota')
    make_flavor('gpu.h100')
    real = quota.recheck
    raced = []

    def commit_elsewhere_then_recheck(context, project_id, resources):
        # Another request of the project, on another flavor, passed its
        # own check at the same time and committed too.
        raced.append(make_booking(flavor_id='gpu.h100'))
        return real(context, project_id, resources)

    monkeypatch.setattr(quota, 'recheck', commit_elsewhere_then_recheck)
    _refused(_book(api, now + HOUR, now + 2 * HOUR), 413,
             'reserve.over_quota', ['reservations (2 in use', 'withdrawn'])
    assert [r.id for r in _rows()] == [raced[0].id]
    assert casts == []


@pytest.mark.parametrize('recheck,checks',
                         [(None, 1), (True, 2), (False, 1)])
def test_quota_recheck_is_off_unless_asked_for(api, casts, flavor, now,
                                               override, monkeypatch,
                                               recheck, checks):
    from reserve.booking import quota
    if recheck is not None:
        override('recheck_quota', recheck, 'quota')
    seen = []
    real = quota.ConfigDriver.enforce

    def counting(self, context, project_id, deltas):
        seen.append(deltas)
        return real(self, context, project_id, deltas)

    monkeypatch.setattr(quota.ConfigDriver, 'enforce', counting)
    assert _book(api, now + HOUR, now + 2 * HOUR).status_int == 201
    assert len(seen) == checks
    assert seen[0] == {'reservations': 1, 'instance_hours': 1}


def test_extension_loses_cleanly_to_a_concurrent_finish(api, casts, flavor,
                                                        now, monkeypatch):
    rsv = _book(api, now + HOUR, now + 2 * HOUR).json['reservation']
    real_update = bookings_db.booking_update

    def finish_then_update(context, booking_id, values, **kwargs):
        if 'end' in values:
            # The lease failed between the check and the write (the
            # manager's moves do not take the flavor's lock).
            bookings_db.booking_move(context, booking_id,
                                     states.Booking.ERROR,
                                     states.Booking.LIVE)
        return real_update(context, booking_id, values, **kwargs)

    monkeypatch.setattr(bookings_db, 'booking_update', finish_then_update)
    _refused(_extend(api, rsv['id'], now + 3 * HOUR), 409,
             'reserve.invalid_state', ['ERROR', 'changed while'])
    monkeypatch.setattr(bookings_db, 'booking_update', real_update)
    row = bookings_db.booking_get(admin_context(), rsv['id'])
    assert row.end == now + 2 * HOUR
    assert [c['method'] for c in casts] == ['create_lease']
