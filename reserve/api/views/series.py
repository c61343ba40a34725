"""The representation of a series (/v1/series, since 1.7)."""
from reserve.api import errors
from reserve.common import timeutils


def occurrence_view(booking):
    return {'id': booking.id, 'start': timeutils.isoformat(booking.start),
            'end': timeutils.isoformat(booking.end),
            'status': booking.status}


def refusal_view(start, end, error):
    """An occurrence that does not fit, refused by ``error``."""
    return {'start': timeutils.isoformat(start),
            'end': timeutils.isoformat(end), 'status': error.code,
            'code': errors.error_code(error.code, error),
            'detail': error.message}


def _code_of(record):
    """The stable code of the error a refusal recorded (by its class's
    name: series.book records it so)."""
    for klass, code in errors.EXCEPTION_CODES.items():
        if klass.__name__ == record.get('error'):
            return code
    return errors.error_code(record['status'])


def _recorded_refusal(record):
    """refusal_view of what the series recorded (series.book)."""
    return {'start': record['start'], 'end': record['end'],
            'status': record['status'], 'code': _code_of(record),
            'detail': record['detail']}


def series_view(series, bookings):
    """A series and its occurrences on record (``bookings``, by start)."""
    return {
        'id': series.id,
        'project_id': series.project_id,
        'user_id': series.user_id,
        'flavor_id': series.flavor_id,
        'instance_count': series.instance_count,
        'start': timeutils.isoformat(series.start),
        'end': timeutils.isoformat(series.end),
        'recurrence': series.rrule,
        'series_policy': series.policy,
        'occurrences': [occurrence_view(b) for b in bookings],
        'refused': [_recorded_refusal(r) for r in series.refused or ()],
        'created_at': timeutils.isoformat(series.created_at),
        'updated_at': timeutils.isoformat(series.updated_at),
    }


def show(found):
    """``found`` = (series, its bookings)."""
    return {'series': series_view(*found)}
