"""How reserve reaches nova and placement (keystoneauth1 sessions)."""
import copy

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

nova_group = cfg.OptGroup('nova', title='Nova client options')
placement_group = cfg.OptGroup('placement', title='Placement client options')

_common_opts = [
    cfg.MultiStrOpt('additional_headers', default=[],
                    help='Extra HTTP header sent with every request, as '
                         '"Name: value"; repeat the option for several. '
                         'For clouds run without keystone, for example '
                         '"X-Roles: admin" and "X-Project-Id: <id>" in '
                         'front of a nova API whose pipeline has no '
                         'authtoken.'),
]

nova_opts = [
    cfg.StrOpt('api_version', default='2.79',
               help='Compute API microversion reserve speaks.'),
    cfg.IntOpt('server_delete_timeout', default=600, min=1,
               help='Seconds the end of a lease waits for the servers of '
                    'its flavor to disappear before the lease goes to ERROR '
                    '(a later retry finishes the teardown).'),
    cfg.FloatOpt('server_delete_poll_interval', default=5.0, min=0.1,
                 help='Seconds between two checks while servers are being '
                      'deleted.'),
]


def _adapter_opts(service_type):
    opts = ks_loading.get_adapter_conf_options(include_deprecated=False)
    cfg.set_defaults(opts, service_type=service_type)
    return opts


def _register_ks(conf, group, service_type):
    ks_loading.register_session_conf_options(conf, group.name)
    ks_loading.register_auth_conf_options(conf, group.name)
    conf.register_opts(_adapter_opts(service_type), group=group)


def register_opts(conf):
    conf.register_group(nova_group)
    conf.register_group(placement_group)
    conf.register_opts(_common_opts + nova_opts, group=nova_group)
    conf.register_opts(copy.deepcopy(_common_opts), group=placement_group)
    _register_ks(conf, nova_group, 'compute')
    _register_ks(conf, placement_group, 'placement')


def one_per_name(opts):
    """``opts`` without the later ones of a name already given (keystone
    auth plugins and adapters share some, for the sample)."""
    seen, unique = set(), []
    for opt in opts:
        if opt.dest not in seen:
            seen.add(opt.dest)
            unique.append(opt)
    return unique


def _ks_opts(service_type):
    return one_per_name(ks_loading.get_session_conf_options() +
                        ks_loading.get_auth_common_conf_options() +
                        ks_loading.get_auth_plugin_conf_options('password') +
                        _adapter_opts(service_type))


def list_opts():
    return {nova_group: _common_opts + nova_opts + _ks_opts('compute'),
            placement_group: _common_opts + _ks_opts('placement')}
