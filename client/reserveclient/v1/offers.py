"""The offer search of the reserve API: ``GET /v1/offers``, and booking
an offer as is (``POST /v1/reservations {"offer_id": ...}``).

Both exist from microversion 1.10; a server or a pinned version that does
not offer it is refused, saying so, before anything is sent.
"""
VERSION = '1.10'
PATH = '/v1/offers'


class OfferManager:
    """/v1/offers: windows that a booking of a shape is admitted in now,
    each bookable as is until it lapses."""

    def __init__(self, http):
        self.http = http

    def list(self, flavor, duration, count=None, earliest_start=None,
             latest_start=None, any_flavor_with=None, sort=None,
             limit=None):
        """The offers: [{id, flavor_id, flavor_name, instance_count,
        start, end, hosts, expires_at}]. ``duration`` (and
        ``latest_start``, when it is not a date) is an ISO 8601 duration
        or a number of hours, as the API reads it."""
        self.http.require_version(VERSION, 'Searching offers')
        params = {'flavor': flavor, 'duration': duration, 'count': count,
                  'earliest_start': earliest_start,
                  'latest_start': latest_start,
                  'any_flavor_with': any_flavor_with, 'sort': sort,
                  'limit': limit}
        return self.http.get(PATH, params)['offers']

    def book(self, offer_id, shared_project_ids=None):
        """The reservation made of the offer, as it was offered (shared
        with ``shared_project_ids``)."""
        self.http.require_version(VERSION, 'Booking an offer')
        body = {'offer_id': offer_id}
        if shared_project_ids:
            body['shared_project_ids'] = list(shared_project_ids)
        return self.http.post('/v1/reservations', body)['reservation']
