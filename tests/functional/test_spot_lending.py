"""The spot task against a real placement (the nova double for nova).

Two hosts of two A100s each (test_lease_lifecycle's engine). A spot
server and an owner's server are booted the way nova's scheduler claims
them: an allocation in placement of the GPU and of the class that admits
them (the spot class, or the reservation's), which placement refuses
when a provider has no room left. That refusal is what an owner's boot
would meet if spot servers held its seats.
"""
import datetime
import uuid

from oslo_config import cfg
import pytest

from reserve.booking import sizing
from reserve.capacity import refresh
from reserve.common import context as reserve_context
from reserve.common import nova
from reserve.common import placement
from reserve.common import states
from reserve.common import timeutils
from reserve.db import bookings as bookings_db
from reserve.db import flavors as flavors_db
from reserve.db import hosts as hosts_db
from reserve.spot import lending
from tests.functional.test_lease_lifecycle import A100_CLASS
from tests.functional.test_lease_lifecycle import PROJECT
from tests.functional.test_lease_lifecycle import _book
from tests.functional.test_lease_lifecycle import _run_events_until
from tests.functional.test_lease_lifecycle import cloud  # noqa: F401
from tests.functional.test_lease_lifecycle import placement_server  # noqa

CONF = cfg.CONF
SPOT = 'CUSTOM_RESERVE_SPOT'
SPOT_PROJECT = 'project-spot'


def _admin():
    return reserve_context.get_admin_context()


