"""The operator commands: reserve-manage and reserve-status."""
import pathlib
import shutil
import sqlite3
import subprocess
import sys

import pytest

from reserve.db import migration


def _tool(name):
    path = pathlib.Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail('%s is not installed' % name)
    return found


@pytest.fixture
def conf(tmp_path):
    path = tmp_path / 'reserve.conf'
    path.write_text('[database]\nconnection = sqlite:///%s\n' %
                    (tmp_path / 'reserve.sqlite'))
    return str(path)


def _run(tool, conf, *args):
    return subprocess.run([_tool(tool), '--config-file', conf] + list(args),
                          capture_output=True, text=True, timeout=120)


def test_db_sync_and_version(conf):
    empty = _run('reserve-manage', conf, 'db', 'version')
    assert empty.returncode == 0
    assert 'reserve-manage db sync' in empty.stdout
    synced = _run('reserve-manage', conf, 'db', 'sync')
    assert synced.returncode == 0, synced.stderr
    assert migration.head() in synced.stdout
    version = _run('reserve-manage', conf, 'db', 'version')
    assert version.stdout.strip().splitlines()[-1] == migration.head()


def test_slot_days_are_rebuilt_after_a_booking_edited_by_hand(
        conf, tmp_path):
    _run('reserve-manage', conf, 'db', 'sync')
    database = sqlite3.connect(tmp_path / 'reserve.sqlite')
    with database:
        database.execute(
            "INSERT INTO flavors (id, name, nova_flavor_id, nova_flavor, "
            "slots, active, is_public, longest_booking, spot, created_at, "
            "updated_at) VALUES ('f1', 'f', 'f', '{}', 4, 1, 1, 0, 0, "
            "'2031-01-01', '2031-01-01')")
        database.execute(
            "INSERT INTO bookings (id, project_id, user_id, flavor_id, "
            "instance_count, start, \"end\", status, created_at, "
            "updated_at) VALUES ('b1', 'p', 'u', 'f1', 3, "
            "'2031-03-01 10:00:00', '2031-03-02 09:00:00', 'ALLOCATED', "
            "'2031-01-01', '2031-01-01')")
    rebuilt = _run('reserve-manage', conf, 'db', 'rebuild-slot-days')
    assert rebuilt.returncode == 0, rebuilt.stderr
    # Its start's day to the day after its end's.
    assert database.execute(
        'SELECT day, instances FROM flavor_slot_days ORDER BY day'
    ).fetchall() == [('2031-03-01', 3), ('2031-03-02', 3),
                     ('2031-03-03', 3)]


def test_upgrade_check_fails_until_the_schema_is_synced(conf):
    before = _run('reserve-status', conf, 'upgrade', 'check')
    assert before.returncode == 2  # failure
    assert 'reserve-manage db sync' in before.stdout
    _run('reserve-manage', conf, 'db', 'sync')
    after = _run('reserve-status', conf, 'upgrade', 'check')
    assert after.returncode == 0, after.stdout
    assert 'Database schema' in after.stdout


def test_upgrade_check_warns_about_noauth(conf, tmp_path):
    _run('reserve-manage', conf, 'db', 'sync')
    with open(conf, 'a') as f:
        f.write('[api]\nauth_strategy = noauth\n')
    result = _run('reserve-status', conf, 'upgrade', 'check')
    assert result.returncode == 1  # warning
    assert 'noauth' in result.stdout


def test_upgrade_check_fails_on_an_unreadable_pci_alias(conf):
    _run('reserve-manage', conf, 'db', 'sync')
    with open(conf, 'a') as f:
        f.write('[pci]\nalias = {"name": "a100", "vendor_id": "10de", '
                '"product_id": "20b5"}\nalias = {"name": "t4"}\n')
    result = _run('reserve-status', conf, 'upgrade', 'check')
    assert result.returncode == 2, result.stdout  # failure
    said = _words(result.stdout)
    assert 'PCI aliases' in said
    assert 'alias t4 needs a 4-digit hexadecimal vendor_id' in said


def _words(output):
    """The text of reserve-status's table, however it wraps."""
    return ' '.join(output.replace('|', ' ').split())


def test_upgrade_check_warns_about_flavors_left_by_migration_0002(
        conf, tmp_path):
    # A reservation made before the catalogue, on the schema of then.
    _run('reserve-manage', conf, 'db', 'sync', '--revision', '0001')
    database = sqlite3.connect(tmp_path / 'reserve.sqlite')
    with database:
        database.execute(
            "INSERT INTO bookings (id, project_id, user_id, flavor_id, "
            "instance_count, start_date, end_date, status, created_at, "
            "updated_at) VALUES ('b1', 'p', 'u', 'nova-a100', 1, "
            "'2031-03-01 08:00:00', '2031-03-01 10:00:00', 'ALLOCATED', "
            "'2031-01-01 00:00:00', '2031-01-01 00:00:00')")
    synced = _run('reserve-manage', conf, 'db', 'sync')
    assert synced.returncode == 0, synced.stderr

    result = _run('reserve-status', conf, 'upgrade', 'check')
    assert result.returncode == 1, result.stdout  # warning
    said = _words(result.stdout)
    assert 'Migrated flavors' in said
    assert '1 catalogue flavor(s) made by migration 0002' in said
    assert 'nova-a100' in said
    assert ('openstack reserve flavor set <flavor> --slots <count> '
            '--enable') in said

    # Reviewed: given its slots and enabled, as the warning says.
    with database:
        database.execute("UPDATE flavors SET slots = 4, active = 1 "
                         "WHERE name = 'nova-a100'")
    result = _run('reserve-status', conf, 'upgrade', 'check')
    said = _words(result.stdout)
    assert 'migration 0002' not in said
    # Its nova flavor was never read (older than migration 0005).
    assert result.returncode == 1, result.stdout
    assert ('1 catalogue flavor(s) have no record of their nova flavor: '
            'nova-a100') in said
    # Written again through the API, it records the nova flavor.
    with database:
        database.execute(
            "UPDATE flavors SET nova_flavor = '{\"id\": \"nova-a100\", "
            "\"vcpus\": 1, \"memory_mb\": 1024, \"disk_gb\": 1}' "
            "WHERE name = 'nova-a100'")
    database.close()
    result = _run('reserve-status', conf, 'upgrade', 'check')
    assert result.returncode == 0, result.stdout


def test_bad_command_is_refused_with_usage(conf):
    result = _run('reserve-manage', conf, 'db', 'explode')
    assert result.returncode != 0
    assert 'invalid choice' in result.stderr
