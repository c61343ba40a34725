"""/metrics: what reserve-api tells Prometheus (reserve.api.metrics)."""
from oslo_config import cfg

metrics_group = cfg.OptGroup(
    'metrics', title='Prometheus metrics of reserve-api',
    help='reserve-api serves /metrics in the Prometheus text format: the '
         'catalogue\'s capacity, bookings, device reservations and GPU '
         'devices by state, the lateness of lease events and the repairs '
         'read from the database (after the previous scrape, see '
         'read_ahead), and the API\'s own '
         'request latency, RPC and database failures. Under gunicorn, set '
         'PROMETHEUS_MULTIPROC_DIR so that the workers\' counters add up.')

metrics_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Serve /metrics. When false, /metrics is a path of the '
                     'API like any other (404).'),
    cfg.ListOpt('allowed_source_ranges', default=[],
                item_type=cfg.types.String(),
                help='Networks (CIDR, or a single address) whose scrapes of '
                     '/metrics are answered without a token, e.g. the '
                     'address of the Prometheus server; 0.0.0.0/0,::/0 '
                     'opens /metrics to everybody. The peer is the '
                     'socket\'s, not X-Forwarded-For, and a request '
                     'carrying proxy headers (X-Forwarded-For, Forwarded) '
                     'is never taken as coming from these networks: '
                     'through a proxy, the proxy\'s address says nothing '
                     'of the client. Any other scrape needs a token that '
                     'passes the policy rule reserve:metrics:get '
                     '(administrators and the service role).'),
    cfg.IntOpt('event_window', default=3600, min=60,
               help='Seconds: reserve_event_lateness_seconds counts the '
                    'lease events due within this long before the scrape '
                    'that the manager has run (a gauge histogram of that '
                    'window, read from the events table).'),
    cfg.BoolOpt('read_ahead', default=True,
                help='Answer a scrape with the database\'s figures read '
                     'after the previous one, and read the next ones in a '
                     'thread once it is answered: a scrape of a large site '
                     'then takes milliseconds, not the time the capacity '
                     'of every flavor takes to count. The figures are one '
                     'scrape old, never more (a scrape waits for a read '
                     'still under way); '
                     'reserve_metrics_database_age_seconds says how old. '
                     'When false, every scrape reads them itself.'),
    cfg.IntOpt('max_age', default=120, min=0,
               help='Seconds: with read_ahead, a scrape reads the figures '
                    'itself rather than answer with ones read longer ago '
                    'than this (the first scrape of a worker, or a worker '
                    'of gunicorn the scrapes have not reached for a '
                    'while).'),
]


def register_opts(conf):
    conf.register_group(metrics_group)
    conf.register_opts(metrics_opts, group=metrics_group)


def list_opts():
    return {metrics_group: metrics_opts}
