"""Errors of reserve; each carries the HTTP status the API answers with."""
import functools

from keystoneauth1 import exceptions as ks_exc


INTERNAL_ERROR = 'internal error, request id %s'


class ReserveException(Exception):
    """Base error. ``msg_fmt`` is formatted with the keyword arguments.

    ``user_message`` is what a project member may read of it (a
    status_reason, a last_error, a mail): the message, unless the class
    sets ``safe_fmt`` because its message quotes someone else's text (a
    cloud's answer with its endpoint URL, a library's error), which is
    for the logs."""
    msg_fmt = 'An unknown error occurred.'
    safe_fmt = None
    code = 500

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    def error_fields(self):
        """More fields of the API's error object for this error: none
        unless a class says."""
        return {}

    @property
    def user_message(self):
        if self.safe_fmt is None:
            return self.message
        try:
            return self.safe_fmt % self.kwargs
        except (KeyError, TypeError):
            return self.safe_fmt


def public_message(exc, request_id=None):
    """What of ``exc`` a project member may read: a reserve error's
    user_message; of anything else (a database error, a library's, a
    remote traceback) only "internal error, request id ...", the caller
    logging the whole exception with that request id."""
    if isinstance(exc, ReserveException):
        return exc.user_message
    return INTERNAL_ERROR % (request_id or 'unknown')


class Invalid(ReserveException):
    msg_fmt = 'Invalid input: %(reason)s'
    code = 400


class NotFound(ReserveException):
    msg_fmt = 'Not found.'
    code = 404


class Forbidden(ReserveException):
    msg_fmt = 'Policy does not allow %(action)s to be performed.'
    code = 403


class Conflict(ReserveException):
    msg_fmt = 'Conflict: %(reason)s'
    code = 409


class OverQuota(ReserveException):
    msg_fmt = 'Quota exceeded: %(reason)s'
    code = 413


class BookingNotFound(NotFound):
    msg_fmt = 'Reservation %(id)s could not be found.'


class LeaseNotFound(NotFound):
    msg_fmt = 'Lease %(id)s could not be found.'


class HostNotFound(NotFound):
    msg_fmt = 'Host %(id)s could not be found.'


class AllocationNotFound(NotFound):
    msg_fmt = 'Allocation %(id)s could not be found.'


class InvalidState(Conflict):
    msg_fmt = '%(what)s is %(status)s: %(reason)s'


class HostInUse(Conflict):
    msg_fmt = ('Host %(id)s holds allocations of reservations '
               '%(reservations)s and cannot be deleted.')


class HostHoldsReservations(Conflict):
    msg_fmt = ('%(what)s of host %(host)s would take it from %(count)d '
               'reservation(s): %(reservations)s. Set force to true to '
               'move them to other hosts (cancelling, with the reason, '
               'those no host has room for).')


class HostMaintenanceWindowNotFound(NotFound):
    msg_fmt = 'Host maintenance window %(id)s could not be found.'


class HostAlreadyEnrolled(Conflict):
    msg_fmt = 'Host %(name)s is already enrolled as %(id)s.'


class HypervisorNotFound(Invalid):
    msg_fmt = 'Nova knows no hypervisor named %(name)s.'


class NovaFlavorNotFound(Invalid):
    msg_fmt = 'Nova flavor %(id)s could not be found.'


class NotEnoughHostsAvailable(ReserveException):
    msg_fmt = ('Not enough hosts available: %(wanted)d instance(s) of '
               '%(what)s wanted, %(found)d fit between %(start)s and %(end)s.')
    code = 409


class EventMustWait(ReserveException):
    """An event cannot run yet (what it follows has not run); the event
    loop tries it again without counting an attempt."""
    msg_fmt = '%(reason)s'
    code = 409


class DevicesNotReleased(EventMustWait):
    msg_fmt = ('devices %(devices)s are still held by device reservation(s) '
               '%(holders)s, whose end has not run yet')


