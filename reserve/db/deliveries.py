"""What the owner of a lease got (models.Delivery), and the report of a
period.

Each writer is one UPDATE of the owner's row (the counts add in SQL, so
two managers never lose each other's); an owner with no row (its lease
made before it was opened) is left alone. Same conventions as
reserve.db.api.
"""
from oslo_db import exception as db_exc
import sqlalchemy as sa

from reserve.db import api as db_api
from reserve.db import models

D = models.Delivery


def _owner(query, owner_type, owner_id):
    return query.filter(D.owner_type == owner_type, D.owner_id == owner_id)


def delivery_open(context, values):
    """The row of an owner (values: owner_type, owner_id, project_id,
    flavor_id, amount, start, end), unless it has one."""
    table = D.__table__
    try:
        with db_api.writer.using(context) as session:
            # Rows, not objects: one made per lease.
            connection = session.connection()
            if connection.execute(
                    sa.select(table.c.owner_id)
                    .where(table.c.owner_type == values['owner_type'],
                           table.c.owner_id == values['owner_id'])
            ).first() is None:
                connection.execute(table.insert(), [values])
    except db_exc.DBDuplicateEntry:
        pass  # opened by another manager meanwhile


def delivery_get(context, owner_type, owner_id):
    with db_api.reader.using(context) as session:
        return _owner(session.query(D), owner_type, owner_id).first()


def _update(context, owner_type, owner_id, values, extra=None):
    with db_api.writer.using(context) as session:
        query = _owner(session.query(D), owner_type, owner_id)
        if extra is not None:
            query = query.filter(extra)
        return bool(query.update(dict(values, updated_at=models._now()),
                                 synchronize_session=False))


def delivery_add(context, owner_type, owner_id, repairs=0,
                 hosts_replaced=0):
    """Count repairs and hosts replaced."""
    return _update(context, owner_type, owner_id, {
        'repairs': D.repairs + repairs,
        'hosts_replaced': D.hosts_replaced + hosts_replaced})


def delivery_usable(context, owner_type, owner_id, when):
    """It became usable at ``when`` (the first time only)."""
    return _update(context, owner_type, owner_id, {'usable_at': when},
                   D.usable_at.is_(None))


def delivery_move(context, owner_type, owner_id, end):
    return _update(context, owner_type, owner_id, {'end': end})


def delivery_missing(context, owner_type, owner_id, missing, now):
    """It lacks ``missing`` instances from ``now`` on (0: it is whole):
    what it lacked until now is added to missing_seconds."""
    with db_api.writer.using(context) as session:
        row = _owner(session.query(D), owner_type, owner_id) \
            .with_for_update().first()
        if row is None or (row.missing == missing and
                           (missing == 0 or row.missing_since)):
            return False
        if row.missing and row.missing_since:
            lacked = max(0, int((now - row.missing_since).total_seconds()))
            row.missing_seconds += row.missing * lacked
        row.missing = missing
        row.missing_since = now if missing else None
        return True


def delivery_stuck_servers(context, owner_type, owner_id, server_ids):
    """The servers nova has not deleted yet at its end (none: None)."""
    return _update(context, owner_type, owner_id,
                   {'stuck_servers': sorted(server_ids) or None})


def delivery_list_stuck(context):
    """The rows whose end left servers nova did not delete yet."""
    with db_api.reader.using(context) as session:
        return session.query(D).filter(D.stuck_servers.isnot(None)).all()


def delivery_list(context, start, end, owner_type=None):
    """The rows of owners whose window starts in [start, end)."""
    with db_api.reader.using(context) as session:
        query = session.query(D).filter(D.start >= start, D.start < end)
        if owner_type is not None:
            query = query.filter(D.owner_type == owner_type)
        return query.order_by(D.start, D.owner_id).all()
