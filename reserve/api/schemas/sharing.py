"""The projects a reservation is shared with (since 1.9): its bodies,
and its part of the OpenAPI document.

The ids are checked by reserve.booking.sharing, whose messages name the
id at fault; the schema only bounds them.
"""
from reserve.api.schemas import parts
from reserve.booking import sharing

FIELD = 'shared_project_ids'

project_ids = {
    'type': 'array',
    'items': {'type': 'string', 'minLength': 1, 'maxLength': 64},
    'description': 'Since 1.9: other projects allowed to boot the '
                   'reserved flavor while the reservation runs: at most '
                   '%d keystone project ids (32 hexadecimal digits, or a '
                   'UUID), none twice, not the owner\'s'
                   % sharing.MAX_SHARED_PROJECTS,
}

replace = {
    'type': 'object',
    'properties': {FIELD: project_ids},
    'required': [FIELD],
    'additionalProperties': False,
}


# -- the OpenAPI document ----------------------------------------------------

def request_bodies():
    return {'SharedProjectsReplace': replace}


def response_schemas():
    return {'SharedProjects': parts.obj(
        {FIELD: dict(parts.STR_LIST, description=(
            'The projects the reservation is shared with now, sorted'))},
        description='Since 1.9: who may boot a reservation\'s flavor '
                    'beside its owner.')}


def paths():
    rsv = parts.path_param('reservation_id', 'Reservation ID')
    project = parts.path_param('project_id', 'Project ID')
    answer = parts.ref('SharedProjects')
    errors_ = (400, 403, 404, 409, 413)
    base = '/v1/reservations/{reservation_id}/shared-projects'
    return {
        base: {
            'put': parts.operation(
                'replaceSharedProjects', 'reservations',
                'Share a live reservation with these projects (the whole '
                'list; since 1.9)', answer, [rsv],
                body='SharedProjectsReplace', errors_=errors_),
        },
        base + '/{project_id}': {
            'put': parts.operation(
                'addSharedProject', 'reservations',
                'Share a live reservation with one more project (since '
                '1.9)', answer, [rsv, project], errors_=errors_),
            'delete': parts.operation(
                'removeSharedProject', 'reservations',
                'Stop sharing a live reservation with a project (since '
                '1.9)', None, [rsv, project], status=204,
                errors_=(403, 404, 409)),
        },
    }