class CloudError(ReserveException):
    """A call to nova or placement failed; retried by the event loop."""
    msg_fmt = '%(service)s: %(reason)s'
    safe_fmt = ('a call to %(service)s failed (the operators have the '
                'details)')
    code = 502


class CloudNotConfigured(CloudError):
    """reserve has no usable [nova] or [placement] settings."""
    msg_fmt = ('%(service)s is not configured here (%(reason)s): set the '
               '[%(service)s] options of reserve.conf (auth_type and its '
               'credentials, or an endpoint)')
    # The reason may quote the auth plugin's own error: for the logs.
    safe_fmt = ('%(service)s is not configured here: set the '
                '[%(service)s] options of reserve.conf')
    code = 503


class RPCVersionCapped(ReserveException):
    """[upgrade_levels] keeps this node from asking something of daemons
    that may still run an older release."""
    msg_fmt = ('%(topic)s cannot do this until the upgrade is finished: '
               '%(method)s needs RPC %(version)s and [upgrade_levels] '
               '%(group)s caps messages at %(cap)s.')
    code = 503


class ServerDeletionTimeout(CloudError):
    msg_fmt = ('Servers %(servers)s of flavor %(flavor)s were still there '
               '%(timeout)d s after their deletion was asked.')
    safe_fmt = None  # all of it reserve's own words


# The booking desk ----------------------------------------------------------


class FlavorNotFound(NotFound):
    msg_fmt = 'Flavor %(id)s could not be found.'


class FlavorAlreadyExists(Conflict):
    msg_fmt = 'A flavor named %(name)s exists already (%(id)s).'


class FlavorInUse(Conflict):
    msg_fmt = ('Flavor %(name)s is referenced by %(count)d reservation(s) '
               'and cannot be deleted; set active to false to stop new '
               'bookings instead.')


class GrantNotFound(NotFound):
    msg_fmt = 'Project %(project)s has no grant on flavor %(flavor)s.'


class GrantAlreadyExists(Conflict):
    msg_fmt = 'Project %(project)s is already granted flavor %(flavor)s.'


class QuotaUnavailable(ReserveException):
    msg_fmt = ('Quota limits cannot be read from keystone now (%(reason)s); '
               'try again later.')
    safe_fmt = ('Quota limits cannot be read from keystone now; try again '
                'later.')
    code = 503


class SpotFlavorBooked(FlavorInUse):
    msg_fmt = ('Flavor %(name)s holds %(count)d live reservation(s) and '
               'cannot become a spot flavor, which is never booked: let '
               'them end (or cancel them) first, or add another catalogue '
               'entry with spot true.')


class SpotFlavorRefused(Invalid):
    msg_fmt = 'Flavor %(name)s cannot be a spot flavor: %(reason)s'


class NotSpotFlavor(Conflict):
    msg_fmt = ('Flavor %(name)s is not a spot flavor: projects opt in to '
               'spot flavors only. Book it instead (POST /v1/reservations, '
               '"openstack reserve reservation create").')


class MaintenanceWindowNotFound(NotFound):
    msg_fmt = 'Maintenance window %(id)s could not be found.'


class MaintenanceOverlapsReservations(Conflict):
    msg_fmt = ('The maintenance window overlaps %(count)d live '
               'reservation(s): %(reservations)s. Move them, or set force '
               'to true to create it anyway.')


# The gauntlet of a booking, one error per rule, in the order they run.

class FlavorNotAvailable(Invalid):
    msg_fmt = ('Flavor %(ref)s is not available to project %(project)s: '
               'no catalogue flavor has this id or name, or it is private '
               'and not granted to the project.')


class FlavorInactive(Conflict):
    msg_fmt = 'Flavor %(name)s is not active: it cannot be booked.'


class SpotFlavorInactive(FlavorInactive):
    msg_fmt = ('Spot flavor %(name)s is not active: no project can opt in '
               'to it until an administrator sets active to true.')


