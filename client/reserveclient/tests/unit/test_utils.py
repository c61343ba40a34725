"""Dates, key=value options and the output columns."""
import argparse
import datetime

import pytest

from reserveclient.osc import utils


@pytest.mark.parametrize('text,expected', [
    ('2026-12-01', '2026-12-01T00:00:00Z'),
    ('2026-12-01T09:30', '2026-12-01T09:30:00Z'),
    ('2026-12-01 09:30:15', '2026-12-01T09:30:15Z'),
    ('2026-12-01T09:30:15Z', '2026-12-01T09:30:15Z'),
    ('2026-12-01T09:30:15z', '2026-12-01T09:30:15Z'),
    ('2026-12-01T11:30:00+02:00', '2026-12-01T09:30:00Z'),
    ('2026-12-01T09:30:15.123456Z', '2026-12-01T09:30:15Z'),
])
def test_parse_date(text, expected):
    assert utils.parse_date(text) == expected


def test_parse_date_now():
    before = datetime.datetime.now(datetime.timezone.utc).replace(
        microsecond=0, tzinfo=None)
    parsed = datetime.datetime.fromisoformat(utils.parse_date('now')[:-1])
    assert before <= parsed <= before + datetime.timedelta(seconds=2)


@pytest.mark.parametrize('text', ['2026-13-01', 'tomorrow', '01/12/2026',
                                  '2026-12-01T25:00'])
def test_parse_date_refuses(text):
    with pytest.raises(argparse.ArgumentTypeError) as err:
        utils.parse_date(text)
    assert 'is not a date; use ISO 8601' in str(err.value)


def test_key_value():
    assert utils.key_value('gpu=a100') == ('gpu', 'a100')
    assert utils.key_value('a=b=c') == ('a', 'b=c')
    assert utils.key_value('empty=') == ('empty', '')
    for bad in ('novalue', '=x'):
        with pytest.raises(argparse.ArgumentTypeError):
            utils.key_value(bad)


def test_ints():
    assert utils.positive_int('3') == 3
    assert utils.non_negative_int('0') == 0
    for bad in ('0', '-1', 'x', '1.5'):
        with pytest.raises(argparse.ArgumentTypeError):
            utils.positive_int(bad)
    with pytest.raises(argparse.ArgumentTypeError):
        utils.non_negative_int('-1')


def test_heading():
    assert utils.heading('instance_count') == 'Instance Count'
    assert utils.heading('project_id') == 'Project ID'


def test_show_fields_order_and_unknown_keys():
    columns, values = utils.show_fields(
        {'zeta': 1, 'name': 'n', 'id': 'i', 'links': [], 'tags': ['a'],
         'spec': {'k': 'v'}}, ('id', 'name', 'missing'))
    assert columns == ('id', 'name', 'spec', 'tags', 'zeta')
    assert values[0] == 'i'
    assert values[2].human_readable() == "k='v'"
    assert values[2].machine_readable() == {'k': 'v'}
    assert values[3].human_readable() == 'a'
    assert values[4] == 1


def test_lease_reservations_column():
    rsv = {'id': 'r1', 'status': 'active', 'resource_type': 'flavor:instance',
           'amount': 2, 'source_flavor_id': 'gpu', 'flavor_id': 'r1',
           'aggregate': 'r1', 'resource_class': 'CUSTOM_RESERVATION_R1',
           'extra_specs': {'pci_passthrough:alias': 'a100:1'},
           'resource_properties': None, 'vcpus': 8,
           'allocations': [{'host': 'gpu1', 'host_id': 'h1', 'count': 1},
                           {'host': None, 'host_id': 'h2', 'count': 1}]}
    column = utils.LeaseReservationsColumn([rsv])
    text = column.human_readable()
    assert text.splitlines()[0] == 'id: r1'
    assert '  status: active' in text
    assert '  resource class: CUSTOM_RESERVATION_R1' in text
    assert "  extra specs: pci_passthrough:alias='a100:1'" in text
    assert '  allocations: gpu1 x1, h2 x1' in text
    assert 'resource properties' not in text
    assert column.machine_readable() == [rsv]


def test_lease_reservations_without_allocations():
    text = utils.LeaseReservationsColumn([{'id': 'r1'}]).human_readable()
    assert text == 'id: r1\n  allocations: none'


def test_events_column_sorted_with_errors():
    events = [
        {'event_type': 'end_lease', 'time': '2026-01-02T00:00:00Z',
         'status': 'UNDONE', 'attempts': 0, 'last_error': None},
        {'event_type': 'start_lease', 'time': '2026-01-01T00:00:00Z',
         'status': 'ERROR', 'attempts': 3, 'last_error': 'boom'},
    ]
    column = utils.EventsColumn(events)
    assert column.human_readable().splitlines() == [
        'start_lease 2026-01-01T00:00:00Z ERROR (attempts: 3): boom',
        'end_lease 2026-01-02T00:00:00Z UNDONE']
    assert column.machine_readable() == events


def test_allocations_column():
    column = utils.AllocationsColumn([{'host': 'gpu1', 'amount': 2},
                                      {'host': 'gpu2', 'count': 3}])
    # amount from API 1.2, count before it.
    assert column.human_readable() == 'gpu1 x2\ngpu2 x3'


def test_list_column_of_strings_and_of_objects():
    assert utils.ListColumn(['b', 'a']).human_readable() == 'a, b'
    assert utils.ListColumn([]).human_readable() == ''
    missing = [{'host': 'gpu1', 'instances': 2, 'since': None,
                'reason': 'down'},
               {'host': 'gpu2', 'instances': 1, 'since': None,
                'reason': 'down'}]
    column = utils.ListColumn(missing)
    assert column.human_readable().splitlines() == [
        "host='gpu1', instances='2', reason='down', since=",
        "host='gpu2', instances='1', reason='down', since="]
    assert column.machine_readable() == missing


def test_show_fields_of_a_list_of_objects():
    _keys, values = utils.show_fields(
        {'id': 'r1', 'missing_capacity': [{'host': 'gpu1'}]}, ('id',))
    assert values[1].human_readable() == "host='gpu1'"
