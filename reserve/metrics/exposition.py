"""The registry a scrape renders, single- or multi-process.

Without PROMETHEUS_MULTIPROC_DIR (the built-in server, one process), the
API process's own instruments are read from memory. With it (gunicorn's
workers), prometheus_client writes every worker's counters and
histograms to files of their own in that directory, and a scrape,
whichever worker answers it, sums them all (MultiProcessCollector). The
figures read from the database are the same whoever reads them.
"""
import os

from prometheus_client import exposition as prometheus_exposition
from prometheus_client import multiprocess
from prometheus_client import registry as prometheus_registry

from reserve.metrics import collector
from reserve.metrics import instruments

MULTIPROC_ENV = 'PROMETHEUS_MULTIPROC_DIR'


class MultiprocessDirMissing(Exception):
    """PROMETHEUS_MULTIPROC_DIR names no directory."""


def multiprocess_dir():
    """The multiprocess directory, or None in single-process mode."""
    return os.environ.get(MULTIPROC_ENV) or None


def check():
    """MultiprocessDirMissing when PROMETHEUS_MULTIPROC_DIR is set to
    something that is not a directory: every worker's counters would
    fail to be written."""
    path = multiprocess_dir()
    if path is not None and not os.path.isdir(path):
        raise MultiprocessDirMissing(
            '%s=%s is not a directory: create it (empty, writable by '
            'reserve-api, wiped when the service starts) or unset it' % (
                MULTIPROC_ENV, path))


def registry(ahead=None):
    """A registry of everything a scrape exports, made for one scrape
    (the database's figures read ahead by ``ahead``, when given)."""
    found = prometheus_registry.CollectorRegistry(auto_describe=False)
    if multiprocess_dir() is not None:
        multiprocess.MultiProcessCollector(found)
    else:
        for instrument in instruments.ALL:
            found.register(instrument)
    found.register(collector.DatabaseCollector(ahead))
    return found


def render(accept=None, ahead=None):
    """(body, content type) of a scrape: the Prometheus text format, or
    OpenMetrics when ``accept`` (the Accept header) asks for it. With
    ``ahead`` (reserve.metrics.ahead.ReadAhead), the database's figures
    it holds, and its next read started once the body is rendered."""
    encoder, content_type = prometheus_exposition.choose_encoder(accept)
    body = encoder(registry(ahead))
    if ahead is not None:
        ahead.start_next()
    return body, content_type
