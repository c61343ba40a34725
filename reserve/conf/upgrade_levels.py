"""[upgrade_levels]: the RPC versions this node may send, for rolling
upgrades (N and N-1 daemons side by side)."""
from oslo_config import cfg

upgrade_group = cfg.OptGroup(
    'upgrade_levels', title='RPC version caps for rolling upgrades',
    help='While daemons of two releases run side by side, set each cap to '
         'the RPC version of the older release (its rpcapi module lists '
         'them), upgrade every node, then remove the caps and restart. A '
         'node never sends a message newer than the cap: what the older '
         'daemons cannot do yet is refused with a 503 naming the cap.')

upgrade_opts = [
    cfg.StrOpt('manager', regex=r'^\d+\.\d+$',
               help='Cap of the messages to reserve-manager (topic '
                    'reserve-manager), e.g. 1.0. Unset: the newest this '
                    'release knows.'),
    cfg.StrOpt('worker', regex=r'^\d+\.\d+$',
               help='Cap of the messages to reserve-worker (topic '
                    'reserve-worker), e.g. 1.0. Unset: the newest this '
                    'release knows.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts}