class Spot:
    """The spot flavor, the task and what it sent, on the cloud."""

    def __init__(self, cloud, sent):  # noqa: F811
        self.cloud = cloud
        flavor = cloud.nova.flavors.create('spot.a100', 2048, 1, 10,
                                           flavorid='spot-flavor',
                                           is_public=False)
        flavor.set_keys({'pci_passthrough:alias': 'a100:1'})
        self.entry = flavors_db.flavor_create(_admin(), {
            'name': 'spot.a100', 'nova_flavor_id': 'spot-flavor',
            'slots': 0, 'spot': True,
            'gpus': {A100_CLASS: 1},
            'nova_flavor': sizing.read(
                'spot-flavor', nova.NovaClient(client=cloud.nova))})
        flavors_db.spot_opt_in(_admin(), self.entry.id, SPOT_PROJECT)
        self.lending = lending.SpotLending(
            nova.NovaClient(client=cloud.nova),
            placement.PlacementClient())
        self.sent = sent

    def run(self, now=None):
        return self.lending.run(_admin(), now=now)

    def host(self, name):
        return hosts_db.host_get(_admin(), self.cloud.hosts[name]['id'])

    def child(self, name):
        return self.cloud.placement.provider_by_name(
            placement.CHILD_PREFIX + name)

    def device(self, name):
        return self.cloud.placement.provider_by_name(
            '%s_0000:17:00.0' % name)

    def spot_capacity(self, name):
        """What new spot servers may take on host ``name`` (None: no
        spot inventory there)."""
        child = self.child(name)
        if child is None:
            return None
        found = self.cloud.placement.inventories(child['uuid'])
        record = found.get(SPOT)
        return record and record['total'] - record['reserved']

    def boot(self, host, flavor_id, project, admitted_by):
        """A server of ``flavor_id`` on ``host``, claimed in placement as
        nova's scheduler does (one GPU and one of ``admitted_by``),
        or None when placement finds no room."""
        consumer = str(uuid.uuid4())
        body = {'allocations': {
            self.device(host)['uuid']: {'resources': {A100_CLASS: 1}},
            self.child(host)['uuid']: {'resources': {admitted_by: 1}}},
            'project_id': project, 'user_id': 'someone',
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
        resp = self.cloud.placement.request('PUT',
                                            '/allocations/%s' % consumer,
                                            body)
        if resp.status_code == 409:
            return None
        assert resp.status_code == 204, resp.text
        server = self.cloud.boot(flavor_id, project, host=host)
        server.user_id = 'user-of-%s' % project
        self.cloud.servers[consumer] = self.cloud.servers.pop(server.id)
        server.id = consumer
        return consumer

    def reclaimed(self):
        """The servers reclaimed so far, in order."""
        return [p['server_id'] for k, p in self.sent
                if k == 'spot.server.reclaimed']

    def reap(self):
        """nova finishes the deletions asked: the servers and their
        allocations go."""
        for kind, payload in self.sent:
            if kind == 'spot.server.reclaimed':
                self.cloud.unstick(payload['server_id'])
                self.cloud.placement.request(
                    'DELETE', '/allocations/%s' % payload['server_id'])


@pytest.fixture
def spot(cloud, monkeypatch):  # noqa: F811
    sent = []
    monkeypatch.setattr(lending, '_notify',
                        lambda ctx, kind, payload: sent.append(
                            (kind, payload)))
    CONF.set_override('idle_margin', 1, group='spot')
    CONF.set_override('lead_time', 600, group='spot')
    CONF.set_override('warning_time', 300, group='spot')
    return Spot(cloud, sent)


def _active_lease(cloud, count=3, start_in=1, length=600):  # noqa: F811
    booking = _book(count=count, start_in=start_in, length=length)
    cloud.worker.create_lease(_admin(), booking.id)
    lease_id = bookings_db.booking_get(_admin(), booking.id).lease_id
    lease = _run_events_until(cloud, lease_id, states.Lease.ACTIVE)
    reservation = lease.reservations[0]
    return lease, reservation, {a.host.name: a.amount
                                for a in reservation.allocations}


def test_idle_seats_lent_less_the_margin_and_reclaimed_for_the_owner(
        cloud, spot):  # noqa: F811
    lease, reservation, seats = _active_lease(cloud)
    full = max(seats, key=seats.get)       # its two GPUs booked
    half = min(seats, key=seats.get)       # one booked, one unbooked
    assert (seats[full], seats[half]) == (2, 1)
    owner_class = placement.reservation_resource_class(reservation.id)

    budgets = spot.run()
    # full: 2 idle seats less the margin of 1; half: its 1 seat is the
    # margin, its other GPU nobody booked.
    assert (budgets[full].idle_seats, budgets[full].unbooked) == (1, 0)
    assert (budgets[half].idle_seats, budgets[half].unbooked) == (0, 1)
    assert spot.spot_capacity(full) == 1 and spot.spot_capacity(half) == 1
    assert spot.host(full).spot_lent == 1

    # Spot servers take what is lent, and no more.
    lent = spot.boot(full, 'spot-flavor', SPOT_PROJECT, SPOT)
    assert lent is not None
    assert spot.boot(full, 'spot-flavor', SPOT_PROJECT, SPOT) is None

    # The owner boots into the margin at once; the next run takes its
    # second seat back from the spot server, oldest first.
    first = spot.boot(full, reservation.id, PROJECT, owner_class)
    assert first is not None
    assert spot.boot(full, reservation.id, PROJECT, owner_class) is None
    budgets = spot.run()
    assert budgets[full].lent == 0
    assert spot.reclaimed() == [lent] and (
        lent in cloud.deleting or lent not in cloud.servers)
    assert [k for k, _ in spot.sent] == ['spot.server.reclaimed']
    assert spot.sent[0][1]['server_id'] == lent
    assert spot.sent[0][1]['user_id'] == 'user-of-%s' % SPOT_PROJECT
    assert spot.sent[0][1]['reason'] == \
        'the reservation owners boot into their seats'
    assert spot.spot_capacity(full) == 0
    # Asked once: a run before nova deleted it asks nothing more.
    spot.run()
    assert len(spot.sent) == 1

    spot.reap()
    assert spot.boot(full, reservation.id, PROJECT, owner_class) is not None
    spot.run()
    assert SPOT not in cloud.placement.inventories(spot.child(full)['uuid'])
    assert (spot.host(full).spot_lent, spot.host(full).spot_used) == (0, 0)


def test_a_coming_booking_warns_then_takes_back_the_unbooked_gpus(
        cloud, spot):  # noqa: F811
    spot.run()
    # Nothing booked: each host lends its two GPUs.
    host = sorted(cloud.hosts)[0]
    assert spot.spot_capacity(host) == 2
    servers = [spot.boot(host, 'spot-flavor', SPOT_PROJECT, SPOT)
               for _ in range(2)]
    assert None not in servers

    # A booking of every GPU of the cloud, starting in 20 minutes.
    _book(count=4, start_in=1200, length=600)
    now = timeutils.utcnow()
    spot.run(now=now)
    assert spot.sent == [] and not cloud.deleting
    # 6 minutes later it is within lead time + warning time: notice.
    spot.run(now=now + datetime.timedelta(minutes=6))
    warned = [p['server_id'] for k, p in spot.sent
              if k == 'spot.server.warning']
    assert sorted(warned) == sorted(servers)
    assert not cloud.deleting
    spot.run(now=now + datetime.timedelta(minutes=7))
    assert len(spot.sent) == 2  # warned once each
    # 11 minutes later it is within the lead time: they go.
    spot.run(now=now + datetime.timedelta(minutes=11))
    assert spot.reclaimed() == servers  # oldest first
    assert [p['reason'] for k, p in spot.sent
            if k == 'spot.server.reclaimed'] == [
        'a booking of the host comes within the lead time'] * 2
    assert spot.spot_capacity(host) == 0


def test_the_end_of_a_reservation_takes_its_spot_servers(
        cloud, spot):  # noqa: F811
    # Servers are warned of the end; what it lends goes within a second.
    CONF.set_override('warning_time', 1, group='spot')
    lease, reservation, seats = _active_lease(cloud, length=4)
    full = max(seats, key=seats.get)
    spot.run()
    lent = spot.boot(full, 'spot-flavor', SPOT_PROJECT, SPOT)
    assert lent is not None
    _run_events_until(cloud, lease.id, states.Lease.TERMINATED)
    assert spot.reclaimed() == [lent]
    spot.reap()
    # After the end the host's GPUs are nobody's: lent again.
    spot.run()
    assert spot.spot_capacity(full) == 2


def test_a_host_that_lends_no_more_reclaims_everything(
        cloud, spot):  # noqa: F811
    spot.run()
    host = sorted(cloud.hosts)[1]
    lent = spot.boot(host, 'spot-flavor', SPOT_PROJECT, SPOT)
    hosts_db.host_update(_admin(), cloud.hosts[host]['id'],
                         {'failure': 'the compute service is down'})
    spot.run()
    assert spot.reclaimed() == [lent] and (
        lent in cloud.deleting or lent not in cloud.servers)
    assert spot.sent[-1][1]['reason'] == 'the host lends no GPUs now'

    # Shelving instead of deleting, by policy.
    CONF.set_override('reclaim_action', 'shelve', group='spot')
    other = sorted(cloud.hosts)[0]
    shelved = spot.boot(other, 'spot-flavor', SPOT_PROJECT, SPOT)
    flavors_db.flavor_update(_admin(), spot.entry.id, {'active': False})
    spot.run()  # no spot flavor left: nothing is lent anywhere
    assert cloud.servers[shelved].status == 'SHELVED_OFFLOADED'
    assert spot.sent[-1][1]['action'] == 'shelve'


def test_spot_flavor_specs_and_access_follow_the_catalogue(
        cloud, spot):  # noqa: F811
    flavor = cloud.nova.flavors.get('spot-flavor')
    cloud.nova.flavor_access.add_tenant_access(flavor, 'stranger')
    spot.run()
    assert flavor.get_keys() == {
        'pci_passthrough:alias': 'a100:1',
        'resources:CUSTOM_RESERVE_SPOT': '1',
        'trait:CUSTOM_RESERVE_FENCED': 'required'}
    assert cloud.access['spot-flavor'] == {SPOT_PROJECT}
    flavors_db.spot_opt_out(_admin(), spot.entry.id, SPOT_PROJECT)
    spot.run()
    assert cloud.access['spot-flavor'] == set()

    # An entry withdrawn (disabled, or no longer spot) keeps its opt-ins
    # for later, but their projects lose the nova flavor.
    flavors_db.spot_opt_in(_admin(), spot.entry.id, SPOT_PROJECT)
    spot.run()
    assert cloud.access['spot-flavor'] == {SPOT_PROJECT}
    flavors_db.flavor_update(_admin(), spot.entry.id, {'active': False})
    spot.run()
    assert cloud.access['spot-flavor'] == set()


def test_spot_servers_are_not_counted_as_other_consumers(
        cloud, spot):  # noqa: F811
    spot.run()
    host = sorted(cloud.hosts)[0]
    assert spot.boot(host, 'spot-flavor', SPOT_PROJECT, SPOT)
    record = refresh.read(placement.PlacementClient(),
                          spot.host(host).provider_uuid)
    assert record['foreign_usage']['gpus'] == {}


def test_spot_inventory_edited_by_hand_is_set_back(cloud, spot):  # noqa
    CONF.set_override('repair_interval', 0, group='manager')
    spot.run()
    host = sorted(cloud.hosts)[0]
    child = spot.child(host)['uuid']
    inventories = cloud.placement.request(
        'GET', '/resource_providers/%s/inventories' % child).json()
    inventories['inventories'][SPOT]['total'] = 40
    resp = cloud.placement.request(
        'PUT', '/resource_providers/%s/inventories' % child, inventories)
    assert resp.status_code == 200, resp.text
    assert spot.spot_capacity(host) == 40
    spot.run()
    assert spot.spot_capacity(host) == 2


def test_a_host_with_gpus_of_two_kinds_lends_none(cloud, spot):  # noqa
    host = sorted(cloud.hosts)[0]
    other = sorted(cloud.hosts)[1]
    row = spot.host(host)
    cloud.placement.add_device_provider(row.provider_uuid,
                                        '%s_0000:3b:00.0' % host,
                                        'CUSTOM_PCI_10DE_1EB8', 1)
    refresh.refresh(_admin(), row, placement.PlacementClient())
    assert set(spot.host(host).gpus) == {A100_CLASS, 'CUSTOM_PCI_10DE_1EB8'}
    budgets = spot.run()
    # The spot class counts GPUs of one kind: a spot server asking a T4
    # could take one an A100 reservation holds, so nothing is lent.
    assert host not in budgets and spot.spot_capacity(host) is None
    assert budgets[other].lent == 2
