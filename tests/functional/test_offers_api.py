"""The offer search (GET /v1/offers, microversion 1.10) and booking an
offer as is (POST /v1/reservations {"offer_id": ...}), over the real API
and database: offers are windows admission takes, one booking per
offer, while it is held, by its own project only."""
import datetime

import pytest

from reserve.booking import admission
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import ADMIN
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
from tests.functional.api_fixtures import roomy  # noqa: F401
from tests.functional.api_fixtures import SMALL_RECORD

URL = '/v1/offers'
BOOK = '/v1/reservations'
HOUR = datetime.timedelta(hours=1)
MINUTE = datetime.timedelta(minutes=1)
DAY = datetime.timedelta(days=1)


def _at(version, persona):
    return dict(persona, **{'OpenStack-API-Version': 'reserve %s' % version})


A = _at('1.10', MEMBER_A)
B = _at('1.10', MEMBER_B)
READER = _at('1.10', READER_A)

pytestmark = pytest.mark.usefixtures('roomy', 'casts')


@pytest.fixture
def base():
    """A whole minute an hour from now: the searches' earliest start."""
    return timeutils.utcnow().replace(second=0, microsecond=0) + HOUR


@pytest.fixture
def flavor(api, base):
    return make_flavor('gpu.a100', slots=2, max_length_hours=48,
                       start=base - DAY, end=base + 30 * DAY)


def _search(api, headers=A, **params):
    params = {k: iso(v) if isinstance(v, datetime.datetime) else v
              for k, v in params.items()}
    return api.get(URL, params, headers=headers, expect_errors=True)


def _book(api, start, end, count=1, headers=A, flavor='gpu.a100'):
    return api.post_json(BOOK, {'flavor_id': flavor, 'start': iso(start),
                                'end': iso(end), 'instance_count': count},
                         headers=headers, expect_errors=True)


def _book_offer(api, offer_id, headers=A, **more):
    return api.post_json(BOOK, dict(more, offer_id=offer_id),
                         headers=headers, expect_errors=True)


def _starts(response):
    assert response.status_int == 200, response.text
    return [o['start'] for o in response.json['offers']]


def test_offers_are_the_earliest_windows_one_after_the_other(
        api, flavor, base):
    # Both slots held for [+1 h, +3 h).
    assert _book(api, base + HOUR, base + 3 * HOUR, 2).status_int == 201
    found = _search(api, flavor='gpu.a100', duration='PT2H',
                    earliest_start=base, latest_start=base + 8 * HOUR)
    # Nothing fits before it; after it (a minute's guard, the next whole
    # minute), back to back up to the latest start.
    assert _starts(found) == [iso(base + h * HOUR + MINUTE)
                              for h in (3, 5, 7)]
    offer = found.json['offers'][0]
    assert offer['end'] == iso(base + 5 * HOUR + MINUTE)
    assert offer['flavor_id'] == flavor.id
    assert offer['flavor_name'] == 'gpu.a100'
    assert offer['instance_count'] == 1
    assert offer['hosts'] == 1
    expires = timeutils.parse(offer['expires_at'])
    assert timeutils.utcnow() < expires <= timeutils.utcnow() + 300 * \
        datetime.timedelta(seconds=1)
    assert len({o['id'] for o in found.json['offers']}) == 3


def test_an_offer_is_booked_as_is_and_once(api, flavor, base, casts):
    offers = _search(api, flavor='gpu.a100', duration=3, count=2,
                     earliest_start=base, latest_start=base).json['offers']
    assert [(o['start'], o['end'], o['instance_count']) for o in offers] \
        == [(iso(base), iso(base + 3 * HOUR), 2)]
    booked = _book_offer(api, offers[0]['id'])
    assert booked.status_int == 201, booked.text
    reservation = booked.json['reservation']
    assert (reservation['start'], reservation['end'],
            reservation['instance_count'], reservation['flavor_id']) == (
        offers[0]['start'], offers[0]['end'], 2, flavor.id)
    assert booked.headers['Location'].endswith(
        '/v1/reservations/%s' % reservation['id'])
    assert casts[-1]['method'] == 'create_lease'
    again = _book_offer(api, offers[0]['id'])
    assert_error(again, 409, 'reserve.offer_used',
                 [reservation['id'], 'GET /v1/offers'])


