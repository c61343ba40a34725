"""The calendar of a flavor or a host: ``GET /v1/calendar``.

It exists from microversion 1.5 of the API; the call asks for it
whatever version the client speaks otherwise (as the diagnoses do), and
refuses, saying so, against a server that does not offer it.
:mod:`reserveclient.v1.timeline` draws the answer as text.
"""
from reserveclient import exceptions
from reserveclient.v1 import httpclient

VERSION = '1.5'
PATH = '/v1/calendar'


class CalendarManager:
    """/v1/calendar: the bookings and maintenance of a flavor's slots or
    of a host's rows over a range of time, and what stays free."""

    def __init__(self, http):
        self.http = http

    def _unserved(self, why):
        return exceptions.UnsupportedVersion(
            'The reserve API at %s does not serve the calendar (needs %s, '
            '%s)' % (self.http.endpoint, VERSION, why))

    def get(self, flavor=None, host=None, start=None, end=None):
        """The ``calendar`` object of one flavor or one host (an id or a
        name; the server refuses neither or both): view, subject, start,
        end, now, rows, free and statuses. ``start`` defaults (on the
        server) to now, ``end`` to a week after the start."""
        versions = self.http.server_versions()
        if versions is not None and \
                versions[1] < httpclient.parse_version(VERSION):
            raise self._unserved('it serves up to %s' %
                                 httpclient.format_version(versions[1]))
        params = {'flavor_id': flavor, 'host_id': host, 'start': start,
                  'end': end}
        try:
            doc = self.http.get(PATH, params, version=VERSION)
        except exceptions.NotAcceptable as exc:
            # The versions were not told (the discovery failed), and the
            # server does not know this one.
            raise self._unserved('which it refused: %s' % exc)
        return doc['calendar']
