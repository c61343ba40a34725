"""Request bodies: JSON decoding and schema validation.

Every failure is an ``Invalid`` (400) whose message names the field.
"""
import json

import jsonschema
from jsonschema import exceptions as js_exc

from reserve.common import exception


def load_json(request):
    """The decoded JSON body of ``request``."""
    raw = request.body
    if not raw or not raw.strip():
        raise exception.Invalid(
            reason='the request body is empty; a JSON object is expected')
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise exception.Invalid(
            reason='the request body is not valid JSON: %s' % exc)
    _check_text(body)
    return body


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _check_text(body):
    """Refuse what JSON can escape but no database can store: unpaired
    UTF-16 surrogates (\\ud800-\\udfff) and NUL characters."""
    for text in _strings(body):
        if '\x00' in text:
            raise exception.Invalid(
                reason='the request body holds a NUL character (\\u0000)')
        try:
            text.encode('utf-8')
        except UnicodeEncodeError:
            raise exception.Invalid(
                reason='the request body holds an unpaired UTF-16 '
                       'surrogate, which is not valid Unicode')


def _field(path):
    return '.'.join(str(p) for p in path)


def _message(error):
    path = _field(error.absolute_path)
    instance = error.instance
    if error.validator == 'required' and isinstance(instance, dict):
        missing = [f for f in error.validator_value if f not in instance]
        name = '.'.join(filter(None, [path, missing[0] if missing else '']))
        return "missing required field '%s'" % name
    if (error.validator == 'additionalProperties'
            and isinstance(instance, dict)):
        known = set(error.schema.get('properties', {}))
        extra = sorted(k for k in instance if k not in known)
        prefix = '%s.' % path if path else ''
        return ('unknown field%s %s; allowed fields are %s' % (
            's' if len(extra) > 1 else '',
            ', '.join("'%s%s'" % (prefix, k) for k in extra),
            ', '.join(sorted(known)) or 'none'))
    if error.validator == 'type' and not path:
        return 'the request body must be a JSON object'
    if error.validator == 'minProperties' and isinstance(instance, dict):
        where = "field '%s'" % path if path else 'the request body'
        return '%s must set at least one of %s' % (
            where, ', '.join(sorted(error.schema.get('properties', {}))))
    if error.validator == 'propertyNames':
        return "field '%s': key %s" % (path, error.message)
    if path:
        return "field '%s': %s" % (path, error.message)
    return error.message


def _wrapped(schema, body):
    """The one key of a body that wraps the fields in an object, as other
    OpenStack APIs do ({"reservation": {...}}), when the schema wants them
    flat; else None."""
    if (isinstance(body, dict) and len(body) == 1 and
            isinstance(next(iter(body.values())), dict)):
        key = next(iter(body))
        if key not in schema.get('properties', {}):
            return key
    return None


def _is_integer(_checker, instance):
    return isinstance(instance, int) and not isinstance(instance, bool)


# JSON Schema's "integer" takes any number with no fraction (1.0) since
# draft 4; a count the API stores and multiplies is an integer written as
# one, so 1.0 is refused like "1".
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        'integer', _is_integer))


def validate(schema, body):
    """Raise Invalid naming the field when ``body`` breaks ``schema``."""
    validator = _Validator(schema)
    error = js_exc.best_match(validator.iter_errors(body))
    if error is not None:
        reason = _message(error)
        wrapper = _wrapped(schema, body)
        if wrapper:
            reason += ('; the fields go at the top of the body, not inside '
                       '"%s": send {%s} itself' % (
                           wrapper, ', '.join('"%s": ...' % k for k in
                                              sorted(body[wrapper])[:3])))
        raise exception.Invalid(reason=reason)
    return body


def load_and_validate(request, schema):
    return validate(schema, load_json(request))
