"""reserve_fakes.shared_host: one test:/// host seen by several
connections (as two managers see one real host), through a server
process on a UNIX socket."""
import subprocess
import sys
import time

import pytest

from reserve.virt import connection
from reserve.virt import exception
from reserve_fakes import shared_host
from tests.functional.virt import hosts

A100 = hosts.HOSTS / 'a100-host.xml'
T4 = hosts.HOSTS / 't4-host.xml'


def _start(path):
    proc = subprocess.Popen([sys.executable, '-m', 'reserve_fakes.shared_host',
                             '--socket', str(path)])
    deadline = time.monotonic() + 30
    while not path.exists():
        assert proc.poll() is None, 'the shared host server died'
        assert time.monotonic() < deadline, 'no socket after 30 s'
        time.sleep(0.05)
    return proc


@pytest.fixture
def server(tmp_path):
    path = tmp_path / 'hosts.sock'
    proc = _start(path)
    yield path, proc
    proc.kill()
    proc.wait()


def _two(path, definition):
    """Two HostConnections on one host, as two managers would hold."""
    return [hosts.open_host(None, shared_host.opener(str(path)),
                            path=definition) for _ in range(2)]


def test_what_one_attaches_the_other_sees(server):
    first, second = _two(server[0], A100)
    with first, second:
        first.attach('gpu-vm-2', '0000:17:00.0')
        assert [(h.kind, h.id, h.live, h.config)
                for h in second.attached('gpu-vm-2')] == [
            ('pci', '0000:17:00.0', True, True)]
        # The check against other domains sees the first's attachment.
        with pytest.raises(exception.DeviceInUse):
            second.attach('gpu-vm-3', '0000:17:00.0')
        second.detach('gpu-vm-2', '0000:17:00.0')
        assert first.attached('gpu-vm-2') == []


def test_mdevs_and_their_errors_cross_the_socket(server):
    first, second = _two(server[0], T4)
    with first, second:
        created = first.create_mdev('0000:d8:00.0', 'nvidia-222')
        assert created.uuid in {m.uuid for m in second.mdevs()}
        second.remove_mdev(created.uuid)
        assert created.uuid not in {m.uuid for m in first.mdevs()}
        # libvirt's error crosses with its code, which HostConnection
        # turns into the same exception as on a connection of its own.
        with pytest.raises(exception.MdevTypeExhausted):
            first.create_mdev('0000:3b:00.0', 'nvidia-230')


def test_holders_are_read_in_one_go(server):
    conn = shared_host.RemoteConnect(str(server[0]),
                                     'test://%s' % A100)
    try:
        assert conn.holders() == {('pci', '0000:ca:00.0'): ['gpu-vm-1']}
    finally:
        conn.close()


def test_a_restarted_server_is_reconnected_to(server):
    path, proc = server
    host = hosts.open_host(None, shared_host.opener(str(path)), path=A100)
    with host:
        assert host.domains()
        proc.kill()
        proc.wait()
        with pytest.raises(exception.VirtError):
            host.domains()
        path.unlink()
        restarted = _start(path)
        try:
            # A new host state, as after a reboot of the hypervisor.
            assert [d.name for d in host.domains()] == [
                'gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3', 'transient-vm']
        finally:
            restarted.kill()
            restarted.wait()


def test_no_server_is_a_libvirt_error(tmp_path):
    with pytest.raises(exception.VirtError) as caught:
        connection.HostConnection('test://%s' % A100,
                                  opener=shared_host.opener(
                                      str(tmp_path / 'none.sock')))
    assert str(caught.value) == (
        'could not connect to the libvirt host at test://%s: connection '
        'failed' % A100)
    assert 'Failed to connect socket' in caught.value.detail
