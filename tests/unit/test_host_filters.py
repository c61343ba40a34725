"""reserve.capacity.host_filters: host filters on extra capabilities."""
import pytest

from reserve.common import exception
from reserve.capacity import host_filters

A100_HOST = {'gpu_model': 'a100', 'gpu_count': '8', 'rack': 'r12',
             'nvlink': 'True'}
V100_HOST = {'gpu_model': 'v100', 'gpu_count': '4', 'rack': 'r3'}


def passes(value, capabilities):
    return host_filters.matches(host_filters.parse(value), capabilities)


# parse -----------------------------------------------------------------------

@pytest.mark.parametrize('empty', [None, '', [], {}])
def test_empty_filter_is_none_and_matches_every_host(empty):
    assert host_filters.parse(empty) is None
    assert host_filters.matches(None, {}) is True
    assert host_filters.matches(None, A100_HOST) is True


def test_json_list_string_is_parsed():
    assert host_filters.parse('["==", "$gpu_model", "a100"]') == [
        '==', '$gpu_model', 'a100']


def test_list_is_returned_as_is():
    expr = ['and', ['>=', '$gpu_count', 4], ['!=', '$rack', 'r3']]
    assert host_filters.parse(expr) == expr


@pytest.mark.parametrize('value', [{'gpu_model': 'a100', 'rack': 'r12'},
                                   '{"gpu_model": "a100", "rack": "r12"}'])
def test_dict_form_means_equality_on_every_key(value):
    expr = host_filters.parse(value)
    assert expr[0] == 'and'
    assert sorted(expr[1:]) == [['==', '$gpu_model', 'a100'],
                                ['==', '$rack', 'r12']]
    assert host_filters.matches(expr, A100_HOST)
    assert not host_filters.matches(expr, dict(A100_HOST, rack='r13'))
    assert not host_filters.matches(expr, V100_HOST)


@pytest.mark.parametrize('bad', [
    'not json',
    '["==", "$gpu_model"',          # truncated JSON
    '"a100"',                        # JSON, but a string
    '42',
    42,
    True,
    ['=~', '$gpu_model', 'a1.*'],    # unknown operator
    ['==', 'gpu_model', 'a100'],     # key without $
    ['==', '$gpu_model'],            # too short
    ['==', '$gpu_model', 'a100', 'x'],
    ['and', ['==', '$gpu_model', 'a100'], 'junk'],
    ['or', []],
    ['and', ['or', ['>', '$gpu_count']]],   # bad deep inside
])
def test_invalid_filters_are_refused(bad):
    with pytest.raises(exception.Invalid) as caught:
        host_filters.parse(bad)
    assert caught.value.code == 400


@pytest.mark.parametrize('bad', [
    [['==', '$gpu_model', 'a100']],           # a list where the op goes
    '[["==", "$gpu_model", "a100"]]',
    '[{"gpu_model": "a100"}]',                # a dict where the op goes
    ['and', [['>', '$gpu_count', 2]]],
])
def test_unhashable_operator_is_refused_as_invalid(bad):
    # A user's typo must be a 400, not a TypeError (a 500).
    with pytest.raises(exception.Invalid):
        host_filters.parse(bad)


# matches ---------------------------------------------------------------------

@pytest.mark.parametrize('op,value,expected', [
    ('==', 8, True), ('==', '8', True), ('==', 8.0, True),
    ('!=', 8, False), ('<', 10, True), ('<=', 8, True),
    ('>', 8, False), ('>=', 9, False), ('>', 7.5, True),
])
def test_numbers_compare_as_numbers(op, value, expected):
    assert passes([op, '$gpu_count', value], A100_HOST) is expected


def test_numeric_strings_are_not_compared_as_text():
    # As text "10" < "9"; as numbers it is the other way round.
    assert passes(['>', '$gpu_count', 9], {'gpu_count': '10'})
    assert not passes(['<', '$gpu_count', '9'], {'gpu_count': '10'})


def test_strings_compare_as_strings():
    assert passes(['==', '$gpu_model', 'a100'], A100_HOST)
    assert not passes(['==', '$gpu_model', 'A100'], A100_HOST)
    assert passes(['!=', '$gpu_model', 'v100'], A100_HOST)
    assert passes(['<', '$rack', 'r2'], A100_HOST)   # 'r12' < 'r2'


def test_mixed_number_and_text_falls_back_to_text():
    assert not passes(['==', '$rack', 12], A100_HOST)
    assert passes(['==', '$nvlink', True], A100_HOST)


@pytest.mark.parametrize('op', ['==', '!=', '<', '<=', '>', '>='])
def test_missing_key_never_matches(op):
    assert passes([op, '$infiniband', 'yes'], A100_HOST) is False


def test_and_needs_every_part():
    expr = ['and', ['==', '$gpu_model', 'a100'], ['>=', '$gpu_count', 8]]
    assert passes(expr, A100_HOST)
    assert not passes(expr, dict(A100_HOST, gpu_count='4'))
    assert not passes(expr, V100_HOST)


def test_or_needs_one_part():
    expr = ['or', ['==', '$gpu_model', 'h100'], ['==', '$rack', 'r3']]
    assert passes(expr, V100_HOST)
    assert not passes(expr, A100_HOST)
    assert passes(expr, {'gpu_model': 'h100'})


def test_nested_and_or():
    expr = '''["and",
                ["or", ["==", "$gpu_model", "a100"],
                       ["==", "$gpu_model", "h100"]],
                ["or", [">=", "$gpu_count", 8], ["==", "$nvlink", "True"]],
                ["!=", "$rack", "r3"]]'''
    assert passes(expr, A100_HOST)
    assert passes(expr, {'gpu_model': 'h100', 'gpu_count': '2',
                         'nvlink': 'True', 'rack': 'r1'})
    assert not passes(expr, {'gpu_model': 'h100', 'gpu_count': '2',
                             'rack': 'r1'})
    assert not passes(expr, dict(A100_HOST, rack='r3'))
    assert not passes(expr, V100_HOST)


def test_filters_select_hosts():
    inventory = {'gpu1': A100_HOST, 'gpu2': V100_HOST,
                 'gpu3': {'gpu_model': 'a100', 'gpu_count': '2'}}
    expr = host_filters.parse({'gpu_model': 'a100'})
    assert sorted(h for h, caps in inventory.items()
                  if host_filters.matches(expr, caps)) == ['gpu1', 'gpu3']
