"""Dates: accepted as ISO 8601 with a timezone, stored naive in UTC."""
import datetime

from oslo_utils import timeutils

from reserve.common import exception


def utcnow():
    """Now, naive UTC, as the database stores it."""
    return timeutils.utcnow().replace(microsecond=0, tzinfo=None)


def utcnow_precise():
    """Now, naive UTC, to the microsecond."""
    return timeutils.utcnow().replace(tzinfo=None)


def naive_utc(value):
    """A datetime as the database stores it: naive UTC (an aware one is
    converted; a naive one is taken to be UTC already)."""
    if value.tzinfo is None:
        return value
    return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def parse(value, field='date'):
    """An ISO 8601 string with a timezone → naive UTC datetime."""
    if isinstance(value, datetime.datetime):
        parsed = value
    else:
        try:
            parsed = datetime.datetime.fromisoformat(
                str(value).replace('Z', '+00:00'))
        except ValueError:
            raise exception.Invalid(
                reason='%s %r is not an ISO 8601 date and time' %
                (field, value))
    if parsed.tzinfo is None:
        raise exception.Invalid(
            reason='%s %r has no timezone; add Z or an offset such as '
                   '+00:00' % (field, value))
    try:
        utc = parsed.astimezone(datetime.timezone.utc)
    except OverflowError:
        raise exception.Invalid(reason='%s %r is out of range' %
                                (field, value))
    return utc.replace(tzinfo=None, microsecond=0)


def isoformat(value):
    """A stored naive-UTC datetime → ISO 8601 with Z, or None."""
    if value is None:
        return None
    return value.isoformat(timespec='seconds') + 'Z'
