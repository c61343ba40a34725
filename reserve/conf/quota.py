"""Quotas of the booking desk.

Four resources per project: ``reservations`` (live bookings),
``instance_hours`` (instance_count x started hours of each live booking),
``device_reservations`` (live device reservations) and ``device_hours``
(devices x started hours of each of them).
Limits come from keystone's unified limits through oslo.limit (its
``[oslo_limit]`` section says how to reach keystone), or, on clouds
without them, from this section.
"""
from oslo_config import cfg

quota_group = cfg.OptGroup('quota', title='Booking quota options')

quota_opts = [
    cfg.StrOpt('driver', default='config',
               choices=[('config', 'Limits from this section, the same '
                                   'for every project'),
                        ('unified_limits',
                         'Keystone unified limits (registered limits '
                         '"reservations", "instance_hours", '
                         '"device_hours" and "device_reservations" of this '
                         'service, overridable per project; one not '
                         'registered is a limit of 0, so register the '
                         'device ones as -1 for none) read with '
                         'oslo.limit')],
               help='Where the limits of a project come from.'),
    cfg.IntOpt('reservations', default=10, min=-1,
               help='Live reservations (PENDING_CREATE, ALLOCATED, '
                    'ACTIVE) a project may hold; -1 for no limit. Config '
                    'driver only.'),
    cfg.IntOpt('instance_hours', default=2000, min=-1,
               help='Instance-hours (instance_count times the started '
                    'hours of each live reservation) a project may hold; '
                    '-1 for no limit. Config driver only.'),
    cfg.IntOpt('device_hours', default=1440, min=-1,
               help='GPU device-hours (the devices times the started hours of '
                    'each live device reservation: pending, active or '
                    'needs-review) a project may hold; -1 for no limit. '
                    'The default, 1440, is one 8-GPU server for a week '
                    '(1344) or two devices held open-ended (2 x '
                    'open_ended_hours): enough to work, not enough for '
                    'one project to take every GPU of a cloud for good. '
                    'Config driver only.'),
    cfg.IntOpt('device_reservations', default=10, min=-1,
               help='Live device reservations (pending, active, '
                    'needs-review, until their devices are released) a '
                    'project may hold; -1 for no limit. Config driver '
                    'only.'),
    cfg.IntOpt('open_ended_hours', default=720, min=1,
               help='How an open-ended device reservation counts in '
                    'device_hours, whichever the driver: the whole hours it '
                    'has run, and this many more. What it has run keeps '
                    'counting: a project whose open-ended reservations '
                    'have used up its device_hours gets no new device '
                    'reservation until it ends one.'),
    cfg.BoolOpt('recheck_quota', default=False,
                help='Check the quota again once a booking is written, and '
                     'withdraw it if the project is then over a limit. '
                     'Not needed: every booking and every later end is '
                     'admitted under the one capacity lock, which counts '
                     'the usage of all those before it, so the recheck '
                     'finds nothing new. Costs one more usage query per '
                     'booking when on.'),
]


def register_opts(conf):
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts():
    return {quota_group: quota_opts}
