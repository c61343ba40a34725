"""The offer search of the API double (since microversion 1.10): ``GET
/v1/offers`` and booking an offer, ``POST /v1/reservations {"offer_id":
...}``. Below 1.10 the route is 404 and ``offer_id`` an unknown field
(400), as the API answers.

It offers what the double's ``_check_capacity`` admits (a flavor added
with ``slots`` holds that many instances at once): from the earliest
start (the server's now, ``api.calendar_now``, unless told), each window
of the asked length that fits, back to back, skipping past the bookings
in the way, up to the latest start (a week later unless told) and
``limit`` (10). Durations are ``PT<n>H``, ``P<n>D`` or hours. Each offer
is kept in ``api.offers`` ({id: offer}); booking it books its window
once (409 ``reserve.offer_used`` then), a lapsed one (``api.lapsed``, a
set of ids) is 409 ``reserve.offer_lapsed``, and an unknown one 404.
"""
import datetime
import re
import uuid

from reserveclient.tests.unit import fake_calendar
from reserveclient.tests.unit import fake_rest

VERSION = (1, 10)
PATH = '/v1/offers'
PARAMS = ('flavor', 'count', 'duration', 'earliest_start', 'latest_start',
          'any_flavor_with', 'sort', 'limit')


def is_offers(parts):
    return parts[1:] == ['offers']


def _invalid(reason):
    return fake_rest.ApiError(400, 'Invalid input: %s' % reason)


def _hours(text, name):
    match = re.match(r'^(?:P(\d+)D|PT(\d+)H|(\d+(?:\.\d+)?))$',
                     str(text).upper())
    if not match:
        raise _invalid("query parameter '%s': %r is not a duration" %
                       (name, text))
    days, hours, plain = match.groups()
    return datetime.timedelta(days=int(days or 0),
                              hours=float(hours or plain or 0))


def answer(api, method, path, params):
    if api.version() < VERSION:
        raise fake_rest.ApiError(404, 'The resource %s could not be found.'
                                 % path)
    if method != 'GET':
        raise fake_rest.ApiError(405, 'Method %s is not allowed.' % method,
                                 'reserve.method_not_allowed')
    unknown = sorted(set(params) - set(PARAMS))
    if unknown:
        raise _invalid("unknown query parameter '%s'" % unknown[0])
    if 'duration' not in params:
        raise _invalid("query parameter 'duration' is required")
    flavor = api.flavors.lookup(params['flavor'])
    length = _hours(params['duration'], 'duration')
    count = int(params.get('count', 1))
    earliest = (fake_calendar._parse(params['earliest_start'],
                                     'earliest_start')
                if 'earliest_start' in params else
                fake_calendar._parse(api.calendar_now, 'now'))
    latest = params.get('latest_start')
    if latest is None:
        latest = earliest + datetime.timedelta(days=7)
    elif str(latest).upper().startswith('P') or 'T' not in latest:
        latest = earliest + _hours(latest, 'latest_start')
    else:
        latest = fake_calendar._parse(latest, 'latest_start')
    offers, start = [], earliest
    while start <= latest and len(offers) < int(params.get('limit', 10)):
        body = {'instance_count': count,
                'start': fake_calendar._time(start),
                'end': fake_calendar._time(start + length)}
        try:
            api._check_capacity(flavor, body)
        except fake_rest.ApiError as refusal:
            start = fake_calendar._parse(
                refusal.fields['counter_offer']['after']['start'], 'after')
            continue
        offer = dict(body, id=str(uuid.uuid4()), flavor_id=flavor['id'],
                     flavor_name=flavor['name'], hosts=1,
                     expires_at='2026-12-04T15:07:11Z')
        api.offers[offer['id']] = offer
        offers.append(offer)
        start += length
    return fake_rest.FakeResponse(200, {'offers': offers})


def book(api, body):
    """The values of the booking of the offer ``body`` names (the caller
    adds it), or the API's error."""
    if api.version() < VERSION:
        raise _invalid("unknown field 'offer_id'")
    fixed = sorted(set(body) - {'offer_id'})
    if fixed:
        raise _invalid('an offer fixes %s: give offer_id alone' %
                       ', '.join(fixed))
    offer = api.offers.get(body['offer_id'])
    if offer is None:
        raise fake_rest.ApiError(404, 'Offer %s could not be found.' %
                                 body['offer_id'])
    if offer['id'] in api.lapsed:
        raise fake_rest.ApiError(
            409, 'Offer %s lapsed at %s. Search again: GET /v1/offers.' % (
                offer['id'], offer['expires_at']), 'reserve.offer_lapsed')
    if offer.get('booking_id'):
        raise fake_rest.ApiError(
            409, 'Offer %s was already booked, as reservation %s.' % (
                offer['id'], offer['booking_id']), 'reserve.offer_used')
    return {'flavor_id': offer['flavor_id'], 'start': offer['start'],
            'end': offer['end'], 'instance_count': offer['instance_count']}
