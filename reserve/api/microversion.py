"""API microversions: ``OpenStack-API-Version: reserve <major>.<minor>``.

A new microversion is one more entry in ``VERSIONS`` (with a line saying
what it changed); views ask ``serves(version)`` whether the request asks
for that ``Version`` or later.

Request without the header → the minimum version; ``latest`` → the
maximum; a malformed value → 400; a version outside the range → 406.
"""
import collections

import pecan
import webob

from reserve.api import errors
from reserve.common import exception

SERVICE_TYPE = 'reserve'
HEADER = 'OpenStack-API-Version'
ENV_KEY = 'reserve.api_version'

# Every microversion ever released, oldest first.
#   1.0 - the first API: reservations, leases, hosts
#   1.1 - the glossary's names beside the earlier ones, which stay:
#         reserved_flavor_id of a reservation (compute_flavor) and of a
#         lease's reservation (flavor_id), lease_reservation_id of an
#         allocation (reservation_id), device_reservation_id of a GPU
#         device (reservation_id)
#   1.2 - one name per concept, the earlier ones gone: an allocation's
#         amount (count) and lease_reservation_id (reservation_id, also
#         as a query parameter of /v1/allocations), and of a lease's
#         allocations amount (count); reserved_flavor_id alone of a
#         reservation (compute_flavor) and of a lease's reservation
#         (flavor_id); a device reservation's device_ids, devices,
#         device_count and attachments[].device_id (unit_ids, units,
#         count, unit_id), in its bodies and its request record too, and
#         the device_ids of /v1/devices/availability (unit_ids); a
#         device's reservation_id is gone (device_reservation_id stays);
#         the quota resources device_reservations and device_hours of
#         /v1/limits (unit_reservations, unit_hours)
#   1.3 - the operators' playbook: the diagnosis of a reservation and of a
#         device reservation, and the doctor (/v1/diagnoses); what a
#         reservation got (delivery, in GET /v1/reservations/{id}) and the
#         delivery report of a period (/v1/reports/delivery); a host's
#         failure and failed_at; a reservation's and a device
#         reservation's missing capacity (missing_capacity)
#   1.4 - spot devices: POST /v1/device-reservations/{id}/release and
#         /reclaim (with its dry run), a device reservation's
#         released_device_ids, the state spot of a device on the spot
#         market (and ?spot=true of GET /v1/devices), POST
#         /v1/devices/{id}/attach of a device on the market to a spot
#         domain; spot flavors: spot of a catalogue flavor (in its bodies,
#         and in its view with opted_in and spot_project_ids), POST and
#         DELETE /v1/flavors/{id}/opt-in, spot and spot_available of
#         /v1/flavors/availability
#   1.5 - the calendar: GET /v1/calendar?flavor_id= or ?host_id=, what the
#         calendar page (/calendar/) and the terminal timeline draw
#   1.6 - a refused booking's counter offer: the counter_offer of the
#         409 reserve.no_capacity of POST /v1/reservations (the nearest
#         windows of the same shape that fit, before and after the asked
#         start, and the most instances that fit in the asked window) and
#         of a later end's PATCH (latest_end: the latest that fits)
#   1.7 - recurring bookings: /v1/series (POST a booking with a
#         recurrence, GET one or a list, DELETE the rest), and a
#         reservation's series_id
#   1.8 - the standby list: standby and standby_until of POST
#         /v1/reservations (a booking refused for capacity waits as
#         STANDBY and is admitted when room frees, or LAPSED), a
#         reservation's standby_since and standby_until
#   1.9 - shared reservations: shared_project_ids of POST
#         /v1/reservations and of a reservation's view, PUT
#         /v1/reservations/{id}/shared-projects (the whole list) and PUT
#         or DELETE /v1/reservations/{id}/shared-projects/{project_id}
#   1.10 - the offer search: GET /v1/offers (concrete windows of a shape
#          over a range of starts, held for [booking] offer_hold_seconds),
#          and POST /v1/reservations {"offer_id": ...} booking one as is
#   1.11 - a refused device reservation's counter offer: the counter_offer
#          of the 409 reserve.devices_do_not_fit and
#          reserve.units_unavailable of POST /v1/device-reservations (the
#          nearest windows of the same request that fit, before and after
#          the asked start, and the most devices that fit in the asked
#          window) and of a later end's PATCH (latest_end); and the
#          counter_offer of the 409 reserve.maintenance of POST and PATCH
#          /v1/reservations, as reserve.no_capacity's
VERSIONS = ('1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8',
            '1.9', '1.10', '1.11')


