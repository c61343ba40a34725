"""Reaching libvirt hosts: refused URIs open nothing, libvirt's error
text stays in the log, and a host that does not answer holds up no
other host."""
import logging
import socket
import threading
import time

import pytest

from reserve.common import exception as common_exception
from reserve.devices import hosts as device_hosts
from reserve.virt import connection
from reserve.virt import exception
from reserve.virt import host_definitions
from tests.functional.virt import hosts


@pytest.fixture(autouse=True)
def _forget_hosts():
    yield
    hosts.close_hosts()


class SilentServer:
    """A TCP port that accepts connections and never answers: libvirt's
    open waits on it for ever."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.accepted = []
        self.arrived = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted.append(conn)
            self.arrived.set()

    def close(self):
        self.listener.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.close()


def test_a_refused_uri_opens_nothing(override, tmp_path):
    script = tmp_path / 'run-me'
    marker = tmp_path / 'ran'
    script.write_text('#!/bin/sh\ntouch %s\n' % marker)
    script.chmod(0o755)
    for uri in ('qemu+ext:///system?command=%s' % script,
                'qemu+ssh://h/system?command=%s' % script,
                'qemu+ssh://h/system?netcat=%s' % script):
        with pytest.raises(common_exception.LibvirtUriNotAllowed):
            device_hosts.connect(uri)
        with pytest.raises(common_exception.LibvirtUriNotAllowed):
            connection.get_host(uri)
    assert not marker.exists()
    # Nothing of them is kept (other tests' hosts may be).
    assert not [uri for uri in connection._HOSTS if str(script) in uri]


def test_a_file_that_is_no_host_definition_is_not_echoed(override,
                                                         tmp_path, caplog):
    override('fake_test_driver', True, 'devices')
    secret = tmp_path / 'secret.xml'
    secret.write_text('db_password = SECRET-LINE-1\nSECRET-LINE-2\n')
    caplog.set_level(logging.WARNING)
    with pytest.raises(exception.HostUnreachable) as caught:
        device_hosts.connect('test://%s' % secret)
    assert str(caught.value) == (
        'could not connect to the libvirt host at test://%s: its answer or '
        'definition could not be parsed' % secret)
    assert 'SECRET' not in str(caught.value)
    # libvirt's own words, once, in the log only.
    logged = [r.getMessage() for r in caplog.records
              if 'SECRET-LINE-1' in r.getMessage()]
    assert len(logged) == 1
    # Not a host definition: refused before libvirt reads it.
    with pytest.raises(common_exception.LibvirtUriNotAllowed) as caught:
        device_hosts.connect('test:///etc/passwd')
    assert 'root:' not in caught.value.message


def test_an_unanswering_host_holds_up_no_other(override, silent):
    override('libvirt_uri_schemes', ['qemu+tcp'], 'devices')
    override('fake_test_driver', True, 'devices')
    override('libvirt_connect_timeout', 3, 'devices')
    stuck_uri = 'qemu+tcp://127.0.0.1:%d/system' % silent.port
    stuck = {}

    def reach_the_silent_host():
        started = time.monotonic()
        try:
            device_hosts.connect(stuck_uri).gpus()
        except exception.HostUnreachable as exc:
            stuck['error'] = exc
        stuck['took'] = time.monotonic() - started

    first = threading.Thread(target=reach_the_silent_host, daemon=True)
    first.start()
    assert silent.arrived.wait(10)
    # The silent host's connection is being opened: another host is
    # reached and used at once.
    other = {}

    def reach_another_host():
        other['gpus'] = device_hosts.connect(host_definitions.host_uri(
            hosts.HOSTS / 'rtx-workstation.xml')).gpus()

    started = time.monotonic()
    second = threading.Thread(target=reach_another_host, daemon=True)
    second.start()
    second.join(1.0)
    assert not second.is_alive()
    assert time.monotonic() - started < 1.0
    assert first.is_alive() and other['gpus']
    # The silent host's caller is answered after the timeout.
    first.join(10)
    assert not first.is_alive()
    assert 2.5 <= stuck['took'] < 6
    assert str(stuck['error']) == (
        'could not connect to the libvirt host at qemu+tcp://127.0.0.1/'
        'system: no answer within 3 s')
    # While that attempt still hangs, the next caller fails at once and
    # no second connection is started.
    started = time.monotonic()
    with pytest.raises(exception.HostUnreachable, match='no answer'):
        device_hosts.connect(stuck_uri)
    assert time.monotonic() - started < 0.5
    assert len(silent.accepted) == 1
    # Once the peer lets go, the attempt ends and the host is tried
    # afresh.
    silent.close()
    deadline = time.monotonic() + 10
    while True:
        with pytest.raises(exception.HostUnreachable) as caught:
            device_hosts.connect(stuck_uri)
        if 'no answer' not in str(caught.value):
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert str(caught.value).endswith(': connection failed')
