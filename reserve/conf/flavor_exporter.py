"""The de.NBI flavor exporter's URLs, served by reserve-api
(reserve.api.flavor_exporter), so that dashboards reading
``/gpus/flavors/`` and ``/v2/flavors/`` keep working after a site moves
from the OpenStack Flavor Exporter (formerly OpenstackGPUService)."""
from oslo_config import cfg

flavor_exporter_group = cfg.OptGroup(
    'flavor_exporter', title='Endpoints of the de.NBI flavor exporter',
    help='reserve-api can answer GET /gpus/flavors/ and GET /v2/flavors/ '
         'in the shape of the de.NBI OpenStack Flavor Exporter: each '
         'catalogue flavor\'s total and available instances, computed '
         'live by the same functions as GET /v1/flavors/availability.')

flavor_exporter_opts = [
    cfg.BoolOpt('enabled', default=False,
                help='Serve the exporter\'s URLs. Off by default: they are '
                     'a compatibility surface outside /v1, useful only to '
                     'sites whose dashboards read the exporter; off, they '
                     'are 404 like any unknown URL.'),
    cfg.BoolOpt('auth_required', default=True,
                help='Whether the exporter\'s URLs need a token (or, with '
                     '[api] auth_strategy = noauth, the same loopback rule '
                     'as the rest of the API), checked against the '
                     'availability policy of /v1/flavors/availability; the '
                     'caller then sees the flavors it sees there. False '
                     'serves them without a token, as the exporter did: '
                     'they then show only the active public flavors, so '
                     'that no private flavor is told to anonymous callers. '
                     'Opening them tells anybody who reaches the API what '
                     'is free: keep them behind a proxy if that matters.'),
]


def register_opts(conf):
    conf.register_group(flavor_exporter_group)
    conf.register_opts(flavor_exporter_opts, group=flavor_exporter_group)


def list_opts():
    return {flavor_exporter_group: flavor_exporter_opts}
