"""What a v1 handler needs before and after its own logic, declared once.

::

    @method.expose(policy=policies.UPDATE, body=schema.update,
                   view=views.show)
    def patch(self, booking_id=None, *, ctx, body):
        ...

``expose`` exposes the method to pecan (answering JSON) and, in this
order:

#. answers 405 on the level of the URL the method does not serve: a
   ``post`` below an item (``item_methods`` is then the Allow header, or
   a 404 when empty), a ``patch`` or ``delete`` without one
   (``collection_methods``);
#. enforces ``policy`` on the caller's own project;
#. refuses query parameters outside ``params`` (a tuple, or a function
   giving the tuple of the request's microversion; None: not checked);
   with ``params_first``, before the policy;
#. calls the method with what it asks for as keyword-only arguments:
   ``ctx`` (the request context), ``params`` (the query string as a
   dict), ``body`` (the JSON body, checked against the ``body`` schema,
   or the one a callable ``body`` gives for the request's microversion,
   when first read: a handler that looks its target up first answers
   404 for a missing one, whatever the body);
#. renders what it returns with ``view``, and answers ``status`` (204:
   no body; a 201's Location is the handler's, ``utils.set_location``).

The injected arguments are keyword-only: pecan, which routes by the
positional ones, sees the handler's own signature. ``handler`` does the
same for a function that a routed method calls, without exposing it.
"""
import collections.abc
import functools
import inspect

import pecan

from reserve.api.controllers.v1 import utils
from reserve.api import validation

# What a handler may ask for.
INJECTED = ('ctx', 'params', 'body')
# RestController methods served at a collection's URL, and at an item's.
COLLECTION_LEVEL = ('post',)
ITEM_LEVEL = ('patch', 'delete')


class Body(collections.abc.Mapping):
    """The request's JSON body, read and validated when first used."""

    def __init__(self, schema):
        self._schema = schema
        self._fields = None

    def _read(self):
        if self._fields is None:
            # A callable gives the schema of the request's microversion.
            schema = self._schema() if callable(self._schema) else \
                self._schema
            self._fields = validation.load_and_validate(pecan.request,
                                                        schema)
        return self._fields

    def __getitem__(self, key):
        return self._read()[key]

    def __iter__(self):
        return iter(self._read())

    def __len__(self):
        return len(self._read())


class _Spec:
    """The declaration of one handler (not callable: pecan looks through
    the closure of a decorated method for the one function it routes
    to)."""

    def __init__(self, func, policy, params, params_first, body, status,
                 view):
        wanted = [name for name, arg in
                  inspect.signature(func).parameters.items()
                  if arg.kind == arg.KEYWORD_ONLY]
        unknown = set(wanted) - set(INJECTED)
        if unknown or ('body' in wanted) != (body is not None) or (
                'params' in wanted and params is None):
            raise TypeError('%s: keyword-only arguments %s do not match '
                            'its declaration' % (func.__qualname__,
                                                 ', '.join(wanted)))
        self.wanted = wanted
        self.policy = policy
        self.params = params
        self.params_first = params_first
        self.body = body
        self.status = status
        self.view = view

    def _query(self):
        if self.params is None:
            return None
        allowed = self.params() if callable(self.params) else self.params
        return utils.query_params(allowed)

    def check(self, ctx):
        """Enforce the policy and refuse unknown query parameters, in the
        declared order; the query parameters (None: not checked)."""
        params = self._query() if self.params_first else None
        if self.policy is not None:
            utils.authorize(ctx, self.policy)
        return params if self.params_first else self._query()


def handler(policy=None, params=None, body=None, status=200, view=None,
            params_first=False):
    """Steps 2 to 5 of ``expose``, for a function that is not routed."""
    def decorate(func):
        spec = _Spec(func, policy, params, params_first, body, status, view)

        @functools.wraps(func)
        def run(*args, **kwargs):
            ctx = utils.context()
            injected = {'ctx': ctx, 'params': spec.check(ctx)}
            if spec.body is not None:
                injected['body'] = Body(spec.body)
            kwargs.update((name, injected[name]) for name in spec.wanted)
            result = func(*args, **kwargs)
            if spec.status == 204:
                return utils.no_content()
            if spec.view is not None:
                result = spec.view(result)
            if spec.status != 200:
                pecan.response.status = spec.status
            return result
        return run
    return decorate


def expose(policy=None, params=None, body=None, status=200, view=None,
           params_first=False, item_methods=utils.ITEM_METHODS,
           collection_methods=utils.COLLECTION_METHODS):
    """A routed method of a RestController: see the module's docstring."""
    def decorate(func):
        run = handler(policy, params, body, status, view,
                      params_first)(func)
        level = func.__name__

        @functools.wraps(func)
        def routed(*args, **kwargs):
            # args: the controller, then the ids of the URL
            if level in COLLECTION_LEVEL and len(args) > 1:
                if not item_methods:
                    pecan.abort(404)
                utils.method_not_allowed(item_methods)
            if level in ITEM_LEVEL and (len(args) < 2 or args[1] is None):
                utils.method_not_allowed(collection_methods)
            return run(*args, **kwargs)
        return pecan.expose('json')(routed)
    return decorate
