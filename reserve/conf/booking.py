"""Options of the booking desk: the calendar and the flavor catalogue."""
from oslo_config import cfg

booking_group = cfg.OptGroup('booking', title='Booking desk options')

booking_opts = [
    cfg.IntOpt('guard_seconds', default=60, min=0, max=86400,
               help='Seconds kept free between two bookings that share a '
                    'slot, to hand the GPU over: every booking and '
                    'maintenance window holds its slots this long after '
                    'its end (a day at most).'),
    cfg.IntOpt('default_max_length_hours', default=168, min=1,
               help='Longest booking, in hours, of a catalogue flavor '
                    'created without max_length_hours.'),
    cfg.IntOpt('free_slots_default_days', default=30, min=1,
               help='Days after its start that free-slots searches when '
                    'the request gives no end.'),
    cfg.IntOpt('max_query_days', default=731, min=1,
               help='Longest window, in days, that free-slots and '
                    'availability answer for. A device reservation is '
                    'held to it too: its end (its start, when '
                    'open-ended) is at most this many days from now.'),
    cfg.IntOpt('series_max_occurrences', default=100, min=1, max=1000,
               help='Most occurrences of a recurring booking (a series, '
                    '/v1/series): a rule giving more is refused.'),
    cfg.IntOpt('series_horizon_days', default=366, min=1,
               help='Days from now within which every occurrence of a '
                    'series must start: a rule reaching further is '
                    'refused.'),
    cfg.IntOpt('standby_interval', default=10, min=1,
               help='Seconds between two passes of the standby list by '
                    'each reserve-worker: reservations on standby whose '
                    'window fits now are admitted (oldest first), those '
                    'whose start or deadline has come lapse. The API also '
                    'asks for a pass at once when it frees capacity (a '
                    'cancel, an earlier end, a maintenance window '
                    'removed).'),
    cfg.IntOpt('max_standby_per_project', default=20, min=0,
               help='Most reservations a project may have on standby at '
                    'once; one more is refused with 413. Waiting '
                    'reservations hold no quota (reservations, '
                    'instance_hours): quota is checked when one is asked '
                    'for and again when it is admitted. 0: no standby.'),
    cfg.IntOpt('offer_hold_seconds', default=300, min=30, max=86400,
               help='Seconds an offer of GET /v1/offers can be booked as '
                    'is (POST /v1/reservations {"offer_id": ...}) before '
                    'it lapses. An offer does not hold capacity: booking '
                    'it runs the admission again, and is refused if the '
                    'capacity went meanwhile.'),
]


def register_opts(conf):
    conf.register_group(booking_group)
    conf.register_opts(booking_opts, group=booking_group)


def list_opts():
    return {booking_group: booking_opts}
