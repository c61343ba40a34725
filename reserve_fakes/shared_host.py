"""One completed test:/// host shared by several processes.

For tests only. A ``test:///`` host's state lives in the connection that
opened it (reserve_fakes.libvirt_host), so two managers that each open the same
URI see two different hosts: what one attaches, the other never sees.
A real GPU host has one state, whoever connects to it. This module gives
tests that host:

* ``serve(path)`` (``python -m reserve_fakes.shared_host --socket PATH``)
  opens each URI it is asked for once, as a reserve_fakes.libvirt_host
  FakeConnect, and answers the calls of every client on a UNIX socket,
  one call at a time;
* ``opener(path)`` is an ``opener`` for reserve.virt.connection: its
  connections forward each call to that server.

Domains and node devices cross the socket by name (a domain's UUID, a
node device's name) and are looked up again for every call, as the
remote driver does with its handles; a device removed meanwhile answers
NO_NODE_DEVICE, as it does on a real host. libvirt errors come back with
their code, domain and message. A server that went away is a connection
that is no longer alive (VIR_ERR_SYSTEM_ERROR), so the HostConnection
opens a new one.
"""
import argparse
import os
import socket
import threading
from multiprocessing import connection as mp_connection

import libvirt

from reserve.virt import connection as virt_connection
from reserve_fakes import libvirt_host

_DOMAIN, _NODE_DEVICE = 'domain', 'nodedev'


def _kind_of(value):
    if hasattr(value, 'UUIDString'):
        return _DOMAIN
    if hasattr(value, 'listCaps'):
        return _NODE_DEVICE
    return None


class _Server:
    def __init__(self):
        self._lock = threading.RLock()
        self._hosts = {}

    def host(self, uri):
        conn = self._hosts.get(uri)
        if conn is None:
            conn = self._hosts[uri] = libvirt_host.FakeConnect(
                libvirt.open(uri))
        return conn

    def _target(self, uri, kind, name):
        conn = self.host(uri)
        if kind is None:
            return conn
        if kind == _DOMAIN:
            return conn.lookupByUUIDString(name)
        return conn.nodeDeviceLookupByName(name)

    def _encode(self, value):
        if isinstance(value, (list, tuple)):
            return [self._encode(v) for v in value]
        kind = _kind_of(value)
        if kind == _DOMAIN:
            return ('__ref__', kind, value.UUIDString())
        if kind == _NODE_DEVICE:
            return ('__ref__', kind, value.name())
        return value

    def holders(self, uri):
        """{(kind, id): sorted domain names} of every hostdev of the
        host, live or defined, read in one go."""
        host = virt_connection.HostConnection(
            uri, opener=lambda _uri: self.host(uri))
        return {key: sorted(names)
                for key, names in host._holders().items()}

    def answer(self, request):
        uri, kind, name, method, args, kwargs = request
        with self._lock:
            try:
                if method == '__holders__':
                    return ('ok', self.holders(uri))
                if method == '__ping__':
                    self.host(uri)
                    return ('ok', True)
                target = self._target(uri, kind, name)
                return ('ok', self._encode(
                    getattr(target, method)(*args, **kwargs)))
            except libvirt.libvirtError as exc:
                return ('libvirt', exc.err)
            except Exception as exc:    # the client re-raises it
                return ('error', '%s: %s' % (type(exc).__name__, exc))

    def handle(self, client):
        with client:
            while True:
                try:
                    request = client.recv()
                except (EOFError, OSError):
                    return
                client.send(self.answer(request))


def serve(path, ready=None):
    """Answer clients on the UNIX socket ``path`` until killed."""
    if os.path.exists(path):
        os.unlink(path)
    server = _Server()
    with mp_connection.Listener(path, family='AF_UNIX') as listener:
        if ready is not None:
            ready.set()
        while True:
            client = listener.accept()
            threading.Thread(target=server.handle, args=(client,),
                             daemon=True).start()


def _error(code, message):
    error = libvirt.libvirtError.__new__(libvirt.libvirtError)
    Exception.__init__(error, message)
    error.err = (code, libvirt.VIR_FROM_RPC, message, libvirt.VIR_ERR_ERROR,
                 message, None, None, 0, 0)
    return error


class RemoteConnect:
    """A connection to one host of the shared server."""

    def __init__(self, path, uri):
        self.uri = uri
        self._lock = threading.Lock()
        try:
            self._client = mp_connection.Client(path, family='AF_UNIX')
        except (OSError, socket.error) as exc:
            raise _error(libvirt.VIR_ERR_SYSTEM_ERROR,
                         'Failed to connect socket to %r: %s' % (path, exc))
        self.call(None, None, '__ping__')

    def call(self, kind, name, method, *args, **kwargs):
        with self._lock:
            if self._client is None:
                raise _error(libvirt.VIR_ERR_INTERNAL_ERROR,
                             'client socket is closed')
            try:
                self._client.send((self.uri, kind, name, method, args,
                                   kwargs))
                status, value = self._client.recv()
            except (EOFError, OSError) as exc:
                self._client = None
                raise _error(libvirt.VIR_ERR_SYSTEM_ERROR,
                             'Cannot recv data: %s' % (exc or 'EOF'))
        if status == 'libvirt':
            error = libvirt.libvirtError.__new__(libvirt.libvirtError)
            Exception.__init__(error, value[2])
            error.err = tuple(value)
            raise error
        if status == 'error':
            raise RuntimeError(value)
        return self._decode(value)

    def _decode(self, value):
        if isinstance(value, list):
            return [self._decode(v) for v in value]
        if isinstance(value, tuple) and value[:1] == ('__ref__',):
            return _RemoteObject(self, value[1], value[2])
        return value

    def holders(self):
        return self.call(None, None, '__holders__')

    def isAlive(self):
        return self._client is not None

    def close(self):
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
        return 0

    def __getattr__(self, method):
        if method.startswith('_'):
            raise AttributeError(method)
        return lambda *args, **kwargs: self.call(None, None, method, *args,
                                                 **kwargs)


class _RemoteObject:
    """A domain or node device of the remote host, by name."""

    def __init__(self, conn, kind, name):
        self._conn, self._kind, self._name = conn, kind, name

    def __getattr__(self, method):
        if method.startswith('_'):
            raise AttributeError(method)
        return lambda *args, **kwargs: self._conn.call(
            self._kind, self._name, method, *args, **kwargs)

    def __repr__(self):
        return '<remote %s %s>' % (self._kind, self._name)


def opener(path):
    """An ``opener`` for HostConnection reaching test:/// hosts through
    the shared server on ``path``."""
    return lambda uri: RemoteConnect(path, uri)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Serve completed test:/// GPU hosts to several '
                    'processes (tests only).')
    parser.add_argument('--socket', required=True,
                        help='UNIX socket to listen on')
    args = parser.parse_args(argv)
    serve(args.socket)


if __name__ == '__main__':
    main()
