"""reserve.db.heartbeat: when a daemon counts as alive to others."""
import pytest

from reserve.db import heartbeat
from reserve.db import services as services_db

pytestmark = pytest.mark.usefixtures('db')


@pytest.fixture
def beat(override):
    override('host', 'manager-a')
    override('heartbeat_interval', 5)
    override('service_down_time', 15)
    return heartbeat.Heartbeat('reserve-manager')


def test_not_fresh_before_the_first_beat(beat):
    assert not beat.fresh()
    assert beat.beat()
    assert beat.fresh()


def test_fresh_only_a_while_after_the_last_beat(beat, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(heartbeat.time, 'monotonic', lambda: clock[0])
    beat.beat()
    clock[0] += 9.9
    assert beat.fresh()
    # Within one interval of being taken for dead: no longer fresh.
    clock[0] += 0.2
    assert not beat.fresh()


def test_a_failed_beat_does_not_refresh(beat, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(heartbeat.time, 'monotonic', lambda: clock[0])
    beat.beat()

    def database_away(*args):
        raise RuntimeError('database away')
    monkeypatch.setattr(services_db, 'beat', database_away)
    clock[0] += 11
    assert not beat.beat()
    assert not beat.fresh()
