"""Recurring bookings (/v1/series, since 1.7) over the real API: a weekly
series admitted whole, refused whole with nothing written when one week
is full, or booked as far as it fits; each occurrence a reservation of
its own, cancelled alone or with the rest; another project's series
unseen, a reader's writes refused, bad rules refused naming the part."""
import datetime

from oslo_config import cfg
import pytest
import sqlalchemy as sa

from reserve.api import microversion
from reserve.booking import quota
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import api  # noqa: F401
from tests.functional.api_fixtures import assert_error
from tests.functional.api_fixtures import casts  # noqa: F401
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_booking
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.api_fixtures import MEMBER_B
from tests.functional.api_fixtures import READER_A

URL = '/v1/series'
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
WEEK = datetime.timedelta(weeks=1)
VERSION = {microversion.HEADER: microversion.header_value(
    microversion.SERIES)}
A = dict(MEMBER_A, **VERSION)
B = dict(MEMBER_B, **VERSION)
READER = dict(READER_A, **VERSION)
BEFORE = dict(MEMBER_A, **{microversion.HEADER: microversion.header_value(
    microversion.COUNTER_OFFER)})

pytestmark = pytest.mark.usefixtures('casts')


@pytest.fixture
def start():
    """The first occurrence's start: tomorrow, on the minute."""
    return timeutils.utcnow().replace(second=0, microsecond=0) + DAY


@pytest.fixture
def flavor(api):
    """2 slots, bookable for the next 60 days."""
    now = timeutils.utcnow()
    return make_flavor('gpu.a100', slots=2, max_length_hours=48,
                       start=now - DAY, end=now + 60 * DAY)


def _series(api, start, recurrence='FREQ=WEEKLY;COUNT=4', count=1,
            headers=A, **more):
    body = dict({'flavor_id': 'gpu.a100', 'start': iso(start),
                 'end': iso(start + 2 * HOUR), 'instance_count': count,
                 'recurrence': recurrence}, **more)
    return api.post_json(URL, body, headers=headers, expect_errors=True)


def _book(api, start, end, count=1):
    return api.post_json('/v1/reservations', {
        'flavor_id': 'gpu.a100', 'start': iso(start), 'end': iso(end),
        'instance_count': count}, headers=A, expect_errors=True)


def _rows(model):
    with db_api.reader.using(admin_context()) as session:
        return session.scalar(sa.select(sa.func.count()).select_from(model))


def _statuses(api, series_id, headers=A):
    shown = api.get('%s/%s' % (URL, series_id), headers=headers).json
    return [o['status'] for o in shown['series']['occurrences']]


def test_a_weekly_series_is_admitted_whole(api, flavor, start, casts):
    made = _series(api, start, count=2)
    assert made.status_int == 201, made.text
    series = made.json['series']
    assert made.headers['Location'].endswith('%s/%s' % (URL, series['id']))
    assert series['recurrence'] == 'FREQ=WEEKLY;COUNT=4'
    assert series['series_policy'] == 'all_or_nothing'
    assert series['refused'] == []
    assert series['project_id'] == 'project-a'
    assert [o['start'] for o in series['occurrences']] == [
        iso(start + k * WEEK) for k in range(4)]
    assert [o['end'] for o in series['occurrences']] == [
        iso(start + k * WEEK + 2 * HOUR) for k in range(4)]
    # Each is a reservation of its own, its lease asked for like any.
    ids = [o['id'] for o in series['occurrences']]
    assert sorted(c['booking_id'] for c in casts
                  if c['method'] == 'create_lease') == sorted(ids)
    for occurrence_id in ids:
        shown = api.get('/v1/reservations/%s' % occurrence_id,
                        headers=A).json['reservation']
        assert shown['series_id'] == series['id']
        assert shown['instance_count'] == 2
        assert shown['status'] == states.Booking.PENDING_CREATE
        # Before 1.7 a reservation does not say it.
        assert 'series_id' not in api.get(
            '/v1/reservations/%s' % occurrence_id,
            headers=BEFORE).json['reservation']
    assert api.get('%s/%s' % (URL, series['id']),
                   headers=A).json['series'] == series
    listed = api.get(URL, headers=A).json['series']
    assert [s['id'] for s in listed] == [series['id']]


def test_daily_on_weekdays_and_until(api, flavor, start):
    # Every other day until the fifth day from the start, inclusive.
    until = (start + 4 * DAY).strftime('%Y%m%d')
    made = _series(api, start, 'FREQ=DAILY;INTERVAL=2;UNTIL=%s' % until)
    assert made.status_int == 201, made.text
    assert [o['start'] for o in made.json['series']['occurrences']] == [
        iso(start), iso(start + 2 * DAY), iso(start + 4 * DAY)]
    day = ('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU')[start.weekday()]
    other = ('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU')[
        (start.weekday() + 3) % 7]
    made = _series(api, start, 'FREQ=WEEKLY;COUNT=4;BYDAY=%s,%s' % (
        day, other))
    assert made.status_int == 201, made.text
    starts = [o['start'] for o in made.json['series']['occurrences']]
    assert starts[0] == iso(start) and len(starts) == 4


