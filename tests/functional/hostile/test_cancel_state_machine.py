"""A cancel is final under any interleaving: random sequences of
creations, moves of the end, cancels (twice, or beside a move or an
attach, sent together from threads), attaches, detaches, lost casts
and managers that die mid-event, on bookings and on device reservations,
on SQLite and MariaDB (cancel_stage.py sets the stage).

After each settle (one turn of the worker, its reconcilers and the
event loop), whatever came before:

* no device is held by a cancelled or ended reservation, and libvirt
  shows no device in a domain but those of live reservations;
* a live booking's lease (or, before it has one, the booking) holds
  allocations for all its instances;
* a cancelled or ended one, and a terminated lease, hold none.
"""

from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import settings
from hypothesis import stateful
from hypothesis import strategies as st
import pytest
import sqlalchemy as sa

from reserve.common import states
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import models
from reserve.devices import hosts as device_hosts
from reserve.devices import states as device_states
from tests.fixtures import database
from tests.functional.api_fixtures import ADMIN
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import MEMBER_A
from tests.functional.devices import gpu_cloud
from tests.functional.hostile import cancel_stage
from tests.functional.test_lease_lifecycle import placement_server  # noqa
from tests.fixtures.races import together

Device = device_states.DeviceReservation
Attachment = device_states.Attachment
# Bounded so that both kinds run in about a minute per backend; a
# failure is shown as generated (shrinking sequences of threads and
# event loops would take minutes).
SETTINGS = settings(max_examples=25, stateful_step_count=12, deadline=None,
                    database=None, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))


def _codes(*answers):
    return [a.status_int for a in answers]


class _Races(stateful.RuleBasedStateMachine):
    """What both kinds share: the stage, the faults, the settle."""

    stage = None          # a cancel_stage.Stage, set by the test
    path = None

    def __init__(self):
        super().__init__()
        self.made = []
        self.cancelled = set()

    def _made(self, answer, key):
        """The id of what a 201 made (into the bundle), nothing for a
        409 (no room left)."""
        assert answer.status_int in (201, 409), answer.text
        if answer.status_int == 409:
            return stateful.multiple()
        self.made.append(answer.json[key]['id'])
        return self.made[-1]

    def _url(self, object_id):
        return '%s/%s' % (self.path, object_id)

    def _delete(self, object_id):
        return self.stage.app.delete(self._url(object_id),
                                     headers=MEMBER_A, expect_errors=True)

    def _patch_end(self, object_id, hours, headers):
        return self.stage.app.patch_json(
            self._url(object_id), {'end': future(hours)}, headers=headers,
            expect_errors=True)

    def _cancelled(self, object_id, answer):
        assert answer.status_int in (204, 404, 409), answer.text
        if answer.status_int == 204:
            self.cancelled.add(object_id)

    def _answered(self, object_id, answer, codes, cancelled_before):
        """A request beside or after a cancel: 409 once it is cancelled
        (or 404, once a second DELETE removed the row)."""
        gone = (404,) if object_id in self.cancelled else ()
        assert answer.status_int in codes + gone, answer.text
        if cancelled_before:
            assert answer.status_int in (409,) + gone, answer.text

    def _moved(self, object_id, answer, cancelled_before):
        self._answered(object_id, answer, (200, 409), cancelled_before)

    # The faults and the settle, once something was made.
    @stateful.precondition(lambda self: self.made)
    @stateful.rule()
    def lose_casts(self):
        self.stage.lose_casts()

    @stateful.precondition(lambda self: self.made)
    @stateful.rule()
    def kill_manager(self):
        self.stage.kill_manager()

    @stateful.precondition(lambda self: self.made)
    @stateful.rule()
    def settle(self):
        self.stage.settle()
        self.check()

    def teardown(self):
        for object_id in self.live():
            self._delete(object_id)
        self.stage.settle()
        self.check()


