"""Quotas of the booking desk.

Two resources per project: ``reservations`` (live bookings) and
``instance_hours`` (instance_count x started hours of each live booking).
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
                         '"reservations" and "instance_hours" of this '
                         'service, overridable per project) read with '
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
