"""The device-reservation list reads its devices and projects joined into
strings by the database, and DATETIME values through reserve's own
PyMySQL converter: on every backend, each listed reservation is what
reading it alone gives, whatever its project ids hold."""
import datetime

from pymysql.constants import FIELD_TYPE
import pytest
import sqlalchemy as sa

from reserve.api.views import device_reservations as views
from reserve.common import context as reserve_context
from reserve.common import exception
from reserve.common import states
from reserve.db import api as db_api
from reserve.db import device_reservations as device_reservations_db
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database

NOW = datetime.datetime(2026, 12, 1, 9, 30, 15)
# Ids that a separator other than the device separator would split.
ODD_PROJECTS = ['p,1', 'role:like', 'zeta', 'a|b;c']


def _host_with_devices(ctx, count):
    with db_api.writer.using(ctx) as session:
        host = models.Host(kind=states.LIBVIRT, name='box', uri='test:///box',
                           reservable=True, topology_generation='g1')
        session.add(host)
        session.flush()
        devices = [models.Device(
            host_id=host.id, name='pci_0000_%02x_00_0' % (0x17 + i),
            pci_address='0000:%02x:00.0' % (0x17 + i), vendor_id='0x10de',
            product_id='0x20b2', product_name='GA100 [A100 SXM4 80GB]',
            numa_node=i % 2, state=states.Device.PRESENT)
            for i in range(count)]
        session.add_all(devices)
        session.flush()
        return host.id, [u.id for u in devices]


def _reservation(ctx, host_id, device_ids, projects, attached, hours):
    values = {'host_id': host_id, 'project_id': 'owner', 'user_id': 'u',
              'start': NOW + datetime.timedelta(hours=hours),
              'end': NOW + datetime.timedelta(hours=hours + 2),
              'status': 'PENDING', 'request': {'count': len(device_ids)},
              'topology_generation': 'g1'}
    attachments = [{'device_id': device_id, 'domain': 'vm-%d' % i,
                    'kind': 'pci', 'project_id': 'owner',
                    'state': 'PLANNED', 'live': True, 'config': True}
                   for i, device_id in enumerate(device_ids[:attached])]
    return device_reservations_db.device_reservation_insert(
        ctx, values, projects, device_ids, attachments)


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_each_listed_reservation_is_its_get(backend, tmp_path):
    with database.on_backend(backend, tmp_path):
        ctx = reserve_context.get_admin_context()
        host_id, devices = _host_with_devices(ctx, 6)
        _reservation(ctx, host_id, devices[:3],
                     {'allowed': ODD_PROJECTS, 'managing': ['m-2', 'm-1']},
                     attached=2, hours=0)
        _reservation(ctx, host_id, devices[3:4], {'allowed': ['owner']},
                     attached=0, hours=1)
        _reservation(ctx, host_id, devices[4:], {}, attached=1, hours=2)
        # As long as project ids may be: 100 of 64 characters.
        many = ['%s-%03d' % ('p' * 60, i) for i in range(100)]
        _reservation(ctx, host_id, devices[4:5], {'allowed': many},
                     attached=0, hours=3)
        listed = device_reservations_db.device_reservation_list(ctx)
        assert len(listed) == 4
        by_start = {r.start: r for r in listed}
        assert sorted(by_start) == [
            NOW + datetime.timedelta(hours=h) for h in range(4)]
        for item in listed:
            got = device_reservations_db.device_reservation_get(ctx, item.id)
            assert (views.reservation_view(ctx, item) ==
                    views.reservation_view(ctx, got) ==
                    views.reservation_view(
                        ctx, device_reservations_db.device_reservation_listed(
                            ctx, item.id)))
        first = views.reservation_view(ctx, by_start[NOW])
        assert first['allowed_projects'] == sorted(ODD_PROJECTS)
        assert first['managing_projects'] == ['m-1', 'm-2']
        assert len(first['unit_ids']) == 3
        assert views.reservation_view(
            ctx, by_start[NOW + datetime.timedelta(hours=2)])[
                'allowed_projects'] == []
        assert views.reservation_view(
            ctx, by_start[NOW + datetime.timedelta(hours=3)])[
                'allowed_projects'] == many
        page = device_reservations_db.device_reservation_list(
            ctx, limit=1, marker=listed[0].id)
        assert [r.id for r in page] == [listed[1].id]
        # The same statements again, other values bound.
        page = device_reservations_db.device_reservation_list(
            ctx, limit=2, marker=listed[1].id)
        assert [r.id for r in page] == [r.id for r in listed[2:4]]
        assert [r.id for r in device_reservations_db.device_reservation_list(
            ctx, project_id='m-2')] == [by_start[NOW].id]
        with pytest.raises(exception.Invalid):
            device_reservations_db.device_reservation_list(
                ctx, limit=1, marker='nope')
        with pytest.raises(exception.DeviceReservationNotFound):
            device_reservations_db.device_reservation_listed(
                ctx, listed[0].id, project_id='nobody')


def test_mariadb_datetimes_read_as_pymysql_reads_them(tmp_path):
    with backends.throwaway_database('mysql', tmp_path) as url:
        engine = sa.create_engine(url)
        if engine.dialect.driver != 'pymysql':
            engine.dispose()
            pytest.skip('the servers are reached through %s, which reads '
                        'dates in C: nothing of PyMySQL to check' %
                        engine.dialect.driver)
        try:
            with engine.connect() as conn:
                assert conn.connection.dbapi_connection.decoders[
                    FIELD_TYPE.DATETIME] is db_api._pymysql_datetime
                assert conn.execute(sa.text(
                    'SELECT @@SESSION.group_concat_max_len')).scalar() == \
                    db_api.GROUP_CONCAT_MAX_LEN
                conn.execute(sa.text("SET SESSION sql_mode = ''"))
                row = conn.execute(sa.text(
                    "SELECT CAST('2026-12-01 09:30:15' AS DATETIME), "
                    "CAST('2026-12-01 09:30:15.25' AS DATETIME(6)), "
                    "CAST('0000-00-00 00:00:00' AS DATETIME), "
                    "TIMESTAMP('2026-12-01 09:30:15')")).one()
        finally:
            engine.dispose()
    assert row[0] == NOW
    assert row[1] == NOW.replace(microsecond=250000)
    # What fromisoformat refuses is PyMySQL's to answer: a zero date
    # stays a string.
    assert row[2] == '0000-00-00 00:00:00'
    assert row[3] == NOW
