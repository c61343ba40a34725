"""/v1/series (since 1.7): the body of a recurring booking, and its part
of the OpenAPI document.

A series is created by a POST of its own rather than by a field of POST
/v1/reservations: what it answers is a series (its occurrences, and
those refused), not one reservation, and its id is what GET and DELETE
of the rest take.
"""
from reserve.api.schemas import parts
from reserve.api.schemas import reservations
from reserve.booking import rrule
from reserve.booking import series
from reserve.common import states

create = {
    'type': 'object',
    'properties': dict(
        reservations.create['properties'],
        recurrence={'type': 'string', 'minLength': 1,
                    'maxLength': rrule.MAX_LENGTH,
                    'description': 'An iCalendar RRULE of the subset '
                                   'FREQ=DAILY|WEEKLY;INTERVAL=n;'
                                   'COUNT=n|UNTIL=...;BYDAY=MO,...'},
        series_policy={'type': 'string', 'enum': list(series.POLICIES)},
    ),
    'required': ['flavor_id', 'start', 'end', 'recurrence'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

_WINDOW = {'start': parts.DATE, 'end': parts.DATE}


def request_bodies():
    return {'SeriesCreate': create}


def response_schemas():
    return {
        'SeriesOccurrence': parts.obj(dict(
            _WINDOW, id=dict(parts.STR, description='Its reservation'),
            status=parts.enum(states.Booking.ALL)),
            description='An occurrence booked: a reservation of its own.'),
        'SeriesRefusal': parts.obj(dict(
            _WINDOW, status=dict(parts.INT, description=(
                'The HTTP status a booking of it alone would get')),
            code=parts.STR, detail=parts.STR),
            description='An occurrence that does not fit, and why.'),
        'Series': parts.obj({
            'id': parts.STR, 'project_id': parts.STR,
            'user_id': parts.STR, 'flavor_id': parts.STR,
            'instance_count': parts.INT,
            'start': dict(parts.DATE,
                          description='The first occurrence\'s start'),
            'end': dict(parts.DATE,
                        description='The first occurrence\'s end'),
            'recurrence': parts.STR,
            'series_policy': parts.enum(series.POLICIES),
            'occurrences': parts.array_of(parts.ref('SeriesOccurrence')),
            'refused': parts.array_of(parts.ref('SeriesRefusal')),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
        }, description='Since 1.7: a recurring booking, each occurrence '
                       'a reservation.'),
    }


def paths():
    series_id = parts.path_param('series_id', 'Series ID')
    one = parts.one('series', 'Series')
    return {
        '/v1/series': {
            'get': parts.operation(
                'listSeries', 'series',
                'List series (your project unless told)',
                parts.collection('series', 'Series'),
                [parts.ALL_PROJECTS, parts.PROJECT_ID, parts.LIMIT,
                 parts.MARKER], errors_=(400, 403, 404)),
            'post': parts.operation(
                'createSeries', 'series',
                'Book a flavor for a recurring window', one,
                body='SeriesCreate', status=201,
                errors_=(400, 403, 404, 409, 413)),
        },
        '/v1/series/{series_id}': {
            'get': parts.operation(
                'showSeries', 'series',
                'Show a series and its occurrences', one, [series_id],
                errors_=(400, 403, 404)),
            'delete': parts.operation(
                'deleteSeries', 'series',
                'Cancel the occurrences not yet ended, all or from one on',
                None, [series_id, parts.param(
                    'from', description='The reservation ID of the first '
                                        'occurrence to cancel')],
                status=204, errors_=(400, 403, 404)),
        },
    }
