"""What the tests of /v1/reservations share: the catalogue flavor they
book (an autouse fixture, once imported), their request bodies and the
rows they leave."""
import pytest

from reserve.db import api as db_api
from reserve.db import models
from tests.functional.api_fixtures import future
from tests.functional.api_fixtures import make_flavor
from tests.functional.api_fixtures import MEMBER_A

URL = '/v1/reservations'


@pytest.fixture(autouse=True)
def a100(api):
    """The catalogue flavor the reservations below book."""
    return make_flavor('gpu.a100')


def request_body(**changes):
    body = {'flavor_id': 'gpu.a100', 'start': future(24),
            'end': future(72), 'instance_count': 2}
    body.update(changes)
    return {k: v for k, v in body.items() if v is not None}


def booking_rows():
    engine = db_api.get_engine()
    with engine.connect() as connection:
        return connection.execute(models.Booking.__table__.select()).all()


def create(api, headers=MEMBER_A, **changes):
    return api.post_json(URL, request_body(**changes), headers=headers)
