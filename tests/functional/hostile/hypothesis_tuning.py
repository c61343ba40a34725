"""Hypothesis as the other tests know it, around the schemathesis suite.

Importing schemathesis tunes Hypothesis for its own runs, for the whole
process: a printer that prints nothing (so a failing property test of
another module would no longer show its falsifying example) and a larger
buffer. This module, imported before schemathesis, keeps Hypothesis'
own values; ``schemathesis_tuned()`` applies schemathesis' ones only
while its suite runs.
"""
import contextlib

from hypothesis import core
from hypothesis.internal.conjecture import engine
from hypothesis.strategies._internal import collections

_PLACES = ((core, 'RepresentationPrinter'), (core, 'BUFFER_SIZE'),
           (engine, 'BUFFER_SIZE'), (collections, 'BUFFER_SIZE'))


def _snapshot():
    return [(module, name, getattr(module, name))
            for module, name in _PLACES]


def _restore(saved):
    for module, name, value in saved:
        setattr(module, name, value)


HYPOTHESIS = _snapshot()
_SCHEMATHESIS = None


def keep_hypothesis(tune):
    """Once schemathesis is imported: its tuning (``tune()``, which it
    runs at most once) is made and put aside."""
    global _SCHEMATHESIS
    tune()
    _SCHEMATHESIS = _snapshot()
    _restore(HYPOTHESIS)


@contextlib.contextmanager
def schemathesis_tuned():
    _restore(_SCHEMATHESIS)
    try:
        yield
    finally:
        _restore(HYPOTHESIS)
