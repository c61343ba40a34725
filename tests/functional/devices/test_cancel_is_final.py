"""A cancel is final for a device reservation, whatever it meets: a move of
its end that read the lease before the cancel, an attach that crashed
between libvirt's answer and its commit, a deletion whose end was not
made due. The lease engine on a libvirt test:/// host (gpu_cloud)."""
import datetime

import pytest

from reserve.booking import cancel
from reserve.common import context
from reserve.common import exception
from reserve.common import states as engine_states
from reserve.common import timeutils
from reserve.db import leases as leases_db
from reserve.devices import attachments
from reserve.devices import lifecycle
from reserve.devices import states
from tests.fixtures import database
from tests.functional.devices.gpu_cloud import A100_MODEL


def _active(cloud, domains=('gpu-vm-2',)):
    host = cloud.enroll('a100-host.xml')
    rsv_id = cloud.reserve(
            device_count=1, model=A100_MODEL, domains=list(domains))
    cloud.tick()
    assert cloud.reservation(rsv_id).status == 'ACTIVE'
    return host, rsv_id


def _end_event(lease_id):
    return next(e for e in database.lease_events(
        context.get_admin_context(), lease_id)
        if e.event_type == engine_states.Event.END)


def test_a_move_that_read_the_lease_before_the_cancel_is_refused(cloud):
    host, rsv_id = _active(cloud)
    lease = cloud.lease(rsv_id)
    read_before = leases_db.lease_get(cloud.ctx, lease.id)
    assert cloud.cancel(rsv_id)
    assert leases_db.lease_get(cloud.ctx, lease.id).status == \
        engine_states.Lease.DELETING
    # The end is due now, in the transaction that marked the lease.
    assert _end_event(lease.id).time <= timeutils.utcnow()
    later = read_before.end + datetime.timedelta(hours=3)
    # The compare-and-swap on the lease's status and end refuses it.
    assert cloud.manager._move_end(cloud.ctx, read_before, later) is False
    with pytest.raises(exception.InvalidState) as caught:
        cloud.manager.move_device_reservation_end(
            cloud.ctx, rsv_id, later)
    assert 'is cancelled' in caught.value.message
    assert _end_event(lease.id).time <= timeutils.utcnow()
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-2'] == []


class ManagerDied(BaseException):
    """The process ends here: no ``except Exception`` runs."""


def test_an_attach_that_crashed_before_its_commit_is_taken_back(
        cloud, monkeypatch):
    host, rsv_id = _active(cloud, domains=())
    before = cloud.hostdevs(host)['gpu-vm-3']

    def crash(*args, **kwargs):
        raise ManagerDied()

    # libvirt attached, then the process died: no commit of ATTACHED,
    # no undo, no handler run.
    monkeypatch.setattr(attachments.UndoLog, 'rollback', lambda self: None)
    monkeypatch.setattr(attachments.device_reservations_db,
                        'attachment_update', crash)
    with pytest.raises(ManagerDied):
        lifecycle.attach(cloud.ctx, rsv_id, 'gpu-vm-3', None, 'project-a')
    monkeypatch.undo()
    assert cloud.hostdevs(host)['gpu-vm-3'] != before
    # What the crash left: a row that says the device may be there.
    rows = [a for a in cloud.reservation(rsv_id).attachments
            if a.domain == 'gpu-vm-3']
    assert [a.state for a in rows] == [states.Attachment.ATTACHING]

    assert cloud.cancel(rsv_id)
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-3'] == before
    assert {a.state for a in cloud.reservation(rsv_id).attachments} == {
        states.Attachment.DETACHED}


def test_an_attach_after_the_cancel_is_409(cloud):
    host, rsv_id = _active(cloud)
    assert cloud.cancel(rsv_id)
    for action in (
            lambda: lifecycle.attach(cloud.ctx, rsv_id, 'gpu-vm-3', None,
                                     'project-a'),
            lambda: lifecycle.detach(cloud.ctx, rsv_id, 'gpu-vm-2'),
            lambda: lifecycle.set_domains(cloud.ctx, rsv_id, ['gpu-vm-3'],
                                          'project-a')):
        with pytest.raises(exception.InvalidState) as caught:
            action()
        assert 'cancelled' in caught.value.message
    # The attach that passed its first check before the cancel: its
    # compare-and-swap refuses it.
    found = cloud.reservation(rsv_id)
    with pytest.raises(exception.InvalidState):
        lifecycle.add_attachments(cloud.ctx, cloud.conn(host), found, [{
            'device_id': found.devices[0].device_id, 'domain': 'gpu-vm-3',
            'kind': 'pci', 'mdev_uuid': None, 'project_id': 'project-a',
            'state': states.Attachment.PLANNED}])
    cloud.tick()
    assert cloud.hostdevs(host)['gpu-vm-3'] == []
    assert cloud.hostdevs(host)['gpu-vm-2'] == []


def test_a_deletion_whose_end_is_still_ahead_is_cast_again(cloud):
    host, rsv_id = _active(cloud)
    lease = cloud.lease(rsv_id)
    # A cancel whose deletion marked the lease, its end left ahead (as
    # a release without the one transaction could leave it).
    assert cancel.device_reservation(cloud.ctx, rsv_id, 'cancelled by a test')
    leases_db.lease_update(cloud.ctx, lease.id,
                           {'status': engine_states.Lease.DELETING})
    assert _end_event(lease.id).time > timeutils.utcnow()
    assert cloud.reconcile()['device_cancels'] == 1
    assert _end_event(lease.id).time <= timeutils.utcnow()
    cloud.tick()
    assert cloud.reservation(rsv_id).released_at is not None
    assert cloud.hostdevs(host)['gpu-vm-2'] == []
