"""keystoneauth1 sessions and adapters built from a config group."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

CONF = cfg.CONF


def get_adapter(group, **kwargs):
    """An Adapter for the service configured in [group].

    Without auth_type (a cloud run without keystone), requests go to
    endpoint_override with the group's additional_headers only.
    """
    conf_group = getattr(CONF, group)
    auth = ks_loading.load_auth_from_conf_options(CONF, group)
    session = ks_loading.load_session_from_conf_options(
        CONF, group, auth=auth,
        additional_headers=dict(conf_group.additional_headers))
    return ks_loading.load_adapter_from_conf_options(
        CONF, group, session=session, auth=auth, **kwargs)
