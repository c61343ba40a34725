"""Checks answers of the API against its OpenAPI description.

``CheckedApp`` wraps a webtest app: every answer it gets is validated
against the response schema of the operation (path template, method,
status) the description gives, and the operations answered successfully
are recorded, so a test can tell which ones it has covered.
"""
import re
import urllib.parse

import jsonschema

from reserve.api import openapi

DOC = openapi.document()
METHODS = ('get', 'post', 'put', 'patch', 'delete')


def _regex(template):
    pattern = re.sub(r'\\\{[^/]+?\\\}', '[^/]+', re.escape(template))
    return re.compile('^%s$' % pattern)


TEMPLATES = [(template, _regex(template)) for template in DOC['paths']]


def templates_of(path):
    """The described path templates ``path`` matches, literal ones
    first."""
    found = [t for t, regex in TEMPLATES if regex.match(path)]
    return sorted(found, key=lambda t: t.count('{'))


def operation(method, path):
    """(template, operation) for a concrete path, or (None, None)."""
    for template in templates_of(path):
        op = DOC['paths'][template].get(method.lower())
        if op is not None:
            return template, op
    return None, None


def _resolve(item):
    while '$ref' in item:
        name = item['$ref'].split('/')[-1]
        section = item['$ref'].split('/')[-2]
        item = DOC['components'][section][name]
    return item


def response_schema(op, status):
    response = op['responses'].get(str(status))
    if response is None:
        return None
    response = _resolve(response)
    content = response.get('content', {}).get('application/json')
    return content['schema'] if content else {}


def validate(method, url, status, body):
    """Raise AssertionError unless the answer is what the description
    says; returns the path template."""
    path = urllib.parse.urlsplit(url).path
    if path != '/':
        path = path.rstrip('/')
    template, op = operation(method, path)
    if op is None:
        # Only errors may come from an undescribed route.
        assert status >= 400, '%s %s is not described' % (method, path)
        schema = {'$ref': '#/components/schemas/ErrorBody'}
    else:
        schema = response_schema(op, status)
        assert schema is not None, (
            '%s %s answered %s, which its description (%s) does not '
            'list' % (method, path, status, template))
    if not schema:
        assert body in (None, b'', ''), (method, path, status, body)
        return template
    # The schema's $refs point into the document's components.
    root = dict(schema, components=DOC['components'])
    validator = jsonschema.Draft202012Validator(
        root, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(body), key=str)
    assert not errors, '%s %s (%s): %s' % (
        method, path, status, '; '.join(
            '%s at %s' % (e.message, list(e.absolute_path))
            for e in errors[:5]))
    return template


class CheckedApp:
    """A webtest app whose every answer is checked against the
    description; ``covered`` collects (template, method) of successes."""

    def __init__(self, app):
        self.app = app
        self.covered = set()

    def _call(self, name, url, *args, **kwargs):
        response = getattr(self.app, name)(url, *args, **kwargs)
        method = name.split('_')[0].upper()
        body = response.json if response.body else None
        template = validate(method, url, response.status_int, body)
        if response.status_int < 400 and template:
            self.covered.add((template, method.lower()))
        return response

    def __getattr__(self, name):
        if name.split('_')[0] in METHODS:
            return lambda url, *a, **kw: self._call(name, url, *a, **kw)
        return getattr(self.app, name)


def operations():
    """Every (template, method) the description has."""
    return {(template, method) for template, item in DOC['paths'].items()
            for method in item if method in METHODS}
