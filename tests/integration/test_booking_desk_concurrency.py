"""Concurrent POST /v1/reservations for the last room accept exactly one.

reserve-api as in production: gunicorn, several worker processes with
threads each, on MariaDB and on PostgreSQL. Twenty clients released
together ask for the last room of the hosts; the capacity lock serialises
their admissions across processes. Only the API runs: admission needs no
nova (the hosts and the catalogue entry are written to the database as
enrollment and the catalogue record them; the casts wait in RabbitMQ).
"""
import datetime
import random
import threading
import uuid

from oslo_config import cfg
import pytest
import requests

from reserve.common import context as reserve_context
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from tests.fixtures import backends
from tests.fixtures import database
from tests.integration import reserve_daemons

CONF = cfg.CONF

pytestmark = pytest.mark.integration

CLIENTS = 20
UNUSED = 'http://127.0.0.1:9/unused'


@pytest.fixture(params=['mysql', 'postgresql'])
def api(request, tmp_path):
    with backends.throwaway_database(request.param, tmp_path) as url:
        service = reserve_daemons.ReserveDaemons(url, UNUSED, UNUSED,
                                                 api_workers=4)
        service.start(daemons=('api',))
        service.database_url = url
        try:
            yield service
        finally:
            service.stop()
            database.reset_engine()
            CONF.clear_override('connection', group='database')


def _catalogue(api, instances):
    """Two hosts holding ``instances`` 2-vCPU instances between them (the
    first one more), and a catalogue entry of such instances whose own
    slots are as many: hosts and slots bind alike."""
    database.use_database(api.database_url)
    admin = reserve_context.get_admin_context()
    tag = uuid.uuid4().hex[:6]
    for i, held in enumerate((instances - instances // 2,
                              instances // 2)):
        hosts_db.host_create(admin, {
            'name': 'desk-%s-%d' % (tag, i), 'kind': 'nova',
            'vcpus': 2 * held, 'memory_mb': 65536, 'local_gb': 1000})
    flavor = flavors_db.flavor_create(admin, {
        'name': 'desk-%s' % tag, 'nova_flavor_id': 'nova-%s' % tag,
        'slots': instances, 'nova_flavor': {
            'id': 'nova-%s' % tag, 'name': 'nova-%s' % tag, 'vcpus': 2,
            'memory_mb': 4096, 'disk_gb': 20}})
    return {'id': flavor.id, 'name': flavor.name}


def _iso(when):
    return when.replace(microsecond=0).isoformat() + 'Z'


def _post_together(api, bodies):
    """POST the bodies at once, each as its own project; (status, code)
    of each answer."""
    barrier = threading.Barrier(len(bodies))
    answers = [None] * len(bodies)

    def post(i, body):
        session = requests.Session()
        barrier.wait()
        resp = session.post(api.url + '/v1/reservations', json=body,
                            timeout=60, headers={
                                'X-User-Id': 'user-%d' % i,
                                'X-Project-Id': 'race-%d' % i,
                                'X-Roles': 'member,reader'})
        code = resp.json()['errors'][0]['code'] if resp.status_code >= 400 \
            else None
        answers[i] = (resp.status_code, code)

    threads = [threading.Thread(target=post, args=(i, body))
               for i, body in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return answers


def _live(api, flavor_id):
    resp = api.admin('GET', '/v1/reservations?all_projects=true&flavor_id='
                     '%s' % flavor_id)
    return [r for r in resp.json()['reservations']
            if r['status'] in ('PENDING_CREATE', 'ALLOCATED', 'ACTIVE')]


def test_concurrent_posts_for_the_last_slot_accept_exactly_one(api):
    flavor = _catalogue(api, 3)
    now = datetime.datetime.utcnow()
    for round_ in range(3):
        start = now + datetime.timedelta(days=round_ + 1)
        window = {'flavor_id': flavor['name'], 'start': _iso(start),
                  'end': _iso(start + datetime.timedelta(hours=4))}
        first = api.request('POST', '/v1/reservations', project='holder',
                            json=dict(window, instance_count=2))
        assert first.status_code == 201, first.text

        answers = _post_together(api, [dict(window)] * CLIENTS)

        assert answers.count((201, None)) == 1, answers
        assert answers.count((409, 'reserve.no_capacity')) == CLIENTS - 1
        # The calendar agrees: nothing left for that window.
        slots = api.request('GET', '/v1/flavors/%s/free-slots?start=%s&'
                            'end=%s' % (flavor['id'], window['start'],
                                        window['end']))
        assert slots.json()['free_slots'] == []
    assert len(_live(api, flavor['id'])) == 3 * 2


def test_concurrent_random_bookings_never_overbook(api):
    flavor = _catalogue(api, 4)
    rnd = random.Random(7)
    base = datetime.datetime.utcnow() + datetime.timedelta(hours=1)
    bodies = []
    for _ in range(CLIENTS):
        start = base + datetime.timedelta(minutes=rnd.randrange(0, 300, 5))
        bodies.append({'flavor_id': flavor['id'], 'start': _iso(start),
                       'end': _iso(start + datetime.timedelta(
                           minutes=rnd.randrange(30, 180, 5))),
                       'instance_count': rnd.randint(1, 3)})

    answers = _post_together(api, bodies)

    assert {a for a in answers} <= {(201, None),
                                    (409, 'reserve.no_capacity')}, answers
    live = _live(api, flavor['id'])
    assert len(live) == answers.count((201, None))
    guard = datetime.timedelta(seconds=60)

    def when(text):
        return datetime.datetime.fromisoformat(text[:-1])

    for instant in {when(r['start']) for r in live}:
        held = sum(r['instance_count'] for r in live
                   if when(r['start']) <= instant < when(r['end']) + guard)
        assert held <= 4
