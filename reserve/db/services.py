"""The daemons' heartbeats (table services)."""
from oslo_db import exception as db_exc

from reserve.db import api as db_api
from reserve.db import models

S = models.Service


def beat(context, binary, host, now):
    """Record that ``binary`` on ``host`` is alive at ``now``."""
    with db_api.writer.using(context) as session:
        updated = (session.query(S)
                   .filter(S.binary == binary, S.host == host)
                   .update({'heartbeat_at': now, 'updated_at': now},
                           synchronize_session=False))
        if updated:
            return
    try:
        with db_api.writer.using(context) as session:
            session.add(S(binary=binary, host=host, heartbeat_at=now))
    except db_exc.DBDuplicateEntry:
        beat(context, binary, host, now)  # another run of it just wrote


def remove(context, binary, host):
    """A daemon stopping cleanly: its work is handed back already."""
    with db_api.writer.using(context) as session:
        session.query(S).filter(S.binary == binary,
                                S.host == host).delete(
            synchronize_session=False)


def service_list(context):
    with db_api.reader.using(context) as session:
        return session.query(S).order_by(S.binary, S.host).all()
