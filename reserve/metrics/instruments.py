"""The counters and histograms the API process keeps itself.

Made once, at import, outside any registry: exposition.registry gathers
them (or, in multiprocess mode, prometheus_client writes them to
PROMETHEUS_MULTIPROC_DIR, chosen when prometheus_client is first
imported, and the scrape reads every process's files). Their labels take
a handful of values each (route templates, never raw URLs), so the series
stay few.
"""
import prometheus_client

# No ``*_created`` series: a timestamp per labelled child that no panel
# reads, which would double the counters' samples of every scrape (and
# that the multiprocess mode never writes, so the two modes agree).
prometheus_client.disable_created_metrics()

NAMESPACE = 'reserve'

# Request latency, seconds: a GET of a list takes milliseconds, a call to
# the manager up to [api] rpc_timeout (30 s).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0)

REQUEST_DURATION = prometheus_client.Histogram(
    'api_request_duration_seconds',
    'Time reserve-api took to answer a request, by method, route '
    'template (ids collapsed) and status code.',
    ['method', 'route', 'status'], namespace=NAMESPACE,
    buckets=LATENCY_BUCKETS, registry=None)

RPC_FAILURES = prometheus_client.Counter(
    'api_rpc_failures',
    'RPC casts and calls of reserve-api that failed, by kind (cast, '
    'call), topic, method and error (timeout: no answer in time; remote: '
    'the daemon answered with an error; transport: the message bus '
    'failed).',
    ['kind', 'topic', 'method', 'error'], namespace=NAMESPACE,
    registry=None)

DB_ERRORS = prometheus_client.Counter(
    'api_db_errors',
    'Database errors reserve-api met, by kind: disconnect (the '
    'connection was lost or refused) or the SQLAlchemy error class '
    '(OperationalError, IntegrityError...). Retried ones count each time.',
    ['kind'], namespace=NAMESPACE, registry=None)

ALL = (REQUEST_DURATION, RPC_FAILURES, DB_ERRORS)
