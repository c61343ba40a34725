"""Alembic environment of reserve's database."""
from alembic import context

from reserve.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online():
    connection = config.attributes.get('connection')
    if connection is None:
        from sqlalchemy import create_engine
        engine = create_engine(config.get_main_option('sqlalchemy.url'))
        with engine.connect() as connection:
            _run(connection)
    else:
        _run(connection)


def _run(connection):
    context.configure(connection=connection,
                      target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == 'sqlite',
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
