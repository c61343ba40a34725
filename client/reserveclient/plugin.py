"""The reserve plugin of the ``openstack`` command (osc-lib).

``openstack reserve ...`` talks to the API registered in the service
catalog as service type ``reserve`` (interface and region from the usual
``--os-interface`` / ``--os-region-name``). ``--os-reserve-url`` (or
``OS_RESERVE_URL``) replaces the catalog: with ``OS_AUTH_TYPE=none`` it is
all that is needed to reach a server running without authentication, such
as ``reserve-all-in-one``.

Neither set (no ``OS_AUTH_URL``, ``OS_CLOUD`` or ``OS_RESERVE_URL``), osc
would stop with "Missing value auth-url required for auth plugin
password"; :func:`check_environment` says instead how to point the CLI at
a server.
"""
import logging

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading
from osc_lib import exceptions
from osc_lib import utils

from reserveclient.v1 import client as client_v1
from reserveclient.v1 import httpclient

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
        major, _minor = httpclient.parse_version(check_version)
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


# How the quick start's all-in-one (no authentication) is reached.
QUICK_START_ENV = ('export OS_AUTH_TYPE=none '
                   'OS_RESERVE_URL=http://127.0.0.1:8785')


def _needs_auth_url(auth_type):
    """Whether the keystoneauth plugin ``auth_type`` requires auth_url."""
    try:
        loader = loading.get_plugin_loader(auth_type)
    except ks_exceptions.NoMatchingPlugin:
        return False  # osc says so itself
    return any(opt.dest == 'auth_url' and opt.required
               for opt in loader.get_options())


def check_environment(config):
    """Refuse, saying what to set, a configuration without a way to reach
    the reserve API.

    ``config`` is osc's cloud configuration (``CloudRegion.config``:
    environment, ``clouds.yaml`` and the ``--os-*`` options merged). osc
    validates it before any command of this plugin runs; when the auth
    plugin (``password`` unless told otherwise) needs an auth URL and none
    is given, it stops with "Missing value auth-url required for auth
    plugin password", which does not tell a new user that the quick start
    needs no keystone at all. Raised from the commands' ``auth_required``
    (see :class:`reserveclient.osc.v1.base.ReserveCommand`), which osc
    reads just before that validation.
    """
    config = config or {}
    auth = config.get('auth') or {}
    auth_type = config.get('auth_type') or 'password'
    if config.get('auth_url') or auth.get('auth_url'):
        return
    if not _needs_auth_url(auth_type):
        return
    reserve_url = (config.get('reserve_url')
                   or config.get('reserve_endpoint_override'))
    if reserve_url:
        raise exceptions.CommandError(
            'The reserve API is at %s (OS_RESERVE_URL or --os-reserve-url) '
            'but the auth plugin %r needs a keystone URL, and neither '
            'OS_AUTH_URL nor --os-auth-url nor a cloud (OS_CLOUD, '
            '--os-cloud) gives one. Against a server without '
            'authentication, such as the quick start\'s '
            'reserve-all-in-one, also set OS_AUTH_TYPE=none (or '
            '--os-auth-type none); with keystone, set OS_AUTH_URL or '
            'OS_CLOUD.' % (reserve_url, auth_type))
    raise exceptions.CommandError(
        'Nothing says where the reserve API is: neither OS_AUTH_URL (or '
        '--os-auth-url, or a cloud from OS_CLOUD / --os-cloud) for '
        'keystone, nor OS_RESERVE_URL (or --os-reserve-url) is set. For '
        'the quick start\'s reserve-all-in-one, which runs without '
        'authentication:\n    %s\nWith keystone, source your openrc '
        'file or set OS_CLOUD to a cloud of your clouds.yaml.'
        % QUICK_START_ENV)


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
             'know, up to %s) or a microversion such as 1.0, which shows '
             'the field names of that version '
             '(Env: OS_RESERVE_API_VERSION)' % httpclient.MAX_VERSION)
    parser.add_argument(
        '--os-reserve-url',
        metavar='<reserve-url>',
        default=utils.env('OS_RESERVE_URL'),
        help='URL of the reserve API, used instead of the service catalog; '
             'with --os-auth-type none it reaches a server running without '
             'authentication (Env: OS_RESERVE_URL)')
    return parser
