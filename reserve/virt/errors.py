"""libvirt's errors told in the service's own words.

libvirt's messages quote what it read: the test driver's parse error of
``test:///etc/passwd`` is the file's first line, a remote daemon's error
names its paths. None of that goes to the API caller (nor to a member's
``status_reason``): the error carries the operation and a short class of
reason picked by libvirt's error code, and the manager's log gets the
libvirt message once, at the place the error is made. The message stays
on the error as ``detail`` for the code (and tests) that need it.
"""
import libvirt
from oslo_log import log as logging

from reserve.virt import exception
from reserve.virt import uris

LOG = logging.getLogger(__name__)

_CLASSES = (
    (('XML_ERROR', 'XML_DETAIL', 'XML_INVALID_SCHEMA'),
     'its answer or definition could not be parsed'),
    (('AUTH_FAILED', 'AUTH_CANCELLED', 'AUTH_UNAVAILABLE'),
     'authentication failed'),
    (('SYSTEM_ERROR', 'RPC', 'NO_CONNECT', 'INVALID_CONN'),
     'connection failed'),
    (('OPERATION_TIMEOUT', 'AGENT_UNRESPONSIVE'), 'timed out'),
    (('NO_SUPPORT', 'OPERATION_UNSUPPORTED', 'CONFIG_UNSUPPORTED'),
     'not supported by the host'),
    (('OPERATION_INVALID',),
     'not valid in the current state of the domain or device'),
    (('INVALID_ARG',), 'invalid argument'),
    (('NO_DOMAIN',), 'no such domain'),
    (('NO_NODE_DEVICE', 'DEVICE_MISSING'), 'no such device'),
    (('OPERATION_FAILED', 'INTERNAL_ERROR'), 'the host reported a failure'),
)
REASONS = {getattr(libvirt, 'VIR_ERR_' + name): reason
           for names, reason in _CLASSES for name in names
           if hasattr(libvirt, 'VIR_ERR_' + name)}
_NAMES = {value: name for name, value in vars(libvirt).items()
          if name.startswith('VIR_ERR_') and isinstance(value, int)
          and name not in ('VIR_ERR_NONE', 'VIR_ERR_WARNING', 'VIR_ERR_ERROR')}


def reason(exc):
    """The short class of a libvirtError (or of any other error)."""
    code = _code(exc)
    if code in REASONS:
        return REASONS[code]
    if code is not None:
        return 'libvirt error %s' % _NAMES.get(code, code)
    return 'unexpected error (%s)' % type(exc).__name__


def _code(exc):
    if isinstance(exc, libvirt.libvirtError):
        try:
            return exc.get_error_code()
        except (TypeError, IndexError):
            return None
    return None


def unreachable(uri, exc=None, why=None):
    """HostUnreachable for an open of ``uri`` that failed with ``exc``
    (logged) or for ``why``."""
    where = uris.display(uri)
    if exc is not None:
        LOG.warning('Could not connect to the libvirt host at %s: %s',
                    where, exc)
        why = reason(exc)
    return exception.HostUnreachable(uri=where, reason=why,
                                     libvirt_code=_code(exc),
                                     detail=str(exc) if exc else why)


def failed(uri, operation, exc):
    """VirtError for ``operation`` on ``uri`` that raised ``exc``
    (logged)."""
    where = uris.display(uri)
    LOG.warning('libvirt at %s: %s failed: %s', where, operation, exc)
    return exception.VirtError(
        uri=where, reason='%s failed: %s' % (operation, reason(exc)),
        libvirt_code=_code(exc), detail=str(exc))
