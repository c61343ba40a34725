"""Migration 0012: the stored statuses of device reservations,
attachments, lease reservations and devices in upper case, and the
manager that took an event in ``taken_by``/``taken_at``, on every
backend, keeping the rows."""
import datetime

import pytest
import sqlalchemy as sa

from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2031, 1, 1)


def _rows(conn):
    """A libvirt host with two devices, two device reservations (one in
    review, one cancelled), an attachment, a lease with its reservation
    and an event a manager took."""
    stamps = {'now': NOW, 'yes': True, 'no': False}
    conn.execute(sa.text(
        "INSERT INTO hosts (id, kind, name, uri, vcpus, memory_mb, "
        "local_gb, reservable, created_at, updated_at) VALUES ('h1', "
        "'libvirt', 'h', 'test:///default', 0, 0, 0, :yes, :now, :now)"),
        stamps)
    for device_id, address, state in (('d1', '0000:17:00.0', 'present'),
                                      ('d2', '0000:18:00.0', 'missing')):
        conn.execute(sa.text(
            "INSERT INTO devices (id, host_id, name, pci_address, "
            "iommu_group_members, virtual_functions, mdev_types, mdevs, "
            "in_use_by, state, created_at, updated_at) VALUES (:id, 'h1', "
            ":id, :address, '[]', '[]', '[]', '[]', '[]', :state, :now, "
            ":now)"), dict(stamps, id=device_id, address=address,
                           state=state))
    for rsv_id, status, closed_as in (('r1', 'needs-review', None),
                                      ('r2', 'active', 'cancelled')):
        conn.execute(sa.text(
            "INSERT INTO device_reservations (id, host_id, project_id, "
            "user_id, start_date, end_date, status, closed_as, request, "
            "topology_generation, created_at, updated_at) VALUES (:id, "
            "'h1', 'p', 'u', :now, :now, :status, :closed_as, '{}', 'g', "
            ":now, :now)"), dict(stamps, id=rsv_id, status=status,
                                 closed_as=closed_as))
    conn.execute(sa.text(
        "INSERT INTO device_attachments (id, reservation_id, device_id, "
        "domain, kind, project_id, state, created_at, updated_at) VALUES "
        "('a1', 'r1', 'd1', 'vm', 'pci', 'p', 'attaching', :now, :now)"),
        stamps)
    conn.execute(sa.text(
        "INSERT INTO leases (id, name, project_id, user_id, start_date, "
        "end_date, status, degraded, created_at, updated_at) VALUES "
        "('l1', 'device-reservation-r1', 'p', 'u', :now, :now, 'ACTIVE', "
        ":no, :now, :now)"), stamps)
    conn.execute(sa.text(
        "INSERT INTO lease_reservations (id, lease_id, resource_type, "
        "status, amount, vcpus, memory_mb, disk_gb, ephemeral_gb, swap_mb,"
        " extra_specs, created_at, updated_at) VALUES ('r1', 'l1', "
        "'device:gpu', 'deleted', 1, 0, 0, 0, 0, 0, '{}', :now, :now)"),
        stamps)
    conn.execute(sa.text(
        "INSERT INTO events (id, lease_id, event_type, time, status, "
        "attempts, claimed_by, claimed_at, created_at, updated_at) VALUES "
        "('e1', 'l1', 'end_lease', :now, 'IN_PROGRESS', 1, 'manager-1', "
        ":now, :now, :now)"), stamps)


def _values(engine, taker):
    with engine.connect() as conn:
        def rows(sql):
            return sorted(tuple(r) for r in conn.execute(sa.text(sql)))
        return {
            'devices': rows('SELECT id, state FROM devices'),
            'device_reservations': rows(
                'SELECT id, status, closed_as FROM device_reservations'),
            'device_attachments': rows(
                'SELECT id, state FROM device_attachments'),
            'lease_reservations': rows(
                'SELECT id, status FROM lease_reservations'),
            # taken_at kept: the row is found by it.
            'events': rows('SELECT id, {0}_by FROM events WHERE {0}_at = '
                           "'2031-01-01 00:00:00'".format(taker)),
        }


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_statuses_are_upper_case_and_events_taken(backend, tmp_path):
    with database.at_revision(backend, tmp_path, '0011') as engine:
        with engine.begin() as conn:
            _rows(conn)
        before = _values(engine, 'claimed')
        database.upgrade(engine, '0012')
        assert _values(engine, 'taken') == {
            'devices': [('d1', 'PRESENT'), ('d2', 'MISSING')],
            'device_reservations': [('r1', 'NEEDS_REVIEW', None),
                                    ('r2', 'ACTIVE', 'CANCELLED')],
            'device_attachments': [('a1', 'ATTACHING')],
            'lease_reservations': [('r1', 'DELETED')],
            'events': [('e1', 'manager-1')],
        }
        # Downgraded, the rows are as they were.
        database.downgrade(engine, '0011')
        assert _values(engine, 'claimed') == before