class SpotFlavorNotBooked(Conflict):
    msg_fmt = ('Flavor %(name)s is a spot flavor, and spot flavors are not '
               'booked: they have no reservations and no calendar. Opt in '
               'to it ("openstack reserve flavor opt-in %(name)s", POST '
               '/v1/flavors/%(name)s/opt-in), then boot its nova flavor '
               '%(nova_flavor)s: its servers run on idle reserved GPUs '
               'and are taken back when those are needed.')


class FlavorNotGranted(Forbidden):
    msg_fmt = ('Flavor %(name)s is private and not granted to project '
               '%(project)s.')


class BookingTooLong(Invalid):
    msg_fmt = ('The reservation lasts %(hours)s hours, longer than the '
               '%(max)d hours flavor %(name)s allows.')


class OutsideFlavorWindow(Invalid):
    msg_fmt = ('Flavor %(name)s can only be booked %(window)s; the '
               'reservation runs from %(start)s to %(end)s.')


class Refusal(Conflict):
    """A refusal for capacity that can say what fits instead: a booking
    overlapping maintenance, a device reservation whose devices are not
    free (NoCapacity, the first of them, says it in its own words)."""
    counter_offer = None

    def offering(self, counter_offer, offer_text):
        """This refusal again, with what fits instead: ``offer_text``
        after its message, ``counter_offer`` (None: not at the request's
        microversion) in its error object."""
        said = self.message.rstrip()
        found = type(self)('%s%s %s' % (said, '' if said.endswith('.')
                                        else '.', offer_text),
                           **self.kwargs)
        found.counter_offer = counter_offer
        return found

    def error_fields(self):
        if self.counter_offer is None:
            return {}
        return {'counter_offer': self.counter_offer}


class MaintenanceConflict(Refusal):
    msg_fmt = ('The reservation overlaps maintenance of flavor %(name)s: '
               '%(windows)s.')


class NoCapacity(Conflict):
    msg_fmt = ('No capacity: %(count)d instance(s) of flavor %(name)s do '
               'not fit between %(start)s and %(end)s: at most %(free)d do '
               '(of its %(slots)d slots, %(slots_free)d are free throughout;'
               ' the enrolled hosts hold %(hosts_hold)d more throughout, '
               'beside every other reservation on them), counting a '
               '%(guard)d s guard after each reservation.%(offer)s GET '
               '/v1/flavors/%(id)s/free-slots lists the windows that fit.')

    def __init__(self, message=None, counter_offer=None, offer_text='',
                 **kwargs):
        # counter_offer: what the API adds to the error body (see
        # error_fields); offer_text: the sentence saying it.
        self.counter_offer = counter_offer
        kwargs.pop('offer', None)
        super().__init__(message, offer=' ' + offer_text if offer_text
                         else '', **kwargs)

    def offering(self, counter_offer, offer_text):
        """This refusal again, with what fits instead."""
        return NoCapacity(counter_offer=counter_offer,
                          offer_text=offer_text, **self.kwargs)

    def error_fields(self):
        if self.counter_offer is None:
            return {}
        return {'counter_offer': self.counter_offer}


class SeriesNotFound(NotFound):
    msg_fmt = 'Series %(id)s not found.'


class SeriesDoesNotFit(Conflict):
    """A series refused as a whole: ``refused``, the occurrences that do
    not fit, [(start, end, the error refusing it)] in the series' order.
    The API's error object lists them (``occurrences``, see
    described)."""
    msg_fmt = ('The series does not fit: %(refused)d of its %(total)d '
               'occurrences cannot be booked (%(which)s); none was booked.'
               '%(how)s')

    def __init__(self, refused, total, how='', occurrences=None):
        self.refused = refused
        self.occurrences = occurrences
        super().__init__(
            refused=len(refused), total=total,
            which='; '.join('from %s: %s' % (
                start.isoformat(timespec='seconds') + 'Z', error.message)
                for start, _end, error in refused),
            how=' ' + how if how else '')
        self.how = how

    def described(self, occurrences):
        """This refusal again, its error object listing ``occurrences``
        (one dict per refused occurrence)."""
        return SeriesDoesNotFit(self.refused, self.kwargs['total'],
                                self.how, occurrences)

    def error_fields(self):
        if self.occurrences is None:
            return {}
        return {'occurrences': self.occurrences}