def test_an_offer_taken_meanwhile_is_refused_with_its_counter_offer(
        api, flavor, base):
    offer = _search(api, flavor='gpu.a100', duration='PT2H', count=2,
                    earliest_start=base).json['offers'][0]
    # Another project takes a slot of the window first: offers hold
    # nothing.
    assert _book(api, base, base + HOUR, 1, headers=B).status_int == 201
    refused = _book_offer(api, offer['id'])
    error = assert_error(refused, 409, 'reserve.no_capacity',
                         'The nearest windows of this shape that fit')
    assert error['counter_offer']['after']['start'] == iso(
        base + HOUR + MINUTE)
    # Still open: it was not used.
    assert _book(api, base + HOUR + MINUTE, base + 2 * HOUR, 2,
                 headers=B).status_int == 201


def test_a_lapsed_offer_says_so(api, flavor, base):
    offer = _search(api, flavor='gpu.a100', duration='PT1H',
                    earliest_start=base).json['offers'][0]
    with db_api.writer.using(admin_context()) as session:
        session.query(models.Offer).filter_by(id=offer['id']).update(
            {'expires_at': timeutils.utcnow() - MINUTE})
    assert_error(_book_offer(api, offer['id']), 409, 'reserve.offer_lapsed',
                 ['lapsed', 'Search again'])


def test_lapsed_offers_are_purged_by_later_searches(api, flavor, base):
    for _ in range(2):
        _search(api, flavor='gpu.a100', duration='PT1H',
                earliest_start=base, latest_start=base)
    with db_api.writer.using(admin_context()) as session:
        session.query(models.Offer).update(
            {'expires_at': timeutils.utcnow() - 2 * HOUR})
    _search(api, flavor='gpu.a100', duration='PT1H', earliest_start=base,
            latest_start=base, headers=B)
    with db_api.reader.using(admin_context()) as session:
        left = session.query(models.Offer).all()
    assert [o.project_id for o in left] == ['project-b']


def test_another_projects_offer_is_not_found(api, flavor, base):
    offer = _search(api, flavor='gpu.a100', duration='PT1H',
                    earliest_start=base).json['offers'][0]
    missing = assert_error(_book_offer(api, offer['id'], headers=B), 404,
                           'reserve.not_found')
    unknown = assert_error(_book_offer(api, 'no-such-offer', headers=B),
                           404, 'reserve.not_found')
    assert missing['detail'].replace(offer['id'], 'X') == \
        unknown['detail'].replace('no-such-offer', 'X')
    # Even for an administrator of another project.
    assert_error(_book_offer(api, offer['id'], headers=_at('1.10', ADMIN)),
                 404)
    assert _book_offer(api, offer['id']).status_int == 201


@pytest.mark.parametrize('field,value', [
    ('flavor_id', 'gpu.a100'), ('start', '2030-01-01T00:00:00Z'),
    ('end', '2030-01-01T01:00:00Z'), ('instance_count', 1)])
def test_an_offer_fixes_its_fields(api, flavor, base, field, value):
    offer = _search(api, flavor='gpu.a100', duration='PT1H',
                    earliest_start=base).json['offers'][0]
    assert_error(_book_offer(api, offer['id'], **{field: value}), 400,
                 'reserve.invalid', ['an offer fixes %s' % field,
                                     'give offer_id alone'])
    assert _book_offer(api, offer['id']).status_int == 201


def test_a_reader_searches_and_does_not_book(api, flavor, base):
    offer = _search(api, headers=READER, flavor='gpu.a100',
                    duration='PT1H', earliest_start=base).json['offers'][0]
    assert_error(_book_offer(api, offer['id'], headers=READER), 403)
    # A member of the project books what its reader found.
    assert _book_offer(api, offer['id']).status_int == 201


