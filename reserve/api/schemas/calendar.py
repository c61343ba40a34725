"""/v1/calendar (read only: no bodies): its part of the OpenAPI
document."""
from reserve.api.schemas import parts

_BAR = parts.obj({
    'kind': parts.enum(('booking', 'lease', 'device_reservation',
                        'maintenance')),
    'start': parts.DATE, 'end': parts.DATE,
    'status': dict(parts.STR, description=(
        "The booking's, lease's or device reservation's; 'busy' for "
        "another project's")),
    'own': dict(parts.BOOL, description="Of the caller's project"),
    'count': dict(parts.INT, description='Rows it holds at once'),
    'id': dict(parts.STR, description="Of the caller's own (every one for "
                                      "administrators)"),
    'project_id': dict(parts.STR, description='Administrators only'),
    'note': dict(parts.STR_OR_NULL, description='Of a maintenance window'),
}, optional=('status', 'own', 'count', 'id', 'project_id', 'note'),
    description='Something holding the row over [start, end), which may '
                'reach outside the range asked')


def response_schemas():
    return {
        'Calendar': parts.obj({
            'view': parts.enum(('flavor', 'host')),
            'subject': parts.obj({'id': parts.STR, 'name': parts.STR},
                                 description='The flavor (with its slots) '
                                             'or the host (with its kind)'),
            'start': parts.DATE, 'end': parts.DATE, 'now': parts.DATE,
            'rows': parts.array_of(parts.obj({
                'label': parts.STR, 'bars': parts.array_of(_BAR)})),
            'free': dict(parts.array_of(parts.obj({
                'start': parts.DATE, 'end': parts.DATE, 'free': parts.INT})),
                description='Steps covering [start, end): slots (flavor) '
                            'or rows (host) free over each'),
            'statuses': parts.STR_LIST,
        }, description='Since 1.5: what a Gantt chart of a flavor or a '
                       'host shows'),
    }


def paths():
    return {
        '/v1/calendar': {
            'get': parts.operation(
                'showCalendar', 'calendar',
                "Since 1.5: a flavor's or a host's rows of bookings, "
                'maintenance and free capacity over a range (a week from '
                'now unless told; at most 93 days)',
                parts.obj({'calendar': parts.ref('Calendar')}),
                [parts.param('flavor_id', description='A catalogue flavor '
                             '(id or name); or host_id'),
                 parts.param('host_id', description='An enrolled host (id '
                             'or name); or flavor_id'),
                 parts.START, parts.END], errors_=(400, 403, 404)),
        },
    }
