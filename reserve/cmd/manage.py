"""reserve-manage: database administration.

    reserve-manage db sync [--revision REV]
    reserve-manage db version
"""
import sys

from oslo_config import cfg

from reserve.common import service
from reserve.db import migration

CONF = cfg.CONF


def do_db_sync():
    migration.upgrade(CONF.command.revision)
    print('Database is at revision %s' % migration.version())


def do_db_version():
    current = migration.version()
    print(current or 'None (empty database: run "reserve-manage db sync")')


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
