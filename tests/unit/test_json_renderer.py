"""The API's JSON encoder (orjson) says what pecan's own said."""
import datetime
import decimal
import json

from hypothesis import given
from hypothesis import strategies as st
from pecan import jsonify
import pytest

from reserve.api import json_renderer

# What views return: JSON values (finite numbers; integers of any size)
# and the dates pecan's hook turns into text.
_scalars = (st.none() | st.booleans() | st.integers() |
            st.floats(allow_nan=False, allow_infinity=False) | st.text() |
            st.datetimes() | st.dates())
_values = st.recursive(
    _scalars,
    lambda inner: (st.lists(inner, max_size=4) |
                   st.tuples(inner, inner) |
                   st.dictionaries(st.text(), inner, max_size=4) |
                   st.dictionaries(st.integers(), inner, max_size=3)),
    max_leaves=20)


@given(_values)
def test_the_same_json_as_pecan(value):
    assert json.loads(json_renderer.encode(value)) == json.loads(
        jsonify.encode(value))


def test_dates_are_written_as_pecan_writes_them():
    when = datetime.datetime(2026, 12, 6, 3, 4, 5)
    assert json.loads(json_renderer.encode({'at': when})) == {
        'at': '2026-12-06 03:04:05'}


def test_what_orjson_refuses_is_encoded_by_pecan():
    # An integer beyond 64 bits and a key that is not a string.
    value = {'big': 2 ** 80, 1: decimal.Decimal('1.5')}
    assert json.loads(json_renderer.encode(value)) == {
        'big': 2 ** 80, '1': 1.5}


def test_an_object_neither_can_encode_still_fails():
    with pytest.raises(TypeError):
        json_renderer.encode({'x': object()})