def _full_week(api, start, week=2):
    """Both slots taken over the occurrence of week ``week``."""
    held = start + week * WEEK
    made = _book(api, held - HOUR, held + HOUR, 2)
    assert made.status_int == 201, made.text
    return held


def test_one_week_full_refuses_all_or_nothing_writing_nothing(
        api, flavor, start, casts):
    held = _full_week(api, start)
    bookings, series_rows, allocations = (
        _rows(models.Booking), _rows(models.Series),
        _rows(models.Allocation))
    del casts[:]
    refused = _series(api, start)
    error = refused.json['errors'][0]
    assert refused.status_int == 409
    assert error['code'] == 'reserve.series_does_not_fit'
    assert '1 of its 4 occurrences cannot be booked' in error['detail']
    assert iso(held) in error['detail']
    assert 'none was booked' in error['detail']
    assert error['occurrences'] == [{
        'start': iso(held), 'end': iso(held + 2 * HOUR), 'status': 409,
        'code': 'reserve.no_capacity', 'detail': error['occurrences'][0][
            'detail']}]
    assert 'No capacity' in error['occurrences'][0]['detail']
    # Nothing written, nothing cast.
    assert (_rows(models.Booking), _rows(models.Series),
            _rows(models.Allocation)) == (bookings, series_rows,
                                          allocations)
    assert casts == []
    # Explicitly asked, the same.
    again = _series(api, start, series_policy='all_or_nothing')
    assert again.status_int == 409
    assert _rows(models.Booking) == bookings


def test_as_many_as_fit_books_the_rest_and_lists_the_refused(
        api, flavor, start, casts):
    held = _full_week(api, start)
    del casts[:]
    made = _series(api, start, series_policy='as_many_as_fit')
    assert made.status_int == 201, made.text
    series = made.json['series']
    assert series['series_policy'] == 'as_many_as_fit'
    assert [o['start'] for o in series['occurrences']] == [
        iso(start + k * WEEK) for k in (0, 1, 3)]
    [refused] = series['refused']
    assert refused['start'] == iso(held)
    assert refused['end'] == iso(held + 2 * HOUR)
    assert (refused['status'], refused['code']) == (409,
                                                    'reserve.no_capacity')
    assert 'No capacity' in refused['detail']
    assert len([c for c in casts if c['method'] == 'create_lease']) == 3
    # The series says so later too.
    shown = api.get('%s/%s' % (URL, series['id']), headers=A).json
    assert shown['series']['refused'] == series['refused']


def test_as_many_as_fit_when_none_fits_is_refused(api, flavor, start):
    made = _series(api, start, 'FREQ=DAILY;COUNT=2', count=3,
                   series_policy='as_many_as_fit')
    error = made.json['errors'][0]
    assert made.status_int == 409
    assert error['code'] == 'reserve.series_does_not_fit'
    assert 'Not one occurrence fits' in error['detail']
    assert len(error['occurrences']) == 2
    assert _rows(models.Series) == 0


@pytest.fixture
def quota_options():
    """set(name, value): a [quota] option for this test."""
    names = []

    def set_option(name, value):
        names.append(name)
        cfg.CONF.set_override(name, value, group='quota')
    yield set_option
    for name in names:
        cfg.CONF.clear_override(name, group='quota')


def test_quota_counts_every_occurrence(api, flavor, start, quota_options):
    quota_options('reservations', 3)
    refused = _series(api, start)
    assert_error(refused, 413, 'reserve.over_quota',
                 ['reservations (0 in use + 4 asked > limit 3)'])
    assert _rows(models.Booking) == 0
    made = _series(api, start, series_policy='as_many_as_fit')
    assert made.status_int == 201, made.text
    series = made.json['series']
    assert len(series['occurrences']) == 3
    assert [(r['start'], r['code']) for r in series['refused']] == [
        (iso(start + 3 * WEEK), 'reserve.over_quota')]


def test_cancel_one_occurrence(api, flavor, start, casts):
    series = _series(api, start).json['series']
    second = series['occurrences'][1]['id']
    assert api.delete('/v1/reservations/%s' % second,
                      headers=A).status_int == 204
    assert _statuses(api, series['id']) == [
        states.Booking.PENDING_CREATE, states.Booking.COMPLETE,
        states.Booking.PENDING_CREATE, states.Booking.PENDING_CREATE]


