"""Dates cross the bus as datetimes: the RPC serializer tags each one,
at any depth, as naive UTC to the microsecond, and reads it back."""
import datetime
import json

import oslo_messaging as messaging
import pytest

from reserve.common import context as reserve_context
from reserve.common import lease_request
from reserve.common import rpc
from reserve import conf as reserve_conf  # noqa: F401 (registers options)
from reserve.manager import rpcapi as manager_rpcapi
from tests.fixtures import rpc_servers

START = datetime.datetime(2026, 12, 2, 10, 0)
END = datetime.datetime(2026, 12, 2, 12, 30, 15, 250)


def _over_the_wire(entity):
    """``entity`` as the serializer sends it, through JSON and back."""
    serializer = rpc.RequestContextSerializer()
    ctx = reserve_context.get_admin_context()
    wire = json.loads(json.dumps(serializer.serialize_entity(ctx, entity)))
    return wire, serializer.deserialize_entity(ctx, wire)


def test_a_datetime_travels_tagged_and_comes_back_itself():
    wire, back = _over_the_wire(START)
    assert wire == {'__datetime__': '2026-12-02T10:00:00.000000'}
    assert back == START and type(back) is datetime.datetime


def test_datetimes_at_any_depth_come_back_as_they_went():
    sent = {'start': START, 'name': 'x', 'amount': 2, 'none': None,
            'reservations': [{'window': [START, END, None],
                              'nested': {'end': END, 'flag': True}}],
            'pair': (START, 'y')}
    wire, back = _over_the_wire(sent)
    assert wire['reservations'][0]['nested']['end'] == {
        '__datetime__': '2026-12-02T12:30:15.000250'}
    assert back == dict(sent, pair=[START, 'y'])  # JSON has no tuples
    assert type(back['reservations'][0]['window'][1]) is datetime.datetime


@pytest.mark.parametrize('entity', [None, 'text', 3, [], {}, [None, 'a'],
                                    {'__datetime__': 'x', 'other': 1}])
def test_what_holds_no_datetime_is_unchanged(entity):
    assert _over_the_wire(entity) == (entity, entity)


def test_an_aware_datetime_arrives_naive_utc():
    paris = datetime.timezone(datetime.timedelta(hours=1))
    aware = datetime.datetime(2026, 12, 2, 11, 0, tzinfo=paris)
    assert _over_the_wire({'at': aware})[1] == {'at': START}
    utc = START.replace(tzinfo=datetime.timezone.utc)
    assert _over_the_wire(utc)[1] == START


def test_the_open_end_and_early_years_keep_their_value():
    for value in (datetime.datetime(9999, 1, 1),
                  datetime.datetime(5, 6, 7, 8, 9, 10, 11)):
        assert _over_the_wire(value)[1] == value


class RecordingManager:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.received = []

    def create_lease(self, context, lease_values):
        self.received.append(lease_values)
        return {'id': 'lease-1', 'start': lease_values['start'],
                'end': lease_values['end']}


@pytest.fixture
def memory_bus():
    """The all-in-one's in-memory bus."""
    with rpc_servers.serving('kombu+memory:////') as serve:
        yield serve


def test_a_call_sends_and_receives_datetimes(memory_bus):
    server = memory_bus(RecordingManager())
    answer = manager_rpcapi.ManagerAPI(timeout=10).create_lease(
        reserve_context.get_admin_context(),
        lease_request.LeaseRequest.for_owner(
            'device-reservation', 'r-1', 'project-a', 'alice', START, END,
            [{'resource_type': 'device:gpu',
              'device_reservation': {'id': 'r-1'}}]))
    assert server.received[0]['start'] == START
    assert type(server.received[0]['end']) is datetime.datetime
    assert answer == {'id': 'lease-1', 'start': START, 'end': END}
