"""The owners recorded for domains of libvirt hosts (administrators)."""
from reserveclient.v1 import base
from reserveclient.v1 import httpclient


class DomainOwnerManager(base.Manager):
    """/v1/hosts/{host}/domain-owners: the project that owns each domain
    of a libvirt host not run by nova (GPU devices of its reservations may
    go into it)."""

    key = 'domain_owner'
    collection_key = 'domain_owners'
    what = 'domain owner'

    def _path(self, host_ref, domain=None):
        path = '/v1/hosts/%s/domain-owners' % httpclient.quote(host_ref)
        if domain is not None:
            path += '/' + httpclient.quote(domain)
        return path

    def list(self, host_ref):
        return self.http.get(self._path(host_ref))[self.collection_key]

    def get(self, host_ref, domain):
        return self.http.get(self._path(host_ref, domain))[self.key]

    def create(self, host_ref, domain, project_id):
        return self.http.post(self._path(host_ref), {
            'domain': domain, 'project_id': project_id})[self.key]

    def update(self, host_ref, domain, project_id):
        return self.http.patch(self._path(host_ref, domain),
                               {'project_id': project_id})[self.key]

    def delete(self, host_ref, domain):
        self.http.delete(self._path(host_ref, domain))