def test_cancel_the_rest(api, flavor, start, casts):
    series = _series(api, start).json['series']
    ids = [o['id'] for o in series['occurrences']]
    # One cancelled already stays as it is.
    assert api.delete('/v1/reservations/%s' % ids[0],
                      headers=A).status_int == 204
    del casts[:]
    assert api.delete('%s/%s' % (URL, series['id']),
                      headers=A).status_int == 204
    assert _statuses(api, series['id']) == [states.Booking.COMPLETE] * 4
    assert sorted(c['booking_id'] for c in casts
                  if c['method'] == 'delete_lease') == sorted(ids[1:])
    # The capacity is free again: a booking of both slots fits.
    assert _book(api, start + WEEK, start + WEEK + HOUR, 2).status_int == \
        201
    # Again: nothing left to cancel, nothing cast.
    del casts[:]
    assert api.delete('%s/%s' % (URL, series['id']),
                      headers=A).status_int == 204
    assert casts == []


def test_cancel_from_an_occurrence_on(api, flavor, start, casts):
    series = _series(api, start).json['series']
    ids = [o['id'] for o in series['occurrences']]
    del casts[:]
    assert api.delete('%s/%s?from=%s' % (URL, series['id'], ids[2]),
                      headers=A).status_int == 204
    assert _statuses(api, series['id']) == [
        states.Booking.PENDING_CREATE, states.Booking.PENDING_CREATE,
        states.Booking.COMPLETE, states.Booking.COMPLETE]
    assert sorted(c['booking_id'] for c in casts) == sorted(ids[2:])
    # Not an occurrence of it: 400, nothing cancelled.
    other = _book(api, start + HOUR * 3, start + HOUR * 4).json[
        'reservation']['id']
    for ref in (other, 'nope'):
        assert_error(api.delete('%s/%s?from=%s' % (URL, series['id'], ref),
                                headers=A, expect_errors=True), 400,
                     detail_has='is not an occurrence of series')
    assert _statuses(api, series['id'])[:2] == [
        states.Booking.PENDING_CREATE] * 2


def test_another_project_sees_nothing(api, flavor, start, casts):
    series = _series(api, start).json['series']
    path = '%s/%s' % (URL, series['id'])
    missing = api.get('%s/nope' % URL, headers=B, expect_errors=True)
    assert_error(missing, 404, 'reserve.not_found')
    for response in (api.get(path, headers=B, expect_errors=True),
                     api.delete(path, headers=B, expect_errors=True)):
        error = assert_error(response, 404, 'reserve.not_found')
        assert error['detail'] == missing.json['errors'][0][
            'detail'].replace('nope', series['id'])
    assert api.get(URL, headers=B).json['series'] == []
    assert _statuses(api, series['id']) == [
        states.Booking.PENDING_CREATE] * 4
    # An administrator sees it and may cancel it.
    admin = dict(ADMIN, **VERSION)
    assert api.get(path, headers=admin).status_int == 200
    assert [s['id'] for s in api.get(URL, {'all_projects': 1},
                                     headers=admin).json['series']] == [
        series['id']]
    assert api.delete(path, headers=admin).status_int == 204


def test_a_reader_reads_and_writes_nothing(api, flavor, start, casts):
    assert_error(_series(api, start, headers=READER), 403,
                 'reserve.forbidden')
    series = _series(api, start).json['series']
    path = '%s/%s' % (URL, series['id'])
    assert api.get(path, headers=READER).status_int == 200
    assert_error(api.delete(path, headers=READER, expect_errors=True), 403,
                 'reserve.forbidden')
    assert _statuses(api, series['id']) == [
        states.Booking.PENDING_CREATE] * 4


@pytest.mark.parametrize('recurrence,words', [
    ('FREQ=MONTHLY;COUNT=3', 'FREQ=MONTHLY is not supported'),
    ('FREQ=WEEKLY;COUNT=3;BYMONTH=1', 'BYMONTH is not supported'),
    ('FREQ=WEEKLY;COUNT=3;WKST=SU', 'WKST is not supported'),
    ('FREQ=WEEKLY;COUNT=3;COLOR=RED', 'COLOR is not a part of a rule'),
    ('FREQ=WEEKLY', 'give exactly one of COUNT and UNTIL'),
    ('FREQ=WEEKLY;COUNT=3;UNTIL=20300101', 'exactly one of COUNT and UNTIL'),
    ('FREQ=WEEKLY;COUNT=0', 'COUNT must be a positive whole number'),
    ('FREQ=WEEKLY;COUNT=101', 'COUNT=101: a series has at most 100'),
    ('FREQ=DAILY;COUNT=3;BYDAY=MO', 'BYDAY is supported with FREQ=WEEKLY'),
    ('FREQ=WEEKLY;COUNT=3;BYDAY=1MO', 'without a number'),
    ('FREQ=WEEKLY;COUNT=3;COUNT=4', 'COUNT is given twice'),
    ('FREQ=WEEKLY;UNTIL=20300101T000000', 'must be in UTC'),
    ('FREQ=WEEKLY;UNTIL=20200101', 'is before the start'),
    ('FREQ=WEEKLY;INTERVAL=60;COUNT=3', 'past 366 days from now'),
    ('FREQ=DAILY;UNTIL=20991231', 'more than 100 occurrences'),
    ('FREQ=WEEKLY;COUNT=3;', 'is not a NAME=value part'),
])
def test_bad_rules_are_refused_naming_the_part(api, flavor, start,
                                               recurrence, words):
    assert_error(_series(api, start, recurrence), 400, 'reserve.invalid',
                 ['recurrence: ', words])
    assert _rows(models.Series) == _rows(models.Booking) == 0