class FlavorNotSized(Conflict):
    msg_fmt = ('Flavor %(name)s cannot be booked: the size of its nova '
               'flavor %(nova_flavor)s was never read. An administrator '
               'updates the entry (PATCH /v1/flavors/%(name)s, any field) '
               'to read it from nova.')


class NovaFlavorFitsNoHost(Conflict):
    msg_fmt = ('Nova flavor %(nova_flavor)s (%(size)s) fits on no enrolled '
               'host%(filtered)s: no instance of it could ever be booked. '
               'Enroll a host that can hold it first, or choose a smaller '
               'nova flavor.')


# GPU devices of libvirt hosts ----------------------------------------------


class LibvirtHostUnreachable(Invalid):
    msg_fmt = 'Cannot enroll %(uri)s: %(reason)s'


class LibvirtUriNotAllowed(Invalid):
    msg_fmt = ('This libvirt URI is not allowed: %(reason)s. Allowed: '
               '%(allowed)s.')


class HostNotLibvirt(Invalid):
    msg_fmt = ('Host %(name)s is a %(kind)s host; GPU devices are reserved '
               'on libvirt hosts (enrolled with a uri).')


class DeviceNotFound(NotFound):
    msg_fmt = 'Device %(id)s could not be found.'


class DeviceReservationNotFound(NotFound):
    msg_fmt = 'Device reservation %(id)s could not be found.'


class DomainNotFound(Invalid):
    msg_fmt = 'Domain %(name)s does not exist on host %(host)s.'


class DomainOwnerNotFound(NotFound):
    msg_fmt = 'No owner is recorded for domain %(name)s of host %(host)s.'


class DomainOwnerExists(Conflict):
    msg_fmt = ('Domain %(name)s of host %(host)s has an owner already '
               '(%(project_id)s); change it with PATCH.')


class HostRunByNova(Invalid):
    msg_fmt = ('Host %(name)s is run by nova: its domains\' owners are read '
               'from nova\'s metadata, not recorded.')


class DeviceRefusal(Refusal):
    """A device reservation refused for the devices it asks
    (reserve.booking.device_counter_offer says what fits instead)."""


class DevicesUnavailable(DeviceRefusal):
    msg_fmt = 'The GPU devices cannot be reserved: %(reason)s'


class DevicesDoNotFit(DeviceRefusal):
    msg_fmt = 'No GPU devices fit: %(reason)s'


# keystoneauth's answers when there is no auth plugin or no endpoint to
# reach: a deployment problem, not a failing cloud.
_NOT_CONFIGURED = (ks_exc.MissingAuthPlugin, ks_exc.EndpointNotFound)


def translate_cloud_errors(service, *client_errors):
    """Class decorator: client library errors of ``service`` escape the
    public methods as CloudError, with the method and the cause."""

    def wrap(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            try:
                return func(*args, **kwargs)
            except ReserveException:
                raise
            except _NOT_CONFIGURED as exc:
                raise CloudNotConfigured(service=service, reason=exc)
            except client_errors as exc:
                raise CloudError(service=service, reason='%s: %s' % (
                    func.__name__, exc or type(exc).__name__))
        return wrapper

    def decorate(cls):
        for name, attr in list(vars(cls).items()):
            if callable(attr) and not name.startswith('_'):
                setattr(cls, name, wrap(attr))
        return cls
    return decorate


class OfferNotFound(NotFound):
    msg_fmt = 'Offer %(id)s could not be found.'


class OfferLapsed(Conflict):
    msg_fmt = ('Offer %(id)s lapsed at %(expires_at)s (an offer can be '
               'booked for %(hold)d s after the search). Search again: GET '
               '/v1/offers.')


class OfferUsed(Conflict):
    msg_fmt = ('Offer %(id)s was already booked, as reservation '
               '%(booking_id)s. Search again for another: GET /v1/offers.')
