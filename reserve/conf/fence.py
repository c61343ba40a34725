"""The fence that keeps other projects' on-demand boots off reservable
hosts (reserve.fence.fence), with nova's isolated aggregates."""
from oslo_config import cfg

fence_group = cfg.OptGroup(
    'fence', title='Keeping on-demand boots off reservable hosts',
    help='Every reservable nova host is put in one host aggregate whose '
         'metadata is trait:<trait>=required, and its compute node '
         'resource provider is given the trait; reserved flavors require '
         'it. nova then keeps every other flavor off those hosts, but only '
         'with [scheduler] enable_isolated_aggregate_filtering = True in '
         'the nova.conf of nova-scheduler (reserve-status cannot see that '
         'setting: it warns about it).')

fence_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Fence the reservable hosts. Needs [scheduler] '
                     'enable_isolated_aggregate_filtering = True in the '
                     'nova.conf of nova-scheduler, without which other '
                     'projects\' boots still land on reservable hosts and '
                     'take the reserved capacity. Turning it off later '
                     'leaves the aggregate and the traits where they are: '
                     'delete the aggregate by hand, or flavors reserved '
                     'afterwards (which no longer require the trait) are '
                     'kept off the hosts too.'),
    cfg.StrOpt('aggregate', default='reserve-fenced-hosts',
               help='Name of the nova host aggregate of the fenced hosts. '
                    'reserve creates it and manages its hosts (a host '
                    'added by hand is taken out again); it needs no '
                    'availability zone.'),
    cfg.StrOpt('trait', default='CUSTOM_RESERVE_FENCED',
               regex=r'^CUSTOM_[A-Z0-9_]+$',
               help='Custom trait of the fence: the aggregate\'s metadata '
                    'says trait:<trait>=required, the compute node '
                    'providers of the fenced hosts carry it, and reserved '
                    'flavors require it. nova\'s isolated aggregate '
                    'filtering (enable_isolated_aggregate_filtering in '
                    'nova.conf) keeps every flavor or image that does not '
                    'require it off the aggregate\'s hosts.'),
]


def register_opts(conf):
    conf.register_group(fence_group)
    conf.register_opts(fence_opts, group=fence_group)


def list_opts():
    return {fence_group: fence_opts}
