"""Recurring bookings: ``/v1/series``.

A series exists from microversion 1.7 of the API (SERIES_VERSION); its
calls ask for it whatever version the client speaks otherwise (as the
calendar does), and refuse, saying so, against a server that does not
offer it.
"""
from reserveclient import exceptions
from reserveclient.v1 import httpclient

SERIES_VERSION = '1.7'
PATH = '/v1/series'
AS_MANY_AS_FIT = 'as_many_as_fit'


class SeriesManager:
    """/v1/series: a booking repeated by a recurrence rule, each
    occurrence a reservation of its own."""

    def __init__(self, http):
        self.http = http

    def _unserved(self, why):
        return exceptions.UnsupportedVersion(
            'The reserve API at %s does not serve recurring reservations '
            '(needs %s, %s)' % (self.http.endpoint, SERIES_VERSION, why))

    def _send(self, call, *args, **kwargs):
        versions = self.http.server_versions()
        if versions is not None and \
                versions[1] < httpclient.parse_version(SERIES_VERSION):
            raise self._unserved('it serves up to %s' %
                                 httpclient.format_version(versions[1]))
        try:
            return call(*args, version=SERIES_VERSION, **kwargs)
        except exceptions.NotAcceptable as exc:
            # The versions were not told (the discovery failed), and the
            # server does not know this one.
            raise self._unserved('which it refused: %s' % exc)

    def _item_path(self, series_id):
        return '%s/%s' % (PATH, httpclient.quote(series_id))

    def create(self, flavor_id, start, end, recurrence, instance_count=None,
               as_many_as_fit=False):
        """Book every occurrence of ``recurrence`` (an RRULE): all or
        none, or with ``as_many_as_fit`` those that fit."""
        body = {'flavor_id': flavor_id, 'start': start, 'end': end,
                'recurrence': recurrence}
        if instance_count is not None:
            body['instance_count'] = instance_count
        if as_many_as_fit:
            body['series_policy'] = AS_MANY_AS_FIT
        return self._send(self.http.post, PATH, body)['series']

    def get(self, series_id):
        return self._send(self.http.get, self._item_path(series_id))[
            'series']

    def list(self, all_projects=False, project_id=None, limit=None,
             marker=None):
        params = {'project_id': project_id}
        if all_projects:
            params['all_projects'] = 'true'
        return self._send(self.http.list, PATH, 'series', params,
                          limit=limit, marker=marker)

    def delete(self, series_id, from_occurrence=None):
        """Cancel the occurrences not yet ended: all, or those from the
        reservation ``from_occurrence`` on."""
        self._send(self.http.delete, self._item_path(series_id),
                   {'from': from_occurrence})
