"""An in-memory stand-in for the python-novaclient calls reserve makes.

It answers as a real nova 2.79 does, errors included: NotFound for what
is missing, Conflict for duplicates (an existing flavor id or name, an
access already granted, a host already in an aggregate), and servers
that disappear some polls after their deletion is asked. The integration
suite runs the same code against a real nova. An administrator's view:
servers of every project carry their host (``OS-EXT-SRV-ATTR:host``)
and, as from 2.47, their flavor's ``original_name`` instead of its id;
a list that is not detailed holds ids and names only.
"""
import itertools
import uuid

from keystoneauth1 import exceptions as ks_exc
from novaclient import exceptions as nova_exc

# What an administrator sees of a server's compute host.
HOST_ATTR = 'OS-EXT-SRV-ATTR:host'


class _Obj:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


class Flavor(_Obj):
    def get_keys(self):
        return dict(self._specs)

    def set_keys(self, specs):
        self._specs.update({k: str(v) for k, v in specs.items()})

    def unset_keys(self, keys):
        for key in keys:
            self._specs.pop(key, None)


class _Flavors:
    def __init__(self, cloud):
        self.cloud = cloud

    def get(self, flavor_id):
        try:
            return self.cloud.flavors[str(flavor_id)]
        except KeyError:
            raise nova_exc.NotFound(404, 'Flavor %s could not be found.' %
                                    flavor_id)

    def list(self, detailed=True, is_public=True):
        # is_public None: public and private, as an admin asks.
        return [f for f in self.cloud.flavors.values()
                if is_public is None or f.is_public == is_public]

    def find(self, name, is_public=None):
        for flavor in self.cloud.flavors.values():
            if flavor.name == name:
                return flavor
        raise nova_exc.NotFound(404, 'No Flavor matching %s' % name)

    def create(self, name, ram, vcpus, disk, flavorid='auto', ephemeral=0,
               swap=0, rxtx_factor=1.0, is_public=True, description=None):
        flavorid = str(uuid.uuid4()) if flavorid == 'auto' else flavorid
        if flavorid in self.cloud.flavors or any(
                f.name == name for f in self.cloud.flavors.values()):
            raise nova_exc.Conflict(409, 'Flavor with ID %s or name %s '
                                    'already exists.' % (flavorid, name))
        flavor = Flavor(id=flavorid, name=name, ram=ram, vcpus=vcpus,
                        disk=disk, swap=swap or 0, is_public=is_public,
                        _specs={}, **{'OS-FLV-EXT-DATA:ephemeral':
                                      ephemeral})
        self.cloud.flavors[flavorid] = flavor
        return flavor

    def delete(self, flavor_id):
        self.get(flavor_id)
        del self.cloud.flavors[flavor_id]
        self.cloud.access.pop(flavor_id, None)


class _FlavorAccess:
    def __init__(self, cloud):
        self.cloud = cloud

    def add_tenant_access(self, flavor, tenant):
        flavor_id = getattr(flavor, 'id', flavor)
        found = self.cloud.nova.flavors.get(flavor_id)
        if found.is_public:
            raise nova_exc.Conflict(409, 'Can not add access to a public '
                                    'flavor.')
        grants = self.cloud.access.setdefault(flavor_id, set())
        if tenant in grants:
            raise nova_exc.Conflict(409, 'Flavor access already exists for '
                                    'flavor %s and project %s combination.'
                                    % (flavor_id, tenant))
        grants.add(tenant)

    def remove_tenant_access(self, flavor, tenant):
        flavor_id = getattr(flavor, 'id', flavor)
        self.cloud.nova.flavors.get(flavor_id)
        grants = self.cloud.access.get(flavor_id, set())
        if tenant not in grants:
            raise nova_exc.NotFound(404, 'Flavor access not found for %s / '
                                    '%s combination.' % (flavor_id, tenant))
        grants.discard(tenant)

    def list(self, flavor):
        flavor_id = getattr(flavor, 'id', flavor)
        return [_Obj(flavor_id=flavor_id, tenant_id=t)
                for t in sorted(self.cloud.access.get(flavor_id, ()))]