def test_before_1_7_there_are_no_offers(api, flavor, base):
    assert _search(api, headers=MEMBER_A, flavor='gpu.a100',
                   duration='PT1H').status_int == 404
    offer = _search(api, flavor='gpu.a100', duration='PT1H',
                    earliest_start=base).json['offers'][0]
    assert_error(_book_offer(api, offer['id'], headers=_at('1.6', MEMBER_A)),
                 400, 'reserve.invalid')
    # Without an offer, the fields are required as before.
    assert_error(api.post_json(BOOK, {'flavor_id': 'gpu.a100',
                                      'end': iso(base)}, headers=A,
                               expect_errors=True), 400, 'reserve.invalid',
                 ["missing required field 'start'", 'offer_id'])


@pytest.mark.parametrize('params,words', [
    ({}, ["'flavor' is required"]),
    ({'flavor': ''}, ["'flavor' is required"]),
    ({'duration': None}, ["'duration' is required"]),
    ({'duration': 'PT'}, ["'duration'", 'is not a duration']),
    ({'duration': 'P1M'}, ['years or months']),
    ({'duration': 'P1Y2D'}, ['years or months']),
    ({'duration': '-3'}, ['is not a duration']),
    ({'duration': '0'}, ['shorter than a minute']),
    ({'duration': 'PT30S'}, ['shorter than a minute']),
    ({'duration': 'four hours'}, ['is not a duration']),
    ({'duration': 'P99999999999W'}, ['too long']),
    ({'duration': 'P800D'}, ['max_query_days']),
    ({'count': '0'}, ["'count' must be a whole number from 1 to 1000"]),
    ({'count': '1001'}, ["'count'"]),
    ({'count': 'two'}, ["'count'"]),
    ({'count': '1.5'}, ["'count'"]),
    ({'limit': '0'}, ["'limit' must be a whole number from 1 to 50"]),
    ({'limit': '51'}, ["'limit'"]),
    ({'earliest_start': 'tomorrow'}, ['earliest_start', 'not an ISO 8601']),
    ({'earliest_start': '2026-12-01T00:00:00'}, ['earliest_start',
                                                 'no timezone']),
    ({'latest_start': 'soon'}, ['latest_start', 'not an ISO 8601 date']),
    ({'latest_start': 'P1M'}, ["'latest_start'", 'years or months']),
    ({'latest_start': '2001-01-01T00:00:00Z',
      'earliest_start': '2000-01-01T00:00:00Z'}, ['in the past']),
    ({'latest_start': '2020-01-01T00:00:00Z'}, ['is before']),
    ({'latest_start': 'P900D'}, ['max_query_days']),
    ({'sort': 'price'}, ["'sort' must be one of start, hosts"]),
    ({'any_flavor_with': 'colour'}, ["'any_flavor_with'", 'gpu_model']),
    ({'any_flavor_with': 'gpu_model'}, ['asks for no GPU']),
    ({'flavour': 'gpu.a100'}, ["unknown query parameter 'flavour'"]),
])
def test_bad_input_is_a_clear_400(api, flavor, base, params, words):
    asked = {'flavor': 'gpu.a100', 'duration': 'PT1H'}
    asked.update(params)
    asked = {k: v for k, v in asked.items() if v is not None}
    if not params:
        asked = {}
    assert_error(_search(api, **asked), 400, 'reserve.invalid', words)


def test_an_unknown_or_unbookable_flavor(api, flavor, base):
    assert_error(_search(api, flavor='nope', duration='PT1H'), 404)
    make_flavor('private', is_public=False)
    assert_error(_search(api, flavor='private', duration='PT1H'), 404)
    # Longer than the flavor's bookings may be: the booking's own error.
    assert_error(_search(api, flavor='gpu.a100', duration='P3D'), 400,
                 'reserve.booking_too_long')


def test_durations_in_hours_and_iso_8601_and_a_range_as_a_length(
        api, flavor, base):
    for duration in ('1.5', 'PT1H30M', 'pt90m', 'PT5400S'):
        offers = _search(api, flavor='gpu.a100', duration=duration,
                         earliest_start=base,
                         latest_start=base).json['offers']
        assert [(o['start'], o['end']) for o in offers] == [
            (iso(base), iso(base + 90 * MINUTE))], duration
    offers = _search(api, flavor='gpu.a100', duration='P1D',
                     earliest_start=base, latest_start='P2D').json['offers']
    assert [o['start'] for o in offers] == [iso(base + d * DAY)
                                            for d in (0, 1, 2)]


