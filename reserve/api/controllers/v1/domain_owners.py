"""/v1/hosts/{id}/domain-owners: the project that owns each domain of a
libvirt host not run by nova (administrators).

A GPU device goes only into a domain of one of its reservation's projects
(reserve.devices.owners). On a host run by nova the owner is what nova
wrote into the domain's metadata; on the others it is the record kept
here: ``POST`` records one (``{"domain", "project_id"}``), ``PATCH
/{domain}`` changes it, ``DELETE /{domain}`` forgets it (only
administrators' reservations may then hand the domain devices). A record
may name a domain the host does not have yet. An end never touches a
domain whose owner changed since its devices were attached.
"""
from oslo_log import log as logging
from pecan import rest

from reserve.api.controllers.v1 import method
from reserve.api.controllers.v1 import utils
from reserve.api.schemas import domain_owners as schema
from reserve.api.views import domain_owners as views
from reserve.common import exception
from reserve.common.policies import domain_owners as policies
from reserve.db import domain_owners as owners_db
from reserve.db import hosts as hosts_db
from reserve.devices import owners
from reserve.devices import states

LOG = logging.getLogger(__name__)
PATH = '/v1/hosts/%s/domain-owners'


class DomainOwnersController(rest.RestController):
    """/v1/hosts/{id}/domain-owners[/{domain}]."""

    def __init__(self, host_ref):
        self.host_ref = host_ref

    def _host(self, ctx):
        host = hosts_db.host_get(ctx, self.host_ref)
        if host.kind != states.LIBVIRT:
            raise exception.HostNotLibvirt(name=host.name, kind=host.kind)
        return host

    def _record(self, ctx, host, domain):
        found = owners_db.owner_get(ctx, host.id, domain)
        if found is None:
            raise exception.DomainOwnerNotFound(name=domain, host=host.name)
        return found

    @method.expose(policy=policies.LIST, params=())
    def get_all(self, *, ctx):
        host = self._host(ctx)
        return {'domain_owners': [views.owner_view(o) for o in
                                  owners_db.owner_list(ctx, host.id)]}

    @method.expose(policy=policies.GET, params=())
    def get_one(self, domain, *, ctx):
        host = self._host(ctx)
        return {'domain_owner': views.owner_view(
            self._record(ctx, host, domain))}

    @method.expose(policy=policies.CREATE, body=schema.create, status=201,
                   item_methods='GET, PATCH, DELETE')
    def post(self, *args, ctx, body):
        host = self._host(ctx)
        if owners.run_by_nova(ctx, host):
            raise exception.HostRunByNova(name=host.name)
        found = owners_db.owner_get(ctx, host.id, body['domain'])
        if found is not None:
            raise exception.DomainOwnerExists(
                name=body['domain'], host=host.name,
                project_id=found.project_id)
        record = owners_db.owner_set(ctx, host.id, body['domain'],
                                     body['project_id'])
        LOG.info('Domain %s of host %s recorded as project %s\'s',
                 record.domain, host.name, record.project_id)
        utils.set_location('%s/%s' % (PATH % host.id, record.domain))
        return {'domain_owner': views.owner_view(record)}

    @method.expose(policy=policies.UPDATE, body=schema.update,
                   collection_methods='GET, POST')
    def patch(self, domain=None, *, ctx, body):
        host = self._host(ctx)
        before = self._record(ctx, host, domain)
        record = owners_db.owner_set(ctx, host.id, domain,
                                     body['project_id'])
        LOG.info('Domain %s of host %s moved from project %s to %s',
                 domain, host.name, before.project_id, record.project_id)
        return {'domain_owner': views.owner_view(record)}

    @method.expose(policy=policies.DELETE, status=204,
                   collection_methods='GET, POST')
    def delete(self, domain=None, *, ctx):
        host = self._host(ctx)
        if not owners_db.owner_delete(ctx, host.id, domain):
            raise exception.DomainOwnerNotFound(name=domain, host=host.name)
