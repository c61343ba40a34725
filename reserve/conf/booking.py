"""Options of the booking desk: the calendar and the flavor catalogue."""
from oslo_config import cfg

booking_group = cfg.OptGroup('booking', title='Booking desk options')

booking_opts = [
    cfg.IntOpt('guard_seconds', default=60, min=0,
               help='Seconds kept free between two bookings that share a '
                    'slot, to hand the GPU over: every booking and '
                    'maintenance window holds its slots this long after '
                    'its end.'),
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
