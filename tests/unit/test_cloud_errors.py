"""How nova and placement client errors reach callers."""
from keystoneauth1 import exceptions as ks_exc
import pytest

from reserve.common import exception


@exception.translate_cloud_errors('nova', ks_exc.ClientException)
class _Client:
    def __init__(self, error):
        self.error = error

    def find_hypervisor(self):
        raise self.error


def test_missing_auth_plugin_is_a_503_naming_the_section():
    with pytest.raises(exception.CloudNotConfigured) as caught:
        _Client(ks_exc.MissingAuthPlugin('An auth plugin is required')
                ).find_hypervisor()
    assert caught.value.code == 503
    assert '[nova]' in caught.value.message
    # still a CloudError: the event loop retries it like any cloud failure
    assert isinstance(caught.value, exception.CloudError)


def test_other_client_errors_are_a_502_naming_the_call():
    with pytest.raises(exception.CloudError) as caught:
        _Client(ks_exc.ConnectFailure('refused')).find_hypervisor()
    assert caught.value.code == 502
    assert caught.value.message == 'nova: find_hypervisor: refused'
