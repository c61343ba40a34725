"""What the resources' OpenAPI fragments are made of: JSON types, objects,
parameters and operations (reserve.api.openapi assembles the document).
"""

STR = {'type': 'string'}
STR_OR_NULL = {'type': ['string', 'null']}
INT = {'type': 'integer'}
INT_OR_NULL = {'type': ['integer', 'null']}
BOOL = {'type': 'boolean'}
BOOL_OR_NULL = {'type': ['boolean', 'null']}
OBJECT = {'type': 'object'}
ANY = {}
DATE = {'type': 'string', 'format': 'date-time',
        'description': 'ISO 8601 in UTC, e.g. 2026-12-01T09:00:00Z'}
DATE_OR_NULL = {'type': ['string', 'null'], 'format': 'date-time'}
STR_LIST = {'type': 'array', 'items': STR}
GPU_COUNTS = {'type': ['object', 'null'], 'additionalProperties': INT,
              'description': 'GPUs by resource class, e.g. {"VGPU": 1}; '
                             'null when none are known'}


def ref(name):
    return {'$ref': '#/components/schemas/%s' % name}


def obj(properties, optional=(), description=None):
    """An object that has every property of ``properties`` (the ones named
    in ``optional`` may be absent) and may have more."""
    schema = {'type': 'object', 'properties': properties,
              'required': [k for k in properties if k not in optional]}
    if description:
        schema['description'] = description
    return schema


def array_of(schema):
    return {'type': 'array', 'items': schema}


def enum(values, nullable=False):
    schema = {'type': ['string', 'null'] if nullable else 'string',
              'enum': list(values) + ([None] if nullable else [])}
    return schema


def collection(key, item):
    """A page of a collection: the items and the paging links."""
    return obj({key: array_of(ref(item)), 'links': ref('Links')})


def one(key, item):
    return obj({key: ref(item)})


# -- operations --------------------------------------------------------------

def json_response(schema, description):
    return {'description': description,
            'content': {'application/json': {'schema': schema}}}


def param(name, where='query', description='', schema=None, required=None):
    return {'name': name, 'in': where, 'description': description,
            'required': where == 'path' if required is None else required,
            'schema': schema or STR}


def path_param(name, description):
    return param(name, where='path', description=description)


LIMIT = param('limit', description='Page size (at most [api]max_limit)',
              schema={'type': 'integer', 'minimum': 1})
MARKER = param('marker', description='ID of the last item of the previous '
                                     'page')
ALL_PROJECTS = param('all_projects', description='Every project '
                                                 '(administrators)',
                     schema=BOOL)
PROJECT_ID = param('project_id', description="Another project's "
                                             "(administrators)")
START = param('start', description='ISO 8601 date and time with a '
                                   'timezone', schema=DATE)
END = param('end', description='ISO 8601 date and time with a timezone',
            schema=DATE)


def operation(op_id, tag, summary, ok, params=(), body=None,
              errors_=(400, 403), status=200, description=None):
    """One operation: ``ok`` is the answer's schema (None: no body);
    ``body`` names the schema of its body, or several (a tuple: one per
    range of microversions, the newest first)."""
    op = {'operationId': op_id, 'tags': [tag], 'summary': summary,
          'parameters': list(params), 'responses': {}}
    if description:
        op['description'] = description
    if body is not None:
        schema = ref(body) if isinstance(body, str) else {
            'anyOf': [ref(name) for name in body]}
        op['requestBody'] = {
            'required': True,
            'content': {'application/json': {'schema': schema}}}
    if ok is None:
        op['responses'][str(status)] = {'description': 'Done; no body.'}
    else:
        op['responses'][str(status)] = json_response(
            ok, 'OK' if status == 200 else 'Created')
    # Any request may carry a malformed (400) or unsupported (406)
    # OpenStack-API-Version, or fail to authenticate (401); a body that
    # is not JSON gets 415.
    generic = {400, 401, 406, 500} | ({415} if body is not None else set())
    for code in sorted(set(errors_) | generic):
        op['responses'][str(code)] = {
            '$ref': '#/components/responses/Error%d' % code}
    return op
