"""The reserve plugin of the ``openstack`` command (osc-lib).

``openstack reserve ...`` talks to the API registered in the service
catalog as service type ``reserve`` (interface and region from the usual
``--os-interface`` / ``--os-region-name``). ``--os-reserve-url`` (or
``OS_RESERVE_URL``) replaces the catalog: with ``OS_AUTH_TYPE=none`` it is
all that is needed to reach a server running without authentication, such
as ``reserve-all-in-one``.
"""
import logging

from osc_lib import exceptions
from osc_lib import utils

from reserveclient.v1 import client as client_v1

LOG = logging.getLogger(__name__)

API_NAME = 'reserve'
SERVICE_TYPE = 'reserve'
API_VERSION_OPTION = 'os_reserve_api_version'
# "1": the newest 1.x microversion both this client and the server know.
DEFAULT_API_VERSION = '1'
API_VERSIONS = {'1': 'reserveclient.v1.client.Client'}


def check_api_version(check_version):
    """Accept "1" (negotiate) or a microversion "1.<minor>"."""
    try:
        major, _minor = client_v1.parse_version(check_version)
    except ValueError:
        raise exceptions.CommandError(
            '--os-reserve-api-version %r is not a version: use 1 (the '
            'newest the server and client share) or 1.<minor>' %
            check_version)
    if str(major) not in API_VERSIONS:
        raise exceptions.CommandError(
            'reserve API version %s is not supported; supported major '
            'versions: %s' % (check_version, ', '.join(API_VERSIONS)))
    # Skip osc's own check against API_VERSIONS: any 1.x is fine here.
    return True


def _endpoint_override(instance):
    config = instance.get_configuration()
    return (config.get('reserve_url')
            or config.get('reserve_endpoint_override'))


def make_client(instance):
    """The reserve client of an osc ClientManager."""
    version = instance._api_version[API_NAME]
    kwargs = {
        'service_type': SERVICE_TYPE,
        'interface': instance.interface,
        'region_name': instance.region_name,
        'endpoint_override': _endpoint_override(instance),
        'api_version': version,
    }
    LOG.debug('Instantiating reserve client (API version %s, endpoint '
              'override %s)', version, kwargs['endpoint_override'])
    return client_v1.Client(instance.session, **kwargs)


def build_option_parser(parser):
    """Options of the reserve plugin, added to osc's global options."""
    parser.add_argument(
        '--os-reserve-api-version',
        metavar='<reserve-api-version>',
        default=utils.env('OS_RESERVE_API_VERSION',
                          default=DEFAULT_API_VERSION),
        help='Reserve API version: 1 (default: the newest 1.x both sides '
             'know) or a microversion such as 1.0 '
             '(Env: OS_RESERVE_API_VERSION)')
    parser.add_argument(
        '--os-reserve-url',
        metavar='<reserve-url>',
        default=utils.env('OS_RESERVE_URL'),
        help='URL of the reserve API, used instead of the service catalog; '
             'with --os-auth-type none it reaches a server running without '
             'authentication (Env: OS_RESERVE_URL)')
    return parser