class _Aggregates:
    def __init__(self, cloud):
        self.cloud = cloud
        self._ids = itertools.count(1)

    def list(self):
        return list(self.cloud.aggregates.values())

    def _get(self, aggregate):
        agg_id = getattr(aggregate, 'id', aggregate)
        try:
            return self.cloud.aggregates[agg_id]
        except KeyError:
            raise nova_exc.NotFound(404, 'Aggregate %s could not be found.'
                                    % agg_id)

    def create(self, name, availability_zone):
        if any(a.name == name for a in self.cloud.aggregates.values()):
            raise nova_exc.Conflict(409, 'Aggregate %s already exists.' %
                                    name)
        agg = _Obj(id=next(self._ids), name=name, hosts=[], metadata={},
                   availability_zone=availability_zone)
        self.cloud.aggregates[agg.id] = agg
        return agg

    def set_metadata(self, aggregate, metadata):
        agg = self._get(aggregate)
        for key, value in metadata.items():
            if value is None:
                agg.metadata.pop(key, None)
            else:
                agg.metadata[key] = value
        return agg

    def add_host(self, aggregate, host):
        agg = self._get(aggregate)
        if host not in self.cloud.service_hosts():
            raise nova_exc.NotFound(404, 'Compute host %s could not be '
                                    'found.' % host)
        if host in agg.hosts:
            raise nova_exc.Conflict(409, 'Aggregate %s already has host %s.'
                                    % (agg.id, host))
        agg.hosts.append(host)
        return agg

    def remove_host(self, aggregate, host):
        agg = self._get(aggregate)
        if host not in agg.hosts:
            raise nova_exc.NotFound(404, 'Cannot remove host %s from '
                                    'aggregate %s.' % (host, agg.id))
        agg.hosts.remove(host)
        return agg

    def delete(self, aggregate):
        agg = self._get(aggregate)
        if agg.hosts:
            raise nova_exc.BadRequest(400, 'Cannot remove aggregate with '
                                      'hosts.')
        del self.cloud.aggregates[agg.id]


def _answer(cloud):
    """A nova that is down answers nothing: keystoneauth cannot reach
    its endpoint."""
    if cloud.down:
        raise ks_exc.ConnectFailure('Unable to establish connection to '
                                    'http://nova.example.org:8774')


class _Services:
    """os-services: one nova-compute per service host."""

    def __init__(self, cloud):
        self.cloud = cloud

    def list(self, host=None, binary=None):
        _answer(self.cloud)
        return [s for s in self.cloud.services.values()
                if (host is None or s.host == host) and
                (binary is None or s.binary == binary)]


class _Hypervisors:
    def __init__(self, cloud):
        self.cloud = cloud

    def search(self, hypervisor_match, servers=False, detailed=False):
        _answer(self.cloud)
        found = [h for h in self.cloud.hypervisors
                 if hypervisor_match in h.hypervisor_hostname]
        if not found:
            raise nova_exc.NotFound(404, 'No hypervisor matching %r could '
                                    'be found.' % hypervisor_match)
        return found


class _Servers:
    def __init__(self, cloud):
        self.cloud = cloud

    def list(self, search_opts=None, detailed=True):
        search_opts = search_opts or {}
        servers = list(self.cloud.servers.values())
        if 'flavor' in search_opts:
            servers = [s for s in servers
                       if s.flavor_id == search_opts['flavor']]
        if 'host' in search_opts:
            servers = [s for s in servers
                       if getattr(s, HOST_ATTR) == search_opts['host']]
        if not detailed:
            return [_Obj(id=s.id, name=s.name) for s in servers]
        return servers

    def get(self, server):
        server_id = getattr(server, 'id', server)
        if server_id not in self.cloud.servers:
            raise nova_exc.NotFound(404, 'Instance %s could not be found.'
                                    % server_id)
        return self.cloud.servers[server_id]

    def delete(self, server):
        server = self.get(server)
        # Asked again while deleting: it goes when the first ask says.
        self.cloud.deleting.setdefault(server.id, self.cloud.delete_polls)

    def shelve(self, server):
        server = self.get(server)
        if server.status not in ('ACTIVE', 'SHUTOFF', 'PAUSED',
                                 'SUSPENDED'):
            raise nova_exc.Conflict(409, "Cannot 'shelve' instance %s while "
                                    "it is in vm_state %s" % (
                                        server.id, server.status.lower()))
        # [DEFAULT]shelved_offload_time = 0: offloaded at once, its host
        # and allocations freed.
        server.status = 'SHELVED_OFFLOADED'
        setattr(server, HOST_ATTR, None)


