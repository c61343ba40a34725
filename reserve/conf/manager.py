from oslo_config import cfg

manager_group = cfg.OptGroup('manager', title='Lease engine options')

manager_opts = [
    cfg.IntOpt('event_interval', default=10, min=1,
               help='Seconds between two polls of the events table. An '
                    'event written by this manager that falls due sooner '
                    'wakes the loop early.'),
    cfg.IntOpt('event_timeout', default=900, min=30,
               help='Seconds after which an event left IN_PROGRESS (its '
                    'manager died mid-flight) is taken up again.'),
    cfg.IntOpt('event_retry_interval', default=60, min=1,
               help='Seconds before an event that failed is retried.'),
    cfg.IntOpt('event_max_attempts', default=10, min=1,
               help='Attempts after which a failing event is left in ERROR '
                    'for an operator.'),
    cfg.IntOpt('minutes_before_end_lease', default=60, min=0,
               help='Minutes before the end of a lease at which the '
                    'before_end_lease event (the users\' warning) fires.'),
    cfg.IntOpt('event_workers', default=4, min=1,
               help='Events run at once by one manager.'),
    cfg.IntOpt('capacity_refresh_interval', default=60, min=0,
               help='Seconds between two runs of the periodic capacity '
                    'task: each nova host\'s capacity record is read '
                    'again from placement (what other consumers use of '
                    'it included) and the fence of the reservable hosts '
                    'is repaired. 0 disables it (POST '
                    '/v1/hosts/{id}/refresh still reads one host).'),
    cfg.IntOpt('health_check_interval', default=60, min=0,
               help='Seconds between two health checks of the enrolled '
                    'hosts, a step of the periodic capacity task (so '
                    'checked at most once a capacity_refresh_interval): '
                    'a nova host whose compute service is down or '
                    'disabled or whose hypervisor is gone, or a libvirt '
                    'host that cannot be reached, on two checks in a row, '
                    'is failed: unreservable, what it holds moved to '
                    'hosts with room, the rest flagged as missing, until '
                    'it passes a check again. 0 disables it.'),
    cfg.IntOpt('prestart_check_minutes', default=30, min=0,
               help='Minutes before a reservation starts from which the '
                    'health check also looks at the placement providers '
                    'of its nova hosts (the compute node\'s, with its '
                    'inventory, and reserve_<host>) and at the devices of '
                    'a device reservation, so that one whose host fails '
                    'is moved before its start.'),
    cfg.IntOpt('repair_interval', default=60, min=0,
               help='Seconds between two runs of the repair task: the '
                    'cloud objects of active leases are put back as their '
                    'reservations say (each repair logged, counted and '
                    'notified as reserve.reservation.repaired), the '
                    'deletion of servers an end could not delete is asked '
                    'again, and what ended reservations left in nova and '
                    'placement is taken down. 0 disables it.'),
]


def register_opts(conf):
    conf.register_group(manager_group)
    conf.register_opts(manager_opts, group=manager_group)


def list_opts():
    return {manager_group: manager_opts}
