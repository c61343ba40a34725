"""Whether a noauth API would answer beyond loopback.

With ``[api] auth_strategy = noauth`` every caller may act as an
administrator, so the API must only listen on loopback unless
``[api] noauth_allow_remote`` says otherwise. reserve-api (and the
all-in-one) check the address they bind; under a WSGI server
(reserve.wsgi.api) the server bound its sockets before loading the
application, so the listening sockets of the process are checked. The
per-request guard (reserve.api.auth.NoAuthMiddleware) holds either way.
"""
import os
import socket
import stat

from reserve.api import auth


class NoAuthExposed(Exception):
    """noauth on an address other than loopback, not allowed."""


def check_exposure(conf, addresses):
    """NoAuthExposed if ``conf`` runs noauth, does not allow remote
    callers, and one of ``addresses`` is not on loopback."""
    if conf.api.auth_strategy != 'noauth' or conf.api.noauth_allow_remote:
        return
    for address in addresses:
        if not auth.is_loopback(address):
            raise NoAuthExposed(
                'refusing to listen on %s with [api] auth_strategy = '
                'noauth: any caller could act as an administrator. Listen '
                'on 127.0.0.1, use keystone, or set [api] '
                'noauth_allow_remote = true.' % (address or 'every address'))


def _descriptors():
    try:
        return [int(fd) for fd in os.listdir('/proc/self/fd')]
    except OSError:
        return range(1024)


def listening_addresses():
    """The addresses of the IP sockets this process listens on (those a
    WSGI server such as gunicorn or uwsgi bound before loading the
    application)."""
    found = []
    for fd in _descriptors():
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        with sock:
            try:
                if (sock.family not in (socket.AF_INET, socket.AF_INET6)
                        or not sock.getsockopt(socket.SOL_SOCKET,
                                               socket.SO_ACCEPTCONN)):
                    continue
                found.append(sock.getsockname()[0])
            except OSError:
                continue
    return found
