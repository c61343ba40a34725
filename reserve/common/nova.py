"""The nova calls reserve needs (python-novaclient), each idempotent."""
import time

from keystoneauth1 import exceptions as ks_exc
from novaclient import client as nova_client
from novaclient import exceptions as nova_exc
from oslo_config import cfg
from oslo_log import log as logging

from reserve.common import exception
from reserve.common import keystone

CONF = cfg.CONF
LOG = logging.getLogger(__name__)


@exception.translate_cloud_errors('nova', nova_exc.ClientException,
                                  ks_exc.ClientException)
class NovaClient:
    def __init__(self, client=None):
        self._client = client

    @property
    def nova(self):
        if self._client is None:
            adapter = keystone.get_adapter('nova')
            self._client = nova_client.Client(
                CONF.nova.api_version, session=adapter.session,
                endpoint_override=adapter.endpoint_override,
                region_name=adapter.region_name,
                # novaclient's name for the endpoint interface
                # ('interface' is deprecated there, and warns).
                endpoint_type=adapter.interface,
                service_type=adapter.service_type)
        return self._client

    # hypervisors -------------------------------------------------------

    def find_hypervisor(self, name):
        """The hypervisor whose hypervisor_hostname is ``name``, or None."""
        try:
            matches = self.nova.hypervisors.search(name, detailed=True)
        except nova_exc.NotFound:
            return None
        for hypervisor in matches:
            if hypervisor.hypervisor_hostname == name:
                return hypervisor
        return None

    def compute_services(self, host):
        """The nova-compute services of service host ``host`` (os-services),
        each {host, status, state, disabled_reason, forced_down}."""
        return [{'host': service.host, 'status': service.status,
                 'state': service.state,
                 'disabled_reason': getattr(service, 'disabled_reason', None),
                 'forced_down': getattr(service, 'forced_down', False)}
                for service in self.nova.services.list(
                    host=host, binary='nova-compute')]

    # flavors -----------------------------------------------------------

    def get_flavor(self, flavor_id):
        """A flavor by id or name, with its extra specs; None if unknown."""
        try:
            flavor = self.nova.flavors.get(flavor_id)
        except nova_exc.NotFound:
            try:
                flavor = self.nova.flavors.find(name=flavor_id,
                                                is_public=None)
            except nova_exc.NotFound:
                return None
        return flavor

    def flavor_extra_specs(self, flavor):
        return dict(flavor.get_keys())

    def find_flavor(self, flavor_id):
        """A flavor by id only, or None."""
        try:
            return self.nova.flavors.get(flavor_id)
        except nova_exc.NotFound:
            return None

    def list_flavors(self):
        """Every flavor, public or private (what an admin sees)."""
        return self.nova.flavors.list(is_public=None)

    def ensure_flavor(self, flavor_id, name, vcpus, ram, disk, ephemeral,
                      swap, extra_specs):
        """The private flavor of a reservation, created if missing, with
        exactly ``extra_specs``. Returns (whether it was created, the
        spec changes of set_flavor_specs)."""
        flavor = self.find_flavor(flavor_id)
        created = flavor is None
        if created:
            try:
                flavor = self.nova.flavors.create(
                    name, ram, vcpus, disk, flavorid=flavor_id,
                    ephemeral=ephemeral, swap=swap, is_public=False)
            except nova_exc.Conflict:
                flavor = self.nova.flavors.get(flavor_id)
                created = False
        return created, self.set_flavor_specs(flavor, extra_specs)

    def set_flavor_specs(self, flavor, wanted):
        """Make the flavor's extra specs exactly ``wanted``, writing only
        what differs. Returns {key: (found, wanted)}, None standing for
        absent (a key added by hand has wanted None)."""
        current = dict(flavor.get_keys())
        wanted = {k: str(v) for k, v in wanted.items()}
        changes = {k: (current.get(k), v) for k, v in wanted.items()
                   if current.get(k) != v}
        if changes:
            flavor.set_keys({k: v for k, (_, v) in changes.items()})
        extra = sorted(set(current) - set(wanted))
        if extra:
            flavor.unset_keys(extra)
        changes.update((k, (current[k], None)) for k in extra)
        return changes

    def merge_flavor_specs(self, flavor_id, wanted):
        """Give an existing flavor the extra specs ``wanted``, leaving its
        others alone; returns the keys written ([] when all were so), or
        None when the flavor does not exist."""
        flavor = self.find_flavor(flavor_id)
        if flavor is None:
            return None
        current = dict(flavor.get_keys())
        wanted = {k: str(v) for k, v in wanted.items()
                  if current.get(k) != str(v)}
        if wanted:
            flavor.set_keys(wanted)
        return sorted(wanted)

    def delete_flavor(self, flavor_id):
        """True if the flavor existed."""
        try:
            self.nova.flavors.delete(flavor_id)
        except nova_exc.NotFound:
            return False
        return True

    def flavor_projects(self, flavor_id):
        """The projects granted a private flavor."""
        return {a.tenant_id for a in
                self.nova.flavor_access.list(flavor=flavor_id)}

    def add_flavor_access(self, flavor_id, project_id):
        """Grant the project the flavor; True if it lacked it."""
        if project_id in self.flavor_projects(flavor_id):
            return False
        try:
            self.nova.flavor_access.add_tenant_access(flavor_id, project_id)
        except nova_exc.Conflict:
            return False  # granted concurrently
        return True

    def flavor_access(self, flavor_id):
        """The projects a private flavor is granted to, sorted."""
        return sorted(grant.tenant_id for grant in
                      self.nova.flavor_access.list(flavor=flavor_id))

    def remove_flavor_access(self, flavor_id, project_id):
        try:
            self.nova.flavor_access.remove_tenant_access(flavor_id,
                                                         project_id)
        except nova_exc.NotFound:
            pass  # flavor or grant already gone

    # aggregates --------------------------------------------------------

    def list_aggregates(self):
        return self.nova.aggregates.list()

    def find_aggregate(self, name):
        for aggregate in self.list_aggregates():
            if aggregate.name == name:
                return aggregate
        return None

    def ensure_aggregate(self, name, metadata):
        return self.repair_aggregate(name, metadata)[0]

    def repair_aggregate(self, name, metadata, owned_prefix=None):
        """Aggregate ``name`` with ``metadata`` (other keys kept, but for
        those beginning with ``owned_prefix``, which go), created if
        missing. Returns (the aggregate, whether it was created, the
        keys that had to be set or removed, sorted)."""
        aggregate = self.find_aggregate(name)
        created = aggregate is None
        if created:
            try:
                aggregate = self.nova.aggregates.create(name, None)
            except nova_exc.Conflict:
                aggregate = self.find_aggregate(name)
                created = False
        if owned_prefix:
            # A value of None removes the key.
            metadata = dict(
                {k: None for k in aggregate.metadata
                 if k.startswith(owned_prefix)}, **metadata)
        missing = {k: v for k, v in metadata.items()
                   if aggregate.metadata.get(k) != v}
        if missing:
            aggregate = self.nova.aggregates.set_metadata(aggregate, missing)
        return aggregate, created, sorted(missing)

    def add_aggregate_host(self, name, host):
        """Put ``host`` (a service host) in aggregate ``name``; True if
        it was not there yet."""
        aggregate = self.find_aggregate(name)
        if aggregate is None:
            raise exception.CloudError(service='nova',
                                       reason='aggregate %s is gone' % name)
        if host in aggregate.hosts:
            return False
        try:
            self.nova.aggregates.add_host(aggregate, host)
        except nova_exc.Conflict:
            pass  # added concurrently
        return True

    def remove_aggregate_host(self, name, host):
        """Take ``host`` out of aggregate ``name``; True if it was in."""
        aggregate = self.find_aggregate(name)
        if aggregate is None or host not in aggregate.hosts:
            return False
        try:
            self.nova.aggregates.remove_host(aggregate, host)
        except nova_exc.NotFound:
            return False  # removed concurrently
        return True

    def delete_aggregate(self, name):
        """Empty and delete aggregate ``name``; True if it existed."""
        aggregate = self.find_aggregate(name)
        if aggregate is None:
            return False
        for host in list(aggregate.hosts):
            try:
                self.nova.aggregates.remove_host(aggregate, host)
            except (nova_exc.NotFound, nova_exc.Conflict):
                pass
        try:
            self.nova.aggregates.delete(aggregate)
        except nova_exc.NotFound:
            return False
        return True

    # servers -----------------------------------------------------------

    def list_servers_of_flavor(self, flavor_id):
        return self.nova.servers.list(
            search_opts={'flavor': flavor_id, 'all_tenants': 1},
            detailed=False)

    def server_exists(self, server_id):
        try:
            self.nova.servers.get(server_id)
        except nova_exc.NotFound:
            return False
        return True

    def ask_server_deletion(self, server_ids):
        """Ask nova to delete each server, without waiting; one that
        refuses now is logged and left for the next ask."""
        for server_id in server_ids:
            self._ask_deletion(server_id)

    def _ask_deletion(self, server_id):
        """Whether nova took the deletion (or the server is gone)."""
        try:
            self.nova.servers.delete(server_id)
        except nova_exc.NotFound:
            pass
        except Exception as exc:  # keep going with the others
            LOG.warning('Deleting server %s failed: %s', server_id, exc)
            return False
        return True

    def shelve_server(self, server_id):
        """Ask nova to shelve a server; False when it is gone."""
        try:
            self.nova.servers.shelve(server_id)
        except nova_exc.NotFound:
            return False
        return True

    def servers(self, **search_opts):
        """The servers of every project matching ``search_opts`` (flavor,
        host), each {id, name, status, project_id, host, flavor}: host
        is the administrator's OS-EXT-SRV-ATTR:host, flavor the flavor's
        name (from 2.47 a server shows no flavor id)."""
        found = self.nova.servers.list(
            search_opts=dict(search_opts, all_tenants=1), detailed=True)
        return [_server_view(server) for server in found]

    def delete_servers_of_flavor(self, flavor_id, timeout, interval):
        """Delete every server booted with the flavor and wait them gone.

        Raises ServerDeletionTimeout when some remain after ``timeout``
        (their ids in its ``server_ids``).
        """
        deadline = time.monotonic() + timeout
        asked = set()
        while True:
            servers = self.list_servers_of_flavor(flavor_id)
            if not servers:
                return
            for server in servers:
                if server.id not in asked and self._ask_deletion(server.id):
                    asked.add(server.id)
            if time.monotonic() >= deadline:
                server_ids = sorted(s.id for s in servers)
                raise exception.ServerDeletionTimeout(
                    servers=', '.join(server_ids), server_ids=server_ids,
                    flavor=flavor_id, timeout=timeout)
            time.sleep(interval)


def _server_view(server):
    flavor = getattr(server, 'flavor', None) or {}
    return {'id': server.id, 'name': getattr(server, 'name', None),
            'status': getattr(server, 'status', None),
            'project_id': getattr(server, 'tenant_id', None),
            'user_id': getattr(server, 'user_id', None),
            'host': getattr(server, 'OS-EXT-SRV-ATTR:host', None),
            'flavor': flavor.get('original_name') or flavor.get('id'),
            'created': getattr(server, 'created', None)}