def test_bad_bodies_are_refused(api, flavor, start):
    # Occurrences that overlap one another.
    body = {'flavor_id': 'gpu.a100', 'start': iso(start),
            'end': iso(start + 30 * HOUR), 'recurrence': 'FREQ=DAILY;COUNT=3'}
    assert_error(api.post_json(URL, body, headers=A, expect_errors=True),
                 400, 'reserve.invalid', ['overlap'])
    # A day of BYDAY must be the start's.
    other = ('MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU')[
        (start.weekday() + 1) % 7]
    assert_error(_series(api, start, 'FREQ=WEEKLY;COUNT=2;BYDAY=%s' % other),
                 400, 'reserve.invalid', ["is not one of BYDAY's days"])
    for wrong in ({'series_policy': 'most'}, {'recurrence': ''},
                  {'recurrence': 7}, {'colour': 'red'}):
        sent = dict(body, end=iso(start + HOUR), **wrong)
        assert_error(api.post_json(URL, sent, headers=A,
                                   expect_errors=True), 400)
    sent = {k: v for k, v in body.items() if k != 'recurrence'}
    assert_error(api.post_json(URL, sent, headers=A, expect_errors=True),
                 400, detail_has='recurrence')
    # The flavor's own rules refuse the series whole, as a booking.
    assert_error(_series(api, start, flavor_id='nope'), 400)
    long = dict(body, end=iso(start + 49 * HOUR),
                recurrence='FREQ=WEEKLY;COUNT=2')
    assert_error(api.post_json(URL, long, headers=A, expect_errors=True),
                 400, 'reserve.booking_too_long')
    assert _rows(models.Series) == _rows(models.Booking) == 0


def test_before_1_7_there_are_no_series(api, flavor, start):
    made = _series(api, start, headers=BEFORE)
    assert_error(made, 404)
    assert api.get(URL, headers=BEFORE, expect_errors=True).status_int == \
        404


def test_quota_recheck_withdraws_a_series_that_raced_over(
        api, flavor, start, casts, monkeypatch, quota_options):
    """With [quota]recheck_quota on, a booking of the project written
    between the series' check and its recheck (by a writer outside the
    capacity lock) takes the project over with it: the series is
    withdrawn whole, nothing of it left and nothing cast."""
    make_flavor('gpu.h100')
    real = quota.recheck
    raced = []

    def commit_elsewhere_then_recheck(context, project_id, resources):
        raced.append(make_booking(flavor_id='gpu.h100'))
        return real(context, project_id, resources)

    monkeypatch.setattr(quota, 'recheck', commit_elsewhere_then_recheck)
    quota_options('reservations', 4)
    quota_options('recheck_quota', True)
    assert_error(_series(api, start), 413, 'reserve.over_quota',
                 ['reservations (5 in use', 'this series was withdrawn'])
    assert _rows(models.Series) == 0
    assert _rows(models.Booking) == 1
    assert _rows(models.Allocation) == 0
    assert casts == []


def test_a_series_outlives_its_occurrences_and_its_flavor(
        api, flavor, start, casts):
    series = _series(api, start).json['series']
    path = '%s/%s' % (URL, series['id'])
    assert api.delete(path, headers=A).status_int == 204
    # Over, each occurrence is removed (it has no lease to tear down).
    for occurrence in series['occurrences']:
        assert api.delete('/v1/reservations/%s' % occurrence['id'],
                          headers=A).status_int == 204
    # No booking holds the flavor now: it may go.
    assert api.delete('/v1/flavors/%s' % flavor.id,
                      headers=ADMIN).status_int == 204
    shown = api.get(path, headers=A).json['series']
    assert shown['occurrences'] == []
    assert shown['flavor_id'] == flavor.id
