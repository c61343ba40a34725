"""/v1/reservations: the bodies the API validates, and its part of the
OpenAPI document.

Dates are checked as strings here and parsed afterwards (an ISO 8601 date
and time with a timezone), so that the message names the field; their
``format`` only describes them (the validator does not assert formats).
"""
from reserve.api import microversion
from reserve.api.schemas import parts
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
    },
    'required': ['flavor_id', 'start', 'end'],
    'additionalProperties': False,
}

# Since 1.7 a booking may instead name an offer of GET /v1/offers, which
# fixes everything else: the controller refuses any other field beside it,
# and requires flavor_id, start and end without it.
_create_or_offer = dict(create, properties=dict(
    create['properties'],
    offer_id={'type': 'string', 'minLength': 1, 'maxLength': 36}),
    required=[])
OFFER_FIXES = ('flavor_id', 'start', 'end', 'instance_count')
# What the OpenAPI document says of it.
from_offer = {
    'type': 'object',
    'properties': {'offer_id': dict(
        _create_or_offer['properties']['offer_id'],
        description='Since 1.7: an offer of GET /v1/offers, booked as is '
                    'until it lapses')},
    'required': ['offer_id'],
    'additionalProperties': False,
}


def create_for_version():
    """The body of POST /v1/reservations at the request's microversion."""
    if microversion.serves(microversion.OFFERS):
        return _create_or_offer
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
    return {'ReservationCreate': create,
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
        }, optional=('reserved_flavor_id', 'compute_flavor', 'delivery',
                     'missing_capacity'),
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
                'Book a flavor for a window (since 1.7, or an offer of GET '
                '/v1/offers as is)', one,
                body=('ReservationCreate', 'ReservationFromOffer'),
                status=201, errors_=(400, 403, 404, 409, 413)),
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
