"""The playbook on a GPU host run without nova: a hostdev detached by
hand from its domain is named by the diagnosis and attached again within
two intervals; a host libvirt cannot reach is failed, named, and
reservable again once it answers.

The manager, worker and API as processes over RabbitMQ on MariaDB; the
libvirt test:/// host is the shared test-host server's, so that this
test, by hand, changes the very host the manager sees.
"""
import time
import xml.etree.ElementTree as ET

import pytest

from reserve_fakes import shared_host
from tests.fixtures import backends
from tests.integration import cloud as cloud_mod
from tests.integration import playbook
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration

UNUSED = 'http://127.0.0.1:9/unused'     # no nova host is enrolled
DEVICES = '/v1/device-reservations'
HOST = 'gpu-playbook'
DOMAIN = 'gpu-vm-2'
PROJECT = 'project-a'
TWO = 2 * playbook.INTERVAL + playbook.SLACK


@pytest.fixture
def daemons(tmp_path):
    with backends.throwaway_database('mysql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, UNUSED, UNUSED, reconcile_interval=5, gpu_hosts=True,
            extra_conf=playbook.EXTRA_CONF +
            '\n[manager]\nevent_interval = 2\n')
        try:
            service.start(daemons=('manager', 'worker', 'api'))
            service.uri = service.enroll_gpu_host('a100-host.xml', HOST,
                                                  [(DOMAIN, PROJECT)])
            yield service
        finally:
            service.stop()


def _reservation(daemons, rsv_id):
    return playbook.get(daemons, '%s/%s' % (DEVICES, rsv_id),
                        PROJECT)['device_reservation']


def _diagnosis(daemons, rsv_id):
    return playbook.get(daemons, '%s/%s/diagnosis' % (DEVICES, rsv_id),
                        PROJECT)['diagnosis']


def _hostdevs(daemons):
    return daemons.admin('GET', '/v1/hosts/%s/domains/%s' % (
        HOST, DOMAIN)).json()['domain']['hostdevs']


def _detach_by_hand(daemons):
    """What an operator's virsh detach-device does, on the host the
    manager sees: every hostdev of the domain, live and config."""
    conn = shared_host.RemoteConnect(daemons.gpu_socket, daemons.uri)
    try:
        domain = conn.lookupByName(DOMAIN)
        tree = ET.fromstring(domain.XMLDesc(0))
        hostdevs = tree.findall('./devices/hostdev')
        assert hostdevs, 'nothing attached to %s' % DOMAIN
        for hostdev in hostdevs:
            domain.detachDeviceFlags(ET.tostring(hostdev, encoding='unicode'),
                                     3)  # VIR_DOMAIN_AFFECT_LIVE | CONFIG
    finally:
        conn.close()


def test_a_hostdev_detached_by_hand_is_named_and_attached_again(daemons,
                                                                cleanup):
    made = daemons.request('POST', DEVICES, project=PROJECT, json={
        'count': 1, 'domains': [DOMAIN]})
    assert made.status_code == 201, made.text
    rsv_id = made.json()['device_reservation']['id']
    cleanup(lambda: daemons.request('DELETE', '%s/%s' % (DEVICES, rsv_id),
                                    project=PROJECT))
    cloud_mod.wait_for('active', lambda: _reservation(
        daemons, rsv_id)['status'] == 'active', 60)
    assert len(_hostdevs(daemons)) == 1
    cloud_mod.wait_for('whole', lambda: _diagnosis(
        daemons, rsv_id)['mismatch'] is None, TWO)

    # In step with the repair task: one re-attach seen, so that the
    # detach below is made just after a run, and named before the next.
    _detach_by_hand(daemons)
    cloud_mod.wait_for('first re-attach', lambda: len(
        _hostdevs(daemons)) == 1, TWO, interval=0.1)

    _detach_by_hand(daemons)
    made_at = time.monotonic()
    found = _diagnosis(daemons, rsv_id)['mismatch']
    assert found and found['symptom'] == 'drift' and \
        found['layer'] == 'domains', found
    assert found['repair'] == 'reserve'
    playbook.transcript('hostdev detached by hand', found)
    cloud_mod.wait_for('attached again', lambda: len(
        _hostdevs(daemons)) == 1 and _diagnosis(
        daemons, rsv_id)['mismatch'] is None, TWO)
    print('hostdev detached by hand: named, attached again in %.1f s' % (
        time.monotonic() - made_at))
