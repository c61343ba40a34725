"""Errors of reserve; each carries the HTTP status the API answers with."""
import functools


class ReserveException(Exception):
    """Base error. ``msg_fmt`` is formatted with the keyword arguments."""
    msg_fmt = 'An unknown error occurred.'
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


class EventNotFound(NotFound):
    msg_fmt = 'Event %(id)s could not be found.'


class InvalidState(Conflict):
    msg_fmt = '%(what)s is %(status)s: %(reason)s'


class HostInUse(Conflict):
    msg_fmt = ('Host %(id)s holds allocations of reservations '
               '%(reservations)s and cannot be deleted.')


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


class CloudError(ReserveException):
    """A call to nova or placement failed; retried by the event loop."""
    msg_fmt = '%(service)s: %(reason)s'
    code = 502


class ServerDeletionTimeout(CloudError):
    msg_fmt = ('Servers %(servers)s of flavor %(flavor)s were still there '
               '%(timeout)d s after their deletion was asked.')


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
