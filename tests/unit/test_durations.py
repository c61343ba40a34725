"""Lengths of time as clients give them: ISO 8601 durations or hours."""
import datetime

import pytest

from reserve.api import durations
from reserve.common import exception

H = datetime.timedelta(hours=1)


@pytest.mark.parametrize('text,length', [
    ('PT4H', 4 * H), ('P1DT2H', 26 * H), ('P2W', 14 * 24 * H),
    ('PT90M', 1.5 * H), ('PT3600S', H), ('P1D', 24 * H), ('4', 4 * H),
    ('1.5', 1.5 * H), (' pt1h ', H), ('P1W2DT3H4M5S', datetime.timedelta(
        days=9, hours=3, minutes=4, seconds=5))])
def test_lengths(text, length):
    assert durations.parse(text, 'duration') == length


@pytest.mark.parametrize('text,why', [
    ('P', 'is not a duration'), ('PT', 'is not a duration'),
    ('P1M', 'years or months'), ('P1Y', 'years or months'),
    ('PT1H2D', 'is not a duration'), ('1h', 'is not a duration'),
    ('-1', 'is not a duration'), ('0', 'shorter than a minute'),
    ('PT59S', 'shorter than a minute'), ('', 'is not a duration'),
    ('P1.5D', 'is not a duration'), ('P999999999999D', 'too long')])
def test_refused_naming_the_parameter(text, why):
    with pytest.raises(exception.Invalid) as err:
        durations.parse(text, 'latest_start')
    assert "query parameter 'latest_start'" in str(err.value)
    assert why in str(err.value)
