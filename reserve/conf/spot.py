"""Spot flavors: idle fenced capacity lent to the projects that opt in
(reserve.spot)."""
from oslo_config import cfg

spot_group = cfg.OptGroup(
    'spot', title='Spot flavors on idle fenced capacity',
    help='A spot catalogue flavor borrows, in GPUs, the reserved seats '
         'their owners do not use and the fenced hosts nobody has booked '
         'yet. The manager sets a spot inventory on each host\'s child '
         'provider (the GPUs it may lend now), and takes spot servers '
         'away, oldest first, when the capacity is needed: an owner boots '
         'into its idle seats, or a booking on the host comes within '
         'lead_time of its start.')

spot_opts = [
    cfg.IntOpt('interval', default=5, min=0,
               help='Seconds between two runs of the spot task (0: no '
                    'spot lending at all). An owner\'s boots beyond '
                    'idle_margin seats at once wait for the next run to '
                    'reclaim a seat.'),
    cfg.IntOpt('idle_margin', default=1, min=1,
               help='Idle seats of each reservation, on each of its hosts, '
                    'that are never lent: so many boots of the owner land '
                    'at once whatever the spot servers, and the next run '
                    'reclaims to keep the margin. A reservation of one '
                    'seat on a host lends none of it there. At least 1: '
                    'reserve sees a boot only once it has landed, so an '
                    'owner whose seats were all lent could not boot.'),
    cfg.IntOpt('lead_time', default=600, min=0,
               help='Seconds before a booking\'s start on a host from which '
                    'the GPUs it booked there are no longer lent, so that '
                    'its start finds them free.'),
    cfg.IntOpt('warning_time', default=300, min=0,
               help='Seconds of notice a spot server gets (a '
                    'spot.server.warning notification) before a coming '
                    'booking, or the end of the reservation it borrows '
                    'from, takes its capacity; new spot servers are not '
                    'lent what goes within this time. A seat its owner '
                    'boots into is reclaimed at once, with no notice.'),
    cfg.StrOpt('reclaim_action', default='delete',
               choices=[('delete', 'Delete the spot server.'),
                        ('shelve', 'Shelve the spot server: its disk is '
                         'kept as an image and its capacity freed once '
                         'nova offloads it ([DEFAULT] '
                         'shelved_offload_time = 0 in nova.conf)')],
               help='What a reclaim does to a spot server.'),
    cfg.StrOpt('resource_class', default='CUSTOM_RESERVE_SPOT',
               regex=r'^CUSTOM_[A-Z0-9_]+$',
               help='Resource class of the spot inventory, in GPUs, on the '
                    'child providers reserve_<host>; spot flavors ask '
                    'resources:<class>=<their GPUs>.'),
]


def register_opts(conf):
    conf.register_group(spot_group)
    conf.register_opts(spot_opts, group=spot_group)


def list_opts():
    return {spot_group: spot_opts}
