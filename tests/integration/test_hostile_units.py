"""Two projects and the read-only roles against device reservations,
with the four daemons as processes: reserve-api under gunicorn, RabbitMQ,
MariaDB, a libvirt test:/// host reached through the shared test-host
server. The functional hostile suites prove the same on the built-in
server; this proves that nothing of it depends on sharing the process.
"""
import time

import pytest

from tests.fixtures import backends
from tests.fixtures.races import together
from tests.integration import reserve_daemons

pytestmark = pytest.mark.integration

UNUSED = 'http://127.0.0.1:9/unused'     # no nova host is enrolled
DEVICES = '/v1/device-reservations'
HOST = 'gpu-box'


@pytest.fixture
def daemons(tmp_path):
    with backends.throwaway_database('mysql', tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(
            url, UNUSED, UNUSED, reconcile_interval=5, gpu_hosts=True,
            extra_conf='[manager]\nevent_interval = 2\n')
        try:
            service.start(daemons=('manager', 'worker', 'api'))
            service.enroll_gpu_host('a100-host.xml', HOST,
                                    [('gpu-vm-2', 'project-a'),
                                     ('gpu-vm-3', 'project-b')])
            yield service
        finally:
            service.stop()


def _as(daemons, who, method, path, **kwargs):
    project, roles = {
        'member_a': ('project-a', 'member,reader'),
        'member_b': ('project-b', 'member,reader'),
        'reader_all': ('audit-project', 'reader,service'),
        'service': ('service-project', 'service'),
    }[who]
    return daemons.request(method, path, project=project, roles=roles,
                           **kwargs)


def _wait(daemons, rsv_id, test, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = _as(daemons, 'member_a', 'GET', '%s/%s' % (DEVICES, rsv_id))
        rsv = shown.json()['device_reservation']
        if test(rsv):
            return rsv
        time.sleep(0.5)
    raise AssertionError('%s: never %s' % (rsv, what))


def _domain(daemons, name):
    return daemons.admin('GET', '/v1/hosts/%s/domains/%s' % (
        HOST, name)).json()['domain']


def test_another_projects_domain_is_an_unknown_domain(daemons):
    answers = [_as(daemons, 'member_b', 'POST', DEVICES,
                   json={'count': 1, 'domains': [name]})
               for name in ('gpu-vm-2', 'no-such-vm')]
    assert [a.status_code for a in answers] == [400, 400]
    details = [a.json()['errors'][0]['detail'] for a in answers]
    assert details[0].replace('gpu-vm-2', 'X') == \
        details[1].replace('no-such-vm', 'X')
    assert _domain(daemons, 'gpu-vm-2')['hostdevs'] == []


def test_a_cancel_is_final_and_only_the_owner_writes(daemons):
    made = _as(daemons, 'member_a', 'POST', DEVICES, json={
        'count': 1, 'domains': ['gpu-vm-2']})
    assert made.status_code == 201, made.text
    rsv_id = made.json()['device_reservation']['id']
    item = '%s/%s' % (DEVICES, rsv_id)
    _wait(daemons, rsv_id, lambda r: r['status'] == 'active', 'active')
    assert len(_domain(daemons, 'gpu-vm-2')['hostdevs']) == 1

    # Nobody else writes it: not the other project, not a reader of
    # every project, not a service user.
    for who in ('member_b', 'reader_all', 'service'):
        for method, path, body in (
                ('POST', item + '/attach', {'domain': 'gpu-vm-3'}),
                ('PATCH', item, {'domains': []}),
                ('DELETE', item, None)):
            answer = _as(daemons, who, method, path, json=body)
            assert answer.status_code in (403, 404), (who, method,
                                                      answer.text)
    assert _domain(daemons, 'gpu-vm-3')['hostdevs'] == []

    # A cancel beside five moves of the end: the cancel is final.
    end = time.strftime('%Y-%m-%dT%H:%M:%SZ',
                        time.gmtime(time.time() + 3 * 3600))
    answers = together(
        lambda: _as(daemons, 'member_a', 'DELETE', item),
        *[lambda: daemons.admin('PATCH', item, json={'end': end})] * 5)
    assert answers[0].status_code == 204, answers[0].text
    assert {a.status_code for a in answers[1:]} <= {200, 409}
    rsv = _wait(daemons, rsv_id, lambda r: r['released_at'] is not None,
                'released')
    assert rsv['status'] == 'cancelled'
    assert _domain(daemons, 'gpu-vm-2')['hostdevs'] == []
    late = daemons.admin('PATCH', item, json={'end': end})
    assert late.status_code == 409, late.text