class Version(collections.namedtuple('Version', 'major minor')):
    """A comparable microversion."""

    @classmethod
    def parse(cls, text):
        """'1.2' → Version(1, 2); ValueError when it is not of that form."""
        parts = str(text).strip().split('.')
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise ValueError(text)
        major, minor = (int(p) for p in parts)
        if str(major) != parts[0] or str(minor) != parts[1]:
            # No leading zeros: 1.01 is not a version.
            raise ValueError(text)
        return cls(major, minor)

    def __str__(self):
        return '%d.%d' % (self.major, self.minor)


MIN_VERSION = Version.parse(VERSIONS[0])
MAX_VERSION = Version.parse(VERSIONS[-1])
GLOSSARY_NAMES = Version(1, 1)
ONE_NAME = Version(1, 2)
PLAYBOOK = Version(1, 3)
SPOT = Version(1, 4)
CALENDAR = Version(1, 5)
COUNTER_OFFER = Version(1, 6)
SERIES = Version(1, 7)
STANDBY = Version(1, 8)
SHARING = Version(1, 9)
OFFERS = Version(1, 10)
DEVICE_COUNTER_OFFER = Version(1, 11)


def _requested(header_value):
    """The version string asked of this service, or None."""
    for item in header_value.split(','):
        words = item.split()
        if not words:
            continue
        if words[0].lower() != SERVICE_TYPE:
            continue
        if len(words) != 2:
            raise exception.Invalid(
                reason='%s header %r must be "%s <major>.<minor>" or '
                       '"%s latest"' % (HEADER, item.strip(), SERVICE_TYPE,
                                        SERVICE_TYPE))
        return words[1]
    return None


def from_header(header_value):
    """The Version a request asks for (header value may be None)."""
    wanted = _requested(header_value or '')
    if wanted is None:
        return MIN_VERSION
    if wanted.lower() == 'latest':
        return MAX_VERSION
    try:
        version = Version.parse(wanted)
    except ValueError:
        raise exception.Invalid(
            reason='%s header: %r is not a version; use "%s <major>.<minor>"'
                   ' or "%s latest"' % (HEADER, wanted, SERVICE_TYPE,
                                        SERVICE_TYPE))
    if not MIN_VERSION <= version <= MAX_VERSION:
        raise errors.NotAcceptable(
            reason='version %s of the %s API is not supported; this server '
                   'supports %s to %s' % (version, SERVICE_TYPE,
                                          MIN_VERSION, MAX_VERSION))
    return version


def serves(version):
    """Whether the request being served asks for ``version`` or later
    (for views; outside a request, the minimum is served)."""
    try:
        environ = pecan.request.environ
    except (AttributeError, RuntimeError, TypeError):
        return MIN_VERSION >= version
    return environ.get(ENV_KEY, MIN_VERSION) >= version


def header_value(version):
    return '%s %s' % (SERVICE_TYPE, version)


def _add_vary(response):
    vary = [v for v in (response.vary or ()) if v.lower() != HEADER.lower()]
    response.vary = vary + [HEADER]


class MicroversionMiddleware:
    """Negotiates the version of each request and labels the answer."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        request = webob.Request(environ)
        try:
            version = from_header(request.headers.get(HEADER))
        except exception.ReserveException as exc:
            response = errors.response_for_exception(
                exc, errors.request_id_of(environ))
            _add_vary(response)
            return response(environ, start_response)
        environ[ENV_KEY] = version
        response = request.get_response(self.application)
        response.headers[HEADER] = header_value(version)
        _add_vary(response)
        return response(environ, start_response)
