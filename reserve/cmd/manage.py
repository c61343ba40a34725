"""reserve-manage: database administration.

    reserve-manage db sync [--revision REV]
    reserve-manage db version
    reserve-manage db rebuild-slot-days
    reserve-manage service list
"""
import sys

from oslo_config import cfg

from reserve.common import context as reserve_context
from reserve.common import service
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import migration
from reserve.db import services as services_db
from reserve.db import slot_days

CONF = cfg.CONF


def do_db_sync():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def do_db_version():
    current = migration.version()
    print(current or 'None (empty database: run "reserve-manage db sync")')


def do_db_rebuild_slot_days():
    """The catalogue flavors' slots held by day worked out again from the
    bookings: after bookings were edited by hand in the database, which
    the service's own writes keep them in step with."""
    with db_api.writer.using(reserve_context.get_admin_context()) as s:
        slot_days.rebuild(s.connection())
    print('Slots held by day rebuilt from the live bookings')


def do_service_list():
    """The daemons' heartbeats: a daemon is down once its last one is
    older than [DEFAULT]service_down_time."""
    now = timeutils.utcnow()
    rows = services_db.service_list(reserve_context.get_admin_context())
    print('%-22s %-30s %-20s %s' % ('Binary', 'Host', 'Last heartbeat',
                                    'State'))
    for row in rows:
        age = (now - row.heartbeat_at).total_seconds()
        print('%-22s %-30s %-20s %s' % (
            row.binary, row.host, row.heartbeat_at.isoformat(),
            'up' if age <= CONF.service_down_time else
            'down (%d s)' % age))


def add_command_parsers(subparsers):
    db = subparsers.add_parser('db', help='database schema')
    db_sub = db.add_subparsers(dest='db_command')
    db_sub.required = True
    sync = db_sub.add_parser('sync', help='upgrade the schema')
    sync.add_argument('--revision', default='head',
                      help='revision to upgrade to (default: head)')
    sync.set_defaults(func=do_db_sync)
    version = db_sub.add_parser('version', help='show the schema revision')
    version.set_defaults(func=do_db_version)
    rebuild = db_sub.add_parser(
        'rebuild-slot-days',
        help='work the flavors\' slots held by day out again from the '
             'bookings (after editing bookings by hand)')
    rebuild.set_defaults(func=do_db_rebuild_slot_days)
    services = subparsers.add_parser('service', help='running daemons')
    services_sub = services.add_subparsers(dest='service_command')
    services_sub.required = True
    listing = services_sub.add_parser(
        'list', help='the daemons\' heartbeats, and which are down')
    listing.set_defaults(func=do_service_list)


command_opt = cfg.SubCommandOpt('command', title='Commands',
                                handler=add_command_parsers)


def main(argv=None):
    CONF.register_cli_opt(command_opt)
    service.prepare(argv)
    try:
        CONF.command.func()
    except Exception as exc:
        print('reserve-manage: %s' % exc, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
