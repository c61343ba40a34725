"""Resource plugins, loaded by resource_type through stevedore."""
from stevedore import driver

from reserve.common import exception

NAMESPACE = 'reserve.resource.plugins'
_PLUGINS = {}


def get_plugin(resource_type):
    if resource_type not in _PLUGINS:
        try:
            mgr = driver.DriverManager(NAMESPACE, resource_type,
                                       invoke_on_load=True)
        except Exception:
            raise exception.Invalid(
                reason='unknown resource_type %r' % resource_type)
        _PLUGINS[resource_type] = mgr.driver
    return _PLUGINS[resource_type]