class BookingRaces(_Races):
    path = '/v1/reservations'
    bookings = stateful.Bundle('bookings')

    def live(self):
        with db_api.get_engine().connect() as conn:
            # The status shown: a cancel's close, else the manager's.
            b = models.Booking
            return [r.id for r in conn.execute(sa.select(b.id).where(
                b.status.in_(states.Booking.LIVE)))]

    @stateful.rule(target=bookings, hours=st.integers(1, 3),
                   worker_at_once=st.booleans())
    def create(self, hours, worker_at_once):
        made = self.stage.app.post_json(self.path, {
            'flavor_id': 'gpu.large', 'start': future(0),
            'end': future(hours)}, headers=MEMBER_A, expect_errors=True)
        if worker_at_once:
            self.stage.deliver()    # its lease is made at once
        return self._made(made, 'reservation')

    @stateful.rule(booking=bookings, hours=st.integers(2, 5))
    def move_end(self, booking, hours):
        before = booking in self.cancelled
        self._moved(booking, self._patch_end(booking, hours, MEMBER_A),
                    before)

    @stateful.rule(booking=bookings)
    def cancel(self, booking):
        self._cancelled(booking, self._delete(booking))

    @stateful.rule(booking=bookings)
    def cancel_twice(self, booking):
        for answer in together(lambda: self._delete(booking),
                               lambda: self._delete(booking)):
            self._cancelled(booking, answer)

    @stateful.rule(booking=bookings, hours=st.integers(2, 5))
    def cancel_beside_a_move(self, booking, hours):
        before = booking in self.cancelled
        cancel, move = together(
            lambda: self._delete(booking),
            lambda: self._patch_end(booking, hours, MEMBER_A))
        self._cancelled(booking, cancel)
        self._moved(booking, move, before)

    def check(self):
        with db_api.get_engine().connect() as conn:
            bookings = conn.execute(
                sa.select(models.Booking.__table__)).all()
            leases = {r.id: r for r in conn.execute(
                sa.select(models.Lease.__table__))}
            rsv = models.LeaseReservation.__table__
            lease_of = dict(conn.execute(sa.select(rsv.c.id,
                                                   rsv.c.lease_id)).all())
            allocations = conn.execute(
                sa.select(models.Allocation.__table__)).all()
            reservations = conn.execute(sa.select(rsv)).all()
        held = {}               # lease or booking id: instances allocated
        for allocation in allocations:
            owner = (lease_of[allocation.lease_reservation_id]
                     if allocation.lease_reservation_id
                     else allocation.booking_id)
            assert owner is not None, 'an allocation of nobody: %s' % (
                allocation,)
            held[owner] = held.get(owner, 0) + allocation.amount
        for lease in leases.values():
            assert lease.status != states.Lease.DELETING, lease
            if lease.status == states.Lease.TERMINATED:
                assert lease.id not in held, lease
            else:
                # Not torn down (live, or its teardown failing): it still
                # holds the cloud's capacity, and the model counts it.
                assert held.get(lease.id, 0) == sum(
                    r.amount for r in reservations
                    if r.lease_id == lease.id and
                    r.status != states.LeaseReservation.DELETED), lease
        for booking in bookings:
            lease = leases.get(booking.lease_id)
            if (booking.closed_as or booking.status) in states.Booking.LIVE:
                owner = booking.lease_id or booking.id
                assert held.get(owner) == booking.instance_count, booking
                assert booking.lease_id is None or lease is not None
            else:
                assert booking.id not in held, booking
                assert lease is None or lease.id not in held, booking


