"""One name per concept: a device reservation holds devices

The table of the devices a device reservation holds,
``device_reservation_units``, becomes ``device_reservation_devices``,
and the column naming the device reservation in each device table
(``device_reservation_projects``, that one and ``device_attachments``),
``reservation_id``, becomes ``device_reservation_id``. The indexes and
constraints named after them follow (PostgreSQL names its keys after
the table and the column). A reservation's ``request`` record names
what it asked for ``device_ids`` or ``device_count`` (``unit_ids``,
``count``).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

_OLD_TABLE = 'device_reservation_units'
_NEW_TABLE = 'device_reservation_devices'
_TABLES = ('device_reservation_projects', _NEW_TABLE, 'device_attachments')
_OLD_COLUMN, _NEW_COLUMN = 'reservation_id', 'device_reservation_id'
# (table, old index, new index, its columns before, after)
_INDEXES = (
    (_NEW_TABLE, 'ix_device_reservation_units_device',
     'ix_device_reservation_devices_device', ['device_id'], ['device_id']),
)
# (table, old unique constraint, new one, its columns before, after)
_UNIQUES = (
    ('device_attachments', 'uniq_device_attachments0rsv0dev0domain',
     'uniq_device_attachments0device_reservation0device0domain',
     ['reservation_id', 'device_id', 'domain'],
     ['device_reservation_id', 'device_id', 'domain']),
)
# The keys of a request record, before and after.
_REQUEST_KEYS = (('unit_ids', 'device_ids'), ('count', 'device_count'))


def _rename_columns(old, new):
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.alter_column(old, new_column_name=new,
                               existing_type=sa.String(36),
                               existing_nullable=False)


def _rename_indexes(forward):
    for table, old, new, old_columns, new_columns in _INDEXES:
        if not forward:
            old, new, new_columns = new, old, old_columns
        # The new one first: MariaDB keeps an index under each foreign
        # key, and this one is device_id's.
        op.create_index(new, table, new_columns)
        op.drop_index(old, table_name=table)
    for table, old, new, old_columns, new_columns in _UNIQUES:
        if not forward:
            old, new, new_columns = new, old, old_columns
        with op.batch_alter_table(table) as batch:
            batch.create_unique_constraint(new, new_columns)
            batch.drop_constraint(old, type_='unique')


def _pg_key_names(old_table, new_table, old_column, new_column):
    """PostgreSQL names keys after their table and column
    (<table>_pkey, <table>_<column>_fkey): those of the device tables
    (under their current names) follow the new names."""
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return
    for table in _TABLES:
        names = bind.execute(sa.text(
            'SELECT conname FROM pg_constraint WHERE conrelid = '
            'CAST(:table AS regclass)'), {'table': table}).scalars().all()
        for name in names:
            renamed = name.replace(old_table + '_', new_table + '_').replace(
                '_%s_' % old_column, '_%s_' % new_column)
            if renamed != name:
                op.execute('ALTER TABLE %s RENAME CONSTRAINT %s TO %s' % (
                    table, name, renamed))


def _mysql_key_names(old_table, new_table):
    """MariaDB names a table's foreign keys <table>_ibfk_<n> and keeps
    the names when the table is renamed: those of the renamed table
    follow its name."""
    bind = op.get_bind()
    if bind.dialect.name != 'mysql':
        return
    for key in sa.inspect(bind).get_foreign_keys(new_table):
        if not (key['name'] or '').startswith(old_table + '_'):
            continue
        op.drop_constraint(key['name'], new_table, type_='foreignkey')
        op.create_foreign_key(
            key['name'].replace(old_table, new_table, 1), new_table,
            key['referred_table'], key['constrained_columns'],
            key['referred_columns'],
            ondelete=key.get('options', {}).get('ondelete'))


def _rename_request_keys(forward):
    requests = sa.table('device_reservations', sa.column('id', sa.String),
                        sa.column('request', sa.JSON))
    pairs = _REQUEST_KEYS if forward else tuple(
        (new, old) for old, new in _REQUEST_KEYS)
    bind = op.get_bind()
    for row in bind.execute(sa.select(requests.c.id, requests.c.request)):
        record = dict(row.request or {})
        if not any(old in record for old, _ in pairs):
            continue
        for old, new in pairs:
            if old in record:
                record[new] = record.pop(old)
        bind.execute(requests.update().where(requests.c.id == row.id)
                     .values(request=record))


def upgrade():
    op.rename_table(_OLD_TABLE, _NEW_TABLE)
    _mysql_key_names(_OLD_TABLE, _NEW_TABLE)
    _rename_columns(_OLD_COLUMN, _NEW_COLUMN)
    _rename_indexes(forward=True)
    _pg_key_names(_OLD_TABLE, _NEW_TABLE, _OLD_COLUMN, _NEW_COLUMN)
    _rename_request_keys(forward=True)


def downgrade():
    _rename_request_keys(forward=False)
    _rename_columns(_NEW_COLUMN, _OLD_COLUMN)
    _rename_indexes(forward=False)
    _pg_key_names(_NEW_TABLE, _OLD_TABLE, _NEW_COLUMN, _OLD_COLUMN)
    op.rename_table(_NEW_TABLE, _OLD_TABLE)
    _mysql_key_names(_NEW_TABLE, _OLD_TABLE)
