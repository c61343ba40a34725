"""Quotas of the booking desk.

Three resources per project: ``reservations`` (live bookings),
``instance_hours`` (instance_count x started hours of each live booking)
and ``unit_hours`` (units x started hours of each live GPU-unit
reservation).
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
                         '"reservations", "instance_hours" and '
                         '"unit_hours" of this service, overridable per '
                         'project; one not registered is a limit of 0, '
                         'so register unit_hours as -1 for none) read '
                         'with oslo.limit')],
               help='Where the limits of a project come from.'),
    cfg.IntOpt('reservations', default=10, min=-1,
               help='Live reservations (PENDING_CREATE, ALLOCATED, '
                    'ACTIVE) a project may hold; -1 for no limit. Config '
                    'driver only.'),
    cfg.IntOpt('instance_hours', default=2000, min=-1,
               help='Instance-hours (instance_count times the started '
                    'hours of each live reservation) a project may hold; '
                    '-1 for no limit. Config driver only.'),
    cfg.IntOpt('unit_hours', default=-1, min=-1,
               help='GPU unit-hours (the units times the started hours of '
                    'each live unit reservation: pending, active or '
                    'needs-review) a project may hold; -1 for no limit. '
                    'An open-ended reservation counts open_ended_hours. '
                    'Config driver only.'),
    cfg.IntOpt('open_ended_hours', default=720, min=1,
               help='The hours an open-ended GPU-unit reservation counts '
                    'in unit_hours, whichever the driver: its units are '
                    'counted as held from its start to this many hours '
                    'after it, however long it then runs.'),
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
