"""/v1/hosts/{id}/domain-owners: the bodies the API validates, and its
part of the OpenAPI document."""
from reserve.api.schemas import parts

_project = {'type': 'string', 'minLength': 1, 'maxLength': 64,
            'pattern': r'^\S+$'}
_domain = {'type': 'string', 'minLength': 1, 'maxLength': 255}

create = {
    'type': 'object',
    'properties': {'domain': _domain, 'project_id': _project},
    'required': ['domain', 'project_id'],
    'additionalProperties': False,
}

update = {
    'type': 'object',
    'properties': {'project_id': _project},
    'required': ['project_id'],
    'additionalProperties': False,
}


def request_bodies():
    return {'DomainOwnerCreate': create, 'DomainOwnerUpdate': update}


def response_schemas():
    return {
        'DomainOwner': parts.obj({
            'host_id': parts.STR, 'domain': parts.STR,
            'project_id': parts.STR, 'created_at': parts.DATE,
            'updated_at': parts.DATE,
        }, description='The project that owns a domain of a libvirt host '
                       'not run by nova: devices of its reservations may go '
                       'into it'),
    }


def paths():
    host = parts.path_param('host_ref', 'Host ID or name')
    domain = parts.path_param('domain_name', 'libvirt domain name')
    return {
        '/v1/hosts/{host_ref}/domain-owners': {
            'get': parts.operation(
                'listDomainOwners', 'hosts',
                "The owners recorded for a libvirt host's domains",
                parts.obj({'domain_owners': parts.array_of(
                    parts.ref('DomainOwner'))}), [host],
                errors_=(400, 403, 404)),
            'post': parts.operation(
                'createDomainOwner', 'hosts',
                'Record the project that owns a domain of a libvirt host '
                'not run by nova', parts.one('domain_owner', 'DomainOwner'),
                [host], body='DomainOwnerCreate', status=201,
                errors_=(400, 403, 404, 409),
                description='A host run by nova (a nova host is enrolled '
                            'for the machine its URI names) takes the '
                            "owner from nova's metadata of each domain: "
                            '400.'),
        },
        '/v1/hosts/{host_ref}/domain-owners/{domain_name}': {
            'get': parts.operation(
                'showDomainOwner', 'hosts', "A domain's recorded owner",
                parts.one('domain_owner', 'DomainOwner'), [host, domain],
                errors_=(400, 403, 404)),
            'patch': parts.operation(
                'updateDomainOwner', 'hosts', "Change a domain's owner",
                parts.one('domain_owner', 'DomainOwner'), [host, domain],
                body='DomainOwnerUpdate', errors_=(400, 403, 404)),
            'delete': parts.operation(
                'deleteDomainOwner', 'hosts', "Forget a domain's owner",
                None, [host, domain], status=204, errors_=(400, 403, 404)),
        },
    }
