"""The hosts of the reserve API."""
from reserveclient.v1 import base


class HostManager(base.Manager):
    """/v1/hosts: hypervisors enrolled for reservations."""

    path = '/v1/hosts'
    key = 'host'
    collection_key = 'hosts'
    what = 'host'

    def list(self, reservable=None, limit=None, marker=None):
        params = {}
        if reservable is not None:
            params['reservable'] = 'true' if reservable else 'false'
        return self._list(params, limit=limit, marker=marker)

    def create(self, name, capabilities=None, reservable=None, uri=None):
        """A nova hypervisor by name, or a libvirt host by ``uri``."""
        body = {'name': name}
        if uri:
            body['uri'] = uri
        if capabilities:
            body['capabilities'] = capabilities
        if reservable is not None:
            body['reservable'] = reservable
        return self._create(body)

    def update(self, host_ref, capabilities=None, reservable=None):
        """capabilities maps keys to values; a None value drops the key."""
        body = {}
        if capabilities:
            body['capabilities'] = capabilities
        if reservable is not None:
            body['reservable'] = reservable
        return self._update(host_ref, body)
