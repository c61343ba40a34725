from oslo_db import options as db_options

DEFAULT_CONNECTION = 'sqlite:///reserve.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=DEFAULT_CONNECTION)


def list_opts():
    # oslo.db lists its own [database] options through its own entry point.
    return {}
