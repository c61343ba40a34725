"""keystoneauth1 sessions and adapters built from a config group."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

CONF = cfg.CONF


def parse_headers(lines):
    """["Name: value", ...] → {Name: value}."""
    headers = {}
    for line in lines:
        name, sep, value = line.partition(':')
        if not sep or not name.strip():
            raise ValueError('additional_headers wants "Name: value", got '
                             '%r' % line)
        headers[name.strip()] = value.strip()
    return headers


def get_adapter(group, **kwargs):
    """An Adapter for the service configured in [group].

    Without auth_type (a cloud run without keystone), requests go to
    endpoint_override with the group's additional_headers only.
    """
    auth = ks_loading.load_auth_from_conf_options(CONF, group)
    session = ks_loading.load_session_from_conf_options(
        CONF, group, auth=auth,
        additional_headers=parse_headers(getattr(CONF, group)
                                         .additional_headers))
    return ks_loading.load_adapter_from_conf_options(
        CONF, group, session=session, auth=auth, **kwargs)
