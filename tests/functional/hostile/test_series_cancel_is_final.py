"""A series cancel is final under a PATCH of one of its occurrences.

DELETE /v1/series/{id} reads the occurrences, then closes each live one
by the cancel's compare-and-swap (reserve.booking.cancel); a PATCH of an
occurrence's end (admission.change_end) runs in a capacity transaction
of its own and writes by a compare-and-swap on the live statuses. Every
order ends the same way: each occurrence cancelled is COMPLETE and holds
no allocation, a PATCH that comes after its close is refused (409) and
never a 500, and one that came before it is simply ended with it.

* hypothesis drives the interleavings one by one in the process: the
  PATCH's admission (admission.change_end, what the PATCH handler runs)
  of a chosen occurrence comes before the series is read, between the
  read and that occurrence's close, or after it, moving its end earlier
  or later;
* the two requests are also sent at the same instant over HTTP.
"""
import datetime

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest
import sqlalchemy as sa

from reserve.api import microversion
from reserve.booking import admission
from reserve.booking import cancel
from reserve.booking import series as series_booking
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import bookings as bookings_db
from reserve.db import models
from tests.functional.api_fixtures import admin_context
from tests.functional.api_fixtures import iso
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A
from tests.fixtures.races import together

HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
VERSION = {microversion.HEADER: microversion.header_value(
    microversion.SERIES)}
A = dict(MEMBER_A, **VERSION)
COUNT = 3

pytestmark = pytest.mark.usefixtures('casts')


@pytest.fixture
def flavor(api):
    return make_flavor('gpu.a100', slots=4)


def _create(post, first):
    """A daily series of COUNT two-hour occurrences from ``first``; its
    id and the occurrences' ids."""
    made = post('/v1/series', {
        'flavor_id': 'gpu.a100', 'start': iso(first),
        'end': iso(first + 2 * HOUR),
        'recurrence': 'FREQ=DAILY;COUNT=%d' % COUNT})
    return made['id'], [o['id'] for o in made['occurrences']]


def _final(series_id, cancelled):
    """Every occurrence in ``cancelled`` is closed COMPLETE and holds no
    allocation."""
    with db_api.reader.using(admin_context()) as session:
        rows = session.scalars(sa.select(models.Booking).where(
            models.Booking.series_id == series_id)).all()
        held = session.scalar(sa.select(sa.func.count()).select_from(
            models.Allocation).where(models.Allocation.booking_id.in_(
                cancelled)))
    for row in rows:
        if row.id in cancelled:
            assert row.status == states.Booking.COMPLETE, row.id
            assert row.closed_as == states.Booking.COMPLETE
    assert held == 0


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(target=st.integers(0, COUNT - 1),
       moment=st.sampled_from(('before_read', 'before_close',
                               'after_close')),
       later=st.booleans(), from_index=st.sampled_from((None, 0, 1)))
def test_interleavings(api, flavor, monkeypatch, target, moment, later,
                       from_index):
    # Each example's series after the ones before it in this database
    # (one per backend), well within [booking] series_horizon_days.
    run = test_interleavings.runs.get(api, 0)
    test_interleavings.runs[api] = run + 1
    first = timeutils.utcnow().replace(microsecond=0) + DAY * (
        1 + (COUNT + 1) * run)

    def post(path, body):
        made = api.post_json(path, body, headers=A)
        return made.json['series']

    series_id, ids = _create(post, first)
    patched = ids[target]
    end = first + target * DAY + (3 * HOUR if later else HOUR)
    answers = []
    member = reserve_context.RequestContext(user_id='alice',
                                            project_id='project-a')

    def patch():
        # A request of its own cannot run inside the DELETE's (pecan's
        # request is per thread): the PATCH handler's admission instead.
        try:
            admission.change_end(member, bookings_db.booking_get(
                member, patched), end)
            answers.append('moved')
        except exception.InvalidState:
            answers.append('refused')

    real_read = series_booking.series_db.occurrences
    real_close = cancel.booking

    def read(context, sid):
        # Once, before the first read (with ?from= the DELETE reads the
        # occurrences twice).
        if moment == 'before_read' and not answers:
            patch()
        return real_read(context, sid)

    def close(context, booking_id, who):
        if booking_id == patched and moment == 'before_close':
            patch()
        closed = real_close(context, booking_id, who)
        if booking_id == patched and moment == 'after_close':
            patch()
        return closed

    monkeypatch.setattr(series_booking.series_db, 'occurrences', read)
    monkeypatch.setattr(cancel, 'booking', close)
    path = '/v1/series/%s' % series_id
    if from_index is not None:
        path += '?from=%s' % ids[from_index]
    deleted = api.delete(path, headers=A, expect_errors=True)
    monkeypatch.undo()

    assert deleted.status_int == 204, deleted.text
    cancelled = ids[from_index or 0:]
    if patched not in cancelled:
        # Not among those cancelled: the move ran alone, or not at all.
        assert set(answers) <= {'moved'}
    else:
        assert answers == ['refused' if moment == 'after_close'
                           else 'moved']
    _final(series_id, cancelled)
    # Whatever came before, a PATCH now is refused.
    again = api.patch_json('/v1/reservations/%s' % ids[-1],
                           {'end': iso(first + 9 * HOUR)}, headers=A,
                           expect_errors=True)
    assert again.status_int == 409
    # The occurrences left live go too: the examples share the project's
    # quota of reservations.
    for left in ids[:from_index or 0]:
        api.delete('/v1/reservations/%s' % left, headers=A)


test_interleavings.runs = {}


def test_sent_together_over_http(http, flavor):
    for round_ in range(4):
        first = timeutils.utcnow().replace(microsecond=0) + DAY * (
            1 + 4 * COUNT * round_)

        def post(path, body):
            made = http.post('member_a', path, json=body, headers=VERSION)
            assert made.status_code == 201, made.text
            return made.json()['series']

        series_id, ids = _create(post, first)
        target = round_ % COUNT
        delete, patch = together(
            lambda: http.delete('member_a', '/v1/series/%s' % series_id,
                                headers=VERSION),
            lambda: http.patch('member_a', '/v1/reservations/%s' % ids[
                target], json={'end': iso(first + target * DAY +
                                          3 * HOUR)}))
        assert delete.status_code == 204, delete.text
        assert patch.status_code in (200, 409), patch.text
        _final(series_id, ids)
