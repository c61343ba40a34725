from oslo_config import cfg

worker_group = cfg.OptGroup('worker', title='Booking worker options')

worker_opts = [
    cfg.IntOpt('workers', default=1, min=1,
               help='Worker processes started by reserve-worker.'),
    cfg.IntOpt('reconcile_interval', default=60, min=1,
               help='Seconds between two runs of the reconciler.'),
    cfg.IntOpt('pending_create_timeout', default=120, min=1,
               help='Seconds a booking may wait for the worker before the '
                    'reconciler casts again: in PENDING_CREATE (its '
                    'creation), or with an end its lease has not taken '
                    '(its update). The same for a device reservation '
                    'with no lease yet, or cancelled and not released.'),
    cfg.IntOpt('purge_after_days', default=7, min=0,
               help='Days after their end at which COMPLETE bookings are '
                    'purged.'),
]


def register_opts(conf):
    conf.register_group(worker_group)
    conf.register_opts(worker_opts, group=worker_group)


def list_opts():
    return {worker_group: worker_opts}
