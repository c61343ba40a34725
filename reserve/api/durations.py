"""Lengths of time given by clients: an ISO 8601 duration (PT4H,
P1DT2H, P2W) or a plain number of hours (4, 1.5).

Years and months are refused: their length depends on when they start.
"""
import datetime
import re

from reserve.common import exception

_ISO = re.compile(r'^P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?'
                  r'(?:T(?=\d)(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?'
                  r'(?:(?P<seconds>\d+)S)?)?$')
MINUTE = datetime.timedelta(minutes=1)
HOURS = re.compile(r'^\d{1,7}(?:\.\d{1,6})?$')


def parse(value, name):
    """The positive timedelta ``value`` says; Invalid (400) naming the
    query parameter ``name`` otherwise."""
    text = str(value).strip().upper()

    def invalid(why):
        return exception.Invalid(
            reason="query parameter '%s': %r %s; give an ISO 8601 duration "
                   "(PT4H, P1DT2H, P2W) or a number of hours (4, 1.5)" % (
                       name, value, why))

    if HOURS.match(text):
        length = datetime.timedelta(hours=float(text))
    else:
        match = _ISO.match(text)
        if match is None or text == 'P':
            if re.match(r'^P(\d+Y)?(\d+M)?', text) and re.search(
                    r'^P[^T]*[YM]', text):
                raise invalid('counts years or months, whose length '
                              'depends on the date')
            raise invalid('is not a duration')
        parts = {k: int(v) for k, v in match.groupdict().items() if v}
        if not parts:
            raise invalid('is not a duration')
        try:
            length = datetime.timedelta(**parts)
        except OverflowError:
            raise invalid('is too long') from None
    if length < MINUTE:
        raise invalid('is shorter than a minute')
    # Whole seconds, as every window is.
    return datetime.timedelta(seconds=int(length.total_seconds()))
