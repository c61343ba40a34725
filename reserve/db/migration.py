"""Schema migrations: finds the alembic scripts and runs them."""
import os
import sys
import sysconfig

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script

from reserve.db import api as db_api


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    # A source checkout or an editable install: the top-level alembic/.
    yield os.path.join(here, os.pardir, os.pardir, 'alembic')
    # A wheel or `pip install .`: installed as data files.
    for prefix in (sys.prefix, sysconfig.get_path('data'),
                   sys.base_prefix, '/usr/local', '/usr'):
        yield os.path.join(prefix, 'share', 'reserve', 'alembic')


def script_location():
    for path in _candidates():
        if os.path.isfile(os.path.join(path, 'env.py')):
            return os.path.normpath(path)
    raise RuntimeError('reserve migrations not found; looked in: %s' %
                       ', '.join(os.path.normpath(p) for p in _candidates()))


def _config(connection=None):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', script_location())
    if connection is not None:
        cfg.attributes['connection'] = connection
    return cfg


def upgrade(revision='head'):
    engine = db_api.get_engine()
    with engine.begin() as connection:
        command.upgrade(_config(connection), revision)


def version():
    engine = db_api.get_engine()
    with engine.connect() as connection:
        return migration.MigrationContext.configure(
            connection).get_current_revision()


def head():
    return script.ScriptDirectory.from_config(_config()).get_current_head()