class FakeNova:
    """What NovaClient.nova returns: the managers reserve uses."""

    def __init__(self, cloud):
        self.flavors = _Flavors(cloud)
        self.flavor_access = _FlavorAccess(cloud)
        self.aggregates = _Aggregates(cloud)
        self.hypervisors = _Hypervisors(cloud)
        self.services = _Services(cloud)
        self.servers = _Servers(cloud)


class FakeCloud:
    """The state behind FakeNova, with helpers for tests."""

    def __init__(self, delete_polls=0):
        self.flavors = {}
        self.access = {}
        self.aggregates = {}
        self.hypervisors = []
        self.services = {}
        # True: every call of the health checks fails to connect.
        self.down = False
        self.servers = {}
        self.booted = 0
        self.deleting = {}
        # How many list calls a deleted server survives; -1: never goes.
        self.delete_polls = delete_polls
        self.nova = FakeNova(self)
        for name in ('list', 'get'):
            setattr(self.nova.servers, name,
                    self._then_reap(getattr(self.nova.servers, name)))

    def _then_reap(self, call):
        """``call``, after which servers being deleted come one poll
        nearer to going."""
        def answer_and_reap(*args, **kwargs):
            try:
                return call(*args, **kwargs)
            finally:
                for server_id, left in list(self.deleting.items()):
                    if left == 0:
                        self.servers.pop(server_id, None)
                        del self.deleting[server_id]
                    elif left > 0:
                        self.deleting[server_id] = left - 1
        return answer_and_reap

    def unstick(self, server_id):
        """nova finally deletes a server stuck in deleting."""
        self.servers.pop(server_id, None)
        self.deleting.pop(server_id, None)

    def service_hosts(self):
        return {h.service['host'] for h in self.hypervisors}

    def add_hypervisor(self, name, provider_uuid, vcpus=32,
                       memory_mb=131072, local_gb=1000, service_host=None):
        hypervisor = _Obj(id=provider_uuid, hypervisor_hostname=name,
                          service={'host': service_host or name, 'id': 1},
                          vcpus=vcpus, memory_mb=memory_mb,
                          local_gb=local_gb, state='up', status='enabled')
        self.hypervisors.append(hypervisor)
        host = hypervisor.service['host']
        self.services.setdefault(host, _Obj(
            id=len(self.services) + 1, binary='nova-compute', host=host,
            zone='nova', state='up', status='enabled',
            disabled_reason=None, forced_down=False))
        return hypervisor

    def set_service(self, host, state=None, status=None, reason=None):
        """What os-services says of the nova-compute of ``host``: state
        'up' or 'down', status 'enabled' or 'disabled' (with its
        reason)."""
        service = self.services[host]
        if state is not None:
            service.state = state
        if status is not None:
            service.status = status
            service.disabled_reason = reason if status == 'disabled' \
                else None

    def remove_hypervisor(self, name):
        """The compute node is deleted: its hypervisor is gone, and its
        service too once no hypervisor of that host is left."""
        gone = [h for h in self.hypervisors
                if h.hypervisor_hostname == name]
        self.hypervisors = [h for h in self.hypervisors if h not in gone]
        for hypervisor in gone:
            if hypervisor.service['host'] not in self.service_hosts():
                self.services.pop(hypervisor.service['host'], None)
        return gone

    def boot(self, flavor_id, project_id, host=None, name=None):
        """A server of ``flavor_id`` (its id) on service host ``host``."""
        flavor = self.flavors.get(str(flavor_id))
        self.booted += 1
        server = _Obj(id=str(uuid.uuid4()), flavor_id=flavor_id,
                      tenant_id=project_id, status='ACTIVE',
                      # nova's created is to the second: the order of
                      # boots is kept apart by a counter.
                      created='2026-01-01T00:%02d:%02dZ' % divmod(
                          self.booted % 3600, 60),
                      flavor={'original_name': flavor.name if flavor
                              else str(flavor_id)},
                      **{HOST_ATTR: host})
        server.name = name or 'server-%s' % server.id[:8]
        self.servers[server.id] = server
        return server
