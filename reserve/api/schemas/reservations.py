"""/v1/reservations: the bodies the API validates, and its part of the
OpenAPI document.

Dates are checked as strings here and parsed afterwards (an ISO 8601 date
and time with a timezone), so that the message names the field; their
``format`` only describes them (the validator does not assert formats).
"""
from reserve.api import microversion
from reserve.api.schemas import parts
from reserve.api.schemas import sharing
from reserve.api.views import missing_capacity
from reserve.common import states

_date = {'type': 'string', 'minLength': 1, 'maxLength': 64,
         'format': 'date-time'}
# Instances of one booking: more than any flavor's slots a catalogue
# holds, few enough that the hours it counts stay small integers.
MAX_INSTANCE_COUNT = 1000

create = {
    'type': 'object',
    'properties': {
        'flavor_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'start': _date,
        'end': _date,
        'instance_count': {'type': 'integer', 'minimum': 1,
                           'maximum': MAX_INSTANCE_COUNT},
        sharing.FIELD: sharing.project_ids,
    },
    'required': ['flavor_id', 'start', 'end'],
    'additionalProperties': False,
}

# Since 1.8: a booking refused for capacity may wait for room
# (reserve.booking.standby).
create_standby = dict(create, properties=dict(
    create['properties'],
    standby={'type': 'boolean', 'description': (
        'Since 1.8: when the window does not fit for capacity, wait for '
        'room as STANDBY instead of being refused')},
    standby_until=dict(_date, description=(
        'Since 1.8, with standby: lapse at this time if not admitted by '
        'then (default: at the start)'))))

# Since 1.10 a booking may instead name an offer of GET /v1/offers, which
# fixes everything else: the controller refuses any other field beside it,
# and requires flavor_id, start and end without it.
_create_or_offer = dict(create_standby, properties=dict(
    create_standby['properties'],
    offer_id={'type': 'string', 'minLength': 1, 'maxLength': 36}),
    required=[])
OFFER_FIXES = ('flavor_id', 'start', 'end', 'instance_count', 'standby',
               'standby_until')
# What the OpenAPI document says of it.
from_offer = {
    'type': 'object',
    'properties': {
        'offer_id': dict(
            _create_or_offer['properties']['offer_id'],
            description='Since 1.10: an offer of GET /v1/offers, booked as '
                        'is until it lapses'),
        sharing.FIELD: sharing.project_ids,
    },
    'required': ['offer_id'],
    'additionalProperties': False,
}


def served_create():
    """The body of POST at the request's microversion (method.expose
    reads it when the body is read)."""
    if microversion.serves(microversion.OFFERS):
        return _create_or_offer
    if microversion.serves(microversion.STANDBY):
        return create_standby
    return create


update = {
    'type': 'object',
    'properties': {
        'end': _date,
    },
    'required': ['end'],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'ReservationCreate': create_standby,
            'ReservationCreateBefore1.8': create,
            'ReservationFromOffer': from_offer,
            'ReservationUpdate': update}


def response_schemas():
    return {
        'Reservation': parts.obj({
            'id': parts.STR, 'project_id': parts.STR,
            'user_id': parts.STR,
            'flavor_id': dict(parts.STR,
                              description='The catalogue flavor'),
            'instance_count': parts.INT, 'start': parts.DATE,
            'end': parts.DATE,
            'status': parts.enum(states.Booking.ALL),
            'status_reason': parts.STR_OR_NULL,
            'lease_id': parts.STR_OR_NULL,
            'reserved_flavor_id': dict(parts.STR_OR_NULL, description=(
                'Since 1.1: the reserved flavor to boot, once ALLOCATED')),
            'compute_flavor': dict(parts.STR_OR_NULL, description=(
                'Before 1.2: the same as reserved_flavor_id')),
            'created_at': parts.DATE, 'updated_at': parts.DATE,
            'delivery': dict(parts.ref('Delivery'), description=(
                'Since 1.3, of GET /v1/reservations/{id}: what it got')),
            'missing_capacity': missing_capacity.schema('instances'),
            'series_id': dict(parts.STR_OR_NULL, description=(
                'Since 1.7: the series it is an occurrence of')),
            'standby_since': dict(parts.DATE_OR_NULL, description=(
                'Since 1.8: when it began to wait on standby (null if it '
                'never waited)')),
            'standby_until': dict(parts.DATE_OR_NULL, description=(
                'Since 1.8: when it lapses if not admitted (null: at its '
                'start, or it never waited)')),
            sharing.FIELD: dict(parts.STR_LIST, description=(
                'Since 1.9, of one reservation: the projects it is shared '
                'with (a project it is shared with sees itself alone)')),
        }, optional=('reserved_flavor_id', 'compute_flavor', 'delivery',
                     'missing_capacity', 'series_id', 'standby_since',
                     'standby_until', sharing.FIELD),
            description='A booking of a catalogue flavor for a window.'),
    }


def paths():
    rsv = parts.path_param('reservation_id', 'Reservation ID')
    one = parts.one('reservation', 'Reservation')
    return {
        '/v1/reservations': {
            'get': parts.operation(
                'listReservations', 'reservations',
                'List reservations (your project unless told)',
                parts.collection('reservations', 'Reservation'),
                [parts.ALL_PROJECTS, parts.PROJECT_ID,
                 parts.param('flavor_id', description='Flavor ID or name'),
                 parts.param('status',
                             schema=parts.enum(states.Booking.ALL)),
                 parts.LIMIT, parts.MARKER]),
            'post': parts.operation(
                'createReservation', 'reservations',
                'Book a flavor for a window (since 1.10, or an offer of GET '
                '/v1/offers as is)', one,
                body=('ReservationCreate', 'ReservationCreateBefore1.8',
                      'ReservationFromOffer'),
                status=201, errors_=(400, 403, 404, 409, 413),
                description=(
                    'Since 1.8, with standby: a window that does not fit '
                    'for capacity alone is kept waiting (201, status '
                    'STANDBY), admitted first fit in the order of the '
                    'requests when room frees (PENDING_CREATE), LAPSED at '
                    'its start or standby_until otherwise.')),
        },
        '/v1/reservations/{reservation_id}': {
            'get': parts.operation(
                'showReservation', 'reservations', 'Show a reservation',
                one, [rsv], errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateReservation', 'reservations',
                'Move the end of a reservation', one, [rsv],
                body='ReservationUpdate',
                errors_=(400, 403, 404, 409, 413)),
            'delete': parts.operation(
                'deleteReservation', 'reservations',
                'Cancel (or remove) a reservation', None, [rsv],
                status=204, errors_=(403, 404, 409)),
        },
    }