def test_limit(api, flavor, base):
    assert len(_search(api, flavor='gpu.a100', duration='PT1H',
                       earliest_start=base).json['offers']) == 10
    assert len(_search(api, flavor='gpu.a100', duration='PT1H', limit=3,
                       earliest_start=base).json['offers']) == 3


# GPUs: other flavors of the same GPUs, and how few hosts ---------------

def _gpu_flavor(name, specs, slots=8):
    record = dict(SMALL_RECORD, id=name, name=name, extra_specs=specs)
    return make_flavor(name, slots=slots, nova_flavor_id=name,
                       nova_flavor=record)


@pytest.fixture
def gpu_hosts(api):
    """Three hosts of VGPUs: two on one, one on each of the others."""
    make_host('gpu1.example.org', gpus={'VGPU': 2})
    make_host('gpu2.example.org', gpus={'VGPU': 1})
    make_host('gpu3.example.org', gpus={'VGPU': 1})


def test_any_flavor_with_the_same_gpu_model(api, gpu_hosts, base):
    _gpu_flavor('vgpu.small', {'resources:VGPU': '1'})
    _gpu_flavor('vgpu.large', {'resources:VGPU': '2'})
    _gpu_flavor('pgpu', {'resources:PGPU': '1'})
    offers = _search(api, flavor='vgpu.small', duration='PT1H', count=1,
                     earliest_start=base, latest_start=base,
                     any_flavor_with='gpu_model').json['offers']
    assert sorted(o['flavor_name'] for o in offers) == [
        'vgpu.large', 'vgpu.small']
    assert len(_search(api, flavor='vgpu.small', duration='PT1H',
                       earliest_start=base,
                       latest_start=base).json['offers']) == 1
    # Each is booked as offered.
    for offer in offers:
        assert _book_offer(api, offer['id']).status_int == 201


def test_sorted_by_how_few_hosts_hold_them(api, gpu_hosts, base):
    _gpu_flavor('vgpu', {'resources:VGPU': '1'})
    # Two instances on the host of two VGPUs for the first two hours.
    booked = _book(api, base, base + 2 * HOUR, 2, flavor='vgpu')
    assert booked.status_int == 201
    asked = dict(flavor='vgpu', duration='PT1H', count=2,
                 earliest_start=base, latest_start=base + 3 * HOUR)
    by_start = _search(api, **asked).json['offers']
    assert [(o['start'], o['hosts']) for o in by_start][:2] == [
        (iso(base), 2), (iso(base + HOUR), 2)]
    by_hosts = _search(api, sort='hosts', **asked).json['offers']
    assert (by_hosts[0]['start'], by_hosts[0]['hosts']) == (
        iso(base + 2 * HOUR + MINUTE), 1)
    assert [o['hosts'] for o in by_hosts] == sorted(
        o['hosts'] for o in by_hosts)
    assert _book_offer(api, by_hosts[0]['id']).status_int == 201


def test_two_bookings_of_one_offer_at_once_make_one(api, flavor, base):
    """Both past the API's look at the offer (as two requests at the same
    instant are): the admission's transaction lets one through."""
    # One of two slots: room for both, but one offer.
    offer = _search(api, flavor='gpu.a100', duration='PT1H',
                    earliest_start=base).json['offers'][0]
    ctx = reserve_context.RequestContext(user_id='alice',
                                         project_id='project-a',
                                         roles=['member'])
    shape = (flavor, timeutils.parse(offer['start']),
             timeutils.parse(offer['end']), 1)
    first = admission.book(ctx, *shape, offer_id=offer['id'])
    with pytest.raises(exception.OfferUsed):
        admission.book(ctx, *shape, offer_id=offer['id'])
    assert [b.id for b in bookings_db.booking_list(admin_context())] == [
        first.id]
