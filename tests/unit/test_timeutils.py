"""reserve.common.timeutils: ISO 8601 in, naive UTC stored, Z out."""
import datetime

from hypothesis import given
from hypothesis import strategies as st
import pytest

from reserve.common import exception
from reserve.common import timeutils

UTC = datetime.timezone.utc


@pytest.mark.parametrize('text,expected', [
    ('2030-05-01T10:00:00Z', datetime.datetime(2030, 5, 1, 10, 0)),
    ('2030-05-01T10:00:00+00:00', datetime.datetime(2030, 5, 1, 10, 0)),
    ('2030-05-01T12:30:00+02:30', datetime.datetime(2030, 5, 1, 10, 0)),
    ('2030-05-01T05:00:00-05:00', datetime.datetime(2030, 5, 1, 10, 0)),
    # across midnight and a year boundary
    ('2030-01-01T01:00:00+10:00', datetime.datetime(2029, 12, 31, 15, 0)),
    # Stored to the second, as every backend keeps it.
    ('2030-05-01T10:00:00.250000Z',
     datetime.datetime(2030, 5, 1, 10, 0, 0)),
    ('2030-05-01 10:00Z', datetime.datetime(2030, 5, 1, 10, 0)),
])
def test_parse_converts_to_naive_utc(text, expected):
    parsed = timeutils.parse(text)
    assert parsed == expected
    assert parsed.tzinfo is None


def test_parse_accepts_aware_datetimes():
    tz = datetime.timezone(datetime.timedelta(hours=-3))
    when = datetime.datetime(2030, 5, 1, 7, 0, tzinfo=tz)
    assert timeutils.parse(when) == datetime.datetime(2030, 5, 1, 10, 0)


@pytest.mark.parametrize('value', [
    '2030-05-01T10:00:00',
    '2030-05-01',
    datetime.datetime(2030, 5, 1, 10, 0),
])
def test_parse_refuses_dates_without_timezone(value):
    with pytest.raises(exception.Invalid) as caught:
        timeutils.parse(value, field='start')
    message = str(caught.value)
    assert 'start' in message
    assert 'timezone' in message
    assert caught.value.code == 400


@pytest.mark.parametrize('value', [
    'tomorrow', '', '2030-13-01T10:00:00Z', '2030-02-30T10:00:00Z',
    '2030-05-01T25:00:00Z', '01/05/2030 10:00 UTC', None, 12345,
])
def test_parse_refuses_garbage_naming_the_field(value):
    with pytest.raises(exception.Invalid) as caught:
        timeutils.parse(value, field='end')
    assert 'end' in str(caught.value)
    assert 'ISO 8601' in str(caught.value)


def test_parse_names_date_by_default():
    with pytest.raises(exception.Invalid) as caught:
        timeutils.parse('soon')
    assert 'date' in str(caught.value)


def test_isoformat_adds_z_and_drops_microseconds():
    when = datetime.datetime(2030, 5, 1, 10, 0, 7, 999999)
    assert timeutils.isoformat(when) == '2030-05-01T10:00:07Z'


def test_isoformat_of_none_is_none():
    assert timeutils.isoformat(None) is None


def test_utcnow_is_naive_and_whole_seconds():
    now = timeutils.utcnow()
    assert now.tzinfo is None
    assert now.microsecond == 0
    real = datetime.datetime.now(UTC).replace(tzinfo=None)
    assert abs((real - now).total_seconds()) < 5


naive_seconds = st.datetimes(
    min_value=datetime.datetime(2000, 1, 2),
    max_value=datetime.datetime(2100, 1, 1)).map(
        lambda d: d.replace(microsecond=0))
offsets = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda m: datetime.timezone(datetime.timedelta(minutes=m)))


@given(utc=naive_seconds, tz=offsets)
def test_any_offset_round_trips_to_the_same_instant(utc, tz):
    local = utc.replace(tzinfo=UTC).astimezone(tz)
    assert timeutils.parse(local.isoformat()) == utc
    assert timeutils.parse(timeutils.isoformat(utc)) == utc


@pytest.mark.parametrize('value', ['0001-01-01T00:30:00+01:00',
                                   '9999-12-31T23:30:00-01:00'])
def test_parse_refuses_dates_out_of_range(value):
    with pytest.raises(exception.Invalid) as caught:
        timeutils.parse(value, field='start')
    assert 'start' in str(caught.value)
