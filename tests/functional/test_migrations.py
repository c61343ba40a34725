"""The migrations build exactly the schema the models describe, on every
backend reserve supports."""
from alembic import autogenerate
from alembic import migration as alembic_migration
import pytest

from reserve.db import api as db_api
from reserve.db import migration
from reserve.db import models
from tests.fixtures import backends
from tests.fixtures import database


@pytest.mark.parametrize('backend', backends.BACKENDS)
def test_models_and_migrations_agree(backend, tmp_path):
    with database.on_backend(backend, tmp_path):
        engine = db_api.get_engine()
        assert migration.version() == migration.head()
        with engine.connect() as conn:
            context = alembic_migration.MigrationContext.configure(
                conn, opts={'compare_type': True})
            diff = autogenerate.compare_metadata(context,
                                                 models.Base.metadata)
        assert diff == []
        # Running the sync again is a no-op.
        migration.upgrade()
        assert migration.version() == migration.head()


def test_migrations_are_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert migration.script_location().endswith('alembic')
    assert migration.head() is not None