class DeviceRaces(_Races):
    path = '/v1/device-reservations'
    reservations = stateful.Bundle('reservations')
    domains = st.sampled_from(['gpu-vm-1', 'gpu-vm-2', 'gpu-vm-3'])

    def live(self):
        return [r.id for r in device_reservations_db.device_reservation_list(
            cancel_stage.admin()) if r.status in Device.LIVE]

    @stateful.rule(target=reservations, domain=domains)
    def create(self, domain):
        made = self.stage.app.post_json(self.path, {
            'count': 1, 'model': gpu_cloud.A100_MODEL, 'domains': [domain],
            'end': future(1)}, headers=MEMBER_A, expect_errors=True)
        return self._made(made, 'device_reservation')

    def _attach(self, reservation, domain):
        return self.stage.app.post_json(
            self._url(reservation) + '/attach', {'domain': domain},
            headers=MEMBER_A, expect_errors=True)

    @stateful.rule(reservation=reservations, hours=st.integers(2, 5))
    def move_end(self, reservation, hours):
        before = reservation in self.cancelled
        self._moved(reservation, self._patch_end(reservation, hours, ADMIN),
                    before)

    @stateful.rule(reservation=reservations, domain=domains)
    def attach(self, reservation, domain):
        before = reservation in self.cancelled
        self._answered(reservation, self._attach(reservation, domain),
                       (200, 400, 409), before)

    @stateful.rule(reservation=reservations, domain=domains)
    def detach(self, reservation, domain):
        before = reservation in self.cancelled
        answer = self.stage.app.post_json(
            self._url(reservation) + '/detach', {'domain': domain},
            headers=MEMBER_A, expect_errors=True)
        self._answered(reservation, answer, (200, 400, 409), before)

    @stateful.rule(reservation=reservations)
    def cancel(self, reservation):
        self._cancelled(reservation, self._delete(reservation))

    @stateful.rule(reservation=reservations)
    def cancel_twice(self, reservation):
        for answer in together(lambda: self._delete(reservation),
                               lambda: self._delete(reservation)):
            self._cancelled(reservation, answer)

    @stateful.rule(reservation=reservations, hours=st.integers(2, 5))
    def cancel_beside_a_move(self, reservation, hours):
        before = reservation in self.cancelled
        cancel, move = together(
            lambda: self._delete(reservation),
            lambda: self._patch_end(reservation, hours, ADMIN))
        self._cancelled(reservation, cancel)
        self._moved(reservation, move, before)

    @stateful.rule(reservation=reservations, domain=domains)
    def cancel_beside_an_attach(self, reservation, domain):
        before = reservation in self.cancelled
        cancel, attach = together(lambda: self._delete(reservation),
                                  lambda: self._attach(reservation, domain))
        self._cancelled(reservation, cancel)
        self._answered(reservation, attach, (200, 400, 409), before)

    def check(self):
        given = set()       # (domain, kind, device) reserve may have given
        for found in device_reservations_db.device_reservation_list(
                cancel_stage.admin()):
            if found.status in (Device.CANCELLED, Device.EXPIRED):
                assert found.released_at is not None, found
                assert found.lease_id is None, found
                assert not [a for a in found.attachments
                            if a.state in Attachment.MAY_BE_ATTACHED]
            else:
                assert found.released_at is None, found
                assert found.lease_id is not None, found
            if found.status == Device.ACTIVE:
                given.update(
                    (a.domain, a.kind, a.mdev_uuid or a.device.pci_address)
                    for a in found.attachments
                    if a.state == Attachment.ATTACHED)
        conn = device_hosts.connect(self.stage.uri)
        on_host = {(d.name, h.kind, h.id) for d in conn.domains()
                   for h in conn.attached(d.name)}
        assert on_host - self.stage.baseline <= given, (on_host, given)


@pytest.mark.parametrize('backend', ['sqlite', 'mysql'])
def test_a_cancel_is_final_under_any_interleaving(backend, tmp_path,
                                                  placement_server):  # noqa
    with database.on_backend(backend, tmp_path):
        stage = cancel_stage.Stage(tmp_path, placement_server)
        try:
            conn = device_hosts.connect(stage.uri)
            stage.baseline = {(d.name, h.kind, h.id) for d in conn.domains()
                              for h in conn.attached(d.name)}
            for machine in (BookingRaces, DeviceRaces):
                machine.stage = stage
                stateful.run_state_machine_as_test(machine,
                                                   settings=SETTINGS)
        finally:
            stage.close()
